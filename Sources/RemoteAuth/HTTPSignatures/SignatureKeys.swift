public import Crypto
public import CryptoExtras

extension HTTPMessageSignatures {
    /// A private key (or shared secret) that signs with one algorithm of
    /// [RFC 9421 §3.3](https://www.rfc-editor.org/rfc/rfc9421#section-3.3), under a `keyid`.
    ///
    /// `description` and `dump` show the algorithm and key id, never key material.
    public struct SigningKey: Sendable, CustomStringConvertible, CustomReflectable {
        enum Backing: Sendable {
            case rsa(_RSA.Signing.PrivateKey)
            case p256(P256.Signing.PrivateKey)
            case p384(P384.Signing.PrivateKey)
            case ed25519(Curve25519.Signing.PrivateKey)
            case hmac(SymmetricKey)
        }

        let backing: Backing
        /// The algorithm this key signs with.
        public let algorithm: Algorithm
        /// The `keyid` sent with its signatures.
        public let keyID: String

        init(_ backing: Backing, algorithm: Algorithm, keyID: String) {
            self.backing = backing
            self.algorithm = algorithm
            self.keyID = keyID
        }

        /// An RSA key of 2048 bits or more, for `rsa-pss-sha512` (§3.3.1) or `rsa-v1_5-sha256` (§3.3.2).
        /// - Throws: ``Error/Code/invalidKey`` for a shorter key or another algorithm.
        public static func rsa(_ key: _RSA.Signing.PrivateKey, algorithm: Algorithm, keyID: String) throws -> SigningKey
        {
            guard algorithm == .rsaPSSSHA512 || algorithm == .rsaV1_5SHA256 else {
                throw Error(.invalidKey, "an RSA key signs rsa-pss-sha512 or rsa-v1_5-sha256, not \(algorithm)")
            }
            guard key.keySizeInBits >= 2048 else {
                throw Error(.invalidKey, "an RSA key of \(key.keySizeInBits) bits; 2048 or more are required")
            }
            return SigningKey(.rsa(key), algorithm: algorithm, keyID: keyID)
        }

        /// A P-256 key: `ecdsa-p256-sha256` (§3.3.4).
        public static func p256(_ key: P256.Signing.PrivateKey, keyID: String) -> SigningKey {
            SigningKey(.p256(key), algorithm: .ecdsaP256SHA256, keyID: keyID)
        }

        /// A P-384 key: `ecdsa-p384-sha384` (§3.3.5).
        public static func p384(_ key: P384.Signing.PrivateKey, keyID: String) -> SigningKey {
            SigningKey(.p384(key), algorithm: .ecdsaP384SHA384, keyID: keyID)
        }

        /// An Ed25519 key: `ed25519` (§3.3.6).
        public static func ed25519(_ key: Curve25519.Signing.PrivateKey, keyID: String) -> SigningKey {
            SigningKey(.ed25519(key), algorithm: .ed25519, keyID: keyID)
        }

        /// A shared secret of 32 octets or more: `hmac-sha256` (§3.3.3).
        /// - Throws: ``Error/Code/invalidKey`` for a shorter secret.
        public static func hmacSHA256(_ secret: [UInt8], keyID: String) throws -> SigningKey {
            guard secret.count >= 32 else {
                throw Error(.invalidKey, "an hmac-sha256 secret of \(secret.count) octets; 32 or more are required")
            }
            return SigningKey(.hmac(SymmetricKey(data: secret)), algorithm: .hmacSHA256, keyID: keyID)
        }

        /// A key from a private JWK (the library's ``JOSE/JWK``): RSA with `n`, `e`, `d`, `p`,
        /// `q`; EC P-256 or P-384 with `d`; OKP Ed25519 with `d`; oct with `k`. The key id is
        /// `keyID`, else the JWK's `kid`.
        /// - Throws: ``Error/Code/invalidKey`` for a public or incomplete JWK, one of another
        ///   type than `algorithm` needs, or without a key id.
        public init(jwk: JOSE.JWK, algorithm: Algorithm, keyID: String? = nil) throws {
            guard let keyID = keyID ?? jwk.keyID else {
                throw Error(.invalidKey, "the JWK has no 'kid' and no key id was given")
            }
            let bytes = JWKBytes(jwk)
            do {
                switch (jwk.keyType, algorithm) {
                case (.rsa, .rsaPSSSHA512), (.rsa, .rsaV1_5SHA256):
                    let key = try _RSA.Signing.PrivateKey(
                        n: try bytes.required(jwk.n, "n"),
                        e: try bytes.required(jwk.e, "e"),
                        d: try bytes.secret(jwk.d, "d"),
                        p: try bytes.secret(jwk.p, "p"),
                        q: try bytes.secret(jwk.q, "q")
                    )
                    self = try .rsa(key, algorithm: algorithm, keyID: keyID)
                case (.ec, .ecdsaP256SHA256) where jwk.curve == "P-256":
                    self = .p256(
                        try P256.Signing.PrivateKey(rawRepresentation: try bytes.secret(jwk.d, "d", count: 32)),
                        keyID: keyID
                    )
                case (.ec, .ecdsaP384SHA384) where jwk.curve == "P-384":
                    self = .p384(
                        try P384.Signing.PrivateKey(rawRepresentation: try bytes.secret(jwk.d, "d", count: 48)),
                        keyID: keyID
                    )
                case (.okp, .ed25519) where jwk.curve == "Ed25519":
                    self = .ed25519(
                        try Curve25519.Signing.PrivateKey(rawRepresentation: try bytes.secret(jwk.d, "d", count: 32)),
                        keyID: keyID
                    )
                case (.oct, .hmacSHA256):
                    self = try .hmacSHA256(try bytes.secret(jwk.k, "k"), keyID: keyID)
                default:
                    throw Error(
                        .invalidKey,
                        "a \(jwk.keyType) JWK (\(jwk.curve ?? "no curve")) cannot sign \(algorithm)"
                    )
                }
            } catch let error as Error {
                throw error
            } catch {
                throw Error(.invalidKey, "the JWK is not a private key for \(algorithm)")
            }
        }

