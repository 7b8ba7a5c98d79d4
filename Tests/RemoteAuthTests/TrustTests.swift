import Crypto
import Foundation
import RemoteAuth
import SwiftASN1
import Testing
import X509

/// Pins and trust policies without sockets; the handshake side is in the integration tests.
@Suite struct TrustTests {
    /// The pin of the RSA public key of the vector rfc5849_1.2_photos_rsa_sha1, as OpenSSL gives it:
    /// `openssl pkey -pubin -in pub.pem -outform der | openssl dgst -sha256 -binary | base64`.
    @Test func pinOfAKnownKeyMatchesOpenSSL() throws {
        let vector = try #require(
            try Vectors.load("oauth1_signing", as: SigningVector.self).first {
                $0.name == "rfc5849_1.2_photos_rsa_sha1"
            }
        )
        let pem = try #require(vector.rsa_public_key_pem)
        let document = try PEMDocument(pemString: pem)
        #expect(document.discriminator == "PUBLIC KEY")
        let pin = SPKIPin(subjectPublicKeyInfoDER: document.derBytes)
        #expect(pin.description == "sha256//kp9n6d53xwJhipmtUc/oK44Bj+q05Tp5iE4bZtvHgBY=")
        #expect(pin.base64 == "kp9n6d53xwJhipmtUc/oK44Bj+q05Tp5iE4bZtvHgBY=")
    }

    /// The same through swift-certificates, for a key it accepts (a certificate's).
    @Test func pinOfACertificateIsThePinOfItsSPKI() throws {
        let key = P256.Signing.PrivateKey()
        let spki = try PEMDocument(pemString: key.publicKey.pemRepresentation).derBytes
        #expect(SPKIPin(publicKey: .init(key.publicKey)) == SPKIPin(subjectPublicKeyInfoDER: spki))
    }

    @Test func pinParsing() throws {
        let text = "kp9n6d53xwJhipmtUc/oK44Bj+q05Tp5iE4bZtvHgBY="
        // curl's form, HPKP's bare Base64 (which itself holds a '/'), the prefix in any case.
        #expect(try SPKIPin("sha256//" + text) == SPKIPin(text))
        #expect(try SPKIPin("SHA256//" + text).base64 == text)
        // Base64 holding "//" is not mistaken for a prefix.
        let slashes = try SPKIPin(sha256: [0xFF, 0xFF, 0xFF] + Array(repeating: 0, count: 29))
        #expect(slashes.base64.hasPrefix("////"))
        #expect(try SPKIPin(slashes.base64) == slashes)
        for bad in ["sha1//AAAA", "sha256//", "sha256//AAAA", "not base64 at all!", text.dropLast(2) + "Z=", ""] {
            #expect(throws: TrustError(.invalidPin, "")) { try SPKIPin(String(bad)) }
        }
        #expect(throws: TrustError(.invalidPin, "")) { try SPKIPin(sha256: [1, 2, 3]) }
    }

    @Test func pinningNeedsABackup() throws {
        let a = try SPKIPin(sha256: Array(repeating: 1, count: 32))
        let b = try SPKIPin(sha256: Array(repeating: 2, count: 32))
        #expect(throws: TrustError(.tooFewPins, "")) { try PublicKeyPinningPolicy(pins: [a]) }
        // The same pin twice is still one key.
        #expect(throws: TrustError(.tooFewPins, "")) { try PublicKeyPinningPolicy(pins: [a, a]) }
        #expect(try PublicKeyPinningPolicy(pins: [a, b]).pins == [a, b])
        #expect(throws: TrustError(.invalidCertificate, "")) { try CertificatePinningPolicy(certificates: []) }
    }

    @Test func perHostLookup() throws {
        let pins = [
            try SPKIPin(sha256: Array(repeating: 1, count: 32)), try SPKIPin(sha256: Array(repeating: 2, count: 32)),
        ]
        var trust = ServerTrust()
        #expect(trust.isSystemDefault)
        trust.setPolicy(try PublicKeyPinningPolicy(pins: pins), for: "API.Example.com")
        trust.setPolicy(InsecureAcceptAnythingPolicy(), for: "[::1]")
        #expect(!trust.isSystemDefault)
        #expect(trust.policy(for: "api.example.com") is PublicKeyPinningPolicy)
        #expect(trust.policy(for: "::1") is InsecureAcceptAnythingPolicy)
        #expect(trust.policy(for: "example.com") is DefaultTrustPolicy)
    }

    @Test func caBundle() throws {
        #expect(throws: TrustError(.invalidCertificate, "")) { try TrustRoots.pemBundle("no PEM here") }
        #expect(throws: TrustError(.invalidCertificate, "")) {
            try TrustRoots.pemBundle("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        }
    }

    /// Evaluation at a fixed time, no sockets: dates and names against a self-signed anchor.
    @Test func evaluationAtAFixedTime() async throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("api.example.com") }
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let certificate = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(key.publicKey),
            notValidBefore: start,
            notValidAfter: start.addingTimeInterval(86400),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                SubjectAlternativeNames([.dnsName("api.example.com")])
            },
            issuerPrivateKey: .init(key)
        )
        let policy = DefaultTrustPolicy(roots: .certificates([certificate]))
        func evaluate(_ host: String, at time: Date) async -> TrustEvaluation {
            await policy.evaluate(
                chain: [certificate],
                host: host,
                context: TrustContext(validationTime: time, systemRoots: CertificateStore())
            )
        }
        #expect(
            await evaluate("api.example.com", at: start.addingTimeInterval(60))
                == .trusted(validatedChain: [certificate])
        )
        #expect(
            await evaluate("API.EXAMPLE.COM", at: start.addingTimeInterval(60))
                == .trusted(validatedChain: [certificate])
        )
        guard case .rejected(let expired) = await evaluate("api.example.com", at: start.addingTimeInterval(86401))
        else {
            Issue.record("an expired certificate was trusted")
            return
        }
        #expect(expired.code == .untrustedChain)
        #expect(expired.seenPins == [SPKIPin(certificate: certificate)])
        guard case .rejected(let otherHost) = await evaluate("www.example.com", at: start.addingTimeInterval(60)) else {
            Issue.record("a certificate for another name was trusted")
            return
        }
        #expect(otherHost.code == .untrustedChain)
        #expect(
            otherHost.description
                == "the server www.example.com is not trusted (untrustedChain): the certificate (subject CN=api.example.com) is not valid for the name www.example.com; it presented the keys \(SPKIPin(certificate: certificate))"
        )
        // swift-certificates' own failure is kept as data, not rewritten.
        #expect(otherHost.policyFailures.count == 1)
        #expect(otherHost.policyFailures.first?.chain.leaf == certificate)
        // The system roots (empty here) do not hold it.
        let system = await DefaultTrustPolicy().evaluate(
            chain: [certificate],
            host: "api.example.com",
            context: TrustContext(validationTime: start.addingTimeInterval(60), systemRoots: CertificateStore())
        )
        guard case .rejected(let unknown) = system else {
            Issue.record("an unknown self-signed certificate was trusted")
            return
        }
        #expect(unknown.code == .untrustedChain)
        // Any certificate, for local development only.
        #expect(
            await InsecureAcceptAnythingPolicy().evaluate(
                chain: [certificate],
                host: "elsewhere",
                context: TrustContext(validationTime: .distantFuture, systemRoots: CertificateStore())
            ) == .trusted(validatedChain: [certificate])
        )
    }

    /// A CA and a leaf valid now: trusted at the time of the check (no fixed time: no SPI), and
    /// refused at a fixed time after the leaf's end, with the verifier's failures kept.
    @Test func evaluationAtTheTimeOfTheCheck() async throws {
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("Test CA") }
        let now = Date()
        let ca = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(caKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86400 * 30),
            issuer: caName,
            subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(caKey)
        )
        let leafKey = P256.Signing.PrivateKey()
        let end = now.addingTimeInterval(3600)
        let leaf = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(leafKey.publicKey),
            notValidBefore: now.addingTimeInterval(-60),
            notValidAfter: end,
            issuer: caName,
            subject: try DistinguishedName { CommonName("api.example.com") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                SubjectAlternativeNames([.dnsName("api.example.com")])
            },
            issuerPrivateKey: .init(caKey)
        )
        let policy = DefaultTrustPolicy(roots: .certificates([ca]))
        let current = await policy.evaluate(
            chain: [leaf],
            host: "api.example.com",
            context: TrustContext(systemRoots: CertificateStore())
        )
        #expect(current == .trusted(validatedChain: [leaf, ca]))
        let later = await policy.evaluate(
            chain: [leaf],
            host: "api.example.com",
            context: TrustContext(systemRoots: CertificateStore(), fixedValidationTime: end.addingTimeInterval(60))
        )
        guard case .rejected(let expired) = later else {
            Issue.record("an expired certificate was trusted")
            return
        }
        #expect(expired.code == .untrustedChain)
        #expect(expired.reason == "the certificate (subject CN=api.example.com) expired on \(leaf.notValidAfter)")
        #expect(!expired.policyFailures.isEmpty)
        guard
            case .rejected(let otherName) = await policy.evaluate(
                chain: [leaf],
                host: "www.example.com",
                context: TrustContext(systemRoots: CertificateStore())
            )
        else {
            Issue.record("a certificate for another name was trusted")
            return
        }
        #expect(
            otherName.reason == "the certificate (subject CN=api.example.com) is not valid for the name www.example.com"
        )
    }
}
