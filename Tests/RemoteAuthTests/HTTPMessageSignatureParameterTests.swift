import HTTPTypes
import Testing

@testable import RemoteAuth

/// The signer writes the signature parameters itself (`SignatureInput.serializedDirectly`) where
/// it can: the `@signature-params` line and the `Signature-Input` member must be what the
/// structured field serializer writes (RFC 8941 §4.1), byte for byte, and the cases it leaves
/// to that serializer must still come out (or fail) as the serializer has them.
@Suite struct HTTPMessageSignatureParameterTests {
    typealias HMS = HTTPMessageSignatures
    typealias Parameter = HMS.SignatureParameter

    static let components: [HMS.ComponentIdentifier] = [
        .method, .targetURI, .field(.contentType),
        HMS.ComponentIdentifier(name: "example-dict", parameters: [.key("a"), .structuredField]),
    ]
    static let signer = HMS.Signer(
        key: try! .hmacSHA256(Array(repeating: 7, count: 32), keyID: "k"),
        components: components
    )
    static let message = HMS.Message.request(
        try! HTTPRequest(
            method: .post,
            absoluteURL: "https://example.com/a?b=1",
            headerFields: [.contentType: "text/plain", HTTPField.Name("Example-Dict")!: "a=1, b=2"]
        )
    )

    /// The base's last line: `"@signature-params": ` and the parameters.
    static func parametersLine(_ input: HMS.SignatureInput) throws -> Substring {
        let base = try signer.sign(message, input: input).signatureBase
        let last = base.split(separator: "\n").last ?? ""
        #expect(last.hasPrefix("\"@signature-params\": "))
        return last.dropFirst("\"@signature-params\": ".count)
    }

    @Test func writtenAsTheSerializerWritesThem() throws {
        let parameterLists: [[Parameter]] = [
            [],
            [.created(1_700_000_000), .expires(1_700_000_300), .keyID("bench"), .algorithm(.ed25519)],
            [.created(-5), .nonce(#"quote " and backslash \ "#), .tag("")],
            [Parameter(name: "flag", value: .boolean(true)), Parameter(name: "off", value: .boolean(false))],
            [Parameter(name: "*x.y_z-1", value: .integer(999_999_999_999_999))],
            // Left to the serializer: a token, a repeated key.
            [Parameter(name: "t", value: .token("abc/d:e")), .created(1)],
            [.created(1), .keyID("a"), .created(2)],
        ]
        for parameters in parameterLists {
            let input = HMS.SignatureInput(components: Self.components, parameters: parameters)
            #expect(try Self.parametersLine(input) == Substring(try input.serialized()), "\(parameters)")
        }
    }

    @Test func refusalsStayTheSerializers() throws {
        for parameters: [Parameter] in [
            [.created(1_000_000_000_000_000)],
            [.nonce("tab\there")],
            [.nonce("é")],
            [Parameter(name: "Upper", value: .integer(1))],
            [Parameter(name: "1digit", value: .integer(1))],
        ] {
            let input = HMS.SignatureInput(components: Self.components, parameters: parameters)
            #expect(throws: HMS.Error.self, "\(parameters)") { try Self.parametersLine(input) }
            #expect(throws: HMS.Error.self, "\(parameters)") { try input.serialized() }
        }
    }

    /// `Signature-Input` and `Signature` as the dictionary serializer writes them, for a label
    /// that is a key; a label that is not one is refused as before.
    @Test func appendedFields() throws {
        var request = try HTTPRequest(method: .get, absoluteURL: "https://example.com/")
        request.headerFields[.contentType] = "text/plain"
        request.headerFields[HTTPField.Name("Example-Dict")!] = "a=1, b=2"
        let signed = try Self.signer.sign(&request)
        // A dictionary member: the key, "=", the inner list serialized (RFC 8941 §4.1.2).
        #expect(request.headerFields[HMS.signatureInputField] == "sig1=" + (try signed.input.serialized()))
        #expect(request.headerFields[HMS.signatureField] == "sig1=:\(RemoteAuthBase64.encode(signed.signature)):")
        var labelled = Self.signer
        labelled.label = "Not-A-Key"
        var other = try HTTPRequest(method: .get, absoluteURL: "https://example.com/")
        other.headerFields[.contentType] = "text/plain"
        other.headerFields[HTTPField.Name("Example-Dict")!] = "a=1, b=2"
        #expect(throws: HMS.Error.self) { try labelled.sign(&other) }
    }
}
