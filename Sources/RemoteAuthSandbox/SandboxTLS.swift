import Crypto
import Foundation
import NIOSSL
import RemoteAuth
import SwiftASN1
import X509

/// TLS for the sandbox: a certificate it makes for 127.0.0.1 and localhost, or one given.
public enum SandboxTLS {
    /// A self-signed P-256 certificate for `127.0.0.1`, `::1` and `localhost`, valid for 30 days
    /// from now, with its private key, both in PEM.
    public static func selfSigned() throws -> SandboxConfiguration.TLSMaterial {
        try selfSigned(now: Date())
    }

    static func selfSigned(now: Date) throws -> SandboxConfiguration.TLSMaterial {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("RemoteAuth Sandbox") }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-60),
            notValidAfter: now.addingTimeInterval(30 * 24 * 3600),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                SubjectAlternativeNames([
                    .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                    .ipAddress(ASN1OctetString(contentBytes: ArraySlice([UInt8](repeating: 0, count: 15) + [1]))),
                ])
                try ExtendedKeyUsage([.serverAuth])
            },
            issuerPrivateKey: .init(key)
        )
        return .init(
            certificateChainPEM: try certificate.serializeAsPEM().pemString,
            privateKeyPEM: key.pemRepresentation
        )
    }

    /// The SHA-256 of the leaf's SubjectPublicKeyInfo, in Base64: the pin HPKP, TrustKit and
    /// curl's `--pinnedpubkey sha256//…` use.
    public static func spkiSHA256(certificateChainPEM: String) throws -> String {
        // The chain's first block is the leaf.
        guard let first = try PEMDocument.parseMultiple(pemString: certificateChainPEM).first else {
            throw SandboxError("no PEM block in the certificate chain")
        }
        return SPKIPin(certificate: try Certificate(pemDocument: first)).base64
    }

    static func serverConfiguration(_ material: SandboxConfiguration.TLSMaterial) throws -> TLSConfiguration {
        let chain = try NIOSSLCertificate.fromPEMBytes(Array(material.certificateChainPEM.utf8))
        let key = try NIOSSLPrivateKey(bytes: Array(material.privateKeyPEM.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) },
            privateKey: .privateKey(key)
        )
        if let clientCA = material.clientCAPEM {
            // Mutual TLS: a client certificate issued by one of these CAs is required.
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(clientCA.utf8)))
            configuration.certificateVerification = .noHostnameVerification
        }
        return configuration
    }
}
