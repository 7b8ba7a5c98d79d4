import RemoteAuth
import Testing

/// Every transition of the refresh state machine, with no actor, clock or store.
@Suite struct OAuth2SessionStateMachineTests {
    typealias Machine = OAuth2.RefreshStateMachine

    static func access(_ action: Machine.Action) -> String? {
        if case .use(let tokens) = action { return tokens.accessToken.reveal() }
        return nil
    }
    static func refreshing(_ action: Machine.Action) -> String? {
        if case .startRefresh(let tokens) = action { return tokens.refreshToken?.reveal() }
        return nil
    }
    static func persisting(_ action: Machine.Action) -> OAuth2.Tokens? {
        if case .persist(let tokens) = action { return tokens }
        return nil
    }
    static func failure(_ action: Machine.Action) -> (any Error)? {
        if case .fail(let error) = action { return error }
        return nil
    }
    static func isWaiting(_ action: Machine.Action) -> Bool {
        if case .waitForRefresh = action { return true }
        return false
    }
    static func isRereading(_ action: Machine.Action) -> Bool {
        if case .rereadStore = action { return true }
        return false
    }

    @Test func freshTokenIsUsedAndExpiringOneRefreshedWithTheSkew() {
        var machine = Machine(tokens: Fixture.tokens("a1", expiresAt: 1_000))
        #expect(Self.access(machine.tokenNeeded(at: 939)) == "a1")  // 61 s left
        #expect(Self.refreshing(machine.tokenNeeded(at: 940)) == "r1")  // 60 s left: the default skew
        #expect(machine.isBusy)
        #expect(Self.isWaiting(machine.tokenNeeded(at: 940)))

        var custom = Machine(tokens: Fixture.tokens("a1", expiresAt: 1_000), policy: .init(expirySkew: 0))
        #expect(Self.access(custom.tokenNeeded(at: 999)) == "a1")
        #expect(Self.refreshing(custom.tokenNeeded(at: 1_000)) == "r1")

        var forever = Machine(tokens: Fixture.tokens("a1", expiresAt: nil))
        #expect(Self.access(forever.tokenNeeded(at: 9_999_999)) == "a1")
    }

    /// The refreshed tokens are persisted, and only then used; a response without a refresh
    /// token keeps the old one (RFC 6749 §6).
    @Test func persistBeforeUse() {
        var machine = Machine(tokens: Fixture.tokens("a1", expiresAt: 1_000))
        _ = machine.tokenNeeded(at: 1_000)
        let toSave = Self.persisting(
            machine.refreshSucceeded(Fixture.tokens("a2", refresh: nil, expiresAt: 4_600), at: 1_000)
        )
        #expect(toSave?.accessToken.reveal() == "a2")
        #expect(toSave?.refreshToken?.reveal() == "r1")
        #expect(machine.tokens.accessToken.reveal() == "a1")  // Not used before it is saved.
        #expect(Self.isWaiting(machine.tokenNeeded(at: 1_000)))
        #expect(Self.access(machine.persisted()) == "a2")
        #expect(!machine.isBusy)
        #expect(Self.access(machine.tokenNeeded(at: 1_001)) == "a2")
    }

    /// A failed save keeps the rotated tokens pending; the next call saves them before use.
    @Test func failedSaveIsRetriedBeforeUse() {
        struct Full: Error {}
        var machine = Machine(tokens: Fixture.tokens("a1", expiresAt: 1_000))
        _ = machine.tokenNeeded(at: 1_000)
        _ = machine.refreshSucceeded(Fixture.tokens("a2", refresh: "r2", expiresAt: 4_600), at: 1_000)
        #expect(Self.failure(machine.persistFailed(Full())) is Full)
        #expect(machine.tokens.accessToken.reveal() == "a1")
        #expect(Self.persisting(machine.tokenNeeded(at: 1_001))?.refreshToken?.reveal() == "r2")
        #expect(Self.access(machine.persisted()) == "a2")
    }

