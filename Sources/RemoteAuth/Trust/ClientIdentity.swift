/// A client certificate and its private key, for mutual TLS
/// ([RFC 8446 §4.4.2](https://www.rfc-editor.org/rfc/rfc8446#section-4.4.2)). The core keeps the
/// encoded material; the transport parses it when it connects (NIOSSL reads PEM and PKCS#12).
/// The private key and the passphrase are ``Secret``s: `description`, `debugDescription` and the
/// mirror never show them, and `==` compares them in constant time.
public struct ClientIdentity: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The encoded certificate and key, as they were given.
    public enum Material: Sendable, Hashable {
        /// The certificate chain (leaf first) and the private key, both PEM.
        case pem(certificateChain: String, privateKey: Secret)
        /// A PKCS#12 (`.p12`/`.pfx`) bundle and its passphrase.
        case pkcs12(bytes: [UInt8], passphrase: Secret?)
    }

    /// The encoded certificate and private key, as given (PEM or PKCS#12).
    public let material: Material

    /// An identity from a PEM certificate chain (leaf first) and a PEM private key.
    public init(certificateChainPEM: String, privateKeyPEM: Secret) {
        self.material = .pem(certificateChain: certificateChainPEM, privateKey: privateKeyPEM)
    }

    /// An identity from a PEM certificate chain (leaf first) and a PEM private key, wrapped in a `Secret`.
    public init(certificateChainPEM: String, privateKeyPEM: String) {
        self.init(certificateChainPEM: certificateChainPEM, privateKeyPEM: Secret(privateKeyPEM))
    }

    /// An identity from a PKCS#12 (`.p12`/`.pfx`) bundle and its passphrase (`nil` for none).
    public init(pkcs12: [UInt8], passphrase: Secret?) {
        self.material = .pkcs12(bytes: pkcs12, passphrase: passphrase)
    }

    public var description: String {
        switch material {
        case .pem: "ClientIdentity(PEM certificate, private key: <redacted>)"
        case .pkcs12: "ClientIdentity(PKCS#12, <redacted>)"
        }
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:], displayStyle: .struct) }
}
