import Foundation
import HTTPTypes
import RemoteAuth
import Testing

@Suite struct OAuth2DiscoveryTests {
    @Test(arguments: [
        ("https://example.com", "https://example.com/.well-known/oauth-authorization-server"),
        ("https://example.com/", "https://example.com/.well-known/oauth-authorization-server"),
        // RFC 8414 §3.1: inserted between the host and the path.
        ("https://example.com/issuer1", "https://example.com/.well-known/oauth-authorization-server/issuer1"),
        ("https://example.com/tenant/a/", "https://example.com/.well-known/oauth-authorization-server/tenant/a"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080/.well-known/oauth-authorization-server"),
    ])
    func oauthMetadataURL(_ issuer: String, _ expected: String) throws {
        #expect(try OAuth2.ServerMetadata.discoveryURL(issuer: issuer) == expected)
    }

    @Test(arguments: [
        ("https://example.com", "https://example.com/.well-known/openid-configuration"),
        ("https://example.com/issuer1", "https://example.com/issuer1/.well-known/openid-configuration"),
        ("https://example.com/issuer1/", "https://example.com/issuer1/.well-known/openid-configuration"),
    ])
    func openIDConfigurationURL(_ issuer: String, _ expected: String) throws {
        #expect(try OAuth2.ServerMetadata.discoveryURL(issuer: issuer, document: .openIDConfiguration) == expected)
    }

    @Test func issuersThatCannotBeDiscovered() {
        #expect(throws: OAuth2.Error(.insecureEndpoint, "")) {
            try OAuth2.ServerMetadata.discoveryURL(issuer: "http://example.com")
        }
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) {
            try OAuth2.ServerMetadata.discoveryURL(issuer: "https://example.com?x=1")
        }
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) {
            try OAuth2.ServerMetadata.discoveryURL(issuer: "https://example.com#f")
        }
    }

    @Test(arguments: try OAuth2ResponseVector.all("metadata_response"))
    func metadataVector(_ v: OAuth2ResponseVector) throws {
        let body = Array(try #require(v.body).utf8)
        let metadata = try OAuth2.ServerMetadata.parse(
            status: 200,
            body: body,
            expectedIssuer: "https://server.example.com"
        )
        #expect(metadata.issuer == "https://server.example.com")
        #expect(metadata.authorizationEndpoint == "https://server.example.com/authorize")
        #expect(metadata.tokenEndpoint == "https://server.example.com/token")
        #expect(metadata.userinfoEndpoint == "https://server.example.com/userinfo")
        #expect(metadata.jwksURI == "https://server.example.com/jwks.json")
        #expect(metadata.registrationEndpoint == "https://server.example.com/register")
        #expect(metadata.tokenEndpointAuthMethodsSupported == ["client_secret_basic", "private_key_jwt"])
        #expect(metadata.scopesSupported == ["openid", "profile", "email", "address", "phone", "offline_access"])
        #expect(metadata.responseTypesSupported == ["code", "code token"])
        #expect(!metadata.authorizationResponseIssParameterSupported)
        #expect(
            metadata.additionalParameters == [
                "token_endpoint_auth_signing_alg_values_supported": .array([.string("RS256"), .string("ES256")]),
                "service_documentation": .string("http://server.example.com/service_documentation.html"),
                "ui_locales_supported": .array(
                    ["en-US", "en-GB", "en-CA", "fr-FR", "fr-CA"].map(OAuth2.JSONValue.string)
                ),
            ]
        )
        // Codable: encoded and decoded again, nothing is lost.
        let again = try JSONDecoder().decode(OAuth2.ServerMetadata.self, from: JSONEncoder().encode(metadata))
        #expect(again == metadata)
        #expect(
            try JSONDecoder().decode(OAuth2.JSONValue.self, from: JSONEncoder().encode(metadata)) == v.expected_json
        )

        // RFC 8414 §3.3: another issuer, even by a trailing slash, is refused.
        for other in ["https://server.example.com/", "https://attacker.example", "https://SERVER.example.com"] {
            #expect(throws: OAuth2.Error(.issuerMismatch, "")) {
                try OAuth2.ServerMetadata.parse(status: 200, body: body, expectedIssuer: other)
            }
        }
        let server = OAuth2.AuthorizationServer(metadata: metadata)
        #expect(server.issuer == "https://server.example.com")
        #expect(server.tokenEndpoint == "https://server.example.com/token")
        #expect(server.deviceAuthorizationEndpoint == nil)
    }

    @Test func malformedMetadata() {
        for body in [
            #"{"token_endpoint":"https://e/t"}"#, #"{"issuer":1}"#, #"{"issuer":"https://e","scopes_supported":"a"}"#,
            "<html>",
        ] {
            #expect(throws: OAuth2.Error(.malformedResponse, ""), "\(body)") {
                try OAuth2.ServerMetadata.parse(status: 200, body: Array(body.utf8), expectedIssuer: "https://e")
            }
        }
        // The RFC 9207 flag is read.
        let flagged = try? OAuth2.ServerMetadata.parse(
            status: 200,
            body: Array(#"{"issuer":"https://e","authorization_response_iss_parameter_supported":true}"#.utf8),
            expectedIssuer: "https://e"
        )
        #expect(flagged?.authorizationResponseIssParameterSupported == true)
        #expect(flagged.map(OAuth2.AuthorizationServer.init(metadata:))?.requiresIssuerParameter == true)
    }

    @Test func discoverOverTheTransport() async throws {
        let body = #"{"issuer":"https://as.example/tenant","token_endpoint":"https://as.example/tenant/token"}"#
        let transport = ScriptedTransport([OAuth2Script.json(200, body), OAuth2Script.json(200, body)])
        let metadata = try await OAuth2.Flow.discover(issuer: "https://as.example/tenant", transport: transport)
        #expect(metadata.tokenEndpoint == "https://as.example/tenant/token")
        #expect(
            transport.sent.first?.request.absoluteURL
                == "https://as.example/.well-known/oauth-authorization-server/tenant"
        )
        #expect(transport.sent.first?.request.method == .get)
        await #expect(throws: OAuth2.Error(.issuerMismatch, "")) {
            try await OAuth2.Flow.discover(
                issuer: "https://as.example/other",
                document: .openIDConfiguration,
                transport: transport
            )
        }
        #expect(transport.sent.last?.request.absoluteURL == "https://as.example/other/.well-known/openid-configuration")
    }
}

