extension OAuth2 {
    /// An `error` code: an open registry, so a code we have never seen still round-trips.
    /// [RFC 6749 §4.1.2.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1),
    /// [§5.2](https://www.rfc-editor.org/rfc/rfc6749#section-5.2), and the codes registered since
    /// ([IANA OAuth Extensions Error Registry](https://www.iana.org/assignments/oauth-parameters)).
    public struct ErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        // RFC 6749 §4.1.2.1 (authorization endpoint)
        /// `invalid_request`: a parameter is missing, repeated, or malformed.
        public static let invalidRequest = Self(rawValue: "invalid_request")
        /// `unauthorized_client`: the client may not use this grant or response type.
        public static let unauthorizedClient = Self(rawValue: "unauthorized_client")
        /// `access_denied`: the user or the server refused.
        public static let accessDenied = Self(rawValue: "access_denied")
        /// `unsupported_response_type`: the server does not issue this response type.
        public static let unsupportedResponseType = Self(rawValue: "unsupported_response_type")
        /// `invalid_scope`: the scope asked for is unknown, malformed, or beyond the grant.
        public static let invalidScope = Self(rawValue: "invalid_scope")
        /// `server_error`: the server failed.
        public static let serverError = Self(rawValue: "server_error")
        /// `temporarily_unavailable`: the server is overloaded or down for maintenance.
        public static let temporarilyUnavailable = Self(rawValue: "temporarily_unavailable")
        // RFC 6749 §5.2 (token endpoint)
        /// `invalid_client`: the client's authentication failed.
        public static let invalidClient = Self(rawValue: "invalid_client")
        /// `invalid_grant`: the code, refresh token or other grant is invalid, expired or revoked.
        public static let invalidGrant = Self(rawValue: "invalid_grant")
        /// `unsupported_grant_type`: the server does not support this grant.
        public static let unsupportedGrantType = Self(rawValue: "unsupported_grant_type")
        // RFC 7009 §2.2.1
        /// `unsupported_token_type`: the server cannot revoke this type of token.
        public static let unsupportedTokenType = Self(rawValue: "unsupported_token_type")
        // RFC 8628 §3.5
        /// `authorization_pending`: the user has not answered yet; poll again.
        public static let authorizationPending = Self(rawValue: "authorization_pending")
        /// `slow_down`: poll again, 5 seconds less often.
        public static let slowDown = Self(rawValue: "slow_down")
        /// `expired_token`: the device code expired; start again.
        public static let expiredToken = Self(rawValue: "expired_token")
        // RFC 6750 §3.1
        /// `invalid_token`: the access token is expired, revoked or malformed.
        public static let invalidToken = Self(rawValue: "invalid_token")
        /// `insufficient_scope`: the access token lacks a scope the request needs.
        public static let insufficientScope = Self(rawValue: "insufficient_scope")
        // RFC 9470 §3
        /// `insufficient_user_authentication`: the user's sign-in is too weak or too old.
        public static let insufficientUserAuthentication = Self(rawValue: "insufficient_user_authentication")
        // RFC 8707 §2
        /// `invalid_target`: a `resource` indicator is invalid or not allowed.
        public static let invalidTarget = Self(rawValue: "invalid_target")
        // RFC 9449 §12.2
        /// `invalid_dpop_proof`: the DPoP proof is invalid.
        public static let invalidDPoPProof = Self(rawValue: "invalid_dpop_proof")
        /// `use_dpop_nonce`: send the proof again with the server's `DPoP-Nonce`.
        public static let useDPoPNonce = Self(rawValue: "use_dpop_nonce")
        // RFC 9126 §2.3
        /// `invalid_request_uri`: the pushed request's `request_uri` is invalid or expired.
        public static let invalidRequestURI = Self(rawValue: "invalid_request_uri")
        /// `invalid_request_object`: the request object is invalid.
        public static let invalidRequestObject = Self(rawValue: "invalid_request_object")
        // OpenID Connect Core 1.0 §3.1.2.6
        /// `interaction_required`: the user must interact (`prompt=none` cannot be honoured).
        public static let interactionRequired = Self(rawValue: "interaction_required")
        /// `login_required`: the user must sign in (`prompt=none` cannot be honoured).
        public static let loginRequired = Self(rawValue: "login_required")
        /// `consent_required`: the user must consent (`prompt=none` cannot be honoured).
        public static let consentRequired = Self(rawValue: "consent_required")
    }

    /// An error the server sent: `error`, `error_description`, `error_uri`.
    /// [RFC 6749 §5.2](https://www.rfc-editor.org/rfc/rfc6749#section-5.2)
    ///
    /// It is data, not prose: ``code`` is compared, ``errorDescription`` is shown to a person.
    public struct ErrorResponse: Sendable, Hashable, Codable, CustomStringConvertible {
        /// `error`: the error code, to compare.
        public var code: ErrorCode
        /// `error_description`: text for a person, when the server sent one.
        public var errorDescription: String?
        /// `error_uri`: a page about the error, when the server sent one.
        public var errorURI: String?

        /// An error response with `error`, and optionally `error_description` and `error_uri`.
        public init(code: ErrorCode, errorDescription: String? = nil, errorURI: String? = nil) {
            self.code = code
            self.errorDescription = errorDescription
            self.errorURI = errorURI
        }

        enum CodingKeys: String, CodingKey {
            case code = "error"
            case errorDescription = "error_description"
            case errorURI = "error_uri"
        }

        public var description: String {
            var text = code.rawValue
            if let errorDescription { text += ": \(errorDescription)" }
            if let errorURI { text += " (\(errorURI))" }
            return text
        }
    }
}
