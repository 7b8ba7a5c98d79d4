import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthSandbox
import Testing

private typealias W = OAuth2Wire

/// The sandbox's protected resources (issue 26): every scheme in the status API's `401`
/// (RFC 9110 §11.6.1), `resource_metadata` in the Bearer and DPoP challenges (RFC 9728 §5.1),
/// the metadata documents (RFC 9728 §3) and tokens bound to one resource (RFC 8707).
@Suite(.timeLimit(.minutes(5))) struct SandboxResourceTests {
    static let algs = "ES256 Ed25519 EdDSA PS256 RS256"

    /// Every `WWW-Authenticate` field line, in order.
    static func challenges(_ exchange: Exchange) -> [String] {
        exchange.headers.filter { $0.0.lowercased() == "www-authenticate" }.map(\.1)
    }

    @Test("A status-API request with no credentials gets the OAuth, Bearer and DPoP challenges")
    func everySchemeWithoutCredentials() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let metadata = base + "/.well-known/oauth-protected-resource/1.1"
            for path in ["/1.1", "/1.1/statuses/home_timeline.json", "/1.1/account/verify_credentials.json"] {
                let answer = try await Wire.get(base + path)
                #expect(answer.status == 401, "\(path)")
                #expect(
                    Self.challenges(answer) == [
                        "OAuth realm=\"RemoteAuth Sandbox\", oauth_problem=\"parameter_absent\"",
                        "Bearer realm=\"RemoteAuth Sandbox\", resource_metadata=\"\(metadata)\"",
                        "DPoP algs=\"\(Self.algs)\", resource_metadata=\"\(metadata)\"",
                    ],
                    "\(path)"
                )
                #expect(answer.form["oauth_problem"] == "parameter_absent")
            }
            // The challenge's resource_metadata is what a client reads (RFC 9728 §5.1).
            let root = try await Wire.get(base + "/1.1")
            var fields = HTTPFields()
            for (name, value) in root.headers {
                fields.append(HTTPField(name: try #require(.init(name)), value: value))
            }
            #expect(
                OAuth2.ProtectedResourceMetadata.metadataURL(
                    in: HTTPResponse(status: .unauthorized, headerFields: fields)
                )
                    == metadata
            )

            // A signed request that fails keeps its OAuth challenge alone: its client chose OAuth 1.0a.
            let signed = try await Wire.get(
                base + "/1.1/account/verify_credentials.json",
                headers: [.authorization: "OAuth oauth_consumer_key=\"nobody\""]
            )
            #expect(signed.status == 400)
            #expect(
                Self.challenges(signed) == ["OAuth realm=\"RemoteAuth Sandbox\", oauth_problem=\"parameter_absent\""]
            )
        }
    }

    @Test("Bearer and DPoP error challenges carry resource_metadata")
    func errorChallenges() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let metadata = base + "/.well-known/oauth-protected-resource/1.1"
            let bogus = try await W.bearer(base + "/1.1/statuses/home_timeline.json", "bogus")
            #expect(bogus.status == 401)
            #expect(
                Self.challenges(bogus) == [
                    "Bearer realm=\"RemoteAuth Sandbox\", error=\"invalid_token\", resource_metadata=\"\(metadata)\""
                ]
            )
            let dpop = try await Wire.get(
                base + "/1.1/statuses/home_timeline.json",
                headers: [.authorization: "DPoP bogus"]
            )
            #expect(dpop.status == 401)
            #expect(
                Self.challenges(dpop) == [
                    "DPoP algs=\"\(Self.algs)\", error=\"invalid_token\", resource_metadata=\"\(metadata)\""
                ]
            )
        }
    }
}
