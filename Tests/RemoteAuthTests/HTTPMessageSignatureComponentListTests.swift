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
