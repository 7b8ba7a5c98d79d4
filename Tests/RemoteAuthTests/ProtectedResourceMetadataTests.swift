import HTTPTypes
import RemoteAuth
import Testing

/// RFC 9728: the well-known URL (§3.1), the response (§3.2, its example), the `resource` check
/// (§3.3), and `resource_metadata` in a challenge (§5.1, its example).
@Suite struct ProtectedResourceMetadataTests {
    typealias PRM = OAuth2.ProtectedResourceMetadata

    @Test func wellKnownURLs() throws {
        #expect(
            try PRM.wellKnownURL(resource: "https://resource.example.com/resource1")
                == "https://resource.example.com/.well-known/oauth-protected-resource/resource1"
        )
        #expect(
            try PRM.wellKnownURL(resource: "https://resource.example.com")
                == "https://resource.example.com/.well-known/oauth-protected-resource"
        )
        #expect(
            try PRM.wellKnownURL(resource: "https://resource.example.com/a/b/")
                == "https://resource.example.com/.well-known/oauth-protected-resource/a/b"
        )
        #expect(throws: OAuth2.Error.self) { try PRM.wellKnownURL(resource: "https://resource.example.com/?x=1") }
        #expect(throws: OAuth2.Error.self) { try PRM.wellKnownURL(resource: "http://resource.example.com/") }
    }

    /// RFC 9728 §3.2's example response.
    static let example = #"""
        {"resource": "https://resource.example.com",
         "authorization_servers": ["https://as1.example.com", "https://as2.example.net"],
         "bearer_methods_supported": ["header", "body"],
         "scopes_supported": ["profile", "email", "phone"],
         "resource_documentation": "https://resource.example.com/resource_documentation.html"}
        """#

    @Test func exampleResponseAndItsResourceCheck() throws {
        let metadata = try PRM.parse(status: 200, body: Array(Self.example.utf8), expectedResource: "https://resource.example.com")
        #expect(metadata.authorizationServers == ["https://as1.example.com", "https://as2.example.net"])
        #expect(metadata.bearerMethodsSupported == ["header", "body"])
        #expect(metadata.scopesSupported == ["profile", "email", "phone"])
        #expect(metadata.resourceDocumentation == "https://resource.example.com/resource_documentation.html")
        #expect(!metadata.dpopBoundAccessTokensRequired)
        #expect(metadata.members.count == 5)

        let mismatch = #expect(throws: OAuth2.Error.self) {
            try PRM.parse(status: 200, body: Array(Self.example.utf8), expectedResource: "https://resource.example.com/api")
        }
        #expect(mismatch?.code == .resourceMismatch)
        for body in [
            #"{"authorization_servers": ["https://as.example"]}"#, #"{"resource": 7}"#,
            #"{"resource": "https://r.example", "authorization_servers": "https://as.example"}"#,
            #"{"resource": "https://r.example", "dpop_bound_access_tokens_required": "yes"}"#,
            #"{"resource": "https://r.example", "authorization_servers": ["http://as.example"]}"#,
        ] {
            #expect(throws: OAuth2.Error.self, "\(body)") {
                try PRM.parse(status: 200, body: Array(body.utf8), expectedResource: "https://r.example")
            }
        }
    }

    /// RFC 9728 §5.1's example challenge.
    @Test func resourceMetadataInAChallenge() {
        var response = HTTPResponse(status: .unauthorized)
        response.headerFields[.wwwAuthenticate] =
            #"Bearer resource_metadata="https://resource.example.com/.well-known/oauth-protected-resource""#
        #expect(PRM.metadataURL(in: response) == "https://resource.example.com/.well-known/oauth-protected-resource")
        response.headerFields[.wwwAuthenticate] = #"Basic realm="x""#
        #expect(PRM.metadataURL(in: response) == nil)
    }
}
