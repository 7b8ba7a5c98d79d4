extension OAuth2 {
    /// The refresh single flight of one token session, as a value: events in (a token is needed
    /// at time t, the server refused a token, the refresh succeeded or failed, the rotation was
    /// persisted, the store was re-read), actions out (use these tokens, start a refresh, wait
    /// for the one in flight, persist, re-read the store, fail). The actor around it
    /// (``TokenSession``) only carries the actions out.
    ///
    /// - Before expiry: a token within ``RefreshPolicy/expirySkew`` of its expiry is refreshed
    ///   before use ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)).
    /// - A `401` with `error="invalid_token"` ([RFC 6750 §3.1](https://www.rfc-editor.org/rfc/rfc6750#section-3.1))
    ///   refreshes only when the refused token is the current one; a refusal of an older token
    ///   uses the newer one.
    /// - Single flight: while a refresh is in flight every caller waits for it.
    /// - Persist before use: new tokens are handed out only after the store saved them; a failed
    ///   save keeps them pending, and the next call saves them first (the old refresh token may
    ///   already be dead at the server, so they are never dropped).
    /// - `invalid_grant` ([RFC 6749 §5.2](https://www.rfc-editor.org/rfc/rfc6749#section-5.2)):
    ///   re-read the store, since another process may have rotated the refresh token; adopt its
    ///   tokens when their refresh token differs from the refused one, else fail with
    ///   ``OAuth2/Error/Code/reauthorizationRequired``. From then on every call re-reads the
    ///   store, so a sign-in made elsewhere revives the session.
    /// - Shared stores: through a ``CoordinatedTokenStore`` the refresh runs while holding the
    ///   session's key, after ``storeReadBeforeRefresh(_:at:)``: tokens another process rotated
    ///   since ours were read are adopted (and used until they expire) instead of spending the
    ///   refresh token a second time, which a server with reuse detection answers by revoking
    ///   the grant ([RFC 9700 §4.14.2](https://www.rfc-editor.org/rfc/rfc9700#section-4.14.2)).
    /// - Any other refresh failure (a ``TransportError``, a `server_error`) is handed to the
    ///   callers as is; the next call may refresh again.
    /// - At most ``RefreshPolicy/maximumRefreshes`` per ``RefreshPolicy/window`` seconds.
    /// - Tokens without a refresh token end the session at expiry
    ///   (``OAuth2/Error/Code/reauthorizationRequired``), unless the session's source renews
    ///   without one (``TokenSource/renewsWithoutRefreshToken``: client credentials, RFC 6749
    ///   §4.4.3, where the server should not issue a refresh token); then "refresh" below means
    ///   a new grant.
    package struct RefreshStateMachine: Sendable {
        package enum Action: Sendable {
            /// Hand these tokens to the caller.
            case use(Tokens)
            /// Call the refresher with these tokens, then ``refreshSucceeded(_:at:)`` or
            /// ``refreshFailed(_:at:)``.
            case startRefresh(Tokens)
            /// A refresh (or a save, or a store read) is in flight: wait for its outcome.
            case waitForRefresh
            /// Save these tokens in the store, then ``persisted()`` or ``persistFailed(_:)``.
            case persist(Tokens)
            /// Read the session from the store, then ``storeRead(_:at:)``.
            case rereadStore
            /// Throw this error to every caller of the flight.
            case fail(any Swift.Error)

            /// After ``storeRead(_:at:)``: whether the store's tokens were adopted.
            package var adoptsStoredTokens: Bool {
                if case .fail = self { return false }
                return true
            }
        }

        private enum State: Sendable {
            case idle
            /// A flight is under way: refreshing, saving or re-reading.
            case busy
            /// The refresh token was refused and the store had nothing newer.
            case reauthorizationRequired(OAuth2.Error)
        }

        package let policy: RefreshPolicy
        /// The tokens in use: persisted, or loaded from the store.
        package private(set) var tokens: Tokens
        /// Tokens a refresh returned that are not saved yet.
        private var pending: Tokens?
        /// The refresh token the last refresh was sent with.
        private var refreshedWith: Secret?
        /// The access token whose refusal (`invalid_token`) started the refresh in flight.
        private var refusedAccessToken: Secret?
        /// The server's `invalid_grant`, kept for the terminal error.
        private var refusal: OAuth2.Error?
        private var state = State.idle
        /// When each refresh of the current window started.
        private var refreshStarts: [Int64] = []

        /// The source renews tokens that have no refresh token (client credentials, JWT bearer,
        /// token exchange: ``TokenSource/renewsWithoutRefreshToken``).
        package let renewsWithoutRefreshToken: Bool

        package init(tokens: Tokens, policy: RefreshPolicy = .init(), renewsWithoutRefreshToken: Bool = false) {
            self.tokens = tokens
            self.policy = policy
            self.renewsWithoutRefreshToken = renewsWithoutRefreshToken
        }

        /// Whether `tokens` can be renewed without a new sign-in.
        private func canRenew(_ tokens: Tokens) -> Bool {
            tokens.refreshToken != nil || renewsWithoutRefreshToken
        }

        /// `true` when a refresh returned tokens the store has not saved yet.
        package var hasPendingTokens: Bool { pending != nil }

        /// `true` while a flight is under way.
        package var isBusy: Bool {
            if case .busy = state { return true }
            return false
        }

        /// A caller needs a token at `now`.
        package mutating func tokenNeeded(at now: Int64) -> Action {
            switch state {
            case .busy:
                return .waitForRefresh
            case .reauthorizationRequired:
                state = .busy
                return .rereadStore
            case .idle:
                break
            }
            if let pending {
                state = .busy
                return .persist(pending)
            }
            return evaluate(at: now)
        }

        /// The server refused `accessToken` (`401`, `error="invalid_token"`).
        package mutating func tokenRejected(_ accessToken: Secret, at now: Int64) -> Action {
            guard case .idle = state, pending == nil, accessToken == tokens.accessToken else {
                // A refresh is in flight or done since that token was sent: use its result.
                return tokenNeeded(at: now)
            }
            guard canRenew(tokens) else {
                return terminal(
                    OAuth2.Error(.reauthorizationRequired, "the access token was refused and there is no refresh token")
                )
            }
            let action = startRefresh(at: now, stillUsable: false)
            if case .startRefresh = action { refusedAccessToken = accessToken }
            return action
        }

        /// Before the refresh the last action started, holding the session's key in a
        /// ``CoordinatedTokenStore``: the tokens stored there now (`nil`: none, or another
        /// protocol).
        ///
        /// Stored tokens that differ from ours were rotated by another process (or a new
        /// sign-in) since ours were read. They are adopted, and used while they have not expired:
        /// refreshing them again within the skew would spend one refresh per process. Expired
        /// ones are refreshed with their own refresh token, never with ours, which the server
        /// has already rotated. Otherwise the refresh goes ahead as started.
        ///
        /// - Returns: ``Action/use(_:)``, or ``Action/startRefresh(_:)`` with the tokens to
        ///   refresh, now, still holding the key.
        package mutating func storeReadBeforeRefresh(_ stored: Tokens?, at now: Int64) -> Action {
            let refused = refusedAccessToken
            refusedAccessToken = nil
            guard let stored, stored.accessToken != tokens.accessToken || stored.refreshToken != tokens.refreshToken
            else { return .startRefresh(tokens) }
            tokens = stored
            pending = nil
            if !stored.expires(within: 0, of: now), stored.accessToken != refused {
                // No refresh happened: it does not count against the window.
                if !refreshStarts.isEmpty { refreshStarts.removeLast() }
                refreshedWith = nil
                state = .idle
                return .use(stored)
            }
            guard canRenew(stored) else {
                return terminal(
                    OAuth2.Error(
                        .reauthorizationRequired,
                        "the stored access token expired or was refused and there is no refresh token"
                    )
                )
            }
            refreshedWith = stored.refreshToken
            return .startRefresh(stored)
        }

        /// The refresher returned `new`: persist it (with the old refresh token when the
        /// response had none, [RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)).
        package mutating func refreshSucceeded(_ new: Tokens, at now: Int64) -> Action {
            var merged = new
            if merged.refreshToken == nil { merged.refreshToken = refreshedWith }
            pending = merged
            return .persist(merged)
        }

        /// The refresher threw `error`.
        package mutating func refreshFailed(_ error: any Swift.Error, at now: Int64) -> Action {
            if let oauth = error as? OAuth2.Error, oauth.serverError?.code == .invalidGrant {
                refusal = oauth
                return .rereadStore
            }
            state = .idle
            return .fail(error)
        }

        /// The store saved the pending tokens: they are the tokens now.
        package mutating func persisted() -> Action {
            if let pending { tokens = pending }
            pending = nil
            state = .idle
            return .use(tokens)
        }

        /// The store could not save the pending tokens: they stay pending, the caller gets the
        /// store's error.
        package mutating func persistFailed(_ error: any Swift.Error) -> Action {
            state = .idle
            return .fail(error)
        }

        /// The store's tokens after `invalid_grant` (`nil`: none, another protocol, or unreadable).
        package mutating func storeRead(_ stored: Tokens?, at now: Int64) -> Action {
            let refused = refreshedWith ?? tokens.refreshToken
            // A fresh access token saved since (a sign-in elsewhere, a client credentials grant)
            // is adopted too, even without a refresh token.
            guard let stored,
                stored.refreshToken != refused
                    || (stored.accessToken != tokens.accessToken && !stored.expires(within: policy.expirySkew, of: now))
            else {
                return terminal(
                    OAuth2.Error(
                        .reauthorizationRequired,
                        "the refresh token was refused (invalid_grant) and the store holds no newer one: sign in again",
                        serverError: refusal?.serverError ?? OAuth2.ErrorResponse(code: .invalidGrant),
                        status: refusal?.status
                    )
                )
            }
            // Another process rotated the tokens (or signed in again): adopt them, already stored.
            tokens = stored
            pending = nil
            refreshedWith = nil
            return evaluate(at: now)
        }

        /// The tokens now, refreshing first when they expire within the skew.
        private mutating func evaluate(at now: Int64) -> Action {
            guard tokens.expires(within: policy.expirySkew, of: now) else {
                state = .idle
                return .use(tokens)
            }
            let expired = tokens.expires(within: 0, of: now)
            guard canRenew(tokens) else {
                if !expired {
                    state = .idle
                    return .use(tokens)
                }
                return terminal(
                    OAuth2.Error(.reauthorizationRequired, "the access token expired and there is no refresh token")
                )
            }
            return startRefresh(at: now, stillUsable: !expired)
        }

        /// Starts a refresh unless the window is full; then a token that has not expired is used.
        private mutating func startRefresh(at now: Int64, stillUsable: Bool) -> Action {
            refreshStarts.removeAll { $0 <= now - policy.window }
            guard refreshStarts.count < policy.maximumRefreshes else {
                state = .idle
                if stillUsable { return .use(tokens) }
                return .fail(
                    OAuth2.Error(
                        .refreshLimitExceeded,
                        "\(refreshStarts.count) refreshes in the last \(policy.window) s and the token is still refused or expired"
                    )
                )
            }
            refreshStarts.append(now)
            refreshedWith = tokens.refreshToken
            state = .busy
            return .startRefresh(tokens)
        }

        private mutating func terminal(_ error: OAuth2.Error) -> Action {
            state = .reauthorizationRequired(error)
            return .fail(error)
        }
    }
}
