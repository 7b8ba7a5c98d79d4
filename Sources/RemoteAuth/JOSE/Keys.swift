public import Crypto
public import CryptoExtras

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JOSE {
    /// A private (or symmetric) key that signs JWSs with one algorithm: a DPoP key, a
    /// `private_key_jwt` client key, the sandbox's ID token key.
    ///
    /// `description` shows the algorithm and `kid`, never key material.
    public struct SigningKey: Sendable, CustomStringConvertible {
        enum Backing: Sendable {
            case p256(P256.Signing.PrivateKey)
            case rsa(_RSA.Signing.PrivateKey)
            case ed25519(Curve25519.Signing.PrivateKey)
            case hmac(SymmetricKey)
        }

        let backing: Backing
        /// The `alg` this key signs with.
        public let algorithm: Algorithm
        /// The `kid` put in the headers this key signs, and in its public JWK.
        public let keyID: String?

        init(_ backing: Backing, algorithm: Algorithm, keyID: String?) {
            self.backing = backing
            self.algorithm = algorithm
            self.keyID = keyID
        }

        /// An ES256 key. [RFC 7518 §3.4](https://www.rfc-editor.org/rfc/rfc7518#section-3.4)
        public static func p256(_ key: P256.Signing.PrivateKey, keyID: String? = nil) -> SigningKey {
            SigningKey(.p256(key), algorithm: .es256, keyID: keyID)
        }

        /// A new random ES256 key (swift-crypto's generator): DPoP's default.
        public static func generateP256(keyID: String? = nil) -> SigningKey {
            .p256(P256.Signing.PrivateKey(), keyID: keyID)
        }

        /// An RS256 or PS256 key of 2048 bits or more.
        /// - Throws: ``JOSE/Error/Code/unsupportedAlgorithm`` for another algorithm.
        public static func rsa(_ key: _RSA.Signing.PrivateKey, algorithm: Algorithm = .rs256, keyID: String? = nil)
            throws -> SigningKey
        {
            guard algorithm == .rs256 || algorithm == .ps256 else {
                throw JOSE.Error(.unsupportedAlgorithm, "an RSA key signs with RS256 or PS256, not \(algorithm)")
            }
            guard key.keySizeInBits >= 2048 else {
                throw JOSE.Error(.invalidKey, "an RSA key under 2048 bits (RFC 7518 §3.3)")
            }
            return SigningKey(.rsa(key), algorithm: algorithm, keyID: keyID)
        }

        /// An Ed25519 key, signing as `EdDSA` ([RFC 8037 §3.1](https://www.rfc-editor.org/rfc/rfc8037#section-3.1),
        /// the default) or as `Ed25519` ([RFC 9864](https://www.rfc-editor.org/rfc/rfc9864#section-2.2)).
        public static func ed25519(
            _ key: Curve25519.Signing.PrivateKey, algorithm: Algorithm = .edDSA, keyID: String? = nil
        ) -> SigningKey {
            SigningKey(.ed25519(key), algorithm: algorithm == .ed25519 ? .ed25519 : .edDSA, keyID: keyID)
        }

        /// An HS256 key: at least 32 octets, as
        /// [RFC 7518 §3.2](https://www.rfc-editor.org/rfc/rfc7518#section-3.2) requires.
        /// - Throws: ``JOSE/Error/Code/invalidKey`` for a shorter key.
        public static func hmacSHA256(_ key: [UInt8], keyID: String? = nil) throws -> SigningKey {
            guard key.count >= 32 else {
                throw JOSE.Error(.invalidKey, "an HS256 key of \(key.count) octets; RFC 7518 §3.2 asks for 32 or more")
            }
            return SigningKey(.hmac(SymmetricKey(data: key)), algorithm: .hs256, keyID: keyID)
        }

        /// A key from a private JWK (`d` for EC, OKP and RSA with `p` and `q`; `k` for oct). The
        /// algorithm is the JWK's `alg`, else `algorithm`, else the key type's default (ES256,
        /// RS256, EdDSA, HS256).
        /// - Throws: ``JOSE/Error/Code/invalidKey`` for a public or incomplete JWK,
        ///   ``JOSE/Error/Code/keyMismatch`` when `alg` and `algorithm` differ or do not fit the
        ///   key type.
        public init(jwk: JWK, algorithm: Algorithm? = nil) throws {
            if let declared = jwk.algorithm, let algorithm, declared != algorithm {
                throw JOSE.Error(.keyMismatch, "the JWK is for \(declared), not \(algorithm)")
            }
            let bytes = JWKBytes(jwk)
            switch jwk.keyType {
            case .ec:
                guard jwk.curve == "P-256" else { throw JOSE.Error(.unsupportedAlgorithm, "EC curve '\(jwk.curve ?? "")'") }
                let d = try bytes.secret(jwk.d, "d", count: 32)
                let key: P256.Signing.PrivateKey
                do { key = try P256.Signing.PrivateKey(rawRepresentation: d) } catch {
                    throw JOSE.Error(.invalidKey, "'d' is not a P-256 private key")
                }
                // The public members, when given, must be this key's.
                if jwk.x != nil || jwk.y != nil {
                    let point = try bytes.required(jwk.x, "x", count: 32) + bytes.required(jwk.y, "y", count: 32)
                    guard key.publicKey.rawRepresentation.elementsEqual(point) else {
                        throw JOSE.Error(.invalidKey, "'x' and 'y' are not the public key of 'd'")
                    }
                }
                self = .p256(key, keyID: jwk.keyID)
            case .okp:
                guard jwk.curve == "Ed25519" else { throw JOSE.Error(.unsupportedAlgorithm, "OKP curve '\(jwk.curve ?? "")'") }
                let d = try bytes.secret(jwk.d, "d", count: 32)
                let key: Curve25519.Signing.PrivateKey
                do { key = try Curve25519.Signing.PrivateKey(rawRepresentation: d) } catch {
                    throw JOSE.Error(.invalidKey, "'d' is not an Ed25519 private key")
                }
                if jwk.x != nil {
                    guard key.publicKey.rawRepresentation.elementsEqual(try bytes.required(jwk.x, "x", count: 32)) else {
                        throw JOSE.Error(.invalidKey, "'x' is not the public key of 'd'")
                    }
                }
                self = .ed25519(key, algorithm: jwk.algorithm ?? algorithm ?? .edDSA, keyID: jwk.keyID)
            case .rsa:
                let key: _RSA.Signing.PrivateKey
                do {
                    key = try _RSA.Signing.PrivateKey(
                        n: try bytes.required(jwk.n, "n"), e: try bytes.required(jwk.e, "e"),
                        d: try bytes.secret(jwk.d, "d"), p: try bytes.secret(jwk.p, "p"), q: try bytes.secret(jwk.q, "q"))
                } catch let error as JOSE.Error {
                    throw error
                } catch {
                    throw JOSE.Error(.invalidKey, "'n', 'e', 'd', 'p', 'q' do not make an RSA key of 2048 bits or more")
                }
                self = try .rsa(key, algorithm: jwk.algorithm ?? algorithm ?? .rs256, keyID: jwk.keyID)
            case .oct:
                self = try .hmacSHA256(try bytes.secret(jwk.k, "k"), keyID: jwk.keyID)
            default:
                throw JOSE.Error(.unsupportedAlgorithm, "kty '\(jwk.keyType)'")
            }
            if let wanted = jwk.algorithm ?? algorithm, wanted != self.algorithm {
                throw JOSE.Error(.keyMismatch, "a \(jwk.keyType) key cannot sign \(wanted)")
            }
        }

        /// A key from a PEM private key (PKCS#8 `PRIVATE KEY`, SEC 1 `EC PRIVATE KEY` or PKCS#1
        /// `RSA PRIVATE KEY`): P-256, Ed25519 or RSA of 2048 bits or more.
        /// - Throws: ``JOSE/Error/Code/invalidKey`` for anything else.
        public init(pem: String, algorithm: Algorithm? = nil, keyID: String? = nil) throws {
            if algorithm == nil || algorithm == .es256, let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
                self = .p256(key, keyID: keyID)
            } else if algorithm == nil || algorithm == .edDSA || algorithm == .ed25519,
                let key = try? Curve25519.Signing.PrivateKey(pemRepresentation: pem)
            {
                self = .ed25519(key, algorithm: algorithm ?? .edDSA, keyID: keyID)
            } else if algorithm == nil || algorithm == .rs256 || algorithm == .ps256,
                let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem)
            {
                self = try .rsa(key, algorithm: algorithm ?? .rs256, keyID: keyID)
            } else {
                throw JOSE.Error(
                    .invalidKey,
                    "not a PEM private key for \(algorithm?.rawValue ?? "ES256, EdDSA, RS256 or PS256") "
                        + "(P-256, Ed25519, or RSA of 2048 bits or more)")
            }
        }

        /// The public JWK, with `kid`, `alg` and `use: sig`; `nil` for an HMAC key.
        public var publicJWK: JWK? {
            var jwk: JWK
            switch backing {
            case .p256(let key):
                let raw = Array(key.publicKey.rawRepresentation)
                jwk = JWK(
                    keyType: .ec, curve: "P-256", x: RemoteAuthBase64URL.encode(raw[0..<32]),
                    y: RemoteAuthBase64URL.encode(raw[32..<64]))
            case .ed25519(let key):
                jwk = JWK(keyType: .okp, curve: "Ed25519", x: RemoteAuthBase64URL.encode(key.publicKey.rawRepresentation))
            case .rsa(let key):
                guard let primitives = try? key.publicKey.getKeyPrimitives() else { return nil }
                jwk = JWK(
                    keyType: .rsa, n: RemoteAuthBase64URL.encode(primitives.modulus),
                    e: RemoteAuthBase64URL.encode(primitives.publicExponent))
            case .hmac:
                return nil
            }
            jwk.keyID = keyID
            jwk.algorithm = algorithm
            jwk.use = "sig"
            return jwk
        }

        /// The private JWK, to store the key (a DPoP key kept with its session). EC and OKP keys
        /// only: swift-crypto does not export an RSA key's private numbers, so store an RSA key
        /// as PEM.
        public var privateJWK: JWK? {
            switch backing {
            case .p256(let key):
                var jwk = publicJWK
                jwk?.d = Secret(RemoteAuthBase64URL.encode(key.rawRepresentation))
                return jwk
            case .ed25519(let key):
                var jwk = publicJWK
                jwk?.d = Secret(RemoteAuthBase64URL.encode(key.rawRepresentation))
                return jwk
            case .hmac(let key):
                let k = key.withUnsafeBytes { RemoteAuthBase64URL.encode($0) }
                return JWK(keyType: .oct, keyID: keyID, algorithm: algorithm, k: Secret(k))
            case .rsa:
                return nil
            }
        }

        /// The key's PEM (PKCS#8), to store it; `nil` for an HMAC key.
        public var pemRepresentation: String? {
            switch backing {
            case .p256(let key): key.pemRepresentation
            case .ed25519(let key): key.pemRepresentation
            case .rsa(let key): key.pemRepresentation
            case .hmac: nil
            }
        }

        /// Signs the JWS signing input, giving the JWS Signature octets.
        /// [RFC 7515 §5.1](https://www.rfc-editor.org/rfc/rfc7515#section-5.1) step 5.
        public func signature(for input: [UInt8]) throws -> [UInt8] {
            switch backing {
            case .p256(let key):
                return Array(try key.signature(for: input).rawRepresentation)
            case .ed25519(let key):
                return Array(try key.signature(for: input))
            case .rsa(let key):
                let padding: _RSA.Signing.Padding = algorithm == .ps256 ? .PSS : .insecurePKCS1v1_5
                return Array(try key.signature(for: SHA256.hash(data: input), padding: padding).rawRepresentation)
            case .hmac(let key):
                return Array(HMAC<SHA256>.authenticationCode(for: input, using: key))
            }
        }

        public var description: String {
            "JOSE.SigningKey(\(algorithm)\(keyID.map { ", kid: \($0)" } ?? ""), <redacted>)"
        }
    }

    /// A key that verifies JWSs: a public key from a JWK or a JWK Set, or an HS256 secret.
    /// It verifies only with the algorithm its JWK allows (`alg`), and only when its `use` is
    /// `sig` (or absent) and its `key_ops` (when present) include `verify`.
    public struct VerificationKey: Sendable, Hashable, CustomStringConvertible {
        enum Backing: Sendable {
            case p256(P256.Signing.PublicKey)
            case rsa(_RSA.Signing.PublicKey)
            case ed25519(Curve25519.Signing.PublicKey)
            case hmac(SymmetricKey)
        }

        let backing: Backing
        /// The JWK it was read from (public members, or `k` for HS256).
        public let jwk: JWK

        /// `kid`.
        public var keyID: String? { jwk.keyID }

        /// A key from a JWK. Private members, when present, are dropped.
        /// - Throws: ``JOSE/Error/Code/invalidKey`` (a point not on the curve, an RSA modulus
        ///   under 2048 bits, a missing member), ``JOSE/Error/Code/unsupportedAlgorithm`` (a curve
        ///   or kty this library does not implement).
        public init(jwk: JWK) throws {
            let bytes = JWKBytes(jwk)
            switch jwk.keyType {
            case .ec:
                guard jwk.curve == "P-256" else { throw JOSE.Error(.unsupportedAlgorithm, "EC curve '\(jwk.curve ?? "")'") }
                let point = try bytes.required(jwk.x, "x", count: 32) + bytes.required(jwk.y, "y", count: 32)
                do { backing = .p256(try P256.Signing.PublicKey(rawRepresentation: point)) } catch {
                    throw JOSE.Error(.invalidKey, "'x' and 'y' are not a point on P-256")
                }
            case .okp:
                guard jwk.curve == "Ed25519" else { throw JOSE.Error(.unsupportedAlgorithm, "OKP curve '\(jwk.curve ?? "")'") }
                do { backing = .ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: try bytes.required(jwk.x, "x", count: 32))) } catch let error as JOSE.Error {
                    throw error
                } catch {
                    throw JOSE.Error(.invalidKey, "'x' is not an Ed25519 public key")
                }
            case .rsa:
                let n = try bytes.required(jwk.n, "n")
                let e = try bytes.required(jwk.e, "e")
                do { backing = .rsa(try _RSA.Signing.PublicKey(n: n, e: e)) } catch {
                    throw JOSE.Error(.invalidKey, "'n' and 'e' are not an RSA public key of 2048 bits or more")
                }
            case .oct:
                let k = try bytes.secret(jwk.k, "k")
                guard k.count >= 32 else {
                    throw JOSE.Error(.invalidKey, "an HS256 key of \(k.count) octets; RFC 7518 §3.2 asks for 32 or more")
                }
                backing = .hmac(SymmetricKey(data: k))
            default:
                throw JOSE.Error(.unsupportedAlgorithm, "kty '\(jwk.keyType)'")
            }
            self.jwk = Self.stored(jwk)
        }

        /// What ``jwk`` keeps: the public members, or for a symmetric key its `k` and no other
        /// private member (`d`, `p`, `q`, `dp`, `dq`, `qi` belong to no `oct` key, RFC 7518
        /// §6.4, and may be a private key pasted beside it).
        private static func stored(_ jwk: JWK) -> JWK {
            guard jwk.keyType == .oct else { return jwk.publicKey ?? jwk }
            var symmetric = jwk
            symmetric.d = nil
            symmetric.p = nil
            symmetric.q = nil
            symmetric.dp = nil
            symmetric.dq = nil
            symmetric.qi = nil
            return symmetric
        }

        /// A public key from PEM (`PUBLIC KEY`, or `RSA PUBLIC KEY` for RSA): P-256, Ed25519, or
        /// RSA of 2048 bits or more. The JWK it makes has no `alg`: the verification's allow-list
        /// decides, among the algorithms of the key type.
        /// - Throws: ``JOSE/Error/Code/invalidKey`` for anything else.
        public init(pem: String, keyID: String? = nil) throws {
            var jwk: JWK
            if let key = try? P256.Signing.PublicKey(pemRepresentation: pem) {
                let raw = Array(key.rawRepresentation)
                jwk = JWK(
                    keyType: .ec, curve: "P-256", x: RemoteAuthBase64URL.encode(raw[0..<32]),
                    y: RemoteAuthBase64URL.encode(raw[32..<64]))
            } else if let key = try? Curve25519.Signing.PublicKey(pemRepresentation: pem) {
                jwk = JWK(keyType: .okp, curve: "Ed25519", x: RemoteAuthBase64URL.encode(key.rawRepresentation))
            } else if let key = try? _RSA.Signing.PublicKey(pemRepresentation: pem),
                let primitives = try? key.getKeyPrimitives()
            {
                jwk = JWK(
                    keyType: .rsa, n: RemoteAuthBase64URL.encode(primitives.modulus),
                    e: RemoteAuthBase64URL.encode(primitives.publicExponent))
            } else {
                throw JOSE.Error(.invalidKey, "not a PEM public key for P-256, Ed25519, or RSA of 2048 bits or more")
            }
            jwk.keyID = keyID
            try self.init(jwk: jwk)
        }

        /// An HS256 secret (`client_secret_jwt`, RFC 7523 §2.2): its UTF-8 octets are the key.
        public init(hmacSecret secret: Secret, keyID: String? = nil) throws {
            try self.init(
                jwk: JWK(
                    keyType: .oct, keyID: keyID, algorithm: .hs256,
                    k: Secret(secret.withRevealedUTF8 { RemoteAuthBase64URL.encode($0) })))
        }

        /// Refuses unless this key may verify `algorithm`: the key type fits, the JWK's `alg`
        /// (when present) is that algorithm, `use` (when present) is `sig`, `key_ops` (when
        /// present) holds `verify`. [RFC 7517 §4.2–4.4](https://www.rfc-editor.org/rfc/rfc7517#section-4.2)
        public func check(_ algorithm: Algorithm) throws {
            guard let keyType = algorithm.keyType else {
                throw JOSE.Error(.unsupportedAlgorithm, "alg '\(algorithm)'")
            }
            guard keyType == jwk.keyType else {
                throw JOSE.Error(.keyMismatch, "\(algorithm) needs a \(keyType) key; the key is \(jwk.keyType)")
            }
            if let declared = jwk.algorithm, declared != algorithm {
                throw JOSE.Error(.keyMismatch, "the key is for \(declared), not \(algorithm)")
            }
            if let use = jwk.use, use != "sig" {
                throw JOSE.Error(.keyMismatch, "the key's use is '\(use)', not 'sig'")
            }
            if let operations = jwk.keyOperations, !operations.contains("verify") {
                throw JOSE.Error(.keyMismatch, "the key's key_ops do not include 'verify'")
            }
        }

        /// Whether `signature` is this key's signature of `input` with `algorithm` (which
        /// ``check(_:)`` must allow first).
        func isValidSignature(_ signature: [UInt8], for input: [UInt8], algorithm: Algorithm) -> Bool {
            switch backing {
            case .p256(let key):
                guard signature.count == 64,
                    let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
                else { return false }
                return key.isValidSignature(parsed, for: input)
            case .ed25519(let key):
                return signature.count == 64 && key.isValidSignature(signature, for: input)
            case .rsa(let key):
                let padding: _RSA.Signing.Padding = algorithm == .ps256 ? .PSS : .insecurePKCS1v1_5
                return key.isValidSignature(
                    _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: input),
                    padding: padding)
            case .hmac(let key):
                return HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: input, using: key)
            }
        }

        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.jwk == rhs.jwk }
        public func hash(into hasher: inout Hasher) { hasher.combine(jwk) }

        public var description: String { "JOSE.VerificationKey(\(jwk))" }
    }
}

/// Decodes a JWK's base64url members, naming the member in each error.
struct JWKBytes {
    let jwk: JOSE.JWK
    init(_ jwk: JOSE.JWK) { self.jwk = jwk }

    func required(_ value: String?, _ name: String, count: Int? = nil) throws -> [UInt8] {
        guard let value else { throw JOSE.Error(.invalidKey, "a \(jwk.keyType) key has no '\(name)'") }
        guard let bytes = RemoteAuthBase64URL.decode(value) else {
            throw JOSE.Error(.invalidKey, "'\(name)' is not base64url")
        }
        if let count, bytes.count != count {
            throw JOSE.Error(.invalidKey, "'\(name)' is \(bytes.count) octets, not \(count)")
        }
        return bytes
    }

    func secret(_ value: Secret?, _ name: String, count: Int? = nil) throws -> [UInt8] {
        guard let value else { throw JOSE.Error(.invalidKey, "a \(jwk.keyType) key has no private '\(name)'") }
        return try required(value.reveal(), name, count: count)
    }
}
