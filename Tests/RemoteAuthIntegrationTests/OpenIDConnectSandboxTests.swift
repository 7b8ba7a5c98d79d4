import Crypto
import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthSandbox
import Testing

/// A clock shared by a sandbox and the client, moved by hand.
final class OIDCTestClock: Sendable {
    private let time = Locked<Int64>(Int64(Date().timeIntervalSince1970))
    var now: Int64 { time.withLock { $0 } }
    func advance(_ seconds: Int64) { time.withLock { $0 += seconds } }
    var closure: @Sendable () -> Int64 { { self.now } }
}

@Suite("OpenID Connect against the sandbox's OpenID provider", .timeLimit(.minutes(5)))
struct OpenIDConnectSandboxTests {
    static let clientKey = JOSE.SigningKey.generateP256(keyID: "client-ec")

    static func configuration(clock: OIDCTestClock) throws -> SandboxConfiguration {
        var configuration = SandboxConfiguration.demo()
        configuration.autoApprove = true
        configuration.now = clock.closure
        let jwk = try JSONDecoder().decode(JSONValue.self, from: Data(try clientKey.publicJWK!.json()))
        configuration.oauth2Clients += [
            .init(id: "ec-app", redirectURIs: ["http://127.0.0.1/callback"], idTokenSignedResponseAlg: "ES256"),
            .init(id: "jwt-client", jwks: ["keys": [jwk]], tokenEndpointAuthMethod: "private_key_jwt"),
            .init(
                id: "hs-client",
                secret: "hs-client-secret-of-32-bytes-or-more",
                tokenEndpointAuthMethod: "client_secret_jwt"
            ),
        ]
        return configuration
    }

    /// The sign-in through the sandbox's auto-approving authorization endpoint.
    static func signIn(
        _ flow: OAuth2.Flow,
        scope: [String] = ["openid", "profile", "email"]
    ) async throws
        -> OpenIDConnect.SignIn
    {
        let request = try flow.authorizationRequest(
            redirectURI: "http://127.0.0.1:53123/callback",
            scope: scope,
            random: .system
        )
        let answer = try await Wire.get(request.url)
        let location = try #require(answer.header("Location"), "\(answer.status) \(answer.body)")
        return try await flow.signIn(fromCallback: location, pending: request.pending)
    }

