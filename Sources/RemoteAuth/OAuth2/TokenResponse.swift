extension OAuth2 {
    /// A successful token response ([RFC 6749 §5.1](https://www.rfc-editor.org/rfc/rfc6749#section-5.1)):
    /// the ``tokens``, and every member this type does not name in ``additionalParameters``.
    public struct TokenResponse: Sendable, Hashable, CustomStringConvertible {
        /// The tokens: access token, type, expiry (from `expires_in`), refresh token, scope, ID token.
        public var tokens: Tokens
        /// `expires_in` as the server sent it.
        public var expiresIn: Int64?
        /// `issued_token_type` ([RFC 8693 §2.2.1](https://www.rfc-editor.org/rfc/rfc8693#section-2.2.1)).
        public var issuedTokenType: String?
        /// The members beyond `access_token`, `token_type`, `expires_in`, `refresh_token`,
        /// `scope`, `id_token` and `issued_token_type`.
        public var additionalParameters: [String: JSONValue]

        /// A response with `tokens`, `expires_in` and `issued_token_type` as sent, and the other members.
        public init(
            tokens: Tokens,
            expiresIn: Int64? = nil,
            issuedTokenType: String? = nil,
            additionalParameters: [String: JSONValue] = [:]
        ) {
            self.tokens = tokens
            self.expiresIn = expiresIn
            self.issuedTokenType = issuedTokenType
            self.additionalParameters = additionalParameters
        }

        /// Reads a token endpoint's response.
        ///
        /// - Parameters:
        ///   - now: the injected clock's time of the response (seconds since 1970); `expires_at`
        ///     is `now + expires_in`.
        ///   - previous: the tokens a refresh started from: a response without `refresh_token`
        ///     keeps theirs, and one without `scope` keeps theirs
        ///     ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)).
        ///   - secrets: the request's secrets, kept out of any excerpt of the body.
        ///   - status: the response's status code.
        ///   - body: the response's body.
        /// - Throws: ``OAuth2/Error/Code/serverRefused`` for an error response
        ///   ([§5.2](https://www.rfc-editor.org/rfc/rfc6749#section-5.2)), with `status`;
        ///   ``OAuth2/Error/Code/malformedResponse`` (with `status` and at most 200 characters of
        ///   the body) for anything that is not a JSON object with a non-empty `access_token`
        ///   and a `token_type`.
        public static func parse(
            status: Int,
            body: [UInt8],
            now: Int64,
            previous: Tokens? = nil,
            redacting secrets: [Secret] = []
        ) throws -> TokenResponse {
            var object = try JSONObject.parse(status: status, body: body, redacting: secrets)
            let accessToken = try object.requiredString("access_token")
            guard !accessToken.isEmpty else { throw object.malformed("'access_token' is empty") }
            let tokenType = try object.requiredString("token_type")
            let expiresIn = try object.integer("expires_in")
            if let expiresIn, expiresIn < 0 { throw object.malformed("'expires_in' is negative") }
            let refreshToken = try object.string("refresh_token").map { Secret($0) }
            let scope = try object.scope()
            let idToken = try object.string("id_token").map { Secret($0) }
            let issuedTokenType = try object.string("issued_token_type")
            let tokens = Tokens(
                accessToken: Secret(accessToken),
                tokenType: tokenType,
                expiresAt: expiresIn.map { now.addingSaturating($0) },
                refreshToken: refreshToken ?? previous?.refreshToken,
                scope: scope ?? previous?.scope,
                idToken: idToken ?? previous?.idToken
            )
            return TokenResponse(
                tokens: tokens,
                expiresIn: expiresIn,
                issuedTokenType: issuedTokenType,
                additionalParameters: object.remaining
            )
        }

        public var description: String {
            "OAuth2.TokenResponse(\(tokens), additionalParameters: \(additionalParameters.keys.sorted()))"
        }
    }
}
