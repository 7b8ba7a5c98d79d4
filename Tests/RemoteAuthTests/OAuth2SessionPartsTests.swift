import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// The OAuth 2 session as parts: the server as discovered, the client's registration, tokens,
/// grant and binding; files of the flat shape still open.
@Suite struct OAuth2SessionPartsTests {
    /// Discovered metadata with every endpoint the flat record dropped, and a member this
    /// library does not name.
    static let metadataJSON = #"""
        {"issuer":"https://as.example","authorization_endpoint":"https://as.example/authorize",
         "token_endpoint":"https://as.example/token","device_authorization_endpoint":"https://as.example/device",
         "pushed_authorization_request_endpoint":"https://as.example/par","require_pushed_authorization_requests":true,
         "authorization_response_iss_parameter_supported":true,"userinfo_endpoint":"https://as.example/userinfo",
         "registration_endpoint":"https://as.example/register",
         "mtls_endpoint_aliases":{"token_endpoint":"https://mtls.as.example/token"},
         "x_vendor_member":{"n":1}}
        """#

    static func discoveredServer() throws -> OAuth2.AuthorizationServer {
        let metadata = try JSONDecoder().decode(OAuth2.ServerMetadata.self, from: Data(metadataJSON.utf8))
        return OAuth2.AuthorizationServer(metadata: metadata)
    }

    static let tokens = OAuth2.Tokens(
        accessToken: "access-1",
        tokenType: "Bearer",
        expiresAt: 1_000,
        refreshToken: "refresh-1",
        scope: ["read"]
    )

    /// A session made from a discovered flow keeps every endpoint and the document itself
    /// through a store's JSON, and the flow restored from it has them all.
    @Test func aSessionKeepsTheServerAsDiscovered() async throws {
        let transport = ScriptedTransport([])
        let flow = OAuth2.Flow(
            server: try Self.discoveredServer(),
            client: OAuth2.Client(id: "app", authentication: .clientSecretBasic("s3cret")),
            transport: transport,
            now: { 0 }
        )
        let store = InMemoryTokenStore()
        _ = try await flow.session(
            for: Self.tokens,
            resources: ["https://api.example/v1"],
            store: store,
            service: "api",
            account: "alice"
        )
        let data = try JSONEncoder().encode(try #require(try await store.oauth2Session(service: "api", account: "alice")))
        let restored = try JSONDecoder().decode(OAuth2.Session.self, from: data)
        #expect(restored.server == flow.server)
        #expect(restored.server.pushedAuthorizationRequestEndpoint == "https://as.example/par")
        #expect(restored.server.requiresPushedAuthorizationRequests)
        #expect(restored.server.deviceAuthorizationEndpoint == "https://as.example/device")
        #expect(restored.server.requiresIssuerParameter)
        #expect(restored.server.metadata?.userinfoEndpoint == "https://as.example/userinfo")
        #expect(restored.server.metadata?.registrationEndpoint == "https://as.example/register")
        #expect(restored.server.metadata?.additionalParameters["x_vendor_member"] == .object(["n": .integer(1)]))
        #expect(restored.server.mutualTLSEndpointAliases?.tokenEndpoint == "https://mtls.as.example/token")
        // The registration keeps the secret, so another process renews without the flow.
        #expect(restored.registration == OAuth2.ClientRegistration(
            clientID: "app", authenticationMethod: .clientSecretBasic, clientSecret: "s3cret"))
        // The resource names a path: the token goes there and below, not to the whole origin.
        #expect(restored.resourceOrigins == ["https://api.example:443/v1"])
        #expect(try restored.resourceTargets().map { "\($0.scope)\($0.pathPrefix ?? "")" } == ["https://api.example:443/v1"])
        #expect(restored.grant == .authorizationCode)
        let again = try restored.flow(over: transport, now: { 0 })
        #expect(again.server == flow.server)
        #expect(again.client == flow.client)
        // The flat views read the parts.
        #expect(restored.tokenEndpoint == "https://as.example/token")
        #expect(restored.issuer == "https://as.example")
        #expect(restored.clientID == "app")
        #expect(restored.clientSecret?.reveal() == "s3cret")
        #expect(!"\(restored.registration)".contains("s3cret"))
    }

    /// The JSON of a session: its parts, members in a fixed place.
    @Test func theJSONOfTheParts() throws {
        let session = OAuth2.Session(
            server: OAuth2.AuthorizationServer(issuer: "https://as.example", tokenEndpoint: "https://as.example/token"),
            registration: OAuth2.ClientRegistration(clientID: "svc", authenticationMethod: .privateKeyJWT, keyReference: "kms:1"),
            tokens: OAuth2.Tokens(accessToken: "a", tokenType: "Bearer"),
            grant: .clientCredentials,
            scope: ["read"],
            resourceOrigins: ["https://api.example"]
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = String(decoding: try encoder.encode(session), as: UTF8.self)
        #expect(
            json
                == #"{"grant":"client_credentials","registration":{"authenticationMethod":"private_key_jwt","clientID":"svc","keyReference":"kms:1"},"resourceOrigins":["https://api.example"],"scope":["read"],"server":{"issuer":"https://as.example","requiresIssuerParameter":false,"requiresPushedAuthorizationRequests":false,"tokenEndpoint":"https://as.example/token"},"tokens":{"accessToken":"a","tokenType":"Bearer"}}"#
        )
        #expect(try JSONDecoder().decode(OAuth2.Session.self, from: Data(json.utf8)) == session)
    }

    /// A file of the flat shape (every member at the top level, as the release before the parts
    /// wrote it) opens, and is written back in the new shape without losing a member.
    @Test func aFlatFileStillOpens() throws {
        let flat = #"""
            {"tokens":{"accessToken":"access-XYZ","tokenType":"DPoP","refreshToken":"refresh-XYZ"},
             "issuer":"https://as.example","tokenEndpoint":"https://as.example/token",
             "revocationEndpoint":"https://as.example/revoke","introspectionEndpoint":"https://as.example/introspect",
             "clientID":"demo","clientAuthentication":"client_secret_post","clientSecret":"s3cret",
             "scope":["read"],"resourceOrigins":["https://api.example"],
             "dpopKey":{"kty":"EC","crv":"P-256","x":"l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs",
                        "y":"9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA","d":"0g5vAEKzugrXaRbgKG0Tj2qJ5lMP4Bezds1_sTybkfk"},
             "clientKeyReference":"/keys/client.pem",
             "clientCertificate":{"certificate":"/certs/c.pem","key":"/certs/k.pem","format":"pem"},
             "openIDProvider":{"jwksURI":"https://as.example/jwks","idTokenSigningAlgorithms":["ES256"]},
             "grant":"client_credentials","resources":["https://api.example/v1"]}
            """#
        let session = try JSONDecoder().decode(OAuth2.Session.self, from: Data(flat.utf8))
        #expect(session.server == OAuth2.AuthorizationServer(
            issuer: "https://as.example", tokenEndpoint: "https://as.example/token",
            revocationEndpoint: "https://as.example/revoke", introspectionEndpoint: "https://as.example/introspect"))
        #expect(session.registration == OAuth2.ClientRegistration(
            clientID: "demo", authenticationMethod: .clientSecretPost, clientSecret: "s3cret",
            keyReference: "/keys/client.pem"))
        #expect(session.binding.dpopKey?.curve == "P-256")
        #expect(session.binding.certificate == .init(certificate: "/certs/c.pem", key: "/certs/k.pem"))
        #expect(session.openIDProvider?.jwksURI == "https://as.example/jwks")
        #expect(session.grant == .clientCredentials)
        #expect(session.resources == ["https://api.example/v1"])
        #expect(session.scope == ["read"])
        #expect(session.tokens.refreshToken?.reveal() == "refresh-XYZ")
        let rewritten = try JSONDecoder().decode(OAuth2.Session.self, from: JSONEncoder().encode(session))
        #expect(rewritten == session)
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(session)) as? [String: Any])
        #expect(Set(object.keys) == ["server", "registration", "tokens", "grant", "scope", "resources", "resourceOrigins", "binding", "openIDProvider"])
    }

    /// A session of the new shape without a token endpoint cannot be renewed: refused when read.
    @Test func aServerWithoutATokenEndpointIsRefused() async throws {
        let json = #"{"server":{"issuer":"https://as.example"},"registration":{"clientID":"a","authenticationMethod":"none"},"tokens":{"accessToken":"a","tokenType":"Bearer"}}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(OAuth2.Session.self, from: Data(json.utf8)) }
        // And a flow without one makes no session.
        let flow = OAuth2.Flow(server: .init(issuer: "https://as.example"), client: .public(id: "a"),
                               transport: ScriptedTransport([]), now: { 0 })
        await #expect(throws: OAuth2.Error.self) {
            _ = try await flow.session(for: Self.tokens, resources: ["https://api.example"])
        }
    }
}