    /// Discovery → code + PKCE + nonce → ID token validated with the JWKS → UserInfo → a
    /// refresh whose new ID token is validated too (Core §12.2).
    @Test func codeFlowIDTokenAndUserInfo() async throws {
        let clock = OIDCTestClock()
        try await Sandbox.withSandbox(try Self.configuration(clock: clock)) { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                for (client, algorithm) in [("demo-app", JOSE.Algorithm.rs256), ("ec-app", .es256)] {
                    let flow = try await OAuth2.Flow.discoverOpenIDConnect(
                        issuer: sandbox.baseURL,
                        client: .public(id: client),
                        transport: transport,
                        now: clock.closure
                    )
                    #expect(flow.openIDConnect?.validator.allowedAlgorithms == [.rs256, .es256])
                    let signIn = try await Self.signIn(flow)
                    let idToken = signIn.idToken
                    #expect(try JOSE.CompactJWS(idToken.token.reveal()).algorithm == algorithm)
                    #expect(idToken.issuer == sandbox.baseURL)
                    #expect(idToken.subject == "1001")
                    #expect(idToken.audiences == [client])
                    #expect(idToken.authTime == clock.now)
                    #expect(idToken.accessTokenHash != nil)
                    #expect(idToken.claims["name"] == "Alice")
                    #expect(idToken.claims["email"] == "alice@sandbox.example")

                    let info = try await flow.userInfo(accessToken: signIn.tokens.accessToken, subject: idToken.subject)
                    #expect(info.claims["preferred_username"] == "alice")
                    await #expect(throws: OpenIDConnect.Error(.subjectMismatch, "")) {
                        try await flow.userInfo(accessToken: signIn.tokens.accessToken, subject: "someone-else")
                    }

                    clock.advance(10)
                    let renewed = try await flow.refresh(signIn.tokens)
                    #expect(renewed.idToken != signIn.tokens.idToken)
                    #expect(renewed.idToken != nil)
                }
                // UserInfo without a token, with a bad one.
                let noToken = try await Wire.get(sandbox.baseURL + "/oauth2/userinfo")
                #expect(noToken.status == 401)
                let badToken = try await Wire.get(
                    sandbox.baseURL + "/oauth2/userinfo",
                    headers: [.authorization: "Bearer nope"]
                )
                #expect(badToken.status == 401)
                #expect(badToken.header("WWW-Authenticate")?.contains("error=\"invalid_token\"") == true)
            }
        }
    }

    /// Core §12.2 through a stored session, as `request` and `token --profile` use it: the
    /// session keeps its provider (`openIDProvider`), ``OAuth2/TokenSession/restore(from:service:account:transport:policy:now:random:)``
    /// validates the ID token of each refresh against the stored one, keeps it when valid,
    /// and refuses one with another `sub` (the sandbox's `refreshedIDTokenSubject` hook) with
    /// `subjectMismatch`, the stored session left as it was.
    @Test(arguments: [nil, "someone-else"] as [String?])
    func storedSessionRevalidatesRefreshedIDToken(_ otherSubject: String?) async throws {
        let clock = OIDCTestClock()
        var configuration = try Self.configuration(clock: clock)
        configuration.refreshedIDTokenSubject = otherSubject
        try await Sandbox.withSandbox(configuration) { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let metadata = try await OAuth2.Flow.discover(
                    issuer: sandbox.baseURL,
                    document: .openIDConfiguration,
                    transport: transport
                )
                let flow = try await OAuth2.Flow.discoverOpenIDConnect(
                    issuer: sandbox.baseURL,
                    client: .public(id: "demo-app"),
                    transport: transport,
                    now: clock.closure
                )
                let signIn = try await Self.signIn(flow)
                let provider = try OAuth2.Session.OpenIDProvider(
                    metadata: metadata,
                    relyingParty: try #require(flow.openIDConnect)
                )
                #expect(provider.jwksURI == sandbox.baseURL + "/oauth2/jwks")
                #expect(provider.idTokenSigningAlgorithms == ["ES256", "RS256"])
                let stored = OAuth2.Session(
                    tokens: signIn.tokens,
                    issuer: sandbox.baseURL,
                    tokenEndpoint: sandbox.baseURL + "/oauth2/token",
                    clientID: "demo-app",
                    resourceOrigins: [sandbox.baseURL],
                    openIDProvider: provider
                )
                let store = InMemoryTokenStore()
                try await store.save(stored, service: "op", account: "alice")
                let session = try await OAuth2.TokenSession.restore(
                    from: store,
                    service: "op",
                    account: "alice",
                    transport: transport,
                    now: clock.closure
                )
                clock.advance(10)
                if otherSubject == nil {
                    let renewed = try await session.tokenRejected(signIn.tokens.accessToken)
                    let saved = try #require(try await store.oauth2Session(service: "op", account: "alice"))
                    let idToken = try #require(saved.tokens.idToken)
                    #expect(idToken == renewed.idToken)
                    #expect(idToken != signIn.tokens.idToken)
                    let claims = try JOSE.CompactJWS(idToken.reveal()).claims()
                    #expect(claims["sub"] == "1001")
                    #expect(claims["iss"] == .string(sandbox.baseURL))
                    #expect(claims["aud"] == "demo-app")
                    #expect(claims["auth_time"] == .integer(try #require(signIn.idToken.authTime)))
                    #expect(claims["iat"] == .integer(clock.now))
                    #expect(claims["nonce"] == nil)
                } else {
                    await #expect(throws: OpenIDConnect.Error(.subjectMismatch, "")) {
                        _ = try await session.tokenRejected(signIn.tokens.accessToken)
                    }
                    #expect(try await store.oauth2Session(service: "op", account: "alice") == stored)
                    // The flow's own refresh (no store) refuses it the same way.
                    clock.advance(1)
                    let other = try await Self.signIn(flow)
                    await #expect(throws: OpenIDConnect.Error(.subjectMismatch, "")) {
                        _ = try await flow.refresh(other.tokens)
                    }
                }
            }
        }
    }

    /// `--rotate-keys`: after the interval the sandbox signs with new kids; the client's JWKS
    /// cache fetches once more, and the previous keys stay published.
    @Test func keyRotationRefetchesOnce() async throws {
        let clock = OIDCTestClock()
        var configuration = try Self.configuration(clock: clock)
        configuration.openIDKeyRotationInterval = 100
        try await Sandbox.withSandbox(configuration) { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let cache = try JOSE.KeySetCache(
                    url: sandbox.baseURL + "/oauth2/jwks",
                    transport: transport,
                    now: clock.closure
                )
                let flow = try await OAuth2.Flow.discoverOpenIDConnect(
                    issuer: sandbox.baseURL,
                    client: .public(id: "demo-app"),
                    transport: transport,
                    now: clock.closure,
                    keySetCache: cache
                )
                let first = try await Self.signIn(flow)
                #expect(try JOSE.CompactJWS(first.idToken.token.reveal()).keyID == "rsa-1")
                #expect(await cache.fetchCount == 1)
                clock.advance(100)
                let second = try await Self.signIn(flow)
                #expect(try JOSE.CompactJWS(second.idToken.token.reveal()).keyID == "rsa-2")
                #expect(await cache.fetchCount == 2)
                let set = try await cache.keySet()
                #expect(set.keys.compactMap(\.keyID).sorted() == ["ec-1", "ec-2", "rsa-1", "rsa-2"])
            }
        }
    }

    static func expectInvalidClient(
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> OAuth2.TokenResponse
    ) async {
        do {
            _ = try await body()
            Issue.record("accepted", sourceLocation: sourceLocation)
        } catch let error as OAuth2.Error {
            #expect(error.serverError?.code == .invalidClient, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record(error, sourceLocation: sourceLocation)
        }
    }

    /// private_key_jwt accepted; the same assertion replayed, a wrong key, a wrong audience
    /// and Basic for a private_key_jwt client refused; client_secret_jwt accepted.
    @Test func clientAssertions() async throws {
        let clock = OIDCTestClock()
        try await Sandbox.withSandbox(try Self.configuration(clock: clock)) { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let server = OAuth2.AuthorizationServer(
                    issuer: sandbox.baseURL,
                    tokenEndpoint: sandbox.baseURL + "/oauth2/token"
                )
                func flow(_ authentication: OAuth2.ClientAuthentication, id: String = "jwt-client") -> OAuth2.Flow {
                    OAuth2.Flow(
                        server: server,
                        client: .init(id: id, authentication: authentication),
                        transport: transport,
                        now: clock.closure
                    )
                }
                let good = try OAuth2.ClientAuthentication.privateKeyJWT(
                    Self.clientKey,
                    now: clock.closure,
                    random: .system
                )
                let tokens = try await flow(good).clientCredentials(scope: ["statuses:read"]).tokens
                #expect(tokens.tokenType == "Bearer")
                // The issuer as the audience is accepted too.
                let byIssuer = try OAuth2.ClientAuthentication.privateKeyJWT(
                    Self.clientKey,
                    audience: .issuer(sandbox.baseURL),
                    now: clock.closure,
                    random: .system
                )
                _ = try await flow(byIssuer).clientCredentials()

                // Replay: a fixed random source gives the same jti (and the same assertion).
                let fixed = try OAuth2.ClientAuthentication.privateKeyJWT(
                    Self.clientKey,
                    now: clock.closure,
                    random: .repeating([7])
                )
                _ = try await flow(fixed).clientCredentials()
                await Self.expectInvalidClient { try await flow(fixed).clientCredentials() }
                let stranger = JOSE.SigningKey.generateP256(keyID: "client-ec")
                for refused in [
                    try OAuth2.ClientAuthentication.privateKeyJWT(stranger, now: clock.closure, random: .system),
                    try .privateKeyJWT(
                        Self.clientKey,
                        audience: .custom("https://elsewhere.example"),
                        now: clock.closure,
                        random: .system
                    ),
                    try .privateKeyJWT(Self.clientKey, lifetime: 3600, now: clock.closure, random: .system),
                    .clientSecretBasic("guess"),
                ] {
                    do {
                        _ = try await flow(refused).clientCredentials()
                        Issue.record("\(refused) was accepted")
                    } catch let error as OAuth2.Error {
                        #expect(error.serverError?.code == .invalidClient, "\(refused): \(error)")
                    }
                }

                let hs = try OAuth2.ClientAuthentication.clientSecretJWT(
                    "hs-client-secret-of-32-bytes-or-more",
                    now: clock.closure,
                    random: .system
                )
                _ = try await flow(hs, id: "hs-client").clientCredentials()
                let wrongSecret = try OAuth2.ClientAuthentication.clientSecretJWT(
                    "not-the-secret-but-32-bytes-long-xx",
                    now: clock.closure,
                    random: .system
                )
                await Self.expectInvalidClient { try await flow(wrongSecret, id: "hs-client").clientCredentials() }
            }
        }
    }
}
