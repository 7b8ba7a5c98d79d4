import Crypto
import SwiftASN1
public import X509

extension OAuth2 {
    /// Mutual-TLS certificate-bound access tokens ([RFC 8705 §3](https://www.rfc-editor.org/rfc/rfc8705#section-3)):
    /// the token's `cnf` confirmation names the client's certificate by its `x5t#S256`, and a
    /// resource server takes the token only over a TLS connection whose client certificate has
    /// that thumbprint.
    public enum CertificateBinding {
        /// The `cnf` member that carries the thumbprint: `x5t#S256`
        /// ([RFC 8705 §3.1](https://www.rfc-editor.org/rfc/rfc8705#section-3.1)).
        public static let confirmationMember = "x5t#S256"

        /// `x5t#S256`: the base64url (no padding) SHA-256 of the DER certificate
        /// ([RFC 8705 §3.1](https://www.rfc-editor.org/rfc/rfc8705#section-3.1)).
        public static func thumbprint(certificateDER der: some Collection<UInt8>) -> String {
            RemoteAuthBase64URL.encode(Array(SHA256.hash(data: Array(der))))
        }

        /// `x5t#S256` of `certificate`, over its DER encoding.
        public static func thumbprint(of certificate: Certificate) throws -> String {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return thumbprint(certificateDER: serializer.serializedBytes)
        }

        /// Whether the certificate presented on the connection (`presentedDER`, `nil` when
        /// none was) is the one `x5t#S256` names; compared in constant time
        /// ([RFC 8705 §3.2](https://www.rfc-editor.org/rfc/rfc8705#section-3.2)).
        public static func isBound(_ x5tS256: String, toPresented presentedDER: [UInt8]?) -> Bool {
            guard let presentedDER else { return false }
            return constantTimeEquals(thumbprint(certificateDER: presentedDER), x5tS256)
        }
    }
}
