import RemoteAuth
import Testing

/// A token session as the ``RequestAuthenticator`` of an ``AuthenticatingClient``, over a
/// scripted transport.
@Suite struct OAuth2SessionClientTests {
    static func client(
        _ transport: ScriptedTransport,
        _ tokens: OAuth2.Tokens,
        refresher: ScriptedRefresher,
        origins: [String] = ["https://api.example"]
    ) async throws -> (AuthenticatingClient, OAuth2.TokenSession) {
        let session = try OAuth2.TokenSession(
            session: Fixture.session(tokens, origins: origins),
            store: InMemoryTokenStore(),
            service: "api",
            account: "alice",
            now: { 1_000 },
            refresher: refresher.function
        )
        return (AuthenticatingClient(transport: transport, authenticators: session.authenticators()), session)
    }

    /// Expired token → one refresh → the request goes out with the new token and succeeds; a
    /// request to another origin carries no token.
    @Test func expiredTokenRefreshedBeforeTheRequest() async throws {
        let transport = ScriptedTransport([ScriptedTransport.status(200), ScriptedTransport.status(200)])
        let refresher = ScriptedRefresher([
            ScriptedRefresher.returning(Fixture.tokens("a2", refresh: "r2", expiresAt: 9_000))
        ])
        let (client, _) = try await Self.client(transport, Fixture.tokens("a1", expiresAt: 900), refresher: refresher)
        #expect(try await client.get("https://api.example/me").0.status == .ok)
        #expect(try await client.get("https://other.example/me").0.status == .ok)
        #expect(transport.sent.map { $0.request.headerFields[.authorization] } == ["Bearer a2", nil])
        #expect(refresher.calls == ["r1"])
    }

