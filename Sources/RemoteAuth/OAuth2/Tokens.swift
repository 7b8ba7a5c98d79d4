extension OAuth2 {
    /// What a client holds after a token response: the access token, how to present it, when it
    /// expires, and the refresh token that renews it.
    /// [RFC 6749 §5.1](https://www.rfc-editor.org/rfc/rfc6749#section-5.1)
    ///
    /// Tokens are ``Secret``s: `description` and logs never show them.
    public struct Tokens: Sendable, Hashable, Codable, CustomStringConvertible {
        /// `access_token`.
        public var accessToken: Secret
        /// `token_type`, as the server wrote it (`Bearer`, `DPoP`, …); compared case-insensitively
        /// ([RFC 6749 §7.1](https://www.rfc-editor.org/rfc/rfc6749#section-7.1)).
        public var tokenType: String
        /// When the access token expires, in seconds since 1970: the response's `expires_in`
        /// added to the injected clock's time of the response; `nil` when the server gave none.
        public var expiresAt: Int64?
        /// `refresh_token`; a refresh response without one keeps the previous one
        /// ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)).
        public var refreshToken: Secret?
        /// `scope`, split on spaces ([RFC 6749 §3.3](https://www.rfc-editor.org/rfc/rfc6749#section-3.3));
        /// `nil` when the response omitted it (then it is the scope requested).
        public var scope: [String]?
        /// `id_token` (OpenID Connect Core §3.1.3.3), unvalidated here.
        public var idToken: Secret?

        /// Tokens of `accessToken` presented as `tokenType`, expiring at `expiresAt` (seconds since
        /// 1970; `nil`: unknown), with the optional refresh token, scope and ID token.
        public init(
            accessToken: Secret,
            tokenType: String,
            expiresAt: Int64? = nil,
            refreshToken: Secret? = nil,
            scope: [String]? = nil,
            idToken: Secret? = nil
        ) {
            self.accessToken = accessToken
            self.tokenType = tokenType
            self.expiresAt = expiresAt
            self.refreshToken = refreshToken
            self.scope = scope
            self.idToken = idToken
        }

        /// `true` when the access token expires within `skew` seconds of `now` (or has expired).
        /// A token without an expiry never counts as expiring.
        public func expires(within skew: Int64, of now: Int64) -> Bool {
            guard let expiresAt else { return false }
            return expiresAt - skew <= now
        }

        /// `true` when `token_type` is `Bearer`, compared case-insensitively.
        public var isBearer: Bool { tokenType.lowercased() == "bearer" }

        public var description: String {
            let expiry = expiresAt.map { ", expiresAt: \($0)" } ?? ""
            let refresh = refreshToken == nil ? "" : ", refreshToken: <redacted>"
            let scope = scope.map { ", scope: \($0.joined(separator: " "))" } ?? ""
            return "OAuth2.Tokens(tokenType: \(tokenType), accessToken: <redacted>\(expiry)\(refresh)\(scope))"
        }
    }
}
