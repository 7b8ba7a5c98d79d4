import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthSandbox
import Testing

/// RFC 9449 end to end: the library's DPoP client against the sandbox's authorization server
/// and status API, over real sockets.
@Suite("DPoP against the sandbox", .timeLimit(.minutes(5)))
struct DPoPSandboxTests {
    typealias W = OAuth2Wire
    static let now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    static let timeline = "/1.1/statuses/home_timeline.json"

    /// A signed-in public client (`demo-app`, code + PKCE, auto-approved) whose token requests
    /// carry proofs of `prover`'s key.
    struct SignedIn {
        let flow: OAuth2.Flow
        let tokens: OAuth2.Tokens
        let session: OAuth2.TokenSession
        let client: AuthenticatingClient
    }

    static func signIn(
        _ base: String,
        prover: OAuth2.DPoP.Prover,
        over transport: any HTTPTransport
    ) async throws -> SignedIn {
        let server = OAuth2.AuthorizationServer(
            metadata: try await OAuth2.Flow.discover(issuer: base, transport: transport)
        )
        let flow = OAuth2.Flow(server: server, client: .public(id: "demo-app"), transport: transport, now: now)
            .binding(to: prover)
        let request = try flow.authorizationRequest(redirectURI: W.loopbackRedirect, random: .system)
        let redirect = try await Wire.get(request.url)
        let location = try #require(redirect.header("Location"))
        let tokens = try await flow.tokens(fromCallback: location, pending: request.pending)
        let session = try OAuth2.TokenSession(
            session: OAuth2.Session(
                tokens: tokens,
                issuer: base,
                tokenEndpoint: base + "/oauth2/token",
                clientID: "demo-app",
                resourceOrigins: [base],
                dpopKey: prover.privateJWK
            ),
            store: InMemoryTokenStore(),
            service: "sandbox",
            account: "alice",
            now: now,
            dpop: prover,
            refresher: { try await flow.refresh($0) }
        )
        return SignedIn(
            flow: flow,
            tokens: tokens,
            session: session,
            client: AuthenticatingClient(transport: transport, session: session)
        )
    }

    static func autoApproving(nonce: Bool = false) -> SandboxConfiguration {
        var configuration = SandboxConfiguration.demo()
        configuration.autoApprove = true
        configuration.dpopNonce = nonce
        configuration.oauth2Clients.append(
            .init(id: "dpop-service", secret: "dpop-service-secret", requireDPoP: true)
        )
        return configuration
    }

