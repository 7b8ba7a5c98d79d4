/// OAuth 1.0a: [RFC 5849](https://www.rfc-editor.org/rfc/rfc5849), with the Twitter conventions
/// for the `Authorization` header.
public enum OAuth1 {}

extension OAuth1 {
    /// `oauth_signature_method`: [RFC 5849 §3.4](https://www.rfc-editor.org/rfc/rfc5849#section-3.4).
    public struct SignatureMethod: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// [RFC 5849 §3.4.2](https://www.rfc-editor.org/rfc/rfc5849#section-3.4.2).
        public static let hmacSHA1 = Self(rawValue: "HMAC-SHA1")
        /// HMAC-SHA1's construction with SHA-256; not in RFC 5849, used by many providers and oauthlib.
        public static let hmacSHA256 = Self(rawValue: "HMAC-SHA256")
        /// RSASSA-PKCS1-v1_5 with SHA-1: [RFC 5849 §3.4.3](https://www.rfc-editor.org/rfc/rfc5849#section-3.4.3).
        public static let rsaSHA1 = Self(rawValue: "RSA-SHA1")
        /// [RFC 5849 §3.4.4](https://www.rfc-editor.org/rfc/rfc5849#section-3.4.4).
        /// - Warning: PLAINTEXT sends the secrets themselves; use it only over TLS.
        public static let plaintext = Self(rawValue: "PLAINTEXT")

        /// The methods this library signs and verifies.
        public static let supported: [Self] = [.hmacSHA1, .hmacSHA256, .rsaSHA1, .plaintext]

        public var description: String { rawValue }
    }

    /// Where the protocol parameters travel: [RFC 5849 §3.5](https://www.rfc-editor.org/rfc/rfc5849#section-3.5).
    public enum Placement: String, Hashable, Sendable, Codable, CaseIterable {
        /// The `Authorization: OAuth` header, §3.5.1 (the default, and the one RFC 5849 recommends).
        case header
        /// The form-encoded entity-body, §3.5.2.
        case body
        /// The query component of the request URI, §3.5.3.
        case query
    }

    /// One name/value pair, decoded. OAuth 1 keeps duplicates and their order, so parameters are
    /// an ordered array of these, never a dictionary.
    public struct Parameter: Hashable, Sendable, Codable, CustomStringConvertible {
        /// The name, decoded.
        public var name: String
        /// The value, decoded.
        public var value: String
        /// A parameter from its decoded name and value.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
        /// A parameter from its decoded name and value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
        public var description: String { "\(name)=\(value)" }
    }

    /// The client credentials (consumer key and secret): [RFC 5849 §1.1](https://www.rfc-editor.org/rfc/rfc5849#section-1.1).
    /// `description` shows the key and redacts the secret; the secret compares in constant time.
    public struct ClientCredentials: Hashable, Sendable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        /// The consumer key (`oauth_consumer_key`).
        public var key: String
        /// The consumer secret; empty for a client that signs with RSA-SHA1 only.
        public var secret: Secret
        /// Client credentials of consumer `key` and `secret`.
        public init(key: String, secret: Secret) {
            self.key = key
            self.secret = secret
        }
        /// The same, the secret given as a plain string.
        public init(key: String, secret: String) {
            self.init(key: key, secret: Secret(secret))
        }
        public var description: String { "ClientCredentials(key: \(key), secret: <redacted>)" }
        public var debugDescription: String { description }
        public var customMirror: Mirror {
            Mirror(self, children: ["key": key, "secret": secret], displayStyle: .struct)
        }
    }

    /// Token credentials (an access token and its secret):
    /// [RFC 5849 §1.1](https://www.rfc-editor.org/rfc/rfc5849#section-1.1), what a signed call is
    /// made with. `description` shows the token and redacts the secret.
    public struct TokenCredentials: Hashable, Sendable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        /// `oauth_token`.
        public var token: String
        /// The token secret, half of the signing key.
        public var secret: Secret
        /// Token credentials from a token and its secret.
        public init(token: String, secret: Secret) {
            self.token = token
            self.secret = secret
        }
        /// The same, the secret given as a plain string.
        public init(token: String, secret: String) {
            self.init(token: token, secret: Secret(secret))
        }
        public var description: String { "TokenCredentials(token: \(token), secret: <redacted>)" }
        public var debugDescription: String { description }
        public var customMirror: Mirror {
            Mirror(self, children: ["token": token, "secret": secret], displayStyle: .struct)
        }
    }

    /// Temporary credentials (a request token and its secret):
    /// [RFC 5849 §1.1](https://www.rfc-editor.org/rfc/rfc5849#section-1.1),
    /// [§2.1](https://www.rfc-editor.org/rfc/rfc5849#section-2.1). Good for one authorization
    /// (step 2) and one exchange for ``TokenCredentials`` (step 3), never for a signed call; a
    /// type of its own so that the two cannot be mixed up. `description` redacts the secret.
    public struct RequestToken: Hashable, Sendable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        /// `oauth_token`.
        public var token: String
        /// `oauth_token_secret`.
        public var secret: Secret
        /// Temporary credentials of `token` (`oauth_token`) and `secret` (`oauth_token_secret`).
        public init(token: String, secret: Secret) {
            self.token = token
            self.secret = secret
        }
        /// The same, the secret given as a plain string.
        public init(token: String, secret: String) {
            self.init(token: token, secret: Secret(secret))
        }
        /// The pair in the form a ``Signer`` takes, for the step 3 request (§2.3), which the
        /// temporary credentials sign.
        public var signingCredentials: TokenCredentials { TokenCredentials(token: token, secret: secret) }
        public var description: String { "RequestToken(token: \(token), secret: <redacted>)" }
        public var debugDescription: String { description }
        public var customMirror: Mirror {
            Mirror(self, children: ["token": token, "secret": secret], displayStyle: .struct)
        }
    }

    /// `oauth_problem` values of the OAuth Problem Reporting extension (2008), which reports what
    /// [RFC 5849 §3.2](https://www.rfc-editor.org/rfc/rfc5849#section-3.2) leaves to the server's
    /// 400 and 401 answers; as an open registry, so a value not listed here still round-trips.
    /// Used by ``FlowError/problem`` on the client side and by the sandbox when it refuses.
    public struct Problem: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The problem named `rawValue`, as in `oauth_problem=`.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// `oauth_version` is not supported; `oauth_acceptable_versions` says which are.
        public static let versionRejected = Self(rawValue: "version_rejected")
        /// A required parameter is missing; `oauth_parameters_absent` names it.
        public static let parameterAbsent = Self(rawValue: "parameter_absent")
        /// A parameter is not accepted (duplicated, malformed, in two places).
        public static let parameterRejected = Self(rawValue: "parameter_rejected")
        /// `oauth_timestamp` is outside the accepted window.
        public static let timestampRefused = Self(rawValue: "timestamp_refused")
        /// `oauth_nonce` was already used with this timestamp.
        public static let nonceUsed = Self(rawValue: "nonce_used")
        /// `oauth_signature_method` is not supported.
        public static let signatureMethodRejected = Self(rawValue: "signature_method_rejected")
        /// The signature does not match.
        public static let signatureInvalid = Self(rawValue: "signature_invalid")
        /// `oauth_consumer_key` is unknown.
        public static let consumerKeyUnknown = Self(rawValue: "consumer_key_unknown")
        /// The consumer key is known but permanently refused.
        public static let consumerKeyRejected = Self(rawValue: "consumer_key_rejected")
        /// The consumer key is refused for now (throttled).
        public static let consumerKeyRefused = Self(rawValue: "consumer_key_refused")
        /// The token was already used (a request token exchanged once).
        public static let tokenUsed = Self(rawValue: "token_used")
        /// The token has expired.
        public static let tokenExpired = Self(rawValue: "token_expired")
        /// The token was revoked.
        public static let tokenRevoked = Self(rawValue: "token_revoked")
        /// The token is not accepted (unknown, or not good for this request).
        public static let tokenRejected = Self(rawValue: "token_rejected")
        /// `oauth_verifier` does not match the authorized request token (not in the extension;
        /// the sandbox and several providers send it).
        public static let verifierInvalid = Self(rawValue: "verifier_invalid")
        /// The user must grant more before this request is allowed.
        public static let additionalAuthorizationRequired = Self(rawValue: "additional_authorization_required")
        /// The user has not decided yet.
        public static let permissionUnknown = Self(rawValue: "permission_unknown")
        /// The user denied access.
        public static let permissionDenied = Self(rawValue: "permission_denied")
        /// The user refused.
        public static let userRefused = Self(rawValue: "user_refused")

        public var description: String { rawValue }
    }
}

