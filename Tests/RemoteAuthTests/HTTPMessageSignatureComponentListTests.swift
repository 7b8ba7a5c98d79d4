import RawStructuredFieldValues
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

/// `StructuredFields.orderedMap(_:)` builds the same map as the map's subscript setter, in one
/// step: order kept, a repeated key in its first place with its last value, any length.
@Suite struct StructuredFieldsOrderedMapTests {
    static func bySubscript(_ pairs: [(String, Int)]) -> [(String, Int)] {
        var map = OrderedMap<String, Int>()
        for (key, value) in pairs { map[key] = value }
        return map.map { ($0.0, $0.1) }
    }

    @Test(arguments: [0, 1, 2, 3, 4, 5, 6, 7, 9])
    func sameAsTheSubscript(count: Int) {
        let distinct = (0..<count).map { ("k\($0)", $0) }
        let repeated = distinct + distinct.prefix(2).map { ($0.0, $0.1 + 100) }
        for pairs in [distinct, repeated] {
            let built = StructuredFields.orderedMap(pairs).map { ($0.0, $0.1) }
            #expect(built.map(\.0) == Self.bySubscript(pairs).map(\.0))
            #expect(built.map(\.1) == Self.bySubscript(pairs).map(\.1))
        }
        #expect(StructuredFields.orderedMap(distinct).map(\.1) == Array(0..<count))
    }
}
