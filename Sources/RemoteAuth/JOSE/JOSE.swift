/// JSON Object Signing and Encryption, the part OAuth 2 and OpenID Connect need: compact JWS
/// ([RFC 7515](https://www.rfc-editor.org/rfc/rfc7515)), JWK and JWK Sets
/// ([RFC 7517](https://www.rfc-editor.org/rfc/rfc7517)), the algorithms of
/// [RFC 7518](https://www.rfc-editor.org/rfc/rfc7518) and [RFC 8037](https://www.rfc-editor.org/rfc/rfc8037),
/// and thumbprints ([RFC 7638](https://www.rfc-editor.org/rfc/rfc7638)), on swift-crypto.
///
/// Strict by construction, as [RFC 8725](https://www.rfc-editor.org/rfc/rfc8725) (JWT best
/// current practices) asks: every verification names the algorithms it allows, `none` is never
/// accepted, a `crit` header is refused, a key is used only with the algorithm, `use` and
/// `key_ops` it declares, and an unknown `kid` never falls back to another key.
public enum JOSE {}

extension JOSE {
    /// A JWS `alg` value: [RFC 7518 §3.1](https://www.rfc-editor.org/rfc/rfc7518#section-3.1),
    /// [RFC 8037 §3.1](https://www.rfc-editor.org/rfc/rfc8037#section-3.1). An open registry, so a
    /// value this library does not implement still reads back in an error.
    public struct Algorithm: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The algorithm named `rawValue` (the JOSE `alg` value, such as `ES256`).
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// ECDSA with P-256 and SHA-256; the signature is `R || S`, 64 octets
        /// ([RFC 7518 §3.4](https://www.rfc-editor.org/rfc/rfc7518#section-3.4)).
        public static let es256 = Self(rawValue: "ES256")
        /// RSASSA-PKCS1-v1_5 with SHA-256 ([RFC 7518 §3.3](https://www.rfc-editor.org/rfc/rfc7518#section-3.3)).
        public static let rs256 = Self(rawValue: "RS256")
        /// RSASSA-PSS with SHA-256, MGF1 with SHA-256 and a 32-octet salt
        /// ([RFC 7518 §3.5](https://www.rfc-editor.org/rfc/rfc7518#section-3.5)).
        public static let ps256 = Self(rawValue: "PS256")
        /// EdDSA; this library implements the Ed25519 curve only
        /// ([RFC 8037 §3.1](https://www.rfc-editor.org/rfc/rfc8037#section-3.1)).
        public static let edDSA = Self(rawValue: "EdDSA")
        /// Ed25519, fully specified ([RFC 9864 §2.2](https://www.rfc-editor.org/rfc/rfc9864#section-2.2)):
        /// the same signatures as `EdDSA` with an Ed25519 key, named so that the algorithm alone
        /// says which curve.
        public static let ed25519 = Self(rawValue: "Ed25519")
        /// HMAC with SHA-256 ([RFC 7518 §3.2](https://www.rfc-editor.org/rfc/rfc7518#section-3.2)).
        public static let hs256 = Self(rawValue: "HS256")
        /// No signature ([RFC 7518 §3.6](https://www.rfc-editor.org/rfc/rfc7518#section-3.6)).
        /// Never accepted by this library, whatever an allow-list says.
        public static let none = Self(rawValue: "none")

        /// Every algorithm this library signs and verifies with.
        public static let implemented: Set<Algorithm> = [.es256, .rs256, .ps256, .edDSA, .ed25519, .hs256]
        /// The asymmetric ones: what a verifier of someone else's signature allows by default.
        public static let asymmetric: Set<Algorithm> = [.es256, .rs256, .ps256, .edDSA, .ed25519]

        /// The JWK `kty` a key for this algorithm has.
        var keyType: JWK.KeyType? {
            switch self {
            case .es256: .ec
            case .rs256, .ps256: .rsa
            case .edDSA, .ed25519: .okp
            case .hs256: .oct
            default: nil
            }
        }

        public var description: String { rawValue }
    }
}
