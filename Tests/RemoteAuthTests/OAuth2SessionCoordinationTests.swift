import RemoteAuth
import Testing

/// A token endpoint with rotating refresh tokens and reuse detection, in memory: every refresh
/// rotates the refresh token, and a rotated one presented again revokes the grant (RFC 9700
/// §4.14.2), as the sandbox does.
final class RotatingServer: Sendable {
    private let state = Locked((generation: 1, revoked: false, refreshes: 0, reuses: 0))
    let lifetime: Int64
    let clock: TestClock

    init(clock: TestClock, lifetime: Int64 = 3_600) {
        self.clock = clock
        self.lifetime = lifetime
    }

    var refreshes: Int { state.withLock { $0.refreshes } }
    var reuses: Int { state.withLock { $0.reuses } }

    func refresh(_ tokens: OAuth2.Tokens) async throws -> OAuth2.Tokens {
        try await Task.sleep(for: .milliseconds(20))
        let now = clock.now
        return try state.withLock { state in
            guard !state.revoked, tokens.refreshToken?.reveal() == "r\(state.generation)" else {
                state.reuses += 1
                state.revoked = true
                throw Fixture.invalidGrant
            }
            state.generation += 1
            state.refreshes += 1
            return Fixture.tokens("a\(state.generation)", refresh: "r\(state.generation)", expiresAt: now + lifetime)
        }
    }
}

/// Refreshes through a ``CoordinatedTokenStore``: sessions sharing a store (as processes share a
/// file) refresh once and adopt each other's rotations; the store's exclusive access.
@Suite struct OAuth2SessionCoordinationTests {
    typealias Machine = OAuth2.RefreshStateMachine

    static func session(
        _ store: any TokenStore,
        server: RotatingServer,
        policy: OAuth2.RefreshPolicy = .init()
    ) async throws -> OAuth2.TokenSession {
        try await OAuth2.TokenSession.restore(
            from: store,
            service: "api",
            account: "alice",
            policy: policy,
            now: server.clock.function,
            refresher: { try await server.refresh($0) }
        )
    }

    /// Four sessions restored from one store (four processes), 50 concurrent callers each, an
    /// expired token: one refresh in all, every caller gets the new token, no reuse.
    @Test func fourSessionsOfFiftyCallersRefreshOnce() async throws {
        let clock = TestClock(1_000)
        let server = RotatingServer(clock: clock)
        let store = InMemoryTokenStore()
        try await store.save(Fixture.session(Fixture.tokens("a1", expiresAt: 900)), service: "api", account: "alice")
        var sessions: [OAuth2.TokenSession] = []
        for _ in 0..<4 { sessions.append(try await Self.session(store, server: server)) }
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for session in sessions {
                for _ in 0..<50 { group.addTask { try await session.validTokens().accessToken.reveal() } }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens == Array(repeating: "a2", count: 200))
        #expect(server.refreshes == 1)
        #expect(server.reuses == 0)
        var counts: [Int] = []
        for session in sessions { counts.append(await session.refreshCount) }
        #expect(counts.sorted() == [0, 0, 0, 1])
        #expect(try await store.oauth2Session(service: "api", account: "alice")?.tokens.accessToken.reveal() == "a2")
    }

