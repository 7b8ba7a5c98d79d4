import RemoteAuth
import Synchronization
import Testing

/// The token session actor: single flight, persistence before use, the store re-read after
/// `invalid_grant`, transient errors, with a scripted refresher and an injected clock.
@Suite struct OAuth2SessionTests {
    static func make(
        _ tokens: OAuth2.Tokens,
        store: any TokenStore = InMemoryTokenStore(),
        refresher: ScriptedRefresher,
        clock: TestClock = TestClock(1_000)
    ) throws -> OAuth2.TokenSession {
        try OAuth2.TokenSession(
            session: Fixture.session(tokens),
            store: store,
            service: "api",
            account: "alice",
            now: clock.function,
            refresher: refresher.function
        )
    }

    /// 100 concurrent requests with an expired token: exactly one refresher call, and every
    /// caller gets the refreshed token.
    @Test func hundredConcurrentCallersShareOneRefresh() async throws {
        let refresher = ScriptedRefresher([
            ScriptedRefresher.returning(Fixture.tokens("a2", refresh: "r2", expiresAt: 4_600))
        ])
        let session = try Self.make(Fixture.tokens("a1", expiresAt: 900), refresher: refresher)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 { group.addTask { try await session.validTokens().accessToken.reveal() } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens == Array(repeating: "a2", count: 100))
        #expect(refresher.calls == ["r1"])
        #expect(await session.refreshCount == 1)
    }

    /// The rotation is in the store before anyone gets the new token, and listeners hear of it.
    @Test func rotationIsPersistedBeforeUseAndAnnounced() async throws {
        let store = InMemoryTokenStore()
        let changes = store.changes()
        let refresher = ScriptedRefresher([
            ScriptedRefresher.returning(Fixture.tokens("a2", refresh: nil, expiresAt: 4_600))
        ])
        let session = try Self.make(Fixture.tokens("a1", expiresAt: 900), store: store, refresher: refresher)
        let tokens = try await session.validTokens()
        #expect(tokens.accessToken.reveal() == "a2")
        let saved = try #require(try await store.oauth2Session(service: "api", account: "alice"))
        #expect(saved.tokens == tokens)
        #expect(saved.tokens.refreshToken?.reveal() == "r1")  // Kept: the response had none.
        #expect(saved.clientID == "demo-service" && saved.tokenEndpoint == "https://as.example/token")
        var iterator = changes.makeAsyncIterator()
        let change = await iterator.next()
        #expect(change == .saved(TokenStoreKey(service: "api", account: "alice"), .oauth2(saved)))
        #expect(await session.session == saved)
    }

    /// A store that cannot save: the caller gets the store's error and no token; the rotated
    /// tokens are saved by the next call, with no second refresh.
    @Test func failedSaveNeverHandsOutTheToken() async throws {
        let store = FlakyTokenStore()
        await store.setFailing(true)
        let refresher = ScriptedRefresher([
            ScriptedRefresher.returning(Fixture.tokens("a2", refresh: "r2", expiresAt: 4_600))
        ])
        let session = try Self.make(Fixture.tokens("a1", expiresAt: 900), store: store, refresher: refresher)
        await #expect(throws: FlakyTokenStore.SaveFailed.self) { try await session.validTokens() }
        #expect(try await store.session(service: "api", account: "alice") == nil)
        await store.setFailing(false)
        #expect(try await session.validTokens().accessToken.reveal() == "a2")
        #expect(try await store.oauth2Session(service: "api", account: "alice")?.tokens.refreshToken?.reveal() == "r2")
        #expect(refresher.calls == ["r1"])
    }

    /// `invalid_grant` after a sibling process rotated the token: the store's tokens are
    /// adopted and the call succeeds. (A store that does not coordinate refreshes: with one
    /// that does, the rotation is adopted before any refresh, below.)
    @Test func invalidGrantAfterASiblingsRotation() async throws {
        let store = FlakyTokenStore()
        let refresher = ScriptedRefresher([ScriptedRefresher.throwing(Fixture.invalidGrant)])
        let session = try Self.make(
            Fixture.tokens("a1", refresh: "r1", expiresAt: 900),
            store: store,
            refresher: refresher
        )
        // The sibling refreshed with r1 first, and the server rotated it to r2.
        try await store.save(
            Fixture.session(Fixture.tokens("a2", refresh: "r2", expiresAt: 4_600)),
            service: "api",
            account: "alice"
        )
        let tokens = try await session.validTokens()
        #expect(tokens.accessToken.reveal() == "a2" && tokens.refreshToken?.reveal() == "r2")
        #expect(refresher.calls == ["r1"])
        #expect(try await session.validTokens().accessToken.reveal() == "a2")
    }