/// Issue 23 (found against a provider nobody here wrote): one that serves only
/// `/.well-known/openid-configuration` is usable for a plain OAuth 2 flow with the fallback, and
/// a failed discovery names the URL it fetched.
@Suite struct OAuth2DiscoveryFallbackTests {
    @Test func anOpenIDOnlyProviderIsFoundWithTheFallback() async throws {
        let body = #"{"issuer":"https://op.example","token_endpoint":"https://op.example/token"}"#
        let transport = ScriptedTransport([
            OAuth2Script.json(404, #"{"error":"not_found"}"#), OAuth2Script.json(200, body),
        ])
        let metadata = try await OAuth2.Flow.discover(
            issuer: "https://op.example",
            transport: transport,
            fallingBackToOpenIDConfiguration: true
        )
        #expect(metadata.tokenEndpoint == "https://op.example/token")
        #expect(
            transport.sent.map(\.request.absoluteURL) == [
                "https://op.example/.well-known/oauth-authorization-server",
                "https://op.example/.well-known/openid-configuration",
            ]
        )
    }

    @Test func withoutTheFallbackA404NamesTheURL() async throws {
        let transport = ScriptedTransport([OAuth2Script.json(404, "{}")])
        let thrown = await #expect(throws: OAuth2.Error.self) {
            try await OAuth2.Flow.discover(issuer: "https://op.example/tenant", transport: transport)
        }
        #expect(thrown?.status == 404)
        #expect(
            thrown?.reason.hasPrefix("GET https://op.example/.well-known/oauth-authorization-server/tenant: HTTP 404")
                == true,
            "\(String(describing: thrown))"
        )
        #expect(transport.sent.count == 1)
    }
}

