import Crypto
import CryptoExtras
import Foundation
import HTTPTypes
import RemoteAuth
import SwiftASN1
import Testing
import X509

/// RSA-SHA1 verified with the client's X.509 certificate instead of a bare public key
/// (RFC 5849 §3.4.3 lets a client register either).
@Suite struct OAuth1RSACertificateTests {
    @Test func verifiesWithCertificate() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let name = try DistinguishedName { CommonName("RemoteAuth RSA test client") }
        let now = Date()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-60),
            notValidAfter: now.addingTimeInterval(3600),
            issuer: name,
            subject: name,
            signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: .init(),
            issuerPrivateKey: .init(key)
        )
        let certificatePEM = try certificate.serializeAsPEM().pemString

        let signer = try OAuth1.Signer(
            client: .init(key: "rsa-client", secret: ""),
            signatureMethod: .rsaSHA1,
            privateKey: try OAuth1.RSAPrivateKey(pemRepresentation: key.pemRepresentation)
        )
        let request = try HTTPRequest(method: .get, absoluteURL: "https://photos.example.net/photos?file=vacation.jpg")
        let signed = try signer.sign(request, nonce: "n", timestamp: "137131202")
        let received = try OAuth1.ReceivedRequest(signed.request)

        try received.verify(
            clientSecret: "",
            tokenSecret: nil,
            publicKey: try OAuth1.RSAPublicKey(pemRepresentation: certificatePEM)
        )
        // The same check with the bare SubjectPublicKeyInfo.
        try received.verify(
            clientSecret: "",
            tokenSecret: nil,
            publicKey: try OAuth1.RSAPublicKey(pemRepresentation: key.publicKey.pemRepresentation)
        )

        // Another key's certificate refuses it.
        let other = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let otherCertificate = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(other.publicKey),
            notValidBefore: now.addingTimeInterval(-60),
            notValidAfter: now.addingTimeInterval(3600),
            issuer: name,
            subject: name,
            signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: .init(),
            issuerPrivateKey: .init(other)
        )
        #expect(throws: OAuth1Error(.invalidSignature, "")) {
            try received.verify(
                clientSecret: "",
                tokenSecret: nil,
                publicKey: try OAuth1.RSAPublicKey(pemRepresentation: try otherCertificate.serializeAsPEM().pemString)
            )
        }
    }

    @Test func nonRSACertificateIsRefused() throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("EC") }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(key.publicKey),
            notValidBefore: Date(),
            notValidAfter: Date().addingTimeInterval(60),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: .init(),
            issuerPrivateKey: .init(key)
        )
        #expect(throws: OAuth1Error(.invalidKey, "")) {
            try OAuth1.RSAPublicKey(pemRepresentation: try certificate.serializeAsPEM().pemString)
        }
    }
}
