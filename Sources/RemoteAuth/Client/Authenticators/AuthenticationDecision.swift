/// What an authenticator decided while authenticating or judging one attempt, for a person who
/// debugs: logs (`debug`), trace spans (an event on the attempt's span) and `remote-auth request
/// -v` show it. It names a scheme, an action and a reason, never a credential: the reason is a
/// protocol word (`stale`, `invalid_token`, `use_dpop_nonce`, `expiry`), not a value that was
/// sent.
///
/// An authenticator records one with ``AuthenticationAttempt/record(_:)``.
public struct AuthenticationDecision: Sendable, Hashable, CustomStringConvertible {
    /// What was done.
    public struct Action: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A `401` or `407` challenge was answered with credentials (Basic, Digest).
        public static let challengeAnswered = Action(rawValue: "challenge answered")
        /// Credentials went with the first send, before any challenge (a preemptive Basic, a
        /// Digest answer from the protection space's last challenge).
        public static let sentPreemptively = Action(rawValue: "sent preemptively")
        /// A Digest challenge said `stale=true`: the same credentials with the new nonce
        /// ([RFC 7616 §3.3](https://www.rfc-editor.org/rfc/rfc7616#section-3.3)).
        public static let nonceRenewed = Action(rawValue: "nonce renewed")
        /// An access token was renewed (at its expiry, or after the resource refused it).
        public static let tokenRefreshed = Action(rawValue: "token refreshed")
        /// A refused access token had already been replaced by another request's refresh.
        public static let newerTokenTaken = Action(rawValue: "newer token taken")
        /// A DPoP nonce from the server was adopted and the request sent again
        /// ([RFC 9449 §8, §9](https://www.rfc-editor.org/rfc/rfc9449#section-8)).
        public static let dpopNonceAdopted = Action(rawValue: "nonce adopted")
        /// The response was refused and the authenticator gave up (the caller sees it).
        public static let gaveUp = Action(rawValue: "gave up")

        public var description: String { rawValue }
    }

    /// The scheme, as its challenge or field names it: `Basic`, `Digest`, `Bearer`, `DPoP`.
    public let scheme: String
    /// What was done.
    public let action: Action
    /// Why, in protocol words: `stale=true`, `invalid_token`, `use_dpop_nonce`, `expiry`;
    /// `nil` when the action says it all.
    public let reason: String?

    /// A decision to record; `reason` must name no credential.
    public init(scheme: String, action: Action, reason: String? = nil) {
        self.scheme = scheme
        self.action = action
        self.reason = reason
    }

    /// `Digest: challenge answered (stale=true)`.
    public var description: String { "\(scheme): \(action)" + (reason.map { " (\($0))" } ?? "") }
}
