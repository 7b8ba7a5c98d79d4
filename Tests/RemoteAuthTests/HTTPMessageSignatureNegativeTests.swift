import Crypto
import CryptoExtras
import Foundation
import HTTPTypes
import RemoteAuth
import Testing

typealias HMS = HTTPMessageSignatures

/// A request, keys and a clock shared by the tests below.
enum SignatureFixtures {
    static let now: Int64 = 1_700_000_000
    static let edKey = Curve25519.Signing.PrivateKey()
    static let secret = Array(repeating: UInt8(0x5A), count: 32)

    static func request(body: Bool = true) -> HTTPRequest {
        var fields: HTTPFields = [
            .contentType: "application/json", HTTPField.Name("Date")!: "Tue, 14 Nov 2023 22:13:20 GMT",
        ]
        if body { fields[.contentLength] = "18" }
        return HTTPRequest(
            method: .post,
            scheme: "https",
            authority: "example.com",
            path: "/foo?param=Value&Pet=dog",
            headerFields: fields
        )
    }

    static func signer(
        _ components: [HMS.ComponentIdentifier] = [.method, .targetURI, .field(.contentType)],
        label: String = "sig1",
        at time: Int64 = now
    ) -> HMS.Signer {
        HMS.Signer(key: .ed25519(edKey, keyID: "ed"), label: label, components: components, now: { time })
    }

    static func verifier() -> HMS.Verifier {
        HMS.Verifier(keys: [.ed25519(edKey.publicKey, keyID: "ed")])
    }

    static func error(_ code: HMS.Error.Code) -> HMS.Error { HMS.Error(code, "") }

    /// `request` with `Signature-Input: sig1=<input>` and a signature of the ed key over its base
    /// (or, when the base cannot be built, a dummy signature).
    static func request(withInput input: String, signature: String? = nil) -> HTTPRequest {
        var request = request()
        request.headerFields.append(HTTPField(name: HMS.signatureInputField, value: "sig1=\(input)"))
        request.headerFields.append(HTTPField(name: HMS.signatureField, value: signature ?? "sig1=:AAAA:"))
        return request
    }
}

@Suite struct HTTPMessageSignatureNegativeTests {
    typealias F = SignatureFixtures