/// An OAuth 1.0a failure, with a stable ``Code-swift.struct`` and a reason that names the
/// parameter or field at fault, never a secret.
public struct OAuth1Error: Error, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable code: compare it with `==` (the set is open).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case malformedEncoding, malformedRequest, malformedHeader, unsupportedSignatureMethod
            case missingParameter, duplicateParameter, parameterInTwoPlaces, unsupportedVersion
            case invalidSignature, missingKey, invalidKey, timestampRefused
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// A `%` escape that is not two hexadecimal digits.
        public static let malformedEncoding = Code(.malformedEncoding)
        /// The request cannot be signed as given (no scheme or authority, an unusable body).
        public static let malformedRequest = Code(.malformedRequest)
        /// An `Authorization: OAuth` header that does not parse (§3.5.1).
        public static let malformedHeader = Code(.malformedHeader)
        /// An `oauth_signature_method` this library does not implement.
        public static let unsupportedSignatureMethod = Code(.unsupportedSignatureMethod)
        /// A required protocol parameter is absent (OAuth Problem Reporting: `parameter_absent`).
        public static let missingParameter = Code(.missingParameter)
        /// An `oauth_*` parameter given twice (§3.1: each MUST NOT appear more than once).
        public static let duplicateParameter = Code(.duplicateParameter)
        /// Protocol parameters sent in more than one of header, query and body (§3.5).
        public static let parameterInTwoPlaces = Code(.parameterInTwoPlaces)
        /// `oauth_version` present and not `1.0` (§3.1).
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// The signature does not match (`signature_invalid`).
        public static let invalidSignature = Code(.invalidSignature)
        /// RSA-SHA1 without a private key (to sign) or public key (to verify).
        public static let missingKey = Code(.missingKey)
        /// A key that cannot be read (bad PEM, not RSA, too short).
        public static let invalidKey = Code(.invalidKey)
        /// `oauth_timestamp` outside the accepted window (`timestamp_refused`).
        public static let timestampRefused = Code(.timestampRefused)
        public var description: String { base.rawValue }
    }

    public let code: Code
    /// What went wrong, naming the parameter; never a secret.
    public let reason: String
    /// The protocol parameter at fault (`oauth_timestamp`, `oauth_nonce`, …), when one is; what
    /// a server reports as `oauth_parameters_absent` or `oauth_parameters_rejected`.
    public let parameter: String?

    /// Creates the error `code` with a `reason` that holds no secret and, when one is at fault, the
    /// protocol `parameter`.
    public init(_ code: Code, _ reason: String, parameter: String? = nil) {
        self.code = code
        self.reason = reason
        self.parameter = parameter
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { "OAuth1Error.\(code): \(reason)" }
}