    /// Tokens that expire every 60 s, asked for over 5 minutes by 3 sessions: one refresh per
    /// expiry, never one per session.
    @Test func oneRefreshPerExpiry() async throws {
        let clock = TestClock(1_000)
        let server = RotatingServer(clock: clock, lifetime: 60)
        let store = InMemoryTokenStore()
        try await store.save(Fixture.session(Fixture.tokens("a1", expiresAt: 1_060)), service: "api", account: "alice")
        var sessions: [OAuth2.TokenSession] = []
        for _ in 0..<3 {
            sessions.append(try await Self.session(store, server: server, policy: .init(expirySkew: 0)))
        }
        for time in stride(from: Int64(1_000), to: 1_300, by: 10) {
            clock.set(time)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for session in sessions { group.addTask { _ = try await session.validTokens() } }
                try await group.waitForAll()
            }
        }
        #expect(server.refreshes == 4)  // at 1060, 1120, 1180, 1240
        #expect(server.reuses == 0)
    }

    /// A sibling's rotation found before refreshing is adopted: no refresh at all.
    @Test func siblingsRotationIsAdoptedWithoutARefresh() async throws {
        let store = InMemoryTokenStore()
        let refresher = ScriptedRefresher([ScriptedRefresher.throwing(Fixture.invalidGrant)])
        let session = try OAuth2.TokenSession(
            session: Fixture.session(Fixture.tokens("a1", refresh: "r1", expiresAt: 900)),
            store: store,
            service: "api",
            account: "alice",
            now: { 1_000 },
            refresher: refresher.function
        )
        try await store.save(
            Fixture.session(Fixture.tokens("a2", refresh: "r2", expiresAt: 4_600)),
            service: "api",
            account: "alice"
        )
        let tokens = try await session.validTokens()
        #expect(tokens.accessToken.reveal() == "a2" && tokens.refreshToken?.reveal() == "r2")
        #expect(refresher.calls == [])
        #expect(await session.refreshCount == 0)
    }

    /// A sibling's rotation that has expired too is refreshed with its refresh token, never
    /// with ours (already spent).
    @Test func expiredRotationIsRefreshedWithItsOwnRefreshToken() async throws {
        let store = InMemoryTokenStore()
        let refresher = ScriptedRefresher([
            ScriptedRefresher.returning(Fixture.tokens("a3", refresh: "r3", expiresAt: 4_600))
        ])
        let session = try OAuth2.TokenSession(
            session: Fixture.session(Fixture.tokens("a1", refresh: "r1", expiresAt: 900)),
            store: store,
            service: "api",
            account: "alice",
            now: { 1_000 },
            refresher: refresher.function
        )
        try await store.save(
            Fixture.session(Fixture.tokens("a2", refresh: "r2", expiresAt: 950)),
            service: "api",
            account: "alice"
        )
        #expect(try await session.validTokens().accessToken.reveal() == "a3")
        #expect(refresher.calls == ["r2"])
        #expect(try await store.oauth2Session(service: "api", account: "alice")?.tokens.refreshToken?.reveal() == "r3")
    }

    // MARK: The machine's event

    @Test func machineRefreshesWhenTheStoreHoldsOurTokens() {
        var machine = Machine(tokens: Fixture.tokens("a1", expiresAt: 900))
        guard case .startRefresh = machine.tokenNeeded(at: 1_000) else {
            Issue.record("expected a refresh")
            return
        }
        let action = machine.storeReadBeforeRefresh(Fixture.tokens("a1", expiresAt: 900), at: 1_000)
        #expect(OAuth2SessionStateMachineTests.refreshing(action) == "r1")
        // Nothing stored (removed meanwhile): the refresh goes ahead too.
        var empty = Machine(tokens: Fixture.tokens("a1", expiresAt: 900))
        _ = empty.tokenNeeded(at: 1_000)
        #expect(OAuth2SessionStateMachineTests.refreshing(empty.storeReadBeforeRefresh(nil, at: 1_000)) == "r1")
    }

    @Test func machineAdoptsARotationStillValidEvenWithinTheSkew() {
        var machine = Machine(tokens: Fixture.tokens("a1", expiresAt: 900))
        _ = machine.tokenNeeded(at: 1_000)
        // 30 s left, under the 60 s skew: used, not refreshed again.
        let action = machine.storeReadBeforeRefresh(Fixture.tokens("a2", refresh: "r2", expiresAt: 1_030), at: 1_000)
        #expect(OAuth2SessionStateMachineTests.access(action) == "a2")
        #expect(!machine.isBusy)
        #expect(machine.tokens.refreshToken?.reveal() == "r2")
    }

    @Test func machineRefreshesAnExpiredRotationWithItsRefreshToken() {
        var machine = Machine(tokens: Fixture.tokens("a1", expiresAt: 900))
        _ = machine.tokenNeeded(at: 1_000)
        let action = machine.storeReadBeforeRefresh(Fixture.tokens("a2", refresh: "r2", expiresAt: 1_000), at: 1_000)
        #expect(OAuth2SessionStateMachineTests.refreshing(action) == "r2")
        // A response without a refresh token keeps r2, the one it was sent with.
        let persist = machine.refreshSucceeded(Fixture.tokens("a3", refresh: nil, expiresAt: 4_600), at: 1_000)
        #expect(OAuth2SessionStateMachineTests.persisting(persist)?.refreshToken?.reveal() == "r2")
    }

    @Test func machineDoesNotAdoptTheTokenThatWasRefused() {
        var machine = Machine(tokens: Fixture.tokens("a1", expiresAt: 4_000))
        // The server refused a1; the store holds a1 with a newer refresh token.
        #expect(OAuth2SessionStateMachineTests.refreshing(machine.tokenRejected(Secret("a1"), at: 1_000)) == "r1")
        let action = machine.storeReadBeforeRefresh(Fixture.tokens("a1", refresh: "r2", expiresAt: 4_000), at: 1_000)
        #expect(OAuth2SessionStateMachineTests.refreshing(action) == "r2")
    }

    @Test func machineAdoptedRotationWithoutRefreshTokenThatExpiredIsTerminal() {
        var machine = Machine(tokens: Fixture.tokens("a1", expiresAt: 900))
        _ = machine.tokenNeeded(at: 1_000)
        let action = machine.storeReadBeforeRefresh(Fixture.tokens("c1", refresh: nil, expiresAt: 990), at: 1_000)
        #expect((OAuth2SessionStateMachineTests.failure(action) as? OAuth2.Error)?.code == .reauthorizationRequired)
    }

    // MARK: The in-memory store's exclusive access

    /// 20 tasks incrementing a number kept in the session, each holding the key across a
    /// suspension: never two inside at once, no increment lost.
    @Test func inMemoryExclusiveAccessSerializes() async throws {
        let store = InMemoryTokenStore()
        let inside = Locked((now: 0, most: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await store.withExclusiveAccess(service: "api", account: "alice") { session in
                        inside.withLock {
                            $0.now += 1
                            $0.most = max($0.most, $0.now)
                        }
                        try await Task.sleep(for: .milliseconds(2))
                        let count = Int(session?.oauth2?.tokens.accessToken.reveal() ?? "0") ?? 0
                        session = .oauth2(Fixture.session(Fixture.tokens(String(count + 1))))
                        inside.withLock { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(inside.withLock { $0.most } == 1)
        #expect(try await store.oauth2Session(service: "api", account: "alice")?.tokens.accessToken.reveal() == "20")
        // Another key is not held up, and a body that sets nil removes the session.
        try await store.withExclusiveAccess(service: "api", account: "alice") { $0 = nil }
        #expect(await store.keys() == [])
    }

    /// A body that throws saves nothing and releases the key.
    @Test func inMemoryExclusiveAccessThrowingSavesNothing() async throws {
        struct Stop: Error {}
        let store = InMemoryTokenStore()
        await #expect(throws: Stop.self) {
            try await store.withExclusiveAccess(service: "api", account: "alice") { session in
                session = .oauth2(Fixture.session(Fixture.tokens("x")))
                throw Stop()
            }
        }
        #expect(await store.keys() == [])
        let read = try await store.withExclusiveAccess(service: "api", account: "alice") { $0 == nil }
        #expect(read)
    }
}

