extension JOSE {
    /// Why a JWS, a JWK or a JWK Set was refused: a stable ``code`` and a ``reason`` naming the
    /// member or rule, never a key or a token.
    public struct Error: Swift.Error, Hashable, CustomStringConvertible {
        /// What went wrong, as a stable code: compare it with `==` (the set is open).
        public struct Code: Hashable, Sendable, CustomStringConvertible {
            private enum Base: String, Sendable {
                case malformed, algorithmNotAllowed, unsupportedAlgorithm, criticalHeader
                case unknownKey, ambiguousKey, keyMismatch, invalidKey, invalidSignature
                case tooLarge, keySetUnavailable, expired, notYetValid
            }
            private let base: Base
            /// Not a compact JWS, a JWK or a JWK Set: the wrong number of parts, base64url that
            /// is not canonical, a header or payload that is not the JSON the RFC requires.
            /// [RFC 7515 §5.2](https://www.rfc-editor.org/rfc/rfc7515#section-5.2)
            public static let malformed = Code(base: .malformed)
            /// The `alg` is not in the allow-list of this verification (`none` never is).
            /// [RFC 8725 §3.1](https://www.rfc-editor.org/rfc/rfc8725#section-3.1)
            public static let algorithmNotAllowed = Code(base: .algorithmNotAllowed)
            /// An algorithm or curve this library does not implement.
            public static let unsupportedAlgorithm = Code(base: .unsupportedAlgorithm)
            /// A `crit` header: extensions that must be understood, and this library understands
            /// none. [RFC 7515 §4.1.11](https://www.rfc-editor.org/rfc/rfc7515#section-4.1.11)
            public static let criticalHeader = Code(base: .criticalHeader)
            /// No key has the JWS's `kid` (after one re-fetch of a JWK Set, when allowed).
            public static let unknownKey = Code(base: .unknownKey)
            /// The JWS has no `kid` and more than one key could verify it.
            public static let ambiguousKey = Code(base: .ambiguousKey)
            /// The key's `kty`, `crv`, `alg`, `use` or `key_ops` does not allow this algorithm or
            /// operation. [RFC 7517 §4.2–4.4](https://www.rfc-editor.org/rfc/rfc7517#section-4.2)
            public static let keyMismatch = Code(base: .keyMismatch)
            /// A JWK whose members do not make a key (a point not on the curve, an RSA modulus
            /// under 2048 bits, a missing member).
            public static let invalidKey = Code(base: .invalidKey)
            /// The signature does not verify with the key.
            public static let invalidSignature = Code(base: .invalidSignature)
            /// Larger than the limit set for it (a token, a JWK Set's size or key count).
            public static let tooLarge = Code(base: .tooLarge)
            /// A JWK Set could not be fetched or read.
            public static let keySetUnavailable = Code(base: .keySetUnavailable)
            /// A JWT whose `exp` has passed, leeway included.
            /// [RFC 7519 §4.1.4](https://www.rfc-editor.org/rfc/rfc7519#section-4.1.4)
            public static let expired = Code(base: .expired)
            /// A JWT whose `nbf` is still ahead, leeway included.
            /// [RFC 7519 §4.1.5](https://www.rfc-editor.org/rfc/rfc7519#section-4.1.5)
            public static let notYetValid = Code(base: .notYetValid)
            public var description: String { base.rawValue }
        }

        public let code: Code
        /// Names what failed; never a key, a secret or the token.
        public let reason: String

        /// Creates the error `code` with a `reason` that names what failed, never a key or the token.
        public init(_ code: Code, _ reason: String) {
            self.code = code
            self.reason = reason
        }

        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }
        public var description: String { "JOSE.Error.\(code): \(reason)" }
    }
}
