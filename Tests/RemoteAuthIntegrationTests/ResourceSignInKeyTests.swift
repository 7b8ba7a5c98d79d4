import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthSandbox
import Testing

/// A client that signs in from a resource URL alone and authenticates with `private_key_jwt`
/// (RFC 7523 §2.2): it registers its public JWK in `jwks` (RFC 7591 §2), the sandbox verifies its
/// assertions with that key, and a kept registration signs in again with the same key only.
@Suite(.timeLimit(.minutes(5))) struct ResourceSignInKeyTests {
    static let key = JOSE.SigningKey.generateP256(keyID: "client-key-1")

    @Test func registersItsPublicKeyAndAuthenticatesWithIt() async throws {
        try await Sandbox.withSandbox(SignInUserAgentTests.autoApproving()) { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let resource = sandbox.baseURL + "/1.1"
                let found = try await OAuth2.ResourceDiscovery.discover(resource: resource, transport: transport)
                let agent = ScriptedUserAgent(redirectURI: ResourceSignInTests.redirectURI) { url in
                    [try await SignInUserAgentTests.redirect(for: url)]
                }
                let signedIn = try await OAuth2.ResourceSignIn.signIn(
                    found,
                    identities: [.dynamicRegistration(.init(redirectURIs: [], clientName: "keyed"))],
                    agent: agent,
                    scope: ["statuses:read"],
                    clientKey: Self.key,
                    transport: transport
                )
                guard case .dynamicallyRegistered(let registered) = signedIn.identification else {
                    Issue.record("identified as \(signedIn.identification)")
                    return
                }
                // RFC 7591 §3.2.1: the server echoes the method and the public key; no secret.
                #expect(registered.tokenEndpointAuthMethod == .privateKeyJWT)
                #expect(registered.clientSecret == nil)
                let publicJWK = try #require(Self.key.publicJWK)
                let sent = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(publicJWK))
                #expect(registered.members["jwks"] == .object(["keys": .array([sent])]))
                if case .object(let members) = sent {
                    #expect(members["d"] == nil)
                    #expect(members["kty"] == "EC")
                }
                let session = signedIn.session
                #expect(session.registration.authenticationMethod == .privateKeyJWT)
                var request = try HTTPRequest(method: .get, absoluteURL: resource + "/statuses/home_timeline.json")
                request.headerFields[.authorization] = "Bearer " + session.tokens.accessToken.reveal()
                #expect(try await transport.send(request, body: nil).0.status == .ok)

                // The refresh token is the client's: the refresh authenticates with the key.
                let flow = OAuth2.Flow(
                    server: .init(metadata: found.server),
                    client: .init(
                        id: registered.clientID,
                        authentication: try .privateKeyJWT(Self.key, now: UnixTime.now, random: .system)
                    ),
                    transport: transport
                )
                let refreshed = try await flow.refresh(session.tokens)
                #expect(refreshed.accessToken.reveal() != session.tokens.accessToken.reveal())

                // The kept registration signs in again with its key; without it, or with another
                // key, it does not.
                let kept = OAuth2.ClientIdentity.stored(session.registration, issuer: found.server.issuer)
                let again = try await OAuth2.ResourceSignIn.signIn(
                    found,
                    identities: [kept],
                    agent: agent,
                    scope: ["statuses:read"],
                    clientKey: Self.key,
                    transport: transport
                )
                #expect(again.identification == .reused(session.registration))
                let keyless = await #expect(throws: OAuth2.Error.self) {
                    _ = try await OAuth2.ResourceSignIn.signIn(
                        found,
                        identities: [kept],
                        agent: agent,
                        scope: ["statuses:read"],
                        transport: transport
                    )
                }
                #expect(keyless?.code == .invalidConfiguration)
                #expect(
                    keyless?.reason
                        == "the registration kept for \(registered.clientID) uses private_key_jwt: sign in with its key"
                )
                let wrongKey = await #expect(throws: OAuth2.Error.self) {
                    _ = try await OAuth2.ResourceSignIn.signIn(
                        found,
                        identities: [kept],
                        agent: agent,
                        scope: ["statuses:read"],
                        clientKey: .generateP256(keyID: "client-key-1"),
                        transport: transport
                    )
                }
                #expect(wrongKey?.serverError?.code.rawValue == "invalid_client")
                #expect(wrongKey?.status == 401)
            }
        }
    }

    /// The registration, its key with it, is kept in the `--state` file: after a restart the
    /// client authenticates with the same key (client credentials, RFC 6749 §4.4).
    @Test func aKeyedRegistrationSurvivesARestart() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "keyed-registration-\(UUID().uuidString).json"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = SandboxConfiguration.demo()
        configuration.statePath = path
        let metadata = try OAuth2.DynamicRegistration.Metadata(
            redirectURIs: [],
            grantTypes: ["client_credentials"],
            responseTypes: []
        ).registeringKey(Self.key)
        #expect(metadata.tokenEndpointAuthMethod == .privateKeyJWT)
        let clientID = try await Sandbox.withSandbox(configuration) { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                try await OAuth2.DynamicRegistration.register(
                    metadata,
                    at: sandbox.baseURL + "/oauth2/register",
                    transport: transport
                ).clientID
            }
        }
        try await Sandbox.withSandbox(configuration) { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let server = OAuth2.AuthorizationServer(
                    metadata: try await OAuth2.Flow.discover(issuer: sandbox.baseURL, transport: transport)
                )
                func flow(_ key: JOSE.SigningKey) throws -> OAuth2.Flow {
                    OAuth2.Flow(
                        server: server,
                        client: .init(id: clientID, authentication: try .privateKeyJWT(key, now: UnixTime.now, random: .system)),
                        transport: transport
                    )
                }
                let tokens = try await flow(Self.key).clientCredentials(scope: ["statuses:read"]).tokens
                #expect(tokens.tokenType == "Bearer")
                let refused = await #expect(throws: OAuth2.Error.self) {
                    _ = try await flow(.generateP256(keyID: "client-key-1")).clientCredentials(scope: ["statuses:read"])
                }
                #expect(refused?.serverError?.code.rawValue == "invalid_client")
            }
        }
    }
}
