import Foundation
import HTTPTypes
import Testing

@testable import RemoteAuth

/// RFC 9421 Appendix B and §4.3 (`Tests/Vectors/rfc9421.json`, sources in SOURCES.md): for
/// every example, the signature base byte for byte, the RFC's signature verified, the signature
/// recomputed byte for byte for the deterministic algorithms (`rsa-v1_5-sha256`, `hmac-sha256`,
/// `ed25519`), and a fresh signature of ours verified for all of them.
struct RFC9421Vectors: Decodable, Sendable {
    struct Key: Decodable, Sendable {
        let section: String
        let alg: String
        let public_pem: String?
        let jwk: JOSE.JWK?
        let secret_base64: String?
    }

    struct Erratum: Decodable, Sendable {
        let published_content_digest: String
        let content_digest_of_body: String
    }

    struct MessageVector: Decodable, Sendable {
        let section: String
        let headers: [Pair]
        let body: String
        let method: String?
        let target: String?
        let status: Int?
        let erratum: Erratum?
    }

    struct Transformed: Decodable, Sendable {
        let message: String
        let verifies: Bool
    }

    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        let name: String
        let section: String
        let label: String
        let keyid: String
        let alg: String
        let message: String
        let deterministic: Bool
        let signature_base: String
        let signature_input: String
        let signature: String
        let transformed_messages: [Transformed]?
        var testDescription: String { name }
    }

    let keys: [String: Key]
    let messages: [String: MessageVector]
    let cases: [Case]

    static func load() throws -> RFC9421Vectors {
        let url = try Vectors.directory().appendingPathComponent("rfc9421.json")
        let vectors = try JSONDecoder().decode(RFC9421Vectors.self, from: Data(contentsOf: url))
        guard vectors.cases.count == 9 else {
            throw Vectors.Missing(description: "rfc9421.json holds \(vectors.cases.count) cases, not 9")
        }
        return vectors
    }

    static let shared = Result { try load() }

    static func cases() throws -> [Case] { try shared.get().cases }

    /// The message of a vector: a request to `https://<Host><target>` (the `Host` line is the
    /// authority), or a response. For the B.2 response, `Content-Digest` is the digest of its
    /// body, which B.2.4 signs (the file's erratum note; see SOURCES.md).
    func message(
        _ name: String,
        extraFields: [(name: String, value: String)] = []
    ) throws -> HTTPMessageSignatures.Message {
        let vector = try #require(messages[name])
        var fields = HTTPFields()
        var authority: String?
        for header in vector.headers.map({ (name: $0.name, value: $0.value) }) + extraFields {
            if header.name.lowercased() == "host" {
                authority = header.value
                continue
            }
            var value = header.value
            if header.name.lowercased() == "content-digest", let erratum = vector.erratum {
                #expect(value == erratum.published_content_digest)
                value = erratum.content_digest_of_body
            }
            fields.append(HTTPField(name: try #require(HTTPField.Name(header.name)), value: value))
        }
        if let status = vector.status {
            return .response(HTTPResponse(status: .init(code: status), headerFields: fields))
        }
        let method = try #require(vector.method)
        let request = HTTPRequest(
            method: try #require(HTTPRequest.Method(method)),
            scheme: "https",
            authority: authority,
            path: vector.target,
            headerFields: fields
        )
        return .request(request)
    }

    func body(_ name: String) throws -> [UInt8] { Array(try #require(messages[name]).body.utf8) }

    /// The vector's message with its `Signature-Input` and `Signature` as the RFC shows them.
    func signedMessage(_ vector: Case, message name: String? = nil) throws -> HTTPMessageSignatures.Message {
        let name = name ?? vector.message
        let carries = try #require(messages[name]).headers.contains {
            $0.name == "Signature-Input" && $0.value.hasPrefix(vector.label + "=")
        }
        if carries { return try message(name) }
        return try message(
            name,
            extraFields: [
                ("Signature-Input", "\(vector.label)=\(vector.signature_input)"),
                ("Signature", "\(vector.label)=:\(vector.signature):"),
            ]
        )
    }

    func algorithm(_ vector: Case) -> HTTPMessageSignatures.Algorithm { .init(rawValue: vector.alg) }

    func signingKey(_ vector: Case) throws -> HTTPMessageSignatures.SigningKey {
        let key = try #require(keys[vector.keyid])
        if let secret = key.secret_base64 {
            return try .hmacSHA256(Array(try #require(Data(base64Encoded: secret))), keyID: vector.keyid)
        }
        return try HTTPMessageSignatures.SigningKey(jwk: try #require(key.jwk), algorithm: algorithm(vector))
    }

    /// The verification key from the public PEM (the shared secret for HMAC), allowing the
    /// vector's algorithm only.
    func verificationKey(_ vector: Case) throws -> HTTPMessageSignatures.VerificationKey {
        let key = try #require(keys[vector.keyid])
        if key.secret_base64 != nil { return try signingKey(vector).verificationKey }
        return try HTTPMessageSignatures.VerificationKey(
            pem: try #require(key.public_pem),
            keyID: vector.keyid,
            algorithms: [algorithm(vector)]
        )
    }

    func verifier(_ vector: Case) throws -> HTTPMessageSignatures.Verifier {
        var verifier = HTTPMessageSignatures.Verifier(keys: [try verificationKey(vector)])
        verifier.maximumAge = 60
        return verifier
    }
}

@Suite struct HTTPMessageSignatureVectorTests {
    let vectors: RFC9421Vectors
    init() throws { vectors = try RFC9421Vectors.shared.get() }

    /// §2.5: the signature base, byte for byte; the signature input serialized back as printed.
    @Test(arguments: try RFC9421Vectors.cases())
    func signatureBase(_ vector: RFC9421Vectors.Case) throws {
        let message = try vectors.signedMessage(vector)
        let parsed = try HTTPMessageSignatures.MessageSignatures(message.headerFields)
        let entry = try #require(parsed[vector.label])
        #expect(try entry.input.serialized() == vector.signature_input)
        #expect(entry.signature == Array(try #require(Data(base64Encoded: vector.signature))))
        let base = try HTTPMessageSignatures.signatureBase(for: message, input: entry.input)
        #expect(base == vector.signature_base)
    }

    /// §3.2: the RFC's signature verifies with the public key, at the time it was created.
    @Test(arguments: try RFC9421Vectors.cases())
    func publishedSignatureVerifies(_ vector: RFC9421Vectors.Case) throws {
        let message = try vectors.signedMessage(vector)
        let input = try #require(HTTPMessageSignatures.MessageSignatures(message.headerFields)[vector.label]).input
        let verified = try vectors.verifier(vector).verify(
            message,
            label: vector.label,
            now: try #require(input.created)
        )
        #expect(verified.signatureBase == vector.signature_base)
        #expect(verified.keyID == vector.keyid)
        #expect(verified.algorithm.rawValue == vector.alg)
    }

    /// §3.1: the deterministic algorithms give the RFC's signature again, byte for byte.
    @Test(arguments: try RFC9421Vectors.cases().filter(\.deterministic))
    func deterministicSignatureIsReproduced(_ vector: RFC9421Vectors.Case) throws {
        #expect(["rsa-v1_5-sha256", "hmac-sha256", "ed25519"].contains(vector.alg))
        let message = try vectors.signedMessage(vector)
        let input = try #require(HTTPMessageSignatures.MessageSignatures(message.headerFields)[vector.label]).input
        let signer = HTTPMessageSignatures.Signer(
            key: try vectors.signingKey(vector),
            label: vector.label,
            components: []
        )
        let signed = try signer.sign(try vectors.message(vector.message), input: input)
        #expect(signed.signatureBase == vector.signature_base)
        #expect(Data(signed.signature).base64EncodedString() == vector.signature)
    }

    /// A signer whose own components are the input's uses its identifiers serialized once, and
    /// the signature parameters composed from them (RFC 8941 §4.1.1.1): the same bytes as
    /// the RFC's, base and `Signature-Input` member.
    @Test(arguments: try RFC9421Vectors.cases())
    func signerWithTheInputsComponents(_ vector: RFC9421Vectors.Case) throws {
        let message = try vectors.signedMessage(vector)
        let input = try #require(HTTPMessageSignatures.MessageSignatures(message.headerFields)[vector.label]).input
        let identifiers = try input.components.map { try $0.serialized() }
        #expect(try input.serialized(components: identifiers) == vector.signature_input)
        let signer = HTTPMessageSignatures.Signer(
            key: try vectors.signingKey(vector),
            label: vector.label,
            components: input.components
        )
        let signed = try signer.sign(try vectors.message(vector.message), input: input)
        #expect(signed.signatureBase == vector.signature_base)
    }

    /// Identifiers equal under `==` with their parameters in another order are not the
    /// signer's: the base is written in the input's order (§2.5 step 2.2), not the signer's.
    @Test func inputsParameterOrderIsKept() throws {
        let vector = try #require(vectors.cases.first { $0.section == "B.2.1" })
        let message = try vectors.message(vector.message)
        let field = HTTPMessageSignatures.ComponentIdentifier(
            name: "content-digest",
            parameters: [.structuredField, .key("sha-512")]
        )
        let reordered = HTTPMessageSignatures.ComponentIdentifier(
            name: "content-digest",
            parameters: [.key("sha-512"), .structuredField]
        )
        #expect(field == reordered)
        let signer = HTTPMessageSignatures.Signer(
            key: try vectors.signingKey(vector),
            components: [.method, field],
            now: { 1_618_884_473 }
        )
        let input = HTTPMessageSignatures.SignatureInput(
            components: [.method, reordered],
            parameters: [.created(1_618_884_473)]
        )
        let signed = try signer.sign(message, input: input)
        let lines = signed.signatureBase.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[1].hasPrefix(#""content-digest";key="sha-512";sf: "#))
        #expect(lines[2] == #""@signature-params": ("@method" "content-digest";key="sha-512";sf);created=1618884473"#)
    }

    /// The randomized algorithms (and the others): our signature over the same input, added
    /// under a new label beside the message's own, verifies; changed by one byte it does not.
    @Test(arguments: try RFC9421Vectors.cases())
    func signThenVerify(_ vector: RFC9421Vectors.Case) throws {
        var message = try vectors.signedMessage(vector)
        let input = try #require(HTTPMessageSignatures.MessageSignatures(message.headerFields)[vector.label]).input
        let signer = HTTPMessageSignatures.Signer(key: try vectors.signingKey(vector), label: "ours", components: [])
        let signed = try signer.sign(message, input: input)
        #expect(signed.signatureBase == vector.signature_base)
        var fields = message.headerFields
        var tampered = fields
        try appendSignature("ours", signed.input, signed.signature, to: &fields)
        var flipped = signed.signature
        flipped[flipped.count / 2] ^= 0x01
        try appendSignature("ours", signed.input, flipped, to: &tampered)
        let now = try #require(input.created)
        setFields(&message, fields)
        let verified = try vectors.verifier(vector).verify(message, label: "ours", now: now)
        #expect(verified.label == "ours")
        setFields(&message, tampered)
        #expect(throws: HTTPMessageSignatures.Error(.invalidSignature, "")) {
            try vectors.verifier(vector).verify(message, label: "ours", now: now)
        }
    }

    /// B.4: the signature still verifies after the transformations that keep the covered
    /// components (a query parameter added, fields reordered or combined) and fails after the
    /// others (another method; `Accept` lines in another order).
    @Test func transformations() throws {
        let vector = try #require(vectors.cases.first { $0.section == "B.4" })
        let transformed = try #require(vector.transformed_messages)
        #expect(transformed.count == 6)
        for candidate in transformed {
            let message = try vectors.signedMessage(vector, message: candidate.message)
            let verify = { try vectors.verifier(vector).verify(message, label: vector.label, now: 1_618_884_473) }
            if candidate.verifies {
                #expect(throws: Never.self, "\(candidate.message)") { _ = try verify() }
            } else {
                #expect(throws: HTTPMessageSignatures.Error(.invalidSignature, ""), "\(candidate.message)") {
                    _ = try verify()
                }
            }
        }
    }

    /// The B.2 request's printed `Content-Digest` is the SHA-512 of its body; the B.2
    /// response's printed one is not (the erratum the vector file notes), and the value B.2.4
    /// signs is.
    @Test func testMessagesContentDigest() throws {
        let request = try vectors.message("test-request")
        try HTTPMessageSignatures.ContentDigest.verify(request.headerFields, body: try vectors.body("test-request"))
        let erratum = try #require(vectors.messages["test-response"]?.erratum)
        let body = try vectors.body("test-response")
        #expect(HTTPMessageSignatures.ContentDigest(body: body).fieldValue == erratum.content_digest_of_body)
        #expect(erratum.published_content_digest != erratum.content_digest_of_body)
        var printed = HTTPFields()
        printed[HTTPMessageSignatures.contentDigestField] = erratum.published_content_digest
        #expect(throws: HTTPMessageSignatures.Error(.digestMismatch, "")) {
            try HTTPMessageSignatures.ContentDigest.verify(printed, body: body)
        }
    }

    /// B.1: the private keys load from their PEM too (PKCS#1 RSA, SEC 1 EC, PKCS#8 Ed25519) and
    /// verify the RFC's signature through the public key they derive.
    @Test func privateKeysFromPEM() throws {
        struct PEMKey: Decodable { let private_pem: String? }
        struct File: Decodable { let keys: [String: PEMKey] }
        let url = try Vectors.directory().appendingPathComponent("rfc9421.json")
        let pems = try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).keys
        for vector in vectors.cases
        where ["test-key-rsa", "test-key-ecc-p256", "test-key-ed25519"].contains(vector.keyid) {
            let pem = try #require(pems[vector.keyid]?.private_pem)
            let key = try HTTPMessageSignatures.SigningKey(
                pem: pem,
                algorithm: vectors.algorithm(vector),
                keyID: vector.keyid
            )
            let message = try vectors.signedMessage(vector)
            _ = try HTTPMessageSignatures.Verifier(keys: [key.verificationKey])
                .verify(message, label: vector.label, now: 1_618_884_480)
        }
    }
}

func appendSignature(
    _ label: String,
    _ input: HTTPMessageSignatures.SignatureInput,
    _ signature: [UInt8],
    to fields: inout HTTPFields
) throws {
    fields.append(
        HTTPField(name: HTTPMessageSignatures.signatureInputField, value: "\(label)=\(try input.serialized())")
    )
    fields.append(
        HTTPField(
            name: HTTPMessageSignatures.signatureField,
            value: "\(label)=:\(Data(signature).base64EncodedString()):"
        )
    )
}

func setFields(_ message: inout HTTPMessageSignatures.Message, _ fields: HTTPFields) {
    switch message.head {
    case .request(var request):
        request.headerFields = fields
        message.head = .request(request)
    case .response(var response):
        response.headerFields = fields
        message.head = .response(response)
    }
}

/// RFC 9530's `Content-Digest` examples (`Tests/Vectors/rfc9530.json`, sources in SOURCES.md).
struct RFC9530Case: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let section: String
    let body: String
    let algorithm: String
    let field: String
    var testDescription: String { name }

    static func all() throws -> [RFC9530Case] {
        struct File: Decodable { let cases: [RFC9530Case] }
        let url = try Vectors.directory().appendingPathComponent("rfc9530.json")
        let cases = try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).cases
        guard cases.count == 6 else {
            throw Vectors.Missing(description: "rfc9530.json holds \(cases.count) cases, not 6")
        }
        return cases
    }
}

