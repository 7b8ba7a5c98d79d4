public import Logging
import Tracing

extension OAuth2 {
    /// A signed-in OAuth 2 session that hands out valid tokens, refreshing them when needed,
    /// never twice at once: the few lines around a `RefreshStateMachine` that call the
    /// refresher and the store. See the machine for the rules (refresh before expiry, once on
    /// `invalid_token`, single flight, persist before use, re-read the store after
    /// `invalid_grant`, a refresh window).
    ///
    /// With a ``CoordinatedTokenStore`` (``InMemoryTokenStore``, `FileTokenStore`,
    /// `PostgresTokenStore`) every refresh runs holding the session's key in the store: processes
    /// and machines sharing the store refresh a session once, and each adopts what another one
    /// saved instead of spending the rotated refresh token again.
    ///
    /// ```swift
    /// let session = try await OAuth2.TokenSession.restore(
    ///     from: store, service: "github", account: "alice",
    ///     now: { Int64(Date().timeIntervalSince1970) },
    ///     refresher: { tokens in try await protocolClient.refresh(tokens) })
    /// let client = AuthenticatingClient(transport: transport, authenticators: session.authenticators())
    /// let (response, body) = try await client.get("https://api.example.com/me")
    /// ```
    ///
    /// It is a ``RequestAuthenticator`` (`Authorization: Bearer`, RFC 6750 §2.1, or `DPoP` with a
    /// proof): ``authenticators(allowingPlainHTTP:)`` scopes it to its resource origins.
    public actor TokenSession: CustomStringConvertible {
        /// Turns the current tokens (with their refresh token) into new ones at the token
        /// endpoint ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)). An
        /// ``OAuth2/Error`` whose ``OAuth2/Error/serverError`` is `invalid_grant` means the
        /// refresh token is dead; any other error is transient.
        public typealias Refresher = @Sendable (Tokens) async throws -> Tokens

        /// Where the session is saved.
        public nonisolated let key: TokenStoreKey
        /// The origins the token may be sent to (``Session/resourceOrigins``, checked at init).
        public nonisolated let resourceScopes: [AuthScope]
        /// ``resourceScopes`` with the paths of the session's resources (``Session/resourceTargets()``).
        nonisolated let resourceTargets: [(scope: AuthScope, pathPrefix: String?)]
        private let store: any TokenStore
        /// The store, when it coordinates refreshes across processes: then every refresh runs
        /// holding the session's key (``CoordinatedTokenStore``).
        private let coordinated: (any CoordinatedTokenStore)?
        /// Where new tokens come from: a refresh token, or a grant that renews without one.
        public nonisolated let source: any TokenSource
        private let now: @Sendable () -> Int64
        /// The session as last saved or read, its tokens aside (the machine holds those).
        private var stored: Session
        private var machine: RefreshStateMachine
        /// The refresh, save or store read in flight, which every caller awaits.
        private var flight: Task<Tokens, any Swift.Error>?
        /// How many times the refresher was called, for tests and benchmarks.
        public private(set) var refreshCount = 0
        /// The session's DPoP prover, when its tokens are bound to a key: `DPoP` tokens are sent
        /// with a proof from it ([RFC 9449 §7.1](https://www.rfc-editor.org/rfc/rfc9449#section-7.1)).
        public nonisolated let dpop: DPoP.Prover?
        /// Where refreshes are logged (`debug`: why, how long the store's key was waited for,
        /// the outcome), never a token.
        public nonisolated let logger: Logger

        /// - Parameters:
        ///   - session: the session as signed in; it is not saved until its first rotation
        ///     (save it yourself after a sign-in).
        ///   - now: seconds since 1970.
        ///   - dpop: the prover for a session whose tokens are DPoP-bound (give the refresher
        ///     the same prover, e.g. through a flow bound with ``OAuth2/Flow/binding(to:)``).
        ///   - logger: where refreshes are logged, at `debug`.
        ///   - refresher: turns tokens into new ones with their refresh token.
        ///   - store: where rotations are saved, and re-read after `invalid_grant`.
        ///   - service: the session's service name in the store.
        ///   - account: the session's account in the store.
        ///   - policy: when to refresh, and how often at most.
        /// - Throws: ``ClientError/Code/invalidURL`` for a resource origin that is not an absolute
        ///   `http`/`https` URL.
        public init(
            session: Session,
            store: any TokenStore,
            service: String,
            account: String,
            policy: RefreshPolicy = .init(),
            now: @escaping @Sendable () -> Int64,
            dpop: DPoP.Prover? = nil,
            logger: Logger = Logger(label: "RemoteAuth.OAuth2.TokenSession"),
            refresher: @escaping Refresher
        ) throws {
            try self.init(
                session: session,
                store: store,
                service: service,
                account: account,
                policy: policy,
                now: now,
                dpop: dpop,
                logger: logger,
                source: ClosureTokenSource(refresher: refresher)
            )
        }

        /// A session renewed by `source`: ``RefreshTokenSource`` for a user's sign-in,
        /// ``ClientCredentialsSource`` (or another grant) for tokens that come without a refresh
        /// token and are renewed at expiry without anyone signing in again.
        ///
        /// - Throws: ``ClientError/Code/invalidURL`` for a resource origin that is not an absolute
        ///   `http`/`https` URL.
        public init(
            session: Session,
            store: any TokenStore,
            service: String,
            account: String,
            policy: RefreshPolicy = .init(),
            now: @escaping @Sendable () -> Int64,
            dpop: DPoP.Prover? = nil,
            logger: Logger = Logger(label: "RemoteAuth.OAuth2.TokenSession"),
            source: any TokenSource
        ) throws {
            self.dpop = dpop
            self.logger = logger
            self.key = TokenStoreKey(service: service, account: account)
            self.resourceScopes = try session.resourceScopes()
            self.resourceTargets = try session.resourceTargets()
            self.store = store
            self.coordinated = store as? any CoordinatedTokenStore
            self.source = source
            self.now = now
            self.stored = session
            self.machine = RefreshStateMachine(
                tokens: session.tokens,
                policy: policy,
                renewsWithoutRefreshToken: source.renewsWithoutRefreshToken
            )
        }

        /// The session saved under `service` and `account`.
        ///
        /// - Throws: ``OAuth2/Error/Code/reauthorizationRequired`` when the store holds no OAuth 2
        ///   session there.
        public static func restore(
            from store: any TokenStore,
            service: String,
            account: String,
            policy: RefreshPolicy = .init(),
            now: @escaping @Sendable () -> Int64,
            refresher: @escaping Refresher
        ) async throws -> TokenSession {
            guard let session = try await store.oauth2Session(service: service, account: account) else {
                throw OAuth2.Error(.reauthorizationRequired, "no OAuth 2 session is stored for \(service)/\(account)")
            }
            return try TokenSession(
                session: session,
                store: store,
                service: service,
                account: account,
                policy: policy,
                now: now,
                refresher: refresher
            )
        }

        /// `OAuth2.TokenSession(service/account)`: never a token.
        public nonisolated var description: String { "OAuth2.TokenSession(\(key))" }

        /// The session with its current tokens.
        public var session: Session {
            var session = stored
            session.tokens = machine.tokens
            return session
        }

        /// Tokens that are valid now, refreshed first when they expire within the skew.
        ///
        /// - Throws: ``OAuth2/Error/Code/reauthorizationRequired`` when the user must sign in
        ///   again; the refresher's or the store's error, as is, for a transient failure.
        public func validTokens() async throws -> Tokens {
            try await carryOut(machine.tokenNeeded(at: now()), reason: "expiry")
        }

        /// The current tokens, as the machine holds them (for the authenticator's decisions).
        var machineTokens: Tokens { machine.tokens }

        /// The server refused `accessToken` (`401` with `error="invalid_token"`,
        /// [RFC 6750 §3.1](https://www.rfc-editor.org/rfc/rfc6750#section-3.1)): refreshes once
        /// when it is the current token, else returns the newer tokens.
        public func tokenRejected(_ accessToken: Secret) async throws -> Tokens {
            try await carryOut(machine.tokenRejected(accessToken, at: now()), reason: ErrorCode.invalidToken.rawValue)
        }

        /// - Parameter reason: why tokens were asked for, for the log and the refresh span.
        private func carryOut(_ action: RefreshStateMachine.Action, reason: String) async throws -> Tokens {
            switch action {
            case .use(let tokens): return tokens
            case .fail(let error): throw error
            case .waitForRefresh:
                guard let flight else { return try await validTokens() }
                return try await flight.value
            case .startRefresh, .persist, .rereadStore:
                // No suspension between the machine's answer and this: later callers see the
                // flight and wait for it.
                let task = Task { try await self.flyTraced(action, reason: reason) }
                flight = task
                return try await task.value
            }
        }

        /// ``fly(_:)`` in a span (`RemoteAuth.OAuth2.refresh`, with the reason, the source and
        /// the outcome as attributes), logged at `debug`.
        private func flyTraced(_ first: RefreshStateMachine.Action, reason: String) async throws -> Tokens {
            let refreshes = refreshCount
            let metadata: Logger.Metadata = [
                "session": "\(key)", "reason": "\(reason)", "grant_type": "\(source.grantType.rawValue)",
            ]
            if case .startRefresh = first { logger.debug("refreshing the access token", metadata: metadata) }
            return try await withSpan("RemoteAuth.OAuth2.refresh", ofKind: .client) { span in
                span.attributes["remote_auth.refresh.reason"] = reason
                span.attributes["oauth2.grant_type"] = source.grantType.rawValue
                span.attributes["remote_auth.shared_store"] = coordinated != nil
                do {
                    let tokens = try await fly(first)
                    let outcome = refreshCount > refreshes ? "refreshed" : "adopted"
                    span.attributes["remote_auth.refresh.outcome"] = outcome
                    logger.debug("access token renewed", metadata: metadata.merging(["outcome": "\(outcome)"]) { $1 })
                    return tokens
                } catch {
                    span.attributes["remote_auth.refresh.outcome"] = "failed"
                    // The error's type only: its text may quote what the server said.
                    span.setStatus(SpanStatus(code: .error, message: "\(type(of: error))"))
                    logger.debug(
                        "access token renewal failed",
                        metadata: metadata.merging(["error": "\(type(of: error))"]) { $1 }
                    )
                    throw error
                }
            }
        }

        /// Carries out the flight's actions until the machine hands out tokens or fails.
        private func fly(_ first: RefreshStateMachine.Action) async throws -> Tokens {
            defer { flight = nil }  // In the same step as the machine's return to idle.
            var action = first
            while true {
                switch action {
                case .use(let tokens): return tokens
                case .fail(let error): throw error
                case .waitForRefresh:
                    preconditionFailure("the refresh state machine never waits for its own flight")
                case .startRefresh(let tokens):
                    if let coordinated {
                        action = await refreshHoldingKey(coordinated)
                        continue
                    }
                    refreshCount += 1
                    do {
                        let new = try await source.renew(tokens)
                        action = machine.refreshSucceeded(new, at: now())
                    } catch {
                        action = machine.refreshFailed(error, at: now())
                    }
                case .persist(let tokens):
                    var session = stored
                    session.tokens = tokens
                    do {
                        try await store.save(.oauth2(session), service: key.service, account: key.account)
                        stored = session
                        action = machine.persisted()
                    } catch {
                        action = machine.persistFailed(error)
                    }
                case .rereadStore:
                    let found = try? await store.oauth2Session(service: key.service, account: key.account)
                    action = machine.storeRead(found?.tokens, at: now())
                    if let found, action.adoptsStoredTokens { stored = found }
                }
            }
        }

        /// The refresh through a shared store: holding the session's key, re-reads it, adopts
        /// tokens another process rotated meanwhile or refreshes, and saves the new tokens before
        /// the key is released, so the next holder sees them.
        private func refreshHoldingKey(_ coordinated: any CoordinatedTokenStore) async -> RefreshStateMachine.Action {
            let waitStarted = ContinuousClock.now
            do {
                let (action, saved) = try await coordinated.withExclusiveAccess(
                    service: key.service,
                    account: key.account
                ) { session in
                    self.logger.debug(
                        "holding the session's key in the store",
                        metadata: ["session": "\(self.key)", "waited": "\(ContinuousClock.now - waitStarted)"]
                    )
                    let (action, renewed) = await self.refreshWhileHolding(session?.oauth2)
                    if let renewed { session = .oauth2(renewed) }
                    return (action, renewed)
                }
                guard let saved else { return action }
                stored = saved
                return machine.persisted()
            } catch {
                // Before the refresh (no access to the key) or after it (the save failed: the
                // new tokens stay pending and are saved first next time).
                return machine.hasPendingTokens ? machine.persistFailed(error) : machine.refreshFailed(error, at: now())
            }
        }

        /// The part of ``refreshHoldingKey(_:)`` that runs holding the key: the action that
        /// follows, and the session to save when the refresh succeeded.
        private func refreshWhileHolding(_ found: Session?) async -> (RefreshStateMachine.Action, Session?) {
            var action = machine.storeReadBeforeRefresh(found?.tokens, at: now())
            if let found, found.tokens == machine.tokens { stored = found }
            guard case .startRefresh(let tokens) = action else { return (action, nil) }
            refreshCount += 1
            do {
                action = machine.refreshSucceeded(try await source.renew(tokens), at: now())
            } catch {
                return (machine.refreshFailed(error, at: now()), nil)
            }
            guard case .persist(let renewed) = action else { return (action, nil) }
            var session = stored
            session.tokens = renewed
            return (action, session)
        }
    }
}
