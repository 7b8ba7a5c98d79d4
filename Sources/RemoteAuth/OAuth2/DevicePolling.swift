extension OAuth2 {
    /// The device grant's polling, as a value: events in, actions out
    /// ([RFC 8628 §3.4](https://www.rfc-editor.org/rfc/rfc8628#section-3.4),
    /// [§3.5](https://www.rfc-editor.org/rfc/rfc8628#section-3.5)). The loop around it sends the
    /// poll, sleeps, and reads the clock; this value decides.
    ///
    /// ```
    /// start(now)      → wait(interval)              (or fail once the deadline passed)
    /// waited(now)     → poll                        (or fail: the deadline passed)
    /// tokens(t)       → done(t)
    /// refused(authorization_pending, now) → wait(interval)
    /// refused(slow_down, now)             → interval += 5; wait(interval)
    /// refused(expired_token | access_denied | any other) → fail
    /// ```
    /// The overall deadline is the device code's `expires_in`
    /// ([§3.2](https://www.rfc-editor.org/rfc/rfc8628#section-3.2)).
    public struct DevicePolling: Sendable, Hashable {
        /// What happened: polling began, a wait ended, or the token endpoint answered.
        public enum Event: Sendable, Hashable {
            /// Polling begins, at `now`.
            case start(now: Int64)
            /// The wait asked for is over, at `now`.
            case waited(now: Int64)
            /// The poll returned tokens.
            case tokens(Tokens)
            /// The poll returned an error (an ``OAuth2/Error``, at `now`).
            case refused(OAuth2.Error, now: Int64)
        }

        /// What to do next: wait, poll, or stop with tokens or an error.
        public enum Action: Sendable, Hashable {
            /// Sleep this many seconds, then send ``Event/waited(now:)``.
            case wait(seconds: Int64)
            /// Send the token request (``TokenRequest/deviceCode(_:)``).
            case poll
            /// The user approved.
            case done(Tokens)
            /// Polling is over without tokens.
            case fail(OAuth2.Error)
        }

        private enum State: Sendable, Hashable {
            case idle, waiting, polling
            case finished(Action)
        }

        /// The current interval between polls, in seconds.
        public private(set) var interval: Int64
        /// When the device code expires (seconds since 1970).
        public let deadline: Int64
        private var state: State = .idle

        /// Polling every `interval` seconds (at least 1) until `deadline` (seconds since 1970).
        public init(interval: Int64, deadline: Int64) {
            self.interval = max(1, interval)
            self.deadline = deadline
        }

        /// Polling at the response's `interval` until its device code expires (`expiresAt`).
        public init(_ response: DeviceAuthorizationResponse) {
            self.init(interval: response.interval, deadline: response.expiresAt)
        }

        /// `true` once ``Action/done(_:)`` or ``Action/fail(_:)`` was returned.
        public var isFinished: Bool {
            if case .finished = state { return true }
            return false
        }

        /// Takes `event` and returns what to do next; once finished, returns the final action again.
        /// An event out of order fails with `OAuth2.Error.Code.invalidConfiguration`.
        public mutating func handle(_ event: Event) -> Action {
            switch (state, event) {
            case (.finished(let action), _):
                return action
            case (.idle, .start(let now)):
                return scheduleWait(now: now)
            case (.waiting, .waited(let now)):
                if now >= deadline { return finish(.fail(Self.expired(deadline: deadline))) }
                state = .polling
                return .poll
            case (.polling, .tokens(let tokens)):
                return finish(.done(tokens))
            case (.polling, .refused(let error, let now)):
                switch error.serverError?.code {
                case .authorizationPending?:
                    return scheduleWait(now: now)
                case .slowDown?:
                    // §3.5: "the interval MUST be increased by 5 seconds for this and all
                    // subsequent requests".
                    interval += 5
                    return scheduleWait(now: now)
                default:
                    // expired_token, access_denied (§3.5), and anything else: the end.
                    return finish(.fail(error))
                }
            default:
                return finish(
                    .fail(OAuth2.Error(.invalidConfiguration, "device polling received \(event) out of order"))
                )
            }
        }

        private mutating func scheduleWait(now: Int64) -> Action {
            guard now < deadline else { return finish(.fail(Self.expired(deadline: deadline))) }
            state = .waiting
            return .wait(seconds: interval)
        }

        private mutating func finish(_ action: Action) -> Action {
            state = .finished(action)
            return action
        }

        static func expired(deadline: Int64) -> OAuth2.Error {
            OAuth2.Error(
                .deviceCodeExpired,
                "the device code expired (at \(deadline)) before the user approved (RFC 8628 §3.5)"
            )
        }
    }
}
