public import Logging

extension AuthenticatingClient {
    /// How the client answers challenges, follows redirects, reaches a proxy and logs.
    public struct Configuration: Sendable {
        /// Send `Basic` credentials on the first request to an origin, before any challenge.
        public var preemptive = false
        /// Follow 301, 302, 303, 307 and 308 responses that carry a `Location`.
        public var followsRedirects = true
        /// The most redirects one ``AuthenticatingClient/send(_:body:preemptive:)`` follows.
        public var maximumRedirects = 10
        /// The most times one round trip is sent again because an authenticator asked
        /// (``AuthenticationVerdict/retry``: a DPoP nonce, then a refreshed token); one more ask
        /// is ``ClientError/Code/authenticationFailed``.
        public var maximumAuthenticationRetries = 2
        /// Where Digest cnonces come from.
        public var cnonceGenerator: DigestCnonceGenerator = .system
        /// The Digest `qop` to prefer when the server offers several; `nil` means `auth`.
        /// `auth-int` is used whenever it is the only one offered.
        public var digestQOP: DigestQOP?
        /// The proxy the transport sends through, if any: a `407` is answered with a credential
        /// for this scope, in `Proxy-Authorization`, on every hop (the proxy does not change
        /// when the origin does).
        public var proxy: AuthScope?
        /// Where exchanges are logged (`debug`: one line per round trip; `trace`: redacted
        /// header fields). Credentials and cookies are never logged.
        public var logger = Logger(label: "RemoteAuth.AuthenticatingClient")

        /// The defaults: no preemptive Basic, up to 10 redirects followed, 2 authentication retries,
        /// no proxy.
        public init() {}
    }
}

/// The client's shared mutable state: the round-trip count.
actor ClientState {
    private(set) var roundTrips = 0

    func countRoundTrip() { roundTrips += 1 }
}
