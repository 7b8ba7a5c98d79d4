import Crypto
import CryptoExtras
import SwiftASN1
import X509

extension OAuth1 {
    /// An RSA private key for `RSA-SHA1` signing:
    /// [RFC 5849 §3.4.3](https://www.rfc-editor.org/rfc/rfc5849#section-3.4.3).
    ///
    /// Reads a PEM `PRIVATE KEY` (PKCS#8) or `RSA PRIVATE KEY` (PKCS#1) of at least 1024 bits.
    /// `description` never shows key material.
    /// - Warning: RSA-SHA1 uses SHA-1 and often 1024-bit keys; it is supported for providers that
    ///   require it. Prefer HMAC-SHA256 where the provider allows it.
    public struct RSAPrivateKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        let key: _RSA.Signing.PrivateKey

        /// Reads a PEM `PRIVATE KEY` (PKCS#8) or `RSA PRIVATE KEY` (PKCS#1) of at least 1024 bits.
        /// - Throws: `OAuth1Error` `.invalidKey` when it cannot be read.
        public init(pemRepresentation pem: String) throws {
            do {
                // 1024-bit keys are still what RFC 5849 era providers registered.
                key = try _RSA.Signing.PrivateKey(unsafePEMRepresentation: pem)
            } catch {
                throw OAuth1Error(
                    .invalidKey,
                    "the RSA private key cannot be read (expected a PEM RSA key of at least 1024 bits)"
                )
            }
        }

        /// The matching public key, for a server or a test that verifies.
        public var publicKey: RSAPublicKey { RSAPublicKey(key: key.publicKey) }

        /// The key's modulus size, in bits (at least 1024).
        public var keySizeInBits: Int { key.keySizeInBits }

        /// RSASSA-PKCS1-v1_5 over SHA-1 of `message`.
        func sign(_ message: [UInt8]) throws -> [UInt8] {
            let signature = try key.signature(for: Insecure.SHA1.hash(data: message), padding: .insecurePKCS1v1_5)
            return signature.withUnsafeBytes { Array($0) }
        }

        public var description: String { "RSAPrivateKey(\(keySizeInBits) bits, <redacted>)" }
        public var debugDescription: String { description }
    }

    /// An RSA public key that verifies `RSA-SHA1` signatures, read from a PEM `PUBLIC KEY`
    /// (SubjectPublicKeyInfo), `RSA PUBLIC KEY` or `CERTIFICATE` (the key of an X.509
    /// certificate, as RFC 5849 §3.4.3 suggests a client may register).
    public struct RSAPublicKey: Sendable, CustomStringConvertible {
        let key: _RSA.Signing.PublicKey

        init(key: _RSA.Signing.PublicKey) { self.key = key }

        /// Reads a PEM `PUBLIC KEY` or `RSA PUBLIC KEY` of at least 1024 bits, or the RSA key of a PEM
        /// `CERTIFICATE`.
        /// - Throws: `OAuth1Error` `.invalidKey` when it cannot be read or is not RSA.
        public init(pemRepresentation pem: String) throws {
            if pem.contains("-----BEGIN CERTIFICATE-----") {
                let certificate: Certificate
                do {
                    certificate = try Certificate(pemEncoded: pem)
                } catch {
                    throw OAuth1Error(.invalidKey, "the certificate cannot be read as PEM X.509")
                }
                guard let key = _RSA.Signing.PublicKey(certificate.publicKey) else {
                    throw OAuth1Error(.invalidKey, "the certificate's public key is not an RSA key")
                }
                self.key = key
                return
            }
            do {
                key = try _RSA.Signing.PublicKey(unsafePEMRepresentation: pem)
            } catch {
                throw OAuth1Error(
                    .invalidKey,
                    "the RSA public key cannot be read (expected a PEM RSA public key of at least 1024 bits, or a certificate)"
                )
            }
        }

        func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
            key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature),
                for: Insecure.SHA1.hash(data: message),
                padding: .insecurePKCS1v1_5
            )
        }

        /// The key's modulus size, in bits.
        public var keySizeInBits: Int { key.keySizeInBits }
        public var description: String { "RSAPublicKey(\(keySizeInBits) bits)" }
    }
}