@Suite struct OAuth2IntrospectionRevocationTests {
    @Test(arguments: try OAuth2ResponseVector.all("introspection_response"))
    func introspectionVector(_ v: OAuth2ResponseVector) throws {
        let response = try OAuth2.IntrospectionResponse.parse(status: 200, body: Array(try #require(v.body).utf8))
        #expect(response.active == v.expected_active)
        #expect(response.clientID == v.member("client_id")?.stringValue)
        #expect(response.username == v.member("username")?.stringValue)
        #expect(response.subject == v.member("sub")?.stringValue)
        #expect(response.issuer == v.member("iss")?.stringValue)
        #expect(response.audience == v.member("aud")?.stringValue.map { [$0] })
        #expect(response.scope == v.member("scope")?.stringValue.map { $0.split(separator: " ").map(String.init) })
        #expect(response.expiresAt.map(OAuth2.JSONValue.integer) == v.member("exp"))
        #expect(response.issuedAt.map(OAuth2.JSONValue.integer) == v.member("iat"))
        #expect(response.notBefore.map(OAuth2.JSONValue.integer) == v.member("nbf"))
        let known: Set = ["active", "client_id", "username", "sub", "iss", "aud", "scope", "exp", "iat", "nbf"]
        guard case .object(let all)? = v.expected_json else { return }
        #expect(response.additionalParameters == all.filter { !known.contains($0.key) })
    }

    @Test func introspectionRefusals() {
        for body in [
            #"{"client_id":"x"}"#, #"{"active":"true"}"#, #"{"active":true,"exp":"later"}"#,
            #"{"active":true,"aud":[1]}"#,
        ] {
            #expect(throws: OAuth2.Error(.malformedResponse, ""), "\(body)") {
                try OAuth2.IntrospectionResponse.parse(status: 200, body: Array(body.utf8))
            }
        }
        #expect(throws: OAuth2.Error(.serverRefused, "", serverError: .init(code: .invalidClient))) {
            try OAuth2.IntrospectionResponse.parse(status: 401, body: Array(#"{"error":"invalid_client"}"#.utf8))
        }
    }

    @Test func revocationRequestVector() throws {
        let v = try #require(
            try OAuth2ResponseVector.all("form_request").first { $0.name == "rfc7009_2.1_revocation_request" }
        )
        let (request, body) = try OAuth2.Revocation.httpRequest(
            to: "https://server.example.com/revoke",
            client: OAuth2.Client(id: "s6BhdRkqt3", authentication: .clientSecretBasic("gX1fBat3bV")),
            token: "45ghiukldjahdnhzdauz",
            hint: .refreshToken
        )
        #expect(try OAuth2Script.form(body) == v.expected_params)
        #expect(String(decoding: body, as: UTF8.self) == v.body)
        #expect(request.headerFields[.authorization] == "Basic czZCaGRSa3F0MzpnWDFmQmF0M2JW")
        #expect(request.method == .post)
    }

    @Test func revocationResponses() throws {
        try OAuth2.Revocation.check(status: 200, body: Array("anything".utf8))
        #expect(throws: OAuth2.Error(.serverRefused, "", serverError: .init(code: .unsupportedTokenType))) {
            try OAuth2.Revocation.check(status: 400, body: Array(#"{"error":"unsupported_token_type"}"#.utf8))
        }
        #expect(throws: OAuth2.Error(.malformedResponse, "")) {
            try OAuth2.Revocation.check(status: 503, body: Array("<html>down</html>".utf8))
        }
        try OAuth2.Revocation.check(status: 204, body: [])
        #expect(throws: OAuth2.Error(.malformedResponse, "")) {
            try OAuth2.Revocation.check(status: 302, body: [])
        }
    }
}