    /// `invalid_grant` with nothing newer: the terminal error, for every concurrent caller; a
    /// sign-in saved later revives the session.
    @Test func invalidGrantIsTerminal() async throws {
        let store = InMemoryTokenStore()
        let refresher = ScriptedRefresher([ScriptedRefresher.throwing(Fixture.invalidGrant)])
        let session = try Self.make(Fixture.tokens("a1", expiresAt: 900), store: store, refresher: refresher)
        let codes = await withTaskGroup(of: OAuth2.Error.Code?.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do {
                        _ = try await session.validTokens()
                        return nil
                    } catch {
                        return (error as? OAuth2.Error)?.code
                    }
                }
            }
            return await group.reduce(into: [OAuth2.Error.Code?]()) { $0.append($1) }
        }
        #expect(codes == Array(repeating: .reauthorizationRequired, count: 10))
        #expect(refresher.calls == ["r1"])
        let again = await #expect(throws: OAuth2.Error.self) { try await session.validTokens() }
        #expect(again?.code == .reauthorizationRequired)
        try await store.save(
            Fixture.session(Fixture.tokens("b1", refresh: "s1", expiresAt: 9_000)),
            service: "api",
            account: "alice"
        )
        #expect(try await session.validTokens().accessToken.reveal() == "b1")
        #expect(refresher.calls == ["r1"])
    }

    /// A transport failure of the refresh is rethrown as is; the next call tries again.
    @Test func transientErrorIsRethrownAndRetried() async throws {
        let refresher = ScriptedRefresher([
            ScriptedRefresher.throwing(TransportError(.connectionRefused, "as.example:443")),
            ScriptedRefresher.returning(Fixture.tokens("a2", refresh: "r2", expiresAt: 4_600)),
        ])
        let session = try Self.make(Fixture.tokens("a1", expiresAt: 900), refresher: refresher)
        let error = await #expect(throws: TransportError.self) { try await session.validTokens() }
        #expect(error?.code == .connectionRefused)
        #expect(try await session.validTokens().accessToken.reveal() == "a2")
        #expect(refresher.calls == ["r1", "r1"])
    }

    /// A 401 for the current token refreshes once; concurrent 401s for it share that refresh,
    /// and a 401 for the old token afterwards just gets the new one.
    @Test func rejectedTokenRefreshesOnce() async throws {
        let refresher = ScriptedRefresher([
            ScriptedRefresher.returning(Fixture.tokens("a2", refresh: "r2", expiresAt: 9_000))
        ])
        let session = try Self.make(Fixture.tokens("a1", expiresAt: 9_000), refresher: refresher)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await session.tokenRejected("a1").accessToken.reveal() } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens == Array(repeating: "a2", count: 20))
        #expect(try await session.tokenRejected("a1").accessToken.reveal() == "a2")
        #expect(refresher.calls == ["r1"])
    }

    @Test func restoreFromTheStore() async throws {
        let store = InMemoryTokenStore()
        let refresher = ScriptedRefresher([])
        let missing = await #expect(throws: OAuth2.Error.self) {
            try await OAuth2.TokenSession.restore(
                from: store,
                service: "api",
                account: "alice",
                now: { 0 },
                refresher: refresher.function
            )
        }
        #expect(missing?.code == .reauthorizationRequired)
        #expect(missing?.reason == "no OAuth 2 session is stored for api/alice")
        let saved = Fixture.session(Fixture.tokens("a1", expiresAt: 9_000))
        try await store.save(saved, service: "api", account: "alice")
        let session = try await OAuth2.TokenSession.restore(
            from: store,
            service: "api",
            account: "alice",
            now: { 1_000 },
            refresher: refresher.function
        )
        #expect(await session.session == saved)
        #expect(session.resourceScopes == [try AuthScope(url: "https://api.example")])
        #expect(try await session.validTokens().accessToken.reveal() == "a1")

        #expect(throws: ClientError.self) {
            try OAuth2.TokenSession(
                session: Fixture.session(Fixture.tokens("a1"), origins: ["ftp://x"]),
                store: store,
                service: "api",
                account: "alice",
                now: { 0 },
                refresher: refresher.function
            )
        }
    }
}
