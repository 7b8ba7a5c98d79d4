import Crypto
import Foundation
import RemoteAuth
import Testing

/// One case of `Tests/Vectors/jose.json` (sources: `Tests/Vectors/SOURCES.md`).
struct JOSEVector: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let source: String
    let kind: String
    let alg: String?
    let jwk: JOSE.JWK?
    let publicKeyPEM: String?
    let protectedHeader: String?
    let payload: String?
    let expectedSignature: String?
    let jws: String?
    let deterministic: Bool?
    let verifyAlg: String?
    let verifyJWK: JOSE.JWK?
    let expectedValid: Bool?
    let expectedRejection: String?
    let expectedHeader: JSONValue?
    let expectedPayloadJSON: JSONValue?
    let expectedThumbprintInput: String?
    let expectedThumbprint: String?

    enum CodingKeys: String, CodingKey {
        case name, source, kind, alg, jwk, payload, jws, deterministic
        case publicKeyPEM = "public_key_pem", protectedHeader = "protected_header"
        case expectedSignature = "expected_signature", verifyAlg = "verify_alg", verifyJWK = "verify_jwk"
        case expectedValid = "expected_valid", expectedRejection = "expected_rejection"
        case expectedHeader = "expected_header", expectedPayloadJSON = "expected_payload_json"
        case expectedThumbprintInput = "expected_thumbprint_input", expectedThumbprint = "expected_thumbprint"
    }

    var testDescription: String { name }

    /// The library's error code for the vector file's rejection names.
    var expectedCode: JOSE.Error.Code? {
        switch expectedRejection {
        case "signature_invalid": .invalidSignature
        case "alg_none", "alg_not_allowed": .algorithmNotAllowed
        case "crit_unsupported": .criticalHeader
        default: nil
        }
    }
}

@Suite struct JOSEVectorTests {
    static let all = (try? Vectors.load("jose", as: JOSEVector.self)) ?? []

    @Test func vectorsLoad() throws {
        #expect(try Vectors.load("jose", as: JOSEVector.self).count == 12)
    }

    /// RFC 7515 A.1 (HS256), A.2 (RS256) and RFC 8037 A.4 (Ed25519) are deterministic: signing
    /// the RFC's header and payload octets with the RFC's key gives the RFC's JWS byte for byte.
    @Test(arguments: all.filter { $0.kind == "jws" && $0.deterministic == true })
    func signsByteForByte(_ v: JOSEVector) throws {
        let key = try JOSE.SigningKey(jwk: try #require(v.jwk), algorithm: JOSE.Algorithm(try #require(v.alg)))
        let jws = try JOSE.JWS.sign(
            Array(try #require(v.payload).utf8), with: key, protectedHeader: Array(try #require(v.protectedHeader).utf8))
        #expect(jws == v.jws)
        #expect(jws.split(separator: ".").last.map(String.init) == v.expectedSignature)
    }

    /// Every valid vector verifies with its verification key and the one algorithm allowed, and
    /// reads back the RFC's header and payload.
    @Test(arguments: all.filter { $0.kind == "jws" && $0.expectedValid == true })
    func verifies(_ v: JOSEVector) throws {
        let jws = try JOSE.CompactJWS(try #require(v.jws))
        let key = try JOSE.VerificationKey(jwk: try #require(v.verifyJWK))
        try jws.verify(with: [key], allowing: [JOSE.Algorithm(try #require(v.verifyAlg))])
        #expect(JSONValue.object(jws.header) == v.expectedHeader)
        #expect(jws.payload == Array(try #require(v.payload).utf8))
        if let expected = v.expectedPayloadJSON { #expect(JSONValue.object(try jws.claims()) == expected) }
        // The same token with the algorithm not allowed is refused before any key is used.
        let others = JOSE.Algorithm.implemented.subtracting([jws.algorithm])
        #expect(throws: JOSE.Error(.algorithmNotAllowed, "")) { try jws.verify(with: [key], allowing: others) }
    }

    /// The negatives: an altered signature or payload, `alg: none` (even when "allowed"), an
    /// unknown `crit`, and HS256 keyed with an RSA public key's PEM (RFC 8725 §2.1).
    @Test(arguments: all.filter { $0.kind == "jws" && $0.expectedValid == false })
    func refuses(_ v: JOSEVector) throws {
        let code = try #require(v.expectedCode)
        let jws = try JOSE.CompactJWS(try #require(v.jws))
        let keys = try v.verifyJWK.map { [try JOSE.VerificationKey(jwk: $0)] } ?? []
        let allowed: Set<JOSE.Algorithm> = v.verifyAlg.map { [JOSE.Algorithm($0)] } ?? JOSE.Algorithm.implemented
        #expect(throws: JOSE.Error(code, "")) { try jws.verify(with: keys, allowing: allowed) }
        if v.expectedRejection == "alg_none" {
            #expect(throws: JOSE.Error(.algorithmNotAllowed, "")) {
                try jws.verify(with: keys, allowing: JOSE.Algorithm.implemented.union([.none]))
            }
        }
    }

    /// The algorithm-confusion token is refused even when HS256 is allowed, as long as the only
    /// key is the RSA one: an RSA JWK never keys an HMAC.
    @Test func rsaKeyNeverKeysHMAC() throws {
        let v = try #require(Self.all.first { $0.name == "alg_confusion_hs256_with_rsa_public_pem" })
        let jws = try JOSE.CompactJWS(try #require(v.jws))
        let rsa = try JOSE.VerificationKey(jwk: try #require(v.verifyJWK))
        #expect(throws: JOSE.Error(.unknownKey, "")) { try jws.verify(with: [rsa], allowing: [.hs256, .rs256]) }
        // And the vector is what it claims: the PEM text as an HMAC key does verify it.
        let pemKey = try JOSE.VerificationKey(hmacSecret: Secret(try #require(v.publicKeyPEM)))
        try jws.verify(with: [pemKey], allowing: [.hs256])
    }

    @Test(arguments: all.filter { $0.kind == "jwk_thumbprint" })
    func thumbprint(_ v: JOSEVector) throws {
        let jwk = try #require(v.jwk)
        #expect(String(decoding: try jwk.thumbprintInput(), as: UTF8.self) == v.expectedThumbprintInput)
        #expect(try jwk.thumbprint() == v.expectedThumbprint)
    }

    /// RFC 7638 §3.1's printed value, named in the issue.
    @Test func rfc7638Thumbprint() throws {
        let v = try #require(Self.all.first { $0.name == "rfc7638_3.1_rsa" })
        #expect(try v.jwk?.thumbprint() == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }
}
