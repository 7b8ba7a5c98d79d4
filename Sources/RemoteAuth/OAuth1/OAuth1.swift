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
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
        public var description: String { "\(name)=\(value)" }
    }

    /// The client credentials (consumer key and secret): [RFC 5849 §1.1](https://www.rfc-editor.org/rfc/rfc5849#section-1.1).
    /// `description` shows the key and redacts the secret.
    public struct ClientCredentials: Hashable, Sendable, Codable, CustomStringConvertible, CustomDebugStringConvertible
    {
        public var key: String
        public var secret: String
        public init(key: String, secret: String) {
            self.key = key
            self.secret = secret
        }
        public var description: String { "ClientCredentials(key: \(key), secret: <redacted>)" }
        public var debugDescription: String { description }
    }

    /// Token credentials or temporary credentials (token and token secret):
    /// [RFC 5849 §1.1](https://www.rfc-editor.org/rfc/rfc5849#section-1.1). `description` shows the
    /// token and redacts the secret.
    public struct TokenCredentials: Hashable, Sendable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
        public var token: String
        public var secret: String
        public init(token: String, secret: String) {
            self.token = token
            self.secret = secret
        }
        public var description: String { "TokenCredentials(token: \(token), secret: <redacted>)" }
        public var debugDescription: String { description }
    }
}

/// An OAuth 1.0a failure, with a stable ``Code-swift.struct`` and a reason that names the
/// parameter or field at fault, never a secret.
public struct OAuth1Error: Error, Hashable, CustomStringConvertible {
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

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { "OAuth1Error.\(code): \(reason)" }
}
