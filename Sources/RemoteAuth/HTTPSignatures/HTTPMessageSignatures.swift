public import HTTPTypes

/// HTTP Message Signatures, [RFC 9421](https://www.rfc-editor.org/rfc/rfc9421): a signature
/// over chosen parts of a request or response (its derived components and header fields),
/// carried in `Signature-Input` and `Signature`; and the `Content-Digest` field of
/// [RFC 9530](https://www.rfc-editor.org/rfc/rfc9530) that lets such a signature cover the
/// body.
///
/// - ``ComponentIdentifier``, ``SignatureInput`` and ``Message`` make the signature base
///   (``signatureBase(for:input:)``, §2.5).
/// - ``SigningKey`` and ``VerificationKey`` hold the keys of the six algorithms of §3.3.
/// - ``Signer`` signs requests and responses; ``Verifier`` checks them against its policy
///   (keys by `keyid`, their allowed algorithms, the age of `created` and `expires`, required
///   components, nonces already seen).
/// - ``ContentDigest`` computes and checks `Content-Digest`.
/// - ``Authenticator`` signs every attempt of ``AuthenticatingClient`` and can require signed
///   responses.
public enum HTTPMessageSignatures {
    /// `Signature-Input`: [RFC 9421 §4.1](https://www.rfc-editor.org/rfc/rfc9421#section-4.1).
    public static let signatureInputField = HTTPField.Name("Signature-Input")!
    /// `Signature`: [RFC 9421 §4.2](https://www.rfc-editor.org/rfc/rfc9421#section-4.2).
    public static let signatureField = HTTPField.Name("Signature")!
    /// `Accept-Signature`: [RFC 9421 §5.1](https://www.rfc-editor.org/rfc/rfc9421#section-5.1).
    public static let acceptSignatureField = HTTPField.Name("Accept-Signature")!
    /// `Content-Digest`: [RFC 9530 §2](https://www.rfc-editor.org/rfc/rfc9530#section-2).
    public static let contentDigestField = HTTPField.Name("Content-Digest")!
}

extension HTTPMessageSignatures {
    /// An HTTP signature algorithm of the IANA registry
    /// ([RFC 9421 §3.3](https://www.rfc-editor.org/rfc/rfc9421#section-3.3), §6.2): the value
    /// of the `alg` parameter.
    public struct Algorithm: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// RSASSA-PSS with SHA-512, MGF1 with SHA-512 and a 64-octet salt: §3.3.1.
        public static let rsaPSSSHA512 = Self(rawValue: "rsa-pss-sha512")
        /// RSASSA-PKCS1-v1_5 with SHA-256: §3.3.2.
        public static let rsaV1_5SHA256 = Self(rawValue: "rsa-v1_5-sha256")
        /// HMAC with SHA-256 over a shared secret: §3.3.3.
        public static let hmacSHA256 = Self(rawValue: "hmac-sha256")
        /// ECDSA on P-256 with SHA-256, the signature as `r || s` (64 octets), not DER: §3.3.4.
        public static let ecdsaP256SHA256 = Self(rawValue: "ecdsa-p256-sha256")
        /// ECDSA on P-384 with SHA-384, the signature as `r || s` (96 octets), not DER: §3.3.5.
        public static let ecdsaP384SHA384 = Self(rawValue: "ecdsa-p384-sha384")
        /// EdDSA on Ed25519 ([RFC 8032](https://www.rfc-editor.org/rfc/rfc8032)): §3.3.6.
        public static let ed25519 = Self(rawValue: "ed25519")

