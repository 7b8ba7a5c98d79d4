import Crypto
import Foundation
import HTTPTypes
import Testing

@testable import RemoteAuth

/// `ComponentIdentifier.list(parsing:)`: the component lists of the command line
/// (`--signature-components`), bare names or structured strings (RFC 9421 §2).
@Suite struct HTTPMessageSignatureComponentListTests {
    typealias Component = HTTPMessageSignatures.ComponentIdentifier

    @Test func bareNamesAndStringsWithParameters() throws {
        let list = try Component.list(
            parsing: #"@method  "@target-uri" content-digest "@query-param";name="a b" signature;req;key="sig1""#
        )
        #expect(
            list == [
                .method, .targetURI, .field(HTTPMessageSignatures.contentDigestField), .queryParameter("a b"),
                Component(name: "signature", parameters: [.request, .key("sig1")]),
            ]
        )
    }

    @Test func refusals() {
        for (text, code) in [
            ("@method;x", HTTPMessageSignatures.Error.Code.invalidComponent),
            ("Content-Type", .invalidComponent),
            (#""@method"#, .malformedSignatureInput),
            ("a;key=1", .malformedSignatureInput),
        ] {
            #expect(throws: HTTPMessageSignatures.Error(code, ""), "\(text)") { try Component.list(parsing: text) }
        }
    }
}

/// The fields a signer appends: its identifiers and its `keyid`/`alg`/`tag` serialized once and
/// composed with the parameters of each signature (RFC 8941 §4.1.1.1, §4.1.1.2, §4.1.2) are the
/// bytes swift-http-structured-headers writes for the whole dictionary member, whatever the
/// settings; a label that is not a structured field key is refused and nothing is written.
@Suite struct SignerFieldsTests {
    typealias HMS = HTTPMessageSignatures

    static func request() throws -> HTTPRequest {
        try HTTPRequest(method: .post, absoluteURL: "https://example.com/foo?param=Value&Pet=dog",
                        headerFields: [.contentType: "application/json"])
    }

    @Test(arguments: [
        (true, nil, 300 as Int64?, nil), (false, "app-1", nil, nil), (true, "t", 60, "n-once"), (false, nil, nil, "x"),
    ] as [(Bool, String?, Int64?, String?)])
    func fieldsAreTheLibrarysSerialization(_ includesAlgorithm: Bool, _ tag: String?, _ lifetime: Int64?, _ nonce: String?)
        throws
    {
        let key = try Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 9, count: 32))
        var signer = HMS.Signer(
            key: .ed25519(key, keyID: "key \"one\""),
            label: "sig-b1",
            components: [.method, .targetURI, .field(.contentType), .queryParameter("Pet")],
            now: { 1_700_000_000 }
        )
        signer.includesAlgorithm = includesAlgorithm
        signer.tag = tag
        signer.lifetime = lifetime
        signer.nonce = nonce
        var request = try Self.request()
        let signed = try signer.sign(&request)
        let expectedInput = "sig-b1=" + (try signed.input.serialized())
        #expect(request.headerFields[HMS.signatureInputField] == expectedInput)
        #expect(request.headerFields[HMS.signatureField] == "sig-b1=:" + Data(signed.signature).base64EncodedString() + ":")
        #expect(signed.signatureBase.hasSuffix("\n\"@signature-params\": " + (try signed.input.serialized())))
        let parsed = try #require(try HMS.MessageSignatures(request.headerFields)["sig-b1"])
        #expect(parsed.input == signed.input)
        #expect(parsed.input.tag == tag)
        #expect(parsed.input.algorithm == (includesAlgorithm ? .ed25519 : nil))
        #expect(parsed.input.expires == lifetime.map { 1_700_000_000 + $0 })
        #expect(parsed.input.nonce == nonce)
    }

    @Test func aLabelThatIsNotAKeyIsRefused() throws {
        let key = try Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 9, count: 32))
        var signer = HMS.Signer(key: .ed25519(key, keyID: "k"), components: [.method])
        signer.label = "Not A Key"
        var request = try Self.request()
        #expect(throws: HMS.Error(.malformedSignatureInput, "")) { try signer.sign(&request) }
        #expect(request.headerFields[HMS.signatureInputField] == nil)
        #expect(request.headerFields[HMS.signatureField] == nil)
        signer.label = "fine"
        try signer.sign(&request)
        #expect(request.headerFields[HMS.signatureInputField]?.hasPrefix("fine=(\"@method\");created=") == true)
    }
}
