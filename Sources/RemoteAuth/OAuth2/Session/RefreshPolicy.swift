extension OAuth2 {
    /// When a ``TokenSession`` refreshes, and how often it may.
    public struct RefreshPolicy: Sendable, Hashable {
        /// Seconds before `expires_in` runs out at which the token counts as expired and is
        /// refreshed before use, so a request never leaves with a token that dies on the way
        /// ([RFC 6749 §5.1](https://www.rfc-editor.org/rfc/rfc6749#section-5.1) `expires_in`).
        /// 60 by default.
        public var expirySkew: Int64
        /// At most ``maximumRefreshes`` refreshes within ``window`` seconds (Alamofire's
        /// `RefreshWindow(interval: 30, maximumAttempts: 5)`): a server that refuses every fresh
        /// token (a clock far off, a misconfigured resource server) fails fast with
        /// ``OAuth2/Error/Code/refreshLimitExceeded`` instead of hammering the token endpoint.
        public var window: Int64
        /// The most refreshes allowed within `window` seconds; one more fails with
        /// `refreshLimitExceeded`. 5 by default.
        public var maximumRefreshes: Int

        /// A policy refreshing `expirySkew` seconds before expiry (default 60), at most
        /// `maximumRefreshes` times (default 5) in `window` seconds (default 30).
        public init(expirySkew: Int64 = 60, window: Int64 = 30, maximumRefreshes: Int = 5) {
            self.expirySkew = expirySkew
            self.window = window
            self.maximumRefreshes = maximumRefreshes
        }
    }
}