    @Test(
        "token bound to the key (token_type DPoP, cnf.jkt), sent as DPoP; refused as Bearer, with another key, replayed"
    )
    func boundToken() async throws {
        try await Sandbox.withSandbox(Self.autoApproving()) { sandbox in
            let base = sandbox.baseURL
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let recording = RecordingTransport(ahc)
                let prover = try OAuth2.DPoP.Prover(key: .generateP256(), now: Self.now)
                let signedIn = try await Self.signIn(base, prover: prover, over: recording)
                #expect(signedIn.tokens.tokenType == "DPoP")
                let token = signedIn.tokens.accessToken.reveal()

                // The status API with DPoP.
                let (response, _) = try await signedIn.client.send(
                    HTTPRequest(method: .get, absoluteURL: base + Self.timeline),
                    body: nil
                )
                #expect(response.status == .ok)
                let sent = try #require(recording.hops.last?.request)
                #expect(sent.headerFields[.authorization] == "DPoP " + token)
                let proof = try #require(sent.headerFields[.dpop])

                // The same token as Bearer: refused with a DPoP challenge.
                let bearer = try await W.bearer(base + Self.timeline, token)
                #expect(bearer.status == 401)
                #expect(bearer.header("WWW-Authenticate")?.hasPrefix("DPoP ") == true)
                #expect(bearer.header("WWW-Authenticate")?.contains("error=\"invalid_token\"") == true)

                // A replayed proof, and a proof of another key.
                let replayed = try await Wire.get(
                    base + Self.timeline,
                    headers: [.authorization: "DPoP " + token, .dpop: proof]
                )
                #expect(replayed.status == 401)
                #expect(W.json(replayed)["error"] as? String == "invalid_dpop_proof")
                let other = try OAuth2.DPoP.Prover(key: .generateP256(), now: Self.now)
                let stolen = try await Wire.get(
                    base + Self.timeline,
                    headers: [
                        .authorization: "DPoP " + token,
                        .dpop: try other.proof(method: .get, url: base + Self.timeline, accessToken: Secret(token)),
                    ]
                )
                #expect(stolen.status == 401)
                #expect(stolen.header("WWW-Authenticate")?.contains("error=\"invalid_token\"") == true)

                // Introspection shows the binding (RFC 9449 §6.2).
                let introspection = try await W.token(
                    base,
                    [("token", token)],
                    basic: ("demo-service", "demo-service-secret"),
                    endpoint: "/oauth2/introspect"
                )
                let json = W.json(introspection)
                #expect(json["token_type"] as? String == "DPoP")
                #expect((json["cnf"] as? [String: String])?["jkt"] == prover.thumbprint)

                // Refresh with the same key (§5); another key's proof is refused.
                let renewed = try await signedIn.flow.refresh(signedIn.tokens)
                #expect(renewed.tokenType == "DPoP")
                let thief = OAuth2.Flow(
                    server: signedIn.flow.server,
                    client: .public(id: "demo-app"),
                    transport: recording,
                    now: Self.now
                ).binding(to: other)
                await #expect(throws: OAuth2.Error.self) { _ = try await thief.refresh(renewed) }
                // Without any proof, too.
                let plain = OAuth2.Flow(
                    server: signedIn.flow.server,
                    client: .public(id: "demo-app"),
                    transport: recording,
                    now: Self.now
                )
                await #expect(throws: OAuth2.Error.self) { _ = try await plain.refresh(renewed) }
                // The legitimate key still refreshes (the refused attempts did not rotate).
                #expect(try await signedIn.flow.refresh(renewed).tokenType == "DPoP")
            }
        }
    }

    /// The server's error code of a refused call, or `nil` when it was accepted.
    static func refusal<T>(_ body: () async throws -> T) async -> OAuth2.ErrorCode? {
        do {
            _ = try await body()
            return nil
        } catch let error as OAuth2.Error {
            return error.serverError?.code
        } catch {
            Issue.record(error)
            return nil
        }
    }

    @Test(
        "dpop_jkt (RFC 9449 §10): the code is bound to the key; another key's proof or none is refused (invalid_grant); PAR binds by dpop_jkt or by a proof (§10.1)"
    )
    func codeBoundToKey() async throws {
        try await Sandbox.withSandbox(Self.autoApproving()) { sandbox in
            let base = sandbox.baseURL
            try await AsyncHTTPClientTransport.withTransport { transport in
                let server = OAuth2.AuthorizationServer(
                    metadata: try await OAuth2.Flow.discover(issuer: base, transport: transport)
                )
                let prover = try OAuth2.DPoP.Prover(key: .generateP256(), now: Self.now)
                let other = try OAuth2.DPoP.Prover(key: .generateP256(), now: Self.now)
                /// demo-app, proving `prover`'s key at the token and PAR endpoints (none without).
                func flow(_ prover: OAuth2.DPoP.Prover?) -> OAuth2.Flow {
                    let flow = OAuth2.Flow(
                        server: server,
                        client: .public(id: "demo-app"),
                        transport: transport,
                        now: Self.now
                    )
                    return prover.map(flow.binding(to:)) ?? flow
                }
                func redirect(_ request: OAuth2.AuthorizationRequest) async throws -> String {
                    let answer = try await Wire.get(request.url)
                    return try #require(answer.header("Location"), "\(answer.status) \(answer.body)")
                }

                // The key that asked redeems the code: tokens bound to it.
                let request = try flow(prover).authorizationRequest(redirectURI: W.loopbackRedirect, random: .system)
                let query = try #require(URLComponents(string: request.url)?.queryItems)
                #expect(query.filter { $0.name == "dpop_jkt" }.map(\.value) == [prover.thumbprint])
                let tokens = try await flow(prover).tokens(
                    fromCallback: try await redirect(request),
                    pending: request.pending
                )
                #expect(tokens.tokenType == "DPoP")

                // Another key's proof, or none: invalid_grant, and the code is used up.
                for thief in [other, nil] {
                    let asked = try flow(prover).authorizationRequest(redirectURI: W.loopbackRedirect, random: .system)
                    let location = try await redirect(asked)
                    #expect(
                        await Self.refusal {
                            try await flow(thief).tokens(fromCallback: location, pending: asked.pending)
                        } == .invalidGrant
                    )
                    #expect(
                        await Self.refusal {
                            try await flow(prover).tokens(fromCallback: location, pending: asked.pending)
                        } == .invalidGrant
                    )
                }

                // PAR: dpop_jkt in the pushed body (and the same key's proof with the push).
                let pushed = try await flow(prover).startAuthorization(
                    redirectURI: W.loopbackRedirect,
                    push: true,
                    random: .system
                )
                #expect(!pushed.url.contains("dpop_jkt"))
                let pushedLocation = try await redirect(pushed)
                #expect(
                    await Self.refusal {
                        try await flow(other).tokens(fromCallback: pushedLocation, pending: pushed.pending)
                    } == .invalidGrant
                )
                // A proof with the push and no dpop_jkt binds the code just the same.
                var proofOnly = flow(prover)
                proofOnly.dpopJKT = nil
                let proved = try await proofOnly.startAuthorization(
                    redirectURI: W.loopbackRedirect,
                    push: true,
                    random: .system
                )
                let provedLocation = try await redirect(proved)
                #expect(
                    await Self.refusal {
                        try await flow(nil).tokens(fromCallback: provedLocation, pending: proved.pending)
                    } == .invalidGrant
                )
                let again = try await proofOnly.startAuthorization(
                    redirectURI: W.loopbackRedirect,
                    push: true,
                    random: .system
                )
                #expect(
                    try await flow(prover).tokens(fromCallback: try await redirect(again), pending: again.pending)
                        .tokenType == "DPoP"
                )
                // dpop_jkt naming another key than the push's proof: refused at the PAR endpoint.
                var mismatched = flow(prover)
                mismatched.dpopJKT = other.thumbprint
                #expect(
                    await Self.refusal {
                        try await mismatched.startAuthorization(
                            redirectURI: W.loopbackRedirect,
                            push: true,
                            random: .system
                        )
                    } == .invalidDPoPProof
                )
                // A malformed dpop_jkt at the authorization endpoint: invalid_request, redirected.
                let malformed = try await Wire.get(
                    W.authorizeURL(base, challenge: W.pkce().challenge) + "&dpop_jkt=not-a-thumbprint"
                )
                #expect(malformed.header("Location")?.contains("error=invalid_request") == true)
            }
        }
    }

    @Test("--dpop-nonce: exactly one retry at the token endpoint and at the status API, nonces kept per server")
    func nonceChallenges() async throws {
        try await Sandbox.withSandbox(Self.autoApproving(nonce: true)) { sandbox in
            let base = sandbox.baseURL
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let recording = RecordingTransport(ahc)
                let prover = try OAuth2.DPoP.Prover(key: .generateP256(), now: Self.now)
                let signedIn = try await Self.signIn(base, prover: prover, over: recording)
                func statuses(_ path: String) -> [Int] {
                    recording.hops.filter { $0.request.path == path }.map(\.status)
                }
                #expect(statuses("/oauth2/token") == [400, 200])
                let (response, _) = try await signedIn.client.send(
                    HTTPRequest(method: .get, absoluteURL: base + Self.timeline),
                    body: nil
                )
                #expect(response.status == .ok)
                #expect(statuses(Self.timeline) == [401, 200])
                let challenge = try #require(recording.hops.first { $0.request.path == Self.timeline }?.response)
                #expect(challenge.headerFields[.wwwAuthenticate]?.contains("error=\"use_dpop_nonce\"") == true)
                #expect(challenge.headerFields[.dpopNonce] != nil)
                // A second resource request uses the nonce it was given: no challenge.
                _ = try await signedIn.client.send(
                    HTTPRequest(method: .get, absoluteURL: base + Self.timeline),
                    body: nil
                )
                #expect(statuses(Self.timeline) == [401, 200, 200])
                // The refresh meets the authorization server's nonce again (one origin, two
                // servers), and retries once.
                let renewed = try await signedIn.session.tokenRejected(signedIn.tokens.accessToken)
                #expect(renewed.tokenType == "DPoP")
                #expect(statuses("/oauth2/token") == [400, 200, 400, 200])
            }
        }
    }

    @Test("a client registered with requireDPoP needs a proof; metadata lists the proof algorithms")
    func requiredAndAdvertised() async throws {
        try await Sandbox.withSandbox(Self.autoApproving()) { sandbox in
            let base = sandbox.baseURL
            let metadata = W.json(try await Wire.get(base + "/.well-known/oauth-authorization-server"))
            #expect(metadata["dpop_signing_alg_values_supported"] as? [String] == ["ES256", "Ed25519", "EdDSA", "PS256", "RS256"])
            let refused = try await W.token(
                base,
                [("grant_type", "client_credentials")],
                basic: ("dpop-service", "dpop-service-secret")
            )
            #expect(refused.status == 400)
            #expect(W.json(refused)["error"] as? String == "invalid_dpop_proof")
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let prover = try OAuth2.DPoP.Prover(key: .generateP256(), now: Self.now)
                let flow = OAuth2.Flow(
                    server: OAuth2.AuthorizationServer(tokenEndpoint: base + "/oauth2/token"),
                    client: OAuth2.Client(
                        id: "dpop-service",
                        authentication: .clientSecretBasic("dpop-service-secret")
                    ),
                    transport: ahc,
                    now: Self.now
                ).binding(to: prover)
                let tokens = try await flow.clientCredentials().tokens
                #expect(tokens.tokenType == "DPoP")
                // A Bearer client that sends no proof still gets a Bearer token.
                let service = try await W.token(
                    base,
                    [("grant_type", "client_credentials")],
                    basic: ("demo-service", "demo-service-secret")
                )
                #expect(W.json(service)["token_type"] as? String == "Bearer")
            }
        }
    }
}