        /// A key from a PEM private key (PKCS#8 `PRIVATE KEY`, SEC 1 `EC PRIVATE KEY`, PKCS#1
        /// `RSA PRIVATE KEY`).
        /// - Throws: ``Error/Code/invalidKey`` when the PEM is not a key for `algorithm` (or is an
        ///   HMAC algorithm, which has no PEM form).
        public init(pem: String, algorithm: Algorithm, keyID: String) throws {
            switch algorithm {
            case .rsaPSSSHA512, .rsaV1_5SHA256:
                guard let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) else {
                    throw Error(.invalidKey, "the PEM is not an RSA private key")
                }
                self = try .rsa(key, algorithm: algorithm, keyID: keyID)
            case .ecdsaP256SHA256:
                guard let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else {
                    throw Error(.invalidKey, "the PEM is not a P-256 private key")
                }
                self = .p256(key, keyID: keyID)
            case .ecdsaP384SHA384:
                guard let key = try? P384.Signing.PrivateKey(pemRepresentation: pem) else {
                    throw Error(.invalidKey, "the PEM is not a P-384 private key")
                }
                self = .p384(key, keyID: keyID)
            case .ed25519:
                guard let key = try? Curve25519.Signing.PrivateKey(pemRepresentation: pem) else {
                    throw Error(.invalidKey, "the PEM is not an Ed25519 private key")
                }
                self = .ed25519(key, keyID: keyID)
            default:
                throw Error(.invalidKey, "\(algorithm) has no PEM private key")
            }
        }

        /// The signature of `base` (§3.3): RSA over the SHA-512 or SHA-256 digest, ECDSA as `r || s`,
        /// Ed25519 over the octets, HMAC-SHA256.
        public func signature(for base: [UInt8]) throws -> [UInt8] {
            switch backing {
            case .rsa(let key):
                if algorithm == .rsaPSSSHA512 {
                    // §3.3.1: RSASSA-PSS, SHA-512, MGF1 with SHA-512, a salt as long as the digest (64).
                    return Array(try key.signature(for: SHA512.hash(data: base), padding: .PSS).rawRepresentation)
                }
                // §3.3.2: RSASSA-PKCS1-v1_5 with SHA-256.
                return Array(
                    try key.signature(for: SHA256.hash(data: base), padding: .insecurePKCS1v1_5).rawRepresentation
                )
            case .p256(let key):
                // §3.3.4: SHA-256, then r and s as two 32-octet big-endian integers.
                return Array(try key.signature(for: base).rawRepresentation)
            case .p384(let key):
                // §3.3.5: SHA-384, then r and s as two 48-octet big-endian integers.
                return Array(try key.signature(for: base).rawRepresentation)
            case .ed25519(let key):
                return Array(try key.signature(for: base))
            case .hmac(let key):
                return Array(HMAC<SHA256>.authenticationCode(for: base, using: key))
            }
        }

        /// The key that verifies this key's signatures, allowing this key's algorithm only.
        public var verificationKey: VerificationKey {
            let backing: VerificationKey.Backing =
                switch self.backing {
                case .rsa(let key): .rsa(key.publicKey)
                case .p256(let key): .p256(key.publicKey)
                case .p384(let key): .p384(key.publicKey)
                case .ed25519(let key): .ed25519(key.publicKey)
                case .hmac(let key): .hmac(key)
                }
            return VerificationKey(backing, keyID: keyID, algorithms: [algorithm])
        }

        public var description: String { "HTTPMessageSignatures.SigningKey(\(algorithm), keyid: \(keyID), <redacted>)" }

