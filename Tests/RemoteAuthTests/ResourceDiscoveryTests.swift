import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// The refusals of a sign-in from a resource URL, with a scripted transport (RFC 9728, RFC 8414).
@Suite struct ResourceDiscoveryTests {
    static let resource = "https://api.example/v1"

    static func json(_ text: String) -> ScriptedTransport.Answer {
        { _, _ in (HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]), Array(text.utf8)) }
    }

    /// The 401 (§5.1 names the metadata), the metadata, the server's metadata.
    static func script(metadata: String, server: String) -> ScriptedTransport {
        ScriptedTransport([
            ScriptedTransport.status(
                401,
                [.wwwAuthenticate: #"Bearer resource_metadata="https://api.example/.well-known/oauth-protected-resource/v1""#]
            ),
            json(metadata), json(server),
        ])
    }

    static let goodServer = #"{"issuer":"https://as.example","token_endpoint":"https://as.example/t","code_challenge_methods_supported":["S256"]}"#

    @Test func theWholeChain() async throws {
        let transport = Self.script(
            metadata: #"{"resource":"https://api.example/v1","authorization_servers":["https://as.example"]}"#,
            server: Self.goodServer
        )
        let found = try await OAuth2.ResourceDiscovery.discover(resource: Self.resource, transport: transport)
        #expect(found.server.issuer == "https://as.example")
        #expect(transport.sent.map { $0.request.url?.absoluteString } == [
            "https://api.example/v1", "https://api.example/.well-known/oauth-protected-resource/v1",
            "https://as.example/.well-known/oauth-authorization-server",
        ])
        // No credentials on the first request.
        #expect(transport.sent[0].request.headerFields[.authorization] == nil)
    }

    @Test func aDocumentAboutAnotherResourceIsRefused() async throws {
        let transport = Self.script(
            metadata: #"{"resource":"https://evil.example/","authorization_servers":["https://as.example"]}"#,
            server: Self.goodServer
        )
        let error = await #expect(throws: OAuth2.Error.self) {
            _ = try await OAuth2.ResourceDiscovery.discover(resource: Self.resource, transport: transport)
        }
        #expect(error?.code == .resourceMismatch)
        #expect(transport.sent.count == 2)  // the authorization server was never asked
    }

    @Test func anIssuerTheResourceDoesNotListIsRefused() async throws {
        let transport = Self.script(
            metadata: #"{"resource":"https://api.example/v1","authorization_servers":["https://as.example"]}"#,
            server: Self.goodServer
        )
        let error = await #expect(throws: OAuth2.Error.self) {
            _ = try await OAuth2.ResourceDiscovery.discover(
                resource: Self.resource, authorizationServer: "https://other.example", transport: transport)
        }
        #expect(error?.code == .unsuitableAuthorizationServer)
        #expect(error?.reason == "https://other.example is not among the authorization servers of https://api.example/v1: https://as.example (RFC 9728 §7.6)")
    }

    @Test func noAuthorizationServerListed() async throws {
        let transport = Self.script(metadata: #"{"resource":"https://api.example/v1"}"#, server: Self.goodServer)
        let error = await #expect(throws: OAuth2.Error.self) {
            _ = try await OAuth2.ResourceDiscovery.discover(resource: Self.resource, transport: transport)
        }
        #expect(error?.code == .unsuitableAuthorizationServer)
    }

    @Test func aServerWithoutS256IsRefused() async throws {
        for methods in [#""code_challenge_methods_supported":["plain"]"#, #""token_endpoint":"https://as.example/t""#] {
            let transport = Self.script(
                metadata: #"{"resource":"https://api.example/v1","authorization_servers":["https://as.example"]}"#,
                server: #"{"issuer":"https://as.example","# + methods + "}"
            )
            let error = await #expect(throws: OAuth2.Error.self) {
                _ = try await OAuth2.ResourceDiscovery.discover(resource: Self.resource, transport: transport)
            }
            #expect(error?.code == .unsuitableAuthorizationServer)
            #expect(error?.reason == "https://as.example does not list S256 in code_challenge_methods_supported: PKCE cannot be relied on (RFC 9700 §2.1.1)")
        }
    }

    @Test func anIssuerMismatchIsRefused() async throws {
        let transport = Self.script(
            metadata: #"{"resource":"https://api.example/v1","authorization_servers":["https://as.example"]}"#,
            server: #"{"issuer":"https://evil.example","code_challenge_methods_supported":["S256"]}"#
        )
        let error = await #expect(throws: OAuth2.Error.self) {
            _ = try await OAuth2.ResourceDiscovery.discover(resource: Self.resource, transport: transport)
        }
        #expect(error?.code == .issuerMismatch)
    }

    /// RFC 7591 §3.2.1: a secret without its expiry is malformed; the defaults.
    @Test func registrationAnswers() throws {
        let registered = try OAuth2.DynamicRegistration.parse(
            status: 201,
            body: Array(#"{"client_id":"s6BhdRkqt3","client_secret":"cf136dc3c1fc93f31185e5885805d","client_id_issued_at":2893256800,"client_secret_expires_at":2893276800,"redirect_uris":["https://client.example.org/callback"],"grant_types":["authorization_code","refresh_token"],"client_name":"My Example Client","token_endpoint_auth_method":"client_secret_basic","logo_uri":"https://client.example.org/logo.png","jwks_uri":"https://client.example.org/my_public_keys.jwks","example_extension_parameter":"example_value"}"#.utf8)
        )
        // RFC 7591 §3.2.1's example.
        #expect(registered.clientID == "s6BhdRkqt3")
        #expect(registered.clientSecret?.reveal() == "cf136dc3c1fc93f31185e5885805d")
        #expect(registered.clientIDIssuedAt == 2_893_256_800)
        #expect(registered.clientSecretExpiresAt == 2_893_276_800)
        #expect(registered.tokenEndpointAuthMethod == .clientSecretBasic)
        #expect(registered.members["example_extension_parameter"] == .string("example_value"))
        #expect(registered.registration == OAuth2.ClientRegistration(
            clientID: "s6BhdRkqt3", authenticationMethod: .clientSecretBasic, clientSecret: "cf136dc3c1fc93f31185e5885805d",
            redirectURIs: ["https://client.example.org/callback"], clientSecretExpiresAt: 2_893_276_800))
        // RFC 7591 §3.2.1: the secret expires at client_secret_expires_at; 0 is never.
        #expect(!registered.registration.secretExpired(at: 2_893_276_799))
        #expect(registered.registration.secretExpired(at: 2_893_276_800))
        var never = registered.registration
        never.clientSecretExpiresAt = 0
        #expect(!never.secretExpired(at: .max))
        never.clientSecret = nil
        never.clientSecretExpiresAt = 1
        #expect(!never.secretExpired(at: 2), "a public client has no secret to expire")
        #expect(throws: OAuth2.Error.self) {
            try OAuth2.DynamicRegistration.parse(status: 201, body: Array(#"{"client_id":"a","client_secret":"s"}"#.utf8))
        }
        #expect(throws: OAuth2.Error.self) {
            try OAuth2.DynamicRegistration.parse(status: 201, body: Array(#"{"client_secret":"s","client_secret_expires_at":0}"#.utf8))
        }
        let refused = #expect(throws: OAuth2.Error.self) {
            try OAuth2.DynamicRegistration.parse(
                status: 400,
                body: Array(#"{"error":"invalid_redirect_uri","error_description":"The redirection URI http://sketchy.example.com is not allowed by this server."}"#.utf8)
            )
        }
        #expect(refused?.serverError?.code.rawValue == "invalid_redirect_uri")
    }

    /// A stored registration is reused at its own issuer only, while its secret is valid, and
    /// only with a redirect URI to receive at; otherwise the next identity is chosen
    /// (RFC 7591 §3.2.1: an expired secret means registering again).
    @Test func aStoredRegistrationIsReusedOnlyWhereItHolds() throws {
        let server = try OAuth2.ServerMetadata.parse(
            status: 200,
            body: Array(#"{"issuer":"https://as.example","token_endpoint":"https://as.example/t","registration_endpoint":"https://as.example/r","code_challenge_methods_supported":["S256"]}"#.utf8),
            expectedIssuer: "https://as.example"
        )
        let stored = OAuth2.ClientRegistration(
            clientID: "c1",
            authenticationMethod: .clientSecretBasic,
            clientSecret: "s",
            redirectURIs: ["http://127.0.0.1:5000/callback"],
            clientSecretExpiresAt: 2_000
        )
        let register = OAuth2.ClientIdentity.dynamicRegistration(.init(redirectURIs: []))
        func chosen(_ identities: [OAuth2.ClientIdentity], now: Int64 = 1_000) throws -> String {
            switch try OAuth2.ResourceSignIn.choose(identities, for: server, now: now) {
            case .stored(let registration, _): "stored \(registration.clientID)"
            case .dynamicRegistration: "register"
            case .registered: "registered"
            case .metadataDocument: "document"
            }
        }
        #expect(try chosen([.stored(stored, issuer: "https://as.example"), register]) == "stored c1")
        #expect(try chosen([.stored(stored, issuer: "https://as.example"), register], now: 2_000) == "register")
        #expect(try chosen([.stored(stored, issuer: "https://other.example"), register]) == "register")
        var noRedirect = stored
        noRedirect.redirectURIs = nil
        #expect(try chosen([.stored(noRedirect, issuer: "https://as.example"), register]) == "register")
    }

    /// RFC 7592 §3: an answer without a registration access token or URI keeps the ones the
    /// session had; one with new ones replaces them.
    @Test func anUpdatedRegistrationKeepsWhatTheAnswerDoesNotReissue() throws {
        let previous = OAuth2.ClientRegistration(
            clientID: "c1",
            authenticationMethod: .clientSecretBasic,
            clientSecret: "s1",
            keyReference: "key.pem",
            registrationAccessToken: "t1",
            registrationClientURI: "https://as.example/r/c1",
            clientSecretExpiresAt: 0
        )
        let bare = try OAuth2.DynamicRegistration.parse(
            status: 200,
            body: Array(#"{"client_id":"c1","token_endpoint_auth_method":"client_secret_basic"}"#.utf8)
        )
        let kept = bare.registration(replacing: previous)
        #expect(kept.clientSecret?.reveal() == "s1" && kept.clientSecretExpiresAt == 0)
        #expect(kept.registrationAccessToken?.reveal() == "t1")
        #expect(kept.registrationClientURI == "https://as.example/r/c1")
        #expect(kept.keyReference == "key.pem")
        let reissued = try OAuth2.DynamicRegistration.parse(
            status: 200,
            body: Array(
                #"{"client_id":"c1","client_secret":"s2","client_secret_expires_at":0,"registration_access_token":"t2","token_endpoint_auth_method":"client_secret_basic"}"#
                    .utf8
            )
        ).registration(replacing: previous)
        #expect(reissued.clientSecret?.reveal() == "s2")
        #expect(reissued.registrationAccessToken?.reveal() == "t2")
        #expect(reissued.registrationClientURI == "https://as.example/r/c1")
    }
}