        /// The algorithms this library implements.
        public static let all: [Algorithm] = [
            .rsaPSSSHA512, .rsaV1_5SHA256, .hmacSHA256, .ecdsaP256SHA256, .ecdsaP384SHA384, .ed25519,
        ]
    }

    /// What went wrong while building a signature base, signing, verifying or checking a
    /// digest. The code says which rule failed; the reason names the component, label or
    /// parameter, never a key or a signature.
    public struct Error: CodedError {
        /// What went wrong, as a stable code: compare it with `==` (the set is open).
        public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public var description: String { rawValue }

            // Signature base (RFC 9421 §2.5).
            /// A covered component is not in the message: a field it does not have, a
            /// `key` its dictionary lacks, a query parameter its query lacks (§2.5, §2.1.2, §2.2.8).
            public static let missingComponent = Code(rawValue: "missingComponent")
            /// The same component identifier is covered twice (§2.5).
            public static let duplicateComponent = Code(rawValue: "duplicateComponent")
            /// A component name or parameter this library does not know, or parameters that do not
            /// go together (`sf` with `bs`, `name` on a field, `@signature-params` covered) (§2.5, §2.1).
            public static let invalidComponent = Code(rawValue: "invalidComponent")
            /// A derived component that does not apply to this message: `@status` on a request,
            /// `@method` on a response without `req`, `req` with no request at hand (§2.2, §2.4, §2.5).
            public static let componentNotApplicable = Code(rawValue: "componentNotApplicable")
            /// `sf` or `key` on a field whose value does not parse as its structured type, or whose
            /// type is not known (§2.1.1, §2.1.2).
            public static let invalidStructuredField = Code(rawValue: "invalidStructuredField")
            /// `tr` asked for trailer fields the message does not have (§2.1.4).
            public static let trailersUnavailable = Code(rawValue: "trailersUnavailable")

            // Fields (RFC 9421 §4).
            /// `Signature-Input` does not parse as a dictionary of inner lists of strings (§4.1).
            public static let malformedSignatureInput = Code(rawValue: "malformedSignatureInput")
            /// `Signature` does not parse as a dictionary of byte sequences (§4.2).
            public static let malformedSignature = Code(rawValue: "malformedSignature")
            /// A label already used in the message (signing), or used by two field lines (§4.1, §4.3).
            public static let duplicateLabel = Code(rawValue: "duplicateLabel")
            /// No signature with the label asked for, or a label in one field but not the other (§4.1, §4.2).
            public static let signatureNotFound = Code(rawValue: "signatureNotFound")

            // Verification policy (RFC 9421 §3.2, §7).
            /// A parameter the policy requires (`keyid`, `created`, `expires`, `nonce`) is absent,
            /// or a known parameter has the wrong type (§2.3).
            public static let missingParameter = Code(rawValue: "missingParameter")
            /// `keyid` names no key the verifier knows (§3.2 step 4).
            public static let unknownKey = Code(rawValue: "unknownKey")
            /// `alg`, or the key's only algorithm, is not on the key's allow-list (§3.2 step 5, §7.3.6).
            public static let algorithmNotAllowed = Code(rawValue: "algorithmNotAllowed")
            /// `expires` is in the past (§2.3, §3.2 step 7).
            public static let expired = Code(rawValue: "expired")
            /// `created` is older than the verifier's maximum age (§3.2 step 7, §7.2.2).
            public static let tooOld = Code(rawValue: "tooOld")
            /// `created` is later than now plus the allowed clock skew (§3.2 step 7).
            public static let createdInFuture = Code(rawValue: "createdInFuture")
            /// A component the verifier requires is not covered (§3.2 step 6, §7.2.1).
            public static let missingRequiredComponent = Code(rawValue: "missingRequiredComponent")
            /// The `tag` is not the one the verifier expects (§2.3).
            public static let tagMismatch = Code(rawValue: "tagMismatch")
            /// The `nonce` was already seen for this key (§7.2.2).
            public static let replayedNonce = Code(rawValue: "replayedNonce")
            /// The signature is not the key's signature of the signature base (§3.3).
            public static let invalidSignature = Code(rawValue: "invalidSignature")

            // Keys.
            /// A key that does not fit its algorithm: an RSA key under 2048 bits, an HMAC key
            /// under 32 octets, a JWK of another type or curve, an unreadable PEM.
            public static let invalidKey = Code(rawValue: "invalidKey")

            // Content-Digest (RFC 9530).
            /// `Content-Digest` is absent, or holds no digest of an algorithm checked here (§2).
            public static let missingContentDigest = Code(rawValue: "missingContentDigest")
            /// `Content-Digest` does not parse as a dictionary of byte sequences (§2).
            public static let malformedContentDigest = Code(rawValue: "malformedContentDigest")
            /// A digest of `Content-Digest` is not the digest of the body (§2).
            public static let digestMismatch = Code(rawValue: "digestMismatch")
        }

        public let code: Code
        public let reason: String

        /// Creates the error `code` with `reason`, in plain words.
        public init(_ code: Code, _ reason: String) {
            self.code = code
            self.reason = reason
        }

        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }
        public var description: String { "HTTPMessageSignatures.Error.\(code): \(reason)" }
    }
}
