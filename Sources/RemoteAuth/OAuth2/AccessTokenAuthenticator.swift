public import HTTPTypes

extension OAuth2 {
    /// Tokens in hand as a ``RequestAuthenticator``: `Authorization: Bearer <token>`
    /// ([RFC 6750 §2.1](https://www.rfc-editor.org/rfc/rfc6750#section-2.1)), or, for a `DPoP`
    /// token and a prover, `Authorization: DPoP <token>` with a proof over the request's method
    /// and URL carrying `ath` ([RFC 9449 §7.1](https://www.rfc-editor.org/rfc/rfc9449#section-7.1)).
    /// A resource server's `use_dpop_nonce` is answered with one retry carrying its nonce
    /// ([RFC 9449 §9](https://www.rfc-editor.org/rfc/rfc9449#section-9)). It cannot renew the
    /// token: ``TokenSession`` is the authenticator that does.
    public struct AccessTokenAuthenticator: RequestAuthenticator, CustomStringConvertible {
        /// The tokens whose access token each request carries; never renewed here.
        public let tokens: Tokens
        /// The prover for a `DPoP` token's proofs; `nil` for a `Bearer` token.
        public let dpop: DPoP.Prover?

        /// - Throws: ``OAuth2/Error/Code/unsupportedTokenType`` for a `token_type` other than
        ///   `Bearer`, or `DPoP` without a prover.
        public init(tokens: Tokens, dpop: DPoP.Prover? = nil) throws {
            try Self.checkTokenType(tokens, dpop: dpop)
            self.tokens = tokens
            self.dpop = dpop
        }

        public var writtenFields: [HTTPField.Name] { [.authorization, .dpop] }

        public func authenticate(_ attempt: inout AuthenticationAttempt) async throws {
            try Self.write(tokens, dpop: dpop, into: &attempt)
        }

        public func judge(_ response: HTTPResponse, to attempt: inout AuthenticationAttempt) async throws
            -> AuthenticationVerdict
        {
            DPoP.ProofAuthenticator.answersNonce(response, attempt: &attempt, prover: dpop) ? .retry : .accept
        }

        public var description: String { "OAuth2.AccessTokenAuthenticator(\(tokens.tokenType), <redacted>)" }

        /// What an attempt carried, kept in its context.
        struct Sent: Sendable {
            let accessToken: Secret
            /// `Bearer` or `DPoP`.
            let scheme: String
        }

        static let sent = AuthenticationAttempt.Key<Sent>("RemoteAuth.OAuth2.sentToken")

        /// `Bearer`, or `DPoP` with a prover; any other type is refused rather than sent as
        /// something it is not.
        static func checkTokenType(_ tokens: Tokens, dpop: DPoP.Prover?) throws {
            if dpop != nil, DPoP.isDPoPTokenType(tokens.tokenType) { return }
            guard tokens.isBearer else {
                throw OAuth2.Error(
                    .unsupportedTokenType,
                    "token_type \"\(tokens.tokenType)\" cannot be sent as Bearer"
                        + (DPoP.isDPoPTokenType(tokens.tokenType)
                            ? " (a DPoP token needs the session's DPoP key, RFC 9449 §7.1, and there is none)" : "")
                )
            }
        }

        /// Writes the token (and proof) into `attempt` and notes what was sent. A `Bearer` token
        /// is sent as Bearer even with a prover: the server chose not to bind it
        /// ([RFC 9449 §5](https://www.rfc-editor.org/rfc/rfc9449#section-5)).
        static func write(_ tokens: Tokens, dpop: DPoP.Prover?, into attempt: inout AuthenticationAttempt) throws {
            try checkTokenType(tokens, dpop: dpop)
            // The same b64token syntax for both schemes (RFC 9449 §7.1).
            let credentials = try BearerToken(tokens.accessToken).authorization
            guard let dpop, DPoP.isDPoPTokenType(tokens.tokenType) else {
                attempt.request.headerFields[.authorization] = credentials
                attempt[sent] = Sent(accessToken: tokens.accessToken, scheme: "Bearer")
                return
            }
            try DPoP.ProofAuthenticator.prove(&attempt, prover: dpop, accessToken: tokens.accessToken)
            attempt.request.headerFields[.authorization] = DPoP.scheme + credentials.dropFirst("Bearer".count)
            attempt[sent] = Sent(accessToken: tokens.accessToken, scheme: DPoP.scheme)
        }
    }
}
