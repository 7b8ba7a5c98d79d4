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
        public static let invalidRequest = Self(rawValue: "invalid_request")
        public static let unauthorizedClient = Self(rawValue: "unauthorized_client")
        public static let accessDenied = Self(rawValue: "access_denied")
        public static let unsupportedResponseType = Self(rawValue: "unsupported_response_type")
        public static let invalidScope = Self(rawValue: "invalid_scope")
        public static let serverError = Self(rawValue: "server_error")
        public static let temporarilyUnavailable = Self(rawValue: "temporarily_unavailable")
        // RFC 6749 §5.2 (token endpoint)
        public static let invalidClient = Self(rawValue: "invalid_client")
        public static let invalidGrant = Self(rawValue: "invalid_grant")
        public static let unsupportedGrantType = Self(rawValue: "unsupported_grant_type")
        // RFC 7009 §2.2.1
        public static let unsupportedTokenType = Self(rawValue: "unsupported_token_type")
        // RFC 8628 §3.5
        public static let authorizationPending = Self(rawValue: "authorization_pending")
        public static let slowDown = Self(rawValue: "slow_down")
        public static let expiredToken = Self(rawValue: "expired_token")
        // RFC 6750 §3.1
        public static let invalidToken = Self(rawValue: "invalid_token")
        public static let insufficientScope = Self(rawValue: "insufficient_scope")
        // RFC 9470 §3
        public static let insufficientUserAuthentication = Self(rawValue: "insufficient_user_authentication")
        // RFC 8707 §2
        public static let invalidTarget = Self(rawValue: "invalid_target")
        // RFC 9449 §12.2
        public static let invalidDPoPProof = Self(rawValue: "invalid_dpop_proof")
        public static let useDPoPNonce = Self(rawValue: "use_dpop_nonce")
        // RFC 9126 §2.3
        public static let invalidRequestURI = Self(rawValue: "invalid_request_uri")
        public static let invalidRequestObject = Self(rawValue: "invalid_request_object")
        // OpenID Connect Core 1.0 §3.1.2.6
        public static let interactionRequired = Self(rawValue: "interaction_required")
        public static let loginRequired = Self(rawValue: "login_required")
        public static let consentRequired = Self(rawValue: "consent_required")
    }

    /// An error the server sent: `error`, `error_description`, `error_uri`.
    /// [RFC 6749 §5.2](https://www.rfc-editor.org/rfc/rfc6749#section-5.2)
    ///
    /// It is data, not prose: ``code`` is compared, ``errorDescription`` is shown to a person.
    public struct ErrorResponse: Sendable, Hashable, Codable, CustomStringConvertible {
        public var code: ErrorCode
        public var errorDescription: String?
        public var errorURI: String?

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