    /// 100 concurrent requests through the client with an expired token: one refresh, and
    /// every request carries the new token.
    @Test func hundredConcurrentRequestsOneRefresh() async throws {
        let transport = ScriptedTransport(Array(repeating: ScriptedTransport.status(200), count: 100))
        let refresher = ScriptedRefresher([
            ScriptedRefresher.returning(Fixture.tokens("new-access", refresh: "new-refresh", expiresAt: 9_000))
        ])
        let (client, session) = try await Self.client(
            transport,
            Fixture.tokens("old-access", refresh: "old-refresh", expiresAt: 900),
            refresher: refresher
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<100 {
                group.addTask {
                    let (response, _) = try await client.get("https://api.example/\(n)")
                    #expect(response.status == .ok)
                }
            }
            try await group.waitForAll()
        }
        #expect(
            transport.sent.map { $0.request.headerFields[.authorization] }
                == Array(repeating: "Bearer new-access", count: 100)
        )
        #expect(refresher.calls == ["old-refresh"])
        #expect(await session.refreshCount == 1)
        #expect("\(session)" == "OAuth2.TokenSession(api/alice)")
        var dumped = ""
        dump(session, to: &dumped)
        for secret in ["old-access", "new-access", "old-refresh", "new-refresh", "client-s3cret"] {
            #expect(!dumped.contains(secret), "\(secret) leaked")
        }
    }

    /// 401 `invalid_token` → one refresh and a retry that succeeds.
    @Test func invalidTokenRefreshesAndRetries() async throws {
        let transport = ScriptedTransport([ScriptedTransport.status(401, invalidToken), ScriptedTransport.status(200)])
        let refresher = ScriptedRefresher([
            ScriptedRefresher.returning(Fixture.tokens("a2", refresh: "r2", expiresAt: 9_000))
        ])
        let (client, _) = try await Self.client(transport, Fixture.tokens("a1", expiresAt: 9_000), refresher: refresher)
        #expect(try await client.get("https://api.example/me").0.status == .ok)
        #expect(transport.sent.map { $0.request.headerFields[.authorization] } == ["Bearer a1", "Bearer a2"])
        #expect(refresher.calls == ["r1"])
    }

    /// A second 401 goes to the caller, without a second refresh and without looping.
    @Test func secondRefusalFailsWithoutLooping() async throws {
        let transport = ScriptedTransport([
            ScriptedTransport.status(401, invalidToken), ScriptedTransport.status(401, invalidToken),
            ScriptedTransport.status(401, invalidToken),
        ])
        let refresher = ScriptedRefresher([
            ScriptedRefresher.returning(Fixture.tokens("a2", refresh: "r2", expiresAt: 9_000)),
            ScriptedRefresher.returning(Fixture.tokens("a3", refresh: "r3", expiresAt: 9_000)),
        ])
        let (client, _) = try await Self.client(transport, Fixture.tokens("a1", expiresAt: 9_000), refresher: refresher)
        let (response, _) = try await client.get("https://api.example/me")
        #expect(response.status == .unauthorized)
        #expect(transport.sent.map { $0.request.headerFields[.authorization] } == ["Bearer a1", "Bearer a2"])
        #expect(refresher.calls == ["r1"])
    }

    /// Challenges other than `invalid_token` (`insufficient_scope`: the caller may step up) go
    /// to the caller at once; so does a 401 with no challenge.
    @Test func otherChallengesGiveUp() async throws {
        for fields: HTTPFields in [
            [.wwwAuthenticate: "Bearer realm=\"api\", error=\"insufficient_scope\", scope=\"write\""],
            [.wwwAuthenticate: "Bearer realm=\"api\""], [:],
        ] {
            let transport = ScriptedTransport([ScriptedTransport.status(401, fields)])
            let refresher = ScriptedRefresher([])
            let (client, _) = try await Self.client(
                transport,
                Fixture.tokens("a1", expiresAt: 9_000),
                refresher: refresher
            )
            let (response, _) = try await client.get("https://api.example/me")
            #expect(response.status == .unauthorized && response.headerFields == fields)
            #expect(transport.sent.count == 1)
            #expect(refresher.calls.isEmpty)
        }
    }

    /// A 401 for a token older than the session's current one uses the current one, with no
    /// second refresh (another request renewed it in between).
    @Test func refusalOfAnOlderTokenUsesTheNewerOne() async throws {
        let refresher = ScriptedRefresher([
            ScriptedRefresher.returning(Fixture.tokens("a2", refresh: "r2", expiresAt: 9_000))
        ])
        let session = try OAuth2.TokenSession(
            session: Fixture.session(Fixture.tokens("a1", expiresAt: 9_000)),
            store: InMemoryTokenStore(),
            service: "api",
            account: "alice",
            now: { 1_000 },
            refresher: refresher.function
        )
        let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example", path: "/me")
        var first = AuthenticationAttempt(request: request, body: nil)
        var second = AuthenticationAttempt(request: request, body: nil)
        try await session.authenticate(&first)
        try await session.authenticate(&second)
        #expect(second.request.headerFields[.authorization] == "Bearer a1")
        let refused = HTTPResponse(status: .unauthorized, headerFields: invalidToken)
        #expect(try await session.judge(refused, to: &first) == .retry)
        #expect(try await session.judge(refused, to: &second) == .retry)
        #expect(refresher.calls == ["r1"])
        var retry = AuthenticationAttempt(request: request, body: nil, number: 2)
        try await session.authenticate(&retry)
        #expect(retry.request.headerFields[.authorization] == "Bearer a2")
    }

    /// `invalid_grant` on the 401's refresh: the caller gets the terminal error, distinct from
    /// an authentication failure.
    @Test func deadRefreshTokenSurfacesReauthorizationRequired() async throws {
        let transport = ScriptedTransport([ScriptedTransport.status(401, invalidToken)])
        let refresher = ScriptedRefresher([ScriptedRefresher.throwing(Fixture.invalidGrant)])
        let (client, _) = try await Self.client(transport, Fixture.tokens("a1", expiresAt: 9_000), refresher: refresher)
        let error = await #expect(throws: OAuth2.Error.self) { try await client.get("https://api.example/me") }
        #expect(error?.code == .reauthorizationRequired)
        #expect(transport.sent.count == 1)
    }

    /// Only Bearer (case-insensitive) is sent; DPoP is refused clearly, before anything is sent.
    @Test func onlyBearerTokenTypes() async throws {
        let lower = ScriptedTransport([ScriptedTransport.status(200)])
        let (client, _) = try await Self.client(
            lower,
            Fixture.tokens("a1", expiresAt: 9_000, type: "bearer"),
            refresher: ScriptedRefresher([])
        )
        _ = try await client.get("https://api.example/")
        #expect(lower.sent[0].request.headerFields[.authorization] == "Bearer a1")

        let dpop = ScriptedTransport([ScriptedTransport.status(200)])
        let (dpopClient, _) = try await Self.client(
            dpop,
            Fixture.tokens("a1", expiresAt: 9_000, type: "DPoP"),
            refresher: ScriptedRefresher([])
        )
        let error = await #expect(throws: OAuth2.Error.self) { try await dpopClient.get("https://api.example/") }
        #expect(error?.code == .unsupportedTokenType)
        #expect(
            error?.reason
                == "token_type \"DPoP\" cannot be sent as Bearer (a DPoP token needs the session's DPoP key, RFC 9449 §7.1, and there is none)"
        )
        #expect(dpop.sent.isEmpty)
    }

    /// Never over plain http to a host that is not loopback; loopback is fine.
    @Test func plainHTTPOnlyToLoopback() async throws {
        let transport = ScriptedTransport([ScriptedTransport.status(200)])
        let (client, _) = try await Self.client(
            transport,
            Fixture.tokens("a1", expiresAt: 9_000),
            refresher: ScriptedRefresher([]),
            origins: ["http://api.example", "http://127.0.0.1:8080"]
        )
        let error = await #expect(throws: ClientError.self) { try await client.get("http://api.example/") }
        #expect(error?.code == .plainHTTPRefused)
        _ = try await client.get("http://127.0.0.1:8080/")
        #expect(transport.sent.map { $0.request.headerFields[.authorization] } == ["Bearer a1"])
    }
}
