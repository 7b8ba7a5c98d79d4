import Crypto
import CryptoExtras
import Foundation
public import RemoteAuth

extension SandboxConfiguration {
    /// A client key the status API verifies HTTP Message Signatures of
    /// ([RFC 9421](https://www.rfc-editor.org/rfc/rfc9421)), by `keyid`, acting for `user`:
    /// a public key in PEM (`publicKeyPEM`) or, for `hmac-sha256`, a shared secret in Base64
    /// (`secretBase64`). `algorithm` is the key's allow-list of one (§3.2 step 5).
    public struct HTTPSignatureKey: Codable, Sendable, Hashable, CustomStringConvertible {
        /// `keyid`.
        public var keyID: String
        /// The user a signature with this key acts for.
        public var user: String
        /// The one algorithm accepted (`ed25519`, `ecdsa-p256-sha256`, `hmac-sha256`, …).
        public var algorithm: String
        /// The public key, PEM; `nil` for `hmac-sha256`.
        public var publicKeyPEM: String?
        /// The shared secret of `hmac-sha256`, Base64.
        public var secretBase64: String?

        /// A key by `keyid`, acting for `user`, with its public key or shared secret.
        public init(
            keyID: String,
            user: String,
            algorithm: String,
            publicKeyPEM: String? = nil,
            secretBase64: String? = nil
        ) {
            self.keyID = keyID
            self.user = user
            self.algorithm = algorithm
            self.publicKeyPEM = publicKeyPEM
            self.secretBase64 = secretBase64
        }

        /// The key the verifier uses.
        /// - Throws: ``SandboxError`` for an unknown algorithm, or a key that does not fit it.
        public func verificationKey() throws -> HTTPMessageSignatures.VerificationKey {
            guard let algorithm = HTTPMessageSignatures.Algorithm.all.first(where: { $0.rawValue == self.algorithm })
            else {
                throw SandboxError("HTTP signature key '\(keyID)': unknown algorithm '\(self.algorithm)'")
            }
            do {
                if algorithm == .hmacSHA256 {
                    guard let secretBase64, let secret = Data(base64Encoded: secretBase64) else {
                        throw SandboxError("HTTP signature key '\(keyID)': hmac-sha256 needs secretBase64")
                    }
                    return try .hmacSHA256([UInt8](secret), keyID: keyID)
                }
                guard let publicKeyPEM else {
                    throw SandboxError("HTTP signature key '\(keyID)': \(algorithm) needs publicKeyPEM")
                }
                return try HTTPMessageSignatures.VerificationKey(
                    pem: publicKeyPEM,
                    keyID: keyID,
                    algorithms: [algorithm]
                )
            } catch let error as HTTPMessageSignatures.Error {
                throw SandboxError("HTTP signature key '\(keyID)': \(error.reason)")
            }
        }

        public var description: String { "HTTPSignatureKey(\(keyID), \(algorithm), user: \(user))" }
    }

    /// The demo's fixed RFC 9421 test keys, both Ed25519, made from fixed seeds (SHA-256 of a
    /// phrase) so that every sandbox has the same ones: test keys for a local service, never
    /// to be trusted elsewhere.
    public enum DemoSignatureKeys {
        /// alice's client key: the status API verifies its signatures.
        public static let clientKeyID = "sandbox-alice-ed25519"
        /// The sandbox's own key: it signs responses with it when asked (`Accept-Signature`).
        public static let responseKeyID = "sandbox-response-ed25519"

        static func key(_ phrase: String) -> Curve25519.Signing.PrivateKey {
            // A 32-octet seed is always a valid Ed25519 private key.
            try! Curve25519.Signing.PrivateKey(rawRepresentation: SHA256.hash(data: Array(phrase.utf8)))
        }

        static let client = key("RemoteAuth sandbox: alice's RFC 9421 client key")
        static let response = key("RemoteAuth sandbox: the RFC 9421 response key")

        /// alice's private key, PKCS#8 PEM (what `remote-auth sandbox --write-signature-key` writes).
        public static var clientPrivateKeyPEM: String { client.pemRepresentation }
        /// alice's public key, SPKI PEM.
        public static var clientPublicKeyPEM: String { client.publicKey.pemRepresentation }
        /// The public key that verifies the sandbox's responses (`--write-response-key`).
        public static var responsePublicKeyPEM: String { response.publicKey.pemRepresentation }
        /// The response key's public `x`, base64url, as a JWK would show it.
        public static var responsePublicKeyX: String {
            Data(response.publicKey.rawRepresentation).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }

        static var clientKey: HTTPSignatureKey {
            HTTPSignatureKey(keyID: clientKeyID, user: "alice", algorithm: "ed25519", publicKeyPEM: clientPublicKeyPEM)
        }

        static var responseSigningKey: HTTPMessageSignatures.SigningKey { .ed25519(response, keyID: responseKeyID) }
    }
}