/// UserInfo with a DPoP-bound token (RFC 9449 §7.1): sent as `DPoP` with a proof it succeeds,
/// nonce retry included; sent as Bearer the provider refuses it.
@Suite(.timeLimit(.minutes(5))) struct DPoPUserInfoTests {
    @Test(arguments: [false, true]) func userInfoWithADPoPBoundToken(nonce: Bool) async throws {
        try await Sandbox.withSandbox(DPoPSandboxTests.autoApproving(nonce: nonce)) { sandbox in
            let base = sandbox.baseURL
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let recording = RecordingTransport(ahc)
                let prover = try OAuth2.DPoP.Prover(key: .generateP256(), now: DPoPSandboxTests.now)
                let flow = try await OAuth2.Flow.discoverOpenIDConnect(
                    issuer: base,
                    client: .public(id: "demo-app"),
                    transport: recording,
                    now: DPoPSandboxTests.now
                ).binding(to: prover)
                let request = try flow.authorizationRequest(
                    redirectURI: OAuth2Wire.loopbackRedirect,
                    scope: ["openid", "profile"],
                    random: .system
                )
                let location = try #require(try await Wire.get(request.url).header("Location"))
                let signIn = try await flow.signIn(fromCallback: location, pending: request.pending)
                #expect(signIn.tokens.tokenType == "DPoP")

                let before = recording.hops.count
                let info = try await flow.userInfo(tokens: signIn.tokens, subject: signIn.idToken.subject, dpop: prover)
                #expect(info.subject == "1001")
                #expect(info.claims["name"] == "Alice")
                let hops = recording.hops.dropFirst(before)
                #expect(hops.map(\.status) == (nonce ? [401, 200] : [200]))
                #expect(hops.last?.request.headerFields[.authorization] == "DPoP " + signIn.tokens.accessToken.reveal())
                #expect(hops.last?.request.headerFields[.dpop] != nil)

                let asBearer = await #expect(throws: OpenIDConnect.Error.self) {
                    _ = try await flow.userInfo(accessToken: signIn.tokens.accessToken, subject: signIn.idToken.subject)
                }
                #expect(asBearer?.code == .userInfoFailed)
                #expect(asBearer?.status == 401)
            }
        }
    }
}
