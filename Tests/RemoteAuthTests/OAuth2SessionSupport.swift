import RemoteAuth

/// Shared fixtures of the OAuth2Session* suites: tokens, a session, a clock and a scripted
/// refresher.
enum Fixture {
    static func tokens(
        _ access: String,
        refresh: String? = "r1",
        expiresAt: Int64? = 1_000,
        type: String = "Bearer"
    ) -> OAuth2.Tokens {
        OAuth2.Tokens(
            accessToken: Secret(access),
            tokenType: type,
            expiresAt: expiresAt,
            refreshToken: refresh.map { Secret($0) },
            scope: ["read"]
        )
    }

    static func session(_ tokens: OAuth2.Tokens, origins: [String] = ["https://api.example"]) -> OAuth2.Session {
        OAuth2.Session(
            tokens: tokens,
            issuer: "https://as.example",
            tokenEndpoint: "https://as.example/token",
            revocationEndpoint: "https://as.example/revoke",
            clientID: "demo-service",
            clientAuthentication: .clientSecretBasic,
            clientSecret: "client-s3cret",
            scope: ["read"],
            resourceOrigins: origins
        )
    }

    static let invalidGrant = OAuth2.Error(
        .serverRefused,
        "the token endpoint refused the grant",
        serverError: OAuth2.ErrorResponse(code: .invalidGrant, errorDescription: "refresh token revoked"),
        status: 400
    )
}

/// A clock the test moves.
final class TestClock: Sendable {
    private let time: Locked<Int64>
    init(_ time: Int64) { self.time = Locked(time) }
    var now: Int64 { time.withLock { $0 } }
    func set(_ value: Int64) { time.withLock { $0 = value } }
    var function: @Sendable () -> Int64 { { self.now } }
}

/// A refresher that answers from a script, recording the refresh token of each call. It
/// sleeps a little first, so concurrent callers pile up behind the flight.
final class ScriptedRefresher: Sendable {
    typealias Answer = @Sendable (OAuth2.Tokens) throws -> OAuth2.Tokens
    private let state: Locked<(answers: [Answer], calls: [String])>
    private let delay: Duration

    init(_ answers: [Answer], delay: Duration = .milliseconds(20)) {
        state = Locked((answers, []))
        self.delay = delay
    }

    var calls: [String] { state.withLock { $0.calls } }

    func refresh(_ tokens: OAuth2.Tokens) async throws -> OAuth2.Tokens {
        let answer = state.withLock { state -> Answer? in
            state.calls.append(tokens.refreshToken?.reveal() ?? "-")
            return state.answers.isEmpty ? nil : state.answers.removeFirst()
        }
        try await Task.sleep(for: delay)
        guard let answer else { throw ScriptEnded() }
        return try answer(tokens)
    }

    var function: OAuth2.TokenSession.Refresher { { try await self.refresh($0) } }

    struct ScriptEnded: Error {}

    static func returning(_ tokens: OAuth2.Tokens) -> Answer { { _ in tokens } }
    static func throwing(_ error: any Error) -> Answer { { _ in throw error } }
}

/// A store whose saves fail while `failing` is set.
actor FlakyTokenStore: TokenStore {
    let inner = InMemoryTokenStore()
    var failing = false
    func setFailing(_ value: Bool) { failing = value }
    struct SaveFailed: Error {}

    func session(service: String, account: String) async throws -> StoredSession? {
        await inner.session(service: service, account: account)
    }
    func save(_ session: StoredSession, service: String, account: String) async throws {
        if failing { throw SaveFailed() }
        await inner.save(session, service: service, account: account)
    }
    func removeSession(service: String, account: String) async throws {
        await inner.removeSession(service: service, account: account)
    }
    func keys() async throws -> [TokenStoreKey] { await inner.keys() }
    nonisolated func changes() -> AsyncStream<TokenStoreChange> { inner.changes() }
}