@Suite struct HTTPMessageSignatureContentDigestTests {
    @Test(arguments: try RFC9530Case.all())
    func contentDigest(_ vector: RFC9530Case) throws {
        let algorithm = HTTPMessageSignatures.ContentDigest.Algorithm(rawValue: vector.algorithm)
        let body = Array(vector.body.utf8)
        #expect(HTTPMessageSignatures.ContentDigest(body: body, algorithms: [algorithm]).fieldValue == vector.field)
        var fields = HTTPFields()
        fields[HTTPMessageSignatures.contentDigestField] = vector.field
        try HTTPMessageSignatures.ContentDigest.verify(fields, body: body)
        #expect(throws: HTTPMessageSignatures.Error(.digestMismatch, "")) {
            try HTTPMessageSignatures.ContentDigest.verify(fields, body: body + [0x20])
        }
    }

    @Test func bothAlgorithmsAndUnknownOnes() throws {
        let body = Array(#"{"hello": "world"}"#.utf8)
        let digest = HTTPMessageSignatures.ContentDigest(body: body, algorithms: [.sha256, .sha512])
        #expect(
            digest.fieldValue
                == "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:, "
                + "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:"
        )
        #expect(try HTTPMessageSignatures.ContentDigest(fieldValue: digest.fieldValue) == digest)
        // An unknown algorithm beside a good digest is ignored; alone it is not enough.
        var fields: HTTPFields = [HTTPMessageSignatures.contentDigestField: "md5=:Sd/dVLAcvNLSq16eXua5uQ==:"]
        #expect(throws: HTTPMessageSignatures.Error(.missingContentDigest, "")) {
            try HTTPMessageSignatures.ContentDigest.verify(fields, body: body)
        }
        fields.append(HTTPField(name: HTTPMessageSignatures.contentDigestField, value: digest.fieldValue))
        try HTTPMessageSignatures.ContentDigest.verify(fields, body: body)
        // A tampered body, a missing field, a malformed one.
        #expect(throws: HTTPMessageSignatures.Error(.digestMismatch, "")) {
            try HTTPMessageSignatures.ContentDigest.verify(fields, body: Array(#"{"hello": "World"}"#.utf8))
        }
        #expect(throws: HTTPMessageSignatures.Error(.missingContentDigest, "")) {
            try HTTPMessageSignatures.ContentDigest.verify([:], body: body)
        }
        #expect(throws: HTTPMessageSignatures.Error(.malformedContentDigest, "")) {
            try HTTPMessageSignatures.ContentDigest.verify(
                [HTTPMessageSignatures.contentDigestField: "sha-256=abc"],
                body: body
            )
        }
    }
}