    /// A 401 for the current token refreshes; for an older token, the newer one is used; while
    /// a refresh is in flight, the caller waits.
    @Test func rejectedTokenRefreshesOnlyWhenCurrent() {
        var machine = Machine(tokens: Fixture.tokens("a1", expiresAt: 5_000))
        #expect(Self.access(machine.tokenRejected("a0", at: 100)) == "a1")
        #expect(Self.refreshing(machine.tokenRejected("a1", at: 100)) == "r1")
        #expect(Self.isWaiting(machine.tokenRejected("a1", at: 100)))
        _ = machine.refreshSucceeded(Fixture.tokens("a2", refresh: "r2", expiresAt: 5_000), at: 100)
        _ = machine.persisted()
        #expect(Self.access(machine.tokenRejected("a1", at: 101)) == "a2")

        var noRefresh = Machine(tokens: Fixture.tokens("a1", refresh: nil, expiresAt: 5_000))
        let error = Self.failure(noRefresh.tokenRejected("a1", at: 100)) as? OAuth2.Error
        #expect(error?.code == .reauthorizationRequired)
        #expect(error?.reason == "the access token was refused and there is no refresh token")
    }

    /// A transient failure goes to the callers as is, and the next call refreshes again.
    @Test func transientFailureIsRethrownAndRetried() {
        var machine = Machine(tokens: Fixture.tokens("a1", expiresAt: 1_000))
        _ = machine.tokenNeeded(at: 1_000)
        let error = Self.failure(machine.refreshFailed(TransportError(.timedOut, "as.example"), at: 1_000))
        #expect((error as? TransportError)?.code == .timedOut)
        #expect(!machine.isBusy)
        #expect(Self.refreshing(machine.tokenNeeded(at: 1_001)) == "r1")

        let serverError = OAuth2.Error(.serverRefused, "x", serverError: .init(code: .temporarilyUnavailable))
        #expect(Self.failure(machine.refreshFailed(serverError, at: 1_001)) as? OAuth2.Error == serverError)
    }

