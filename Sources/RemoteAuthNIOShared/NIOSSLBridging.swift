package import NIOSSL
package import RemoteAuth
import SwiftASN1
package import X509

extension TLSConfiguration {
    /// Presents `identity` when a server asks for a client certificate (mutual TLS): its PEM
    /// chain and key, or the contents of its PKCS#12 bundle. The errors name no key material.
    ///
    /// - Throws: ``RemoteAuth/TrustError`` when the certificate, key or bundle does not parse.
    package mutating func present(_ identity: ClientIdentity) throws {
        switch identity.material {
        case .pem(let chainPEM, let keyPEM):
            let chain: [NIOSSLCertificate]
            do {
                chain = try NIOSSLCertificate.fromPEMBytes(Array(chainPEM.utf8))
            } catch {
                throw TrustError(.invalidCertificate, "the client certificate is not PEM: \(error)")
            }
            guard !chain.isEmpty else {
                throw TrustError(.invalidCertificate, "the client certificate file has no CERTIFICATE block")
            }
            let key: NIOSSLPrivateKey
            do {
                key = try NIOSSLPrivateKey(bytes: Array(keyPEM.reveal().utf8), format: .pem)
            } catch {
                // BoringSSL's reason names no key material.
                throw TrustError(.invalidPrivateKey, "the client private key is not a PEM key: \(error)")
            }
            certificateChain = chain.map { .certificate($0) }
            privateKey = .privateKey(key)
        case .pkcs12(let bytes, let passphrase):
            let bundle: NIOSSLPKCS12Bundle
            do {
                bundle = try NIOSSLPKCS12Bundle(buffer: bytes, passphrase: passphrase.map { Array($0.reveal().utf8) })
            } catch {
                throw TrustError(.invalidPrivateKey, "the PKCS#12 bundle does not open (wrong passphrase?): \(error)")
            }
            certificateChain = bundle.certificateChain.map { .certificate($0) }
            privateKey = .privateKey(bundle.privateKey)
        }
    }
}

extension NIOSSLCertificate {
    /// The same certificate, for NIOSSL (by its DER).
    package convenience init(_ certificate: Certificate) throws {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        try self.init(bytes: serializer.serializedBytes, format: .der)
    }
}