        public var customMirror: Mirror {
            Mirror(self, children: ["algorithm": algorithm.rawValue, "keyID": keyID], displayStyle: .struct)
        }
    }

    /// A public key (or shared secret) that verifies signatures under a `keyid`, with the
    /// algorithms it may be used with: its allow-list
    /// ([RFC 9421 §3.2](https://www.rfc-editor.org/rfc/rfc9421#section-3.2) step 5,
    /// [§7.3.6](https://www.rfc-editor.org/rfc/rfc9421#section-7.3.6)). A signature whose `alg`
    /// is not on it is refused, and one without `alg` is checked with the key's algorithm only
    /// when the list holds exactly one.
    ///
    /// `description` and `dump` show the key id and algorithms, never a shared secret.
    public struct VerificationKey: Sendable, CustomStringConvertible, CustomReflectable {
        enum Backing: Sendable {
            case rsa(_RSA.Signing.PublicKey)
            case p256(P256.Signing.PublicKey)
            case p384(P384.Signing.PublicKey)
            case ed25519(Curve25519.Signing.PublicKey)
            case hmac(SymmetricKey)

            /// The algorithms a key of this type can verify.
            var algorithms: Set<Algorithm> {
                switch self {
                case .rsa: [.rsaPSSSHA512, .rsaV1_5SHA256]
                case .p256: [.ecdsaP256SHA256]
                case .p384: [.ecdsaP384SHA384]
                case .ed25519: [.ed25519]
                case .hmac: [.hmacSHA256]
                }
            }
        }

        let backing: Backing
        /// The key's id: the `keyid` of the signatures it verifies, by which a verifier finds it.
        public let keyID: String
        /// The algorithms this key may verify.
        public let algorithms: Set<Algorithm>

        init(_ backing: Backing, keyID: String, algorithms: Set<Algorithm>) {
            self.backing = backing
            self.keyID = keyID
            self.algorithms = algorithms
        }

        /// Checks that every algorithm of `algorithms` fits the key's type.
        private init(checking backing: Backing, keyID: String, algorithms: Set<Algorithm>?) throws {
            let allowed = algorithms ?? backing.algorithms
            guard !allowed.isEmpty, allowed.isSubset(of: backing.algorithms) else {
                throw Error(
                    .invalidKey,
                    "the key of \(keyID) verifies \(backing.algorithms.map(\.rawValue).sorted().joined(separator: ", ")) only"
                )
            }
            if case .rsa(let key) = backing, key.keySizeInBits < 2048 {
                throw Error(.invalidKey, "an RSA key of \(key.keySizeInBits) bits; 2048 or more are required")
            }
            self.init(backing, keyID: keyID, algorithms: allowed)
        }

        /// An RSA public key; `algorithms` is its allow-list (`rsa-pss-sha512`, `rsa-v1_5-sha256` or both).
        public static func rsa(_ key: _RSA.Signing.PublicKey, keyID: String, algorithms: Set<Algorithm>) throws -> Self
        {
            try Self(checking: .rsa(key), keyID: keyID, algorithms: algorithms)
        }

        /// A P-256 public key (`ecdsa-p256-sha256`).
        public static func p256(_ key: P256.Signing.PublicKey, keyID: String) -> Self {
            Self(.p256(key), keyID: keyID, algorithms: [.ecdsaP256SHA256])
        }

        /// A P-384 public key (`ecdsa-p384-sha384`).
        public static func p384(_ key: P384.Signing.PublicKey, keyID: String) -> Self {
            Self(.p384(key), keyID: keyID, algorithms: [.ecdsaP384SHA384])
        }

        /// An Ed25519 public key (`ed25519`).
        public static func ed25519(_ key: Curve25519.Signing.PublicKey, keyID: String) -> Self {
            Self(.ed25519(key), keyID: keyID, algorithms: [.ed25519])
        }

        /// A shared secret of 32 octets or more (`hmac-sha256`).
        public static func hmacSHA256(_ secret: [UInt8], keyID: String) throws -> Self {
            try SigningKey.hmacSHA256(secret, keyID: keyID).verificationKey
        }

        /// A key from a JWK (public members, or `k` for oct). `algorithms` is the allow-list;
        /// `nil` takes the JWK's `alg` when it names an RFC 9421 algorithm, else refuses an RSA
        /// key (which must be told PSS or v1.5) and allows the one algorithm of other types.
        /// - Throws: ``Error/Code/invalidKey``.
        public init(jwk: JOSE.JWK, keyID: String? = nil, algorithms: Set<Algorithm>? = nil) throws {
            guard let keyID = keyID ?? jwk.keyID else {
                throw Error(.invalidKey, "the JWK has no 'kid' and no key id was given")
            }
            let bytes = JWKBytes(jwk)
            let backing: Backing
            do {
                switch jwk.keyType {
                case .rsa:
                    backing = .rsa(
                        try _RSA.Signing.PublicKey(n: try bytes.required(jwk.n, "n"), e: try bytes.required(jwk.e, "e"))
                    )
                case .ec where jwk.curve == "P-256":
                    backing = .p256(
                        try P256.Signing.PublicKey(
                            rawRepresentation: try bytes.required(jwk.x, "x", count: 32)
                                + bytes.required(jwk.y, "y", count: 32)
                        )
                    )
                case .ec where jwk.curve == "P-384":
                    backing = .p384(
                        try P384.Signing.PublicKey(
                            rawRepresentation: try bytes.required(jwk.x, "x", count: 48)
                                + bytes.required(jwk.y, "y", count: 48)
                        )
                    )
                case .okp where jwk.curve == "Ed25519":
                    backing = .ed25519(
                        try Curve25519.Signing.PublicKey(rawRepresentation: try bytes.required(jwk.x, "x", count: 32))
                    )
                case .oct:
                    let secret = try bytes.secret(jwk.k, "k")
                    guard secret.count >= 32 else {
                        throw Error(
                            .invalidKey,
                            "an hmac-sha256 secret of \(secret.count) octets; 32 or more are required"
                        )
                    }
                    backing = .hmac(SymmetricKey(data: secret))
                default:
                    throw Error(.invalidKey, "a \(jwk.keyType) JWK (\(jwk.curve ?? "no curve")) is not an RFC 9421 key")
                }
            } catch let error as Error {
                throw error
            } catch {
                throw Error(.invalidKey, "the JWK is not a \(jwk.keyType) public key this library reads")
            }
            var allowed = algorithms
            if allowed == nil, let declared = jwk.algorithm?.rawValue,
                let algorithm = Algorithm.all.first(where: { $0.rawValue == declared })
            {
                allowed = [algorithm]
            }
            if allowed == nil, case .rsa = backing {
                throw Error(.invalidKey, "an RSA key needs its algorithm (rsa-pss-sha512 or rsa-v1_5-sha256) named")
            }
            try self.init(checking: backing, keyID: keyID, algorithms: allowed)
        }

        /// A public key from PEM (`PUBLIC KEY`, or `RSA PUBLIC KEY`): RSA, P-256, P-384 or Ed25519.
        /// - Throws: ``Error/Code/invalidKey``.
        public init(pem: String, keyID: String, algorithms: Set<Algorithm>) throws {
            let backing: Backing
            if let key = try? P256.Signing.PublicKey(pemRepresentation: pem) {
                backing = .p256(key)
            } else if let key = try? P384.Signing.PublicKey(pemRepresentation: pem) {
                backing = .p384(key)
            } else if let key = try? Curve25519.Signing.PublicKey(pemRepresentation: pem) {
                backing = .ed25519(key)
            } else if let key = try? _RSA.Signing.PublicKey(pemRepresentation: pem) {
                backing = .rsa(key)
            } else {
                throw Error(.invalidKey, "the PEM is not an RSA, P-256, P-384 or Ed25519 public key")
            }
            try self.init(checking: backing, keyID: keyID, algorithms: algorithms)
        }

        /// Whether `signature` is this key's signature of `base` with `algorithm`, which the
        /// caller has checked against ``algorithms``. HMAC compares in constant time
        /// (`HMAC.isValidAuthenticationCode`).
        func isValidSignature(_ signature: [UInt8], for base: [UInt8], algorithm: Algorithm) -> Bool {
            switch backing {
            case .rsa(let key):
                let rsaSignature = _RSA.Signing.RSASignature(rawRepresentation: signature)
                if algorithm == .rsaPSSSHA512 {
                    return key.isValidSignature(rsaSignature, for: SHA512.hash(data: base), padding: .PSS)
                }
                return key.isValidSignature(rsaSignature, for: SHA256.hash(data: base), padding: .insecurePKCS1v1_5)
            case .p256(let key):
                guard signature.count == 64, let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
                else { return false }
                return key.isValidSignature(parsed, for: base)
            case .p384(let key):
                guard signature.count == 96, let parsed = try? P384.Signing.ECDSASignature(rawRepresentation: signature)
                else { return false }
                return key.isValidSignature(parsed, for: base)
            case .ed25519(let key):
                return signature.count == 64 && key.isValidSignature(signature, for: base)
            case .hmac(let key):
                return HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: base, using: key)
            }
        }

        public var description: String {
            "HTTPMessageSignatures.VerificationKey(keyid: \(keyID), \(algorithms.map(\.rawValue).sorted().joined(separator: ", ")))"
        }

        public var customMirror: Mirror {
            Mirror(
                self,
                children: ["keyID": keyID, "algorithms": algorithms.map(\.rawValue).sorted()],
                displayStyle: .struct
            )
        }
    }
}
