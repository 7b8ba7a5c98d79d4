import Crypto
import Foundation
import HummingbirdTLS
import NIOCore
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

    /// The server's TLS channel: with ``SandboxConfiguration/TLSMaterial/requiresClientCertificate``,
    /// BoringSSL requires a client certificate from the client CAs; otherwise a client
    /// certificate is asked for and any one taken (checked later, per client: RFC 8705 §2).
    static func channelConfiguration(_ material: SandboxConfiguration.TLSMaterial) throws -> TLSChannelConfiguration {
        let configuration = try serverConfiguration(material)
        guard !material.requiresClientCertificate else {
            return TLSChannelConfiguration(tlsConfiguration: configuration)
        }
        return TLSChannelConfiguration(
            tlsConfiguration: configuration,
            customVerificationCallback: { _, promise in promise.succeed(.certificateVerified) }
        )
    }

    static func serverConfiguration(_ material: SandboxConfiguration.TLSMaterial) throws -> TLSConfiguration {
        let chain = try NIOSSLCertificate.fromPEMBytes(Array(material.certificateChainPEM.utf8))
        let key = try NIOSSLPrivateKey(bytes: Array(material.privateKeyPEM.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) },
            privateKey: .privateKey(key)
        )
        let clientCAs = try material.clientCAPEM.map { try NIOSSLCertificate.fromPEMBytes(Array($0.utf8)) } ?? []
        configuration.trustRoots = .certificates(clientCAs)
        if material.requiresClientCertificate {
            // Mutual TLS: a client certificate issued by one of these CAs is required.
            configuration.certificateVerification = .noHostnameVerification
        } else {
            // A CertificateRequest, and no failure without a certificate; the custom
            // verification callback (channelConfiguration) takes what is presented.
            configuration.certificateVerification = .optionalVerification
        }
        return configuration
    }
}