    @Test func missingComponent() throws {
        // Signing a field the message does not have.
        var request = F.request()
        #expect(throws: F.error(.missingComponent)) {
            try F.signer([.method, .field(HTTPField.Name("X-Missing")!)]).sign(&request)
        }
        // A signed field removed on the way.
        try F.signer().sign(&request)
        _ = try F.verifier().verify(request, now: F.now)
        request.headerFields[.contentType] = nil
        #expect(throws: F.error(.missingComponent)) { try F.verifier().verify(request, now: F.now) }
        // A dictionary member, a query parameter that are not there.
        let input = HMS.SignatureInput(
            components: [.field(HTTPField.Name("Content-Digest")!, key: "sha-256")],
            parameters: [.created(F.now)]
        )
        #expect(throws: F.error(.missingComponent)) { try HMS.signatureBase(for: .request(F.request()), input: input) }
        let query = HMS.SignatureInput(components: [.queryParameter("cat")], parameters: [])
        #expect(throws: F.error(.missingComponent)) { try HMS.signatureBase(for: .request(F.request()), input: query) }
    }

    @Test func duplicateComponent() throws {
        let twice = HMS.SignatureInput(components: [.method, .field(.contentType), .method], parameters: [])
        #expect(throws: F.error(.duplicateComponent)) {
            try HMS.signatureBase(for: .request(F.request()), input: twice)
        }
        // The same parameters in another order are the same identifier.
        let name = HTTPField.Name("Example-Dict")!
        let reordered = HMS.SignatureInput(
            components: [
                .field(name, structured: true, key: "a"),
                .init(name: "example-dict", parameters: [.key("a"), .structuredField]),
            ],
            parameters: []
        )
        var withDict = F.request()
        withDict.headerFields[name] = "a=1"
        #expect(throws: F.error(.duplicateComponent)) {
            try HMS.signatureBase(for: .request(withDict), input: reordered)
        }
        // Received in Signature-Input.
        let request = F.request(withInput: #"("date" "@method" "date");created=1700000000;keyid="ed""#)
        #expect(throws: F.error(.duplicateComponent)) { try F.verifier().verify(request, now: F.now) }
    }

    @Test func duplicateLabel() throws {
        var request = F.request()
        try F.signer().sign(&request)
        #expect(throws: F.error(.duplicateLabel)) { try F.signer(label: "sig1").sign(&request) }
        // Another label is added beside it without touching it.
        try F.signer([.method], label: "sig2").sign(&request)
        #expect(try HMS.MessageSignatures(request.headerFields).labels == ["sig1", "sig2"])
        // The same label in two field lines is refused, not silently merged.
        let line = try #require(request.headerFields[values: HMS.signatureInputField].first)
        request.headerFields.append(HTTPField(name: HMS.signatureInputField, value: line))
        #expect(throws: F.error(.duplicateLabel)) { try F.verifier().verify(request, label: "sig1", now: F.now) }
    }

    @Test(arguments: [
        #"("@method""#,  // unterminated inner list
        #":AAAA:"#,  // not an inner list
        #"(method)"#,  // a token, not a string
        #"("@method");created="1700000000""#,  // created is an integer
        #"("@method");keyid=ed"#,  // keyid is a string
        #"("@method";req=1)"#,  // req is a boolean
    ])
    func malformedSignatureInput(_ input: String) throws {
        #expect(throws: F.error(.malformedSignatureInput)) {
            try F.verifier().verify(F.request(withInput: input), now: F.now)
        }
    }

    @Test func malformedSignatureAndLabelsOutOfStep() throws {
        let input = #"("@method");created=1700000000;keyid="ed""#
        #expect(throws: F.error(.malformedSignature)) {
            try F.verifier().verify(F.request(withInput: input, signature: #"sig1=("x")"#), now: F.now)
        }
        #expect(throws: F.error(.malformedSignature)) {
            try F.verifier().verify(F.request(withInput: input, signature: "sig1=:not base64!:"), now: F.now)
        }
        #expect(throws: F.error(.signatureNotFound)) {
            try F.verifier().verify(F.request(withInput: input, signature: "sig2=:AAAA:"), now: F.now)
        }
        var unsigned = F.request()
        #expect(throws: F.error(.signatureNotFound)) { try F.verifier().verify(unsigned, now: F.now) }
        try F.signer().sign(&unsigned)
        #expect(throws: F.error(.signatureNotFound)) { try F.verifier().verify(unsigned, label: "other", now: F.now) }
    }

    @Test func times() throws {
        var request = F.request()
        var signer = F.signer()
        signer.lifetime = 60
        try signer.sign(&request)
        var verifier = F.verifier()
        verifier.maximumAge = nil
        _ = try verifier.verify(request, now: F.now + 60)
        #expect(throws: F.error(.expired)) { try verifier.verify(request, now: F.now + 61) }
        verifier.maximumAge = 30
        #expect(throws: F.error(.tooOld)) { try verifier.verify(request, now: F.now + 31) }
        #expect(throws: F.error(.createdInFuture)) { try verifier.verify(request, now: F.now - 31) }
        _ = try verifier.verify(request, now: F.now - 30)
        // Without `expires` when it is required, without `created` when an age is.
        var open = F.request()
        signer.lifetime = nil
        try signer.sign(&open)
        verifier.requiresExpires = true
        #expect(throws: F.error(.missingParameter)) { try verifier.verify(open, now: F.now) }
        let input = HMS.SignatureInput(components: [.method], parameters: [.keyID("ed")])
        let signed = try signer.sign(.request(F.request()), input: input)
        var undated = F.request()
        try appendSignature("sig1", signed.input, signed.signature, to: &undated.headerFields)
        #expect(throws: F.error(.missingParameter)) { try F.verifier().verify(undated, now: F.now) }
    }

    @Test func keys() throws {
        var request = F.request()
        try F.signer().sign(&request)
        #expect(throws: F.error(.unknownKey)) {
            try HMS.Verifier(keys: [.ed25519(F.edKey.publicKey, keyID: "other")]).verify(request, now: F.now)
        }
        let input = HMS.SignatureInput(components: [.method], parameters: [.created(F.now)])
        let signed = try F.signer().sign(.request(F.request()), input: input)
        var anonymous = F.request()
        try appendSignature("sig1", signed.input, signed.signature, to: &anonymous.headerFields)
        #expect(throws: F.error(.missingParameter)) { try F.verifier().verify(anonymous, now: F.now) }
    }

    @Test func algorithmNotAllowed() throws {
        // `alg` names an algorithm off the key's allow-list (an Ed25519 signature claiming HMAC).
        let input = HMS.SignatureInput(
            components: [.method],
            parameters: [.created(F.now), .keyID("ed"), .algorithm(.hmacSHA256)]
        )
        let signed = try F.signer().sign(.request(F.request()), input: input)
        var request = F.request()
        try appendSignature("sig1", signed.input, signed.signature, to: &request.headerFields)
        #expect(throws: F.error(.algorithmNotAllowed)) { try F.verifier().verify(request, now: F.now) }
        // §4.3's rsa-v1_5-sha256 signature, with the key allowed rsa-pss-sha512 only, or both
        // (then the signature's own `alg` decides).
        let vectors = try RFC9421Vectors.shared.get()
        let vector = try #require(vectors.cases.first { $0.section == "4.3" })
        let pem = try #require(vectors.keys[vector.keyid]?.public_pem)
        let message = try vectors.signedMessage(vector)
        let pss = try HMS.VerificationKey(pem: pem, keyID: vector.keyid, algorithms: [.rsaPSSSHA512])
        #expect(throws: F.error(.algorithmNotAllowed)) {
            try HMS.Verifier(keys: [pss]).verify(message, label: vector.label, now: 1_618_884_480)
        }
        let both = try HMS.VerificationKey(pem: pem, keyID: vector.keyid, algorithms: [.rsaPSSSHA512, .rsaV1_5SHA256])
        _ = try HMS.Verifier(keys: [both]).verify(message, label: vector.label, now: 1_618_884_480)
        // Without `alg`, a key allowing two algorithms does not guess (B.2.1 names none).
        let minimal = try #require(vectors.cases.first { $0.section == "B.2.1" })
        let pssPEM = try #require(vectors.keys[minimal.keyid]?.public_pem)
        let rsaBoth = try HMS.VerificationKey(
            pem: pssPEM,
            keyID: minimal.keyid,
            algorithms: [.rsaPSSSHA512, .rsaV1_5SHA256]
        )
        #expect(throws: F.error(.algorithmNotAllowed)) {
            try HMS.Verifier(keys: [rsaBoth]).verify(
                try vectors.signedMessage(minimal),
                label: minimal.label,
                now: 1_618_884_473
            )
        }
        // A key cannot be allowed an algorithm of another key type.
        #expect(throws: F.error(.invalidKey)) {
            try HMS.VerificationKey(pem: F.edKey.publicKey.pemRepresentation, keyID: "ed", algorithms: [.rsaPSSSHA512])
        }
        #expect(throws: F.error(.invalidKey)) { try HMS.SigningKey.hmacSHA256([1, 2, 3], keyID: "short") }
    }

    @Test func tamperedBodyUnderContentDigest() throws {
        let body = Array(#"{"hello": "world"}"#.utf8)
        var request = F.request()
        HMS.ContentDigest.set(&request.headerFields, body: body, algorithms: [.sha256, .sha512])
        try F.signer([.method, .targetURI, .field(HMS.contentDigestField)]).sign(&request)
        _ = try F.verifier().verify(request, body: body, now: F.now)
        var tampered = body
        tampered[3] ^= 0x20
        #expect(throws: F.error(.digestMismatch)) { try F.verifier().verify(request, body: tampered, now: F.now) }
    }

    /// A byte of each published Appendix B signature flipped: none verifies.
    @Test(arguments: try RFC9421Vectors.cases())
    func tamperedSignatureByte(_ vector: RFC9421Vectors.Case) throws {
        let vectors = try RFC9421Vectors.shared.get()
        var octets = Array(try #require(Data(base64Encoded: vector.signature)))
        octets[0] ^= 0x80
        let message = try vectors.message(
            vector.message,
            extraFields: [
                ("Signature-Input", "tampered=\(vector.signature_input)"),
                ("Signature", "tampered=:\(Data(octets).base64EncodedString()):"),
            ]
        )
        let created = try #require(try HMS.MessageSignatures(message.headerFields)["tampered"]?.input.created)
        #expect(throws: F.error(.invalidSignature)) {
            try vectors.verifier(vector).verify(message, label: "tampered", now: created)
        }
    }

    @Test func componentNotApplicable() throws {
        let request = HMS.Message.request(F.request())
        let response = HMS.Message.response(HTTPResponse(status: .ok))
        func base(_ message: HMS.Message, _ component: HMS.ComponentIdentifier) throws -> String {
            try HMS.signatureBase(for: message, input: HMS.SignatureInput(components: [component], parameters: []))
        }
        #expect(throws: F.error(.componentNotApplicable)) { try base(request, .status) }
        #expect(throws: F.error(.componentNotApplicable)) { try base(response, .method) }
        #expect(throws: F.error(.componentNotApplicable)) {
            try base(request, HMS.ComponentIdentifier.method.ofRequest)
        }
        #expect(throws: F.error(.componentNotApplicable)) {
            try base(response, HMS.ComponentIdentifier.method.ofRequest)
        }
        #expect(throws: F.error(.componentNotApplicable)) {
            try base(response, HMS.ComponentIdentifier.status.ofRequest)
        }
    }

    @Test func invalidComponent() throws {
        let request = HMS.Message.request(F.request())
        func base(_ component: HMS.ComponentIdentifier) throws -> String {
            try HMS.signatureBase(for: request, input: HMS.SignatureInput(components: [component], parameters: []))
        }
        #expect(throws: F.error(.invalidComponent)) { try base(.init(name: "@fragment")) }
        #expect(throws: F.error(.invalidComponent)) { try base(.init(name: "@signature-params")) }
        #expect(throws: F.error(.invalidComponent)) {
            try base(.field(.contentType, structured: true, byteSequence: true))
        }
        #expect(throws: F.error(.invalidComponent)) { try base(.init(name: "content-type", parameters: [.name("x")])) }
        #expect(throws: F.error(.invalidComponent)) { try base(.init(name: "@method", parameters: [.structuredField])) }
        #expect(throws: F.error(.invalidComponent)) { try base(.init(name: "@query-param")) }
        // Received: an uppercase field name, a parameter RFC 9421 does not define.
        for input in [#"("Content-Type");keyid="ed""#, #"("content-type";foo);keyid="ed""#] {
            #expect(throws: F.error(.invalidComponent)) {
                try F.verifier().verify(F.request(withInput: input), now: F.now)
            }
        }
    }

    @Test func structuredFieldsAndTrailers() throws {
        let request = HMS.Message.request(F.request())
        func base(_ message: HMS.Message, _ component: HMS.ComponentIdentifier) throws -> String {
            try HMS.signatureBase(for: message, input: HMS.SignatureInput(components: [component], parameters: []))
        }
        // `sf` on a field whose type is not known; `key` on a value that is not a dictionary.
        #expect(throws: F.error(.invalidStructuredField)) { try base(request, .field(.contentType, structured: true)) }
        #expect(throws: F.error(.invalidStructuredField)) {
            try base(request, .field(HTTPField.Name("Date")!, key: "a"))
        }
        // `tr` without the trailer section, then with it.
        let digest = HTTPField.Name("Content-Digest")!
        #expect(throws: F.error(.trailersUnavailable)) { try base(request, .field(digest, trailer: true)) }
        let trailers: HTTPFields = [digest: "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:"]
        let withTrailers = HMS.Message.request(F.request(), trailerFields: trailers)
        #expect(
            try base(withTrailers, .field(digest, trailer: true))
                == "\"content-digest\";tr: sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:\n\"@signature-params\": (\"content-digest\";tr)"
        )
        #expect(throws: F.error(.missingComponent)) { try base(withTrailers, .field(.contentType, trailer: true)) }
    }

    @Test func policy() throws {
        var request = F.request()
        var signer = F.signer()
        signer.tag = "app-a"
        signer.nonceSource = .seeded(7)
        try signer.sign(&request)
        var verifier = F.verifier()
        verifier.requiredComponents = [.method, .field(HTTPField.Name("Content-Digest")!)]
        #expect(throws: F.error(.missingRequiredComponent)) { try verifier.verify(request, now: F.now) }
        verifier.requiredComponents = [.method, .targetURI]
        verifier.requiredTag = "app-b"
        #expect(throws: F.error(.signatureNotFound)) { try verifier.verify(request, now: F.now) }
        #expect(throws: F.error(.tagMismatch)) { try verifier.verify(request, label: "sig1", now: F.now) }
        verifier.requiredTag = "app-a"
        // Replays: the first use records the nonce, the second is refused; a forged signature
        // with the same nonce does not use it up.
        let store = HMS.BoundedNonceStore(capacity: 2)
        verifier.nonceStore = store
        var forged = request
        forged.headerFields[HMS.signatureField] = "sig1=:\(Data(repeating: 1, count: 64).base64EncodedString()):"
        #expect(throws: F.error(.invalidSignature)) { try verifier.verify(forged, now: F.now) }
        #expect(store.count == 0)
        _ = try verifier.verify(request, now: F.now)
        #expect(throws: F.error(.replayedNonce)) { try verifier.verify(request, now: F.now + 1) }
        // A signature without a nonce, when a store is set.
        var plain = F.request()
        var untagged = F.signer()
        untagged.tag = "app-a"
        try untagged.sign(&plain)
        #expect(throws: F.error(.missingParameter)) { try verifier.verify(plain, now: F.now) }
        // Full of current nonces, the store refuses rather than forgets; past ones make room.
        #expect(store.record(nonce: "a", keyID: "k", until: F.now + 10, now: F.now))
        #expect(!store.record(nonce: "b", keyID: "k", until: F.now + 10, now: F.now))
        #expect(store.record(nonce: "b", keyID: "k", until: F.now + 1000, now: F.now + 400))
    }
}