    /// `invalid_grant`: the store is re-read; a sibling's rotation is adopted.
    @Test func invalidGrantAdoptsASiblingsRotation() {
        var machine = Machine(tokens: Fixture.tokens("a1", refresh: "r1", expiresAt: 1_000))
        _ = machine.tokenNeeded(at: 1_000)
        #expect(Self.isRereading(machine.refreshFailed(Fixture.invalidGrant, at: 1_000)))
        #expect(Self.isWaiting(machine.tokenNeeded(at: 1_000)))
        let stored = Fixture.tokens("a9", refresh: "r9", expiresAt: 4_600)
        #expect(Self.access(machine.storeRead(stored, at: 1_000)) == "a9")
        #expect(!machine.isBusy)

        // Adopted tokens that are expiring themselves are refreshed, with their refresh token.
        var stale = Machine(tokens: Fixture.tokens("a1", refresh: "r1", expiresAt: 1_000))
        _ = stale.tokenNeeded(at: 1_000)
        _ = stale.refreshFailed(Fixture.invalidGrant, at: 1_000)
        #expect(
            Self.refreshing(stale.storeRead(Fixture.tokens("a9", refresh: "r9", expiresAt: 1_010), at: 1_000)) == "r9"
        )
    }

    /// `invalid_grant` with nothing newer in the store: the terminal error, keeping the server's
    /// error; later calls re-read the store and recover after a sign-in elsewhere.
    @Test func invalidGrantWithNothingNewerIsTerminal() {
        let current = Fixture.tokens("a1", refresh: "r1", expiresAt: 1_000)
        var machine = Machine(tokens: current)
        _ = machine.tokenNeeded(at: 1_000)
        _ = machine.refreshFailed(Fixture.invalidGrant, at: 1_000)
        let error = Self.failure(machine.storeRead(current, at: 1_000)) as? OAuth2.Error
        #expect(error?.code == .reauthorizationRequired)
        #expect(error?.serverError?.code == .invalidGrant)
        #expect(error?.status == 400)
        #expect(
            error?.reason
                == "the refresh token was refused (invalid_grant) and the store holds no newer one: sign in again"
        )
        #expect(!machine.isBusy)
        #expect(Self.isRereading(machine.tokenNeeded(at: 1_001)))
        #expect((Self.failure(machine.storeRead(nil, at: 1_001)) as? OAuth2.Error)?.code == .reauthorizationRequired)
        #expect(Self.isRereading(machine.tokenNeeded(at: 1_002)))
        #expect(
            Self.access(machine.storeRead(Fixture.tokens("b1", refresh: "s1", expiresAt: 9_000), at: 1_002)) == "b1"
        )
    }

    @Test func expiredWithoutRefreshTokenRequiresReauthorization() {
        var machine = Machine(tokens: Fixture.tokens("a1", refresh: nil, expiresAt: 1_000))
        #expect(Self.access(machine.tokenNeeded(at: 980)) == "a1")  // Within the skew, still valid.
        let error = Self.failure(machine.tokenNeeded(at: 1_000)) as? OAuth2.Error
        #expect(error?.code == .reauthorizationRequired)
        #expect(error?.reason == "the access token expired and there is no refresh token")
    }

    /// At most 5 refreshes per 30 s by default: the sixth fails (or uses a token that has not
    /// expired yet); the window slides.
    @Test func refreshWindowCapsLoops() {
        var machine = Machine(tokens: Fixture.tokens("a0", expiresAt: 5_000))
        for n in 1...5 {
            #expect(Self.refreshing(machine.tokenRejected(Secret("a\(n - 1)"), at: 100 + Int64(n))) != nil)
            _ = machine.refreshSucceeded(Fixture.tokens("a\(n)", expiresAt: 5_000), at: 100)
            _ = machine.persisted()
        }
        let error = Self.failure(machine.tokenRejected("a5", at: 110)) as? OAuth2.Error
        #expect(error?.code == .refreshLimitExceeded)
        #expect(error?.reason == "5 refreshes in the last 30 s and the token is still refused or expired")
        #expect(Self.refreshing(machine.tokenRejected("a5", at: 131)) != nil)  // 101 has left the window.

        var expiring = Machine(tokens: Fixture.tokens("a0", expiresAt: 1_000), policy: .init(maximumRefreshes: 0))
        #expect(Self.access(expiring.tokenNeeded(at: 950)) == "a0")
        #expect((Self.failure(expiring.tokenNeeded(at: 1_000)) as? OAuth2.Error)?.code == .refreshLimitExceeded)
    }
}

/// A source that renews without a refresh token (client credentials, RFC 6749 §4.4.3).
@Suite struct OAuth2SessionStateMachineSourceTests {
    typealias Machine = OAuth2.RefreshStateMachine
    typealias T = OAuth2SessionStateMachineTests

    @Test func expiredTokenWithoutRefreshTokenIsRenewedWhenTheSourceCan() {
        var renewing = Machine(tokens: Fixture.tokens("a1", refresh: nil, expiresAt: 1_000), renewsWithoutRefreshToken: true)
        #expect(T.access(renewing.tokenNeeded(at: 939)) == "a1")
        guard case .startRefresh(let tokens) = renewing.tokenNeeded(at: 940) else {
            Issue.record("expected a renewal within the skew")
            return
        }
        #expect(tokens.accessToken.reveal() == "a1")
        let saved = T.persisting(renewing.refreshSucceeded(Fixture.tokens("a2", refresh: nil, expiresAt: 4_600), at: 940))
        #expect(saved?.refreshToken == nil)
        #expect(T.access(renewing.persisted()) == "a2")

        // A refused token is renewed too.
        guard case .startRefresh = renewing.tokenRejected("a2", at: 950) else {
            Issue.record("expected a renewal after invalid_token")
            return
        }

        var ending = Machine(tokens: Fixture.tokens("a1", refresh: nil, expiresAt: 1_000))
        #expect(T.access(ending.tokenNeeded(at: 940)) == "a1")  // Still usable: used as is.
        let error = T.failure(ending.tokenNeeded(at: 1_000)) as? OAuth2.Error
        #expect(error?.code == .reauthorizationRequired)
    }
}
