import Foundation
import RemoteAuth
import Testing

/// `JSONValue(parsing:)`: RFC 8259, strictly. Positives with the exact value each text reads as;
/// negatives for every rule the reader enforces; and Foundation's `JSONEncoder` and
/// `JSONSerialization` as an independent peer for random values.
@Suite struct JSONParserTests {
    func parse(_ text: String) throws -> JSONValue { try JSONValue(parsing: Array(text.utf8)) }

    @Test(arguments: [
        (#"{}"#, JSONValue.object([:])),
        (#"[]"#, .array([])),
        (#" { "a" : [ 1 , -2 , 0 , -0 ] } "#, JSONValue.object(["a": [1, -2, 0, 0]])),
        (#"true"#, true),
        (#"false"#, false),
        (#"null"#, nil),
        (#""""#, ""),
        (#""a\"b\\c\/d\b\f\n\r\t""#, .string("a\"b\\c/d\u{8}\u{C}\n\r\t")),
        (#""\u00e9\u20AC\ud83d\ude00""#, .string("é€😀")),
        (#""é€😀""#, .string("é€😀")),
        (#""\u0000""#, .string("\u{0}")),
        (#"9223372036854775807"#, .integer(.max)),
        (#"-9223372036854775808"#, .integer(.min)),
        (#"9223372036854775808"#, .number(9_223_372_036_854_775_808)),
        (#"1.5"#, .number(1.5)),
        (#"-0.25e2"#, .number(-25)),
        (#"1E3"#, .number(1000)),
        (#"1e-2"#, .number(0.01)),
        (#"1700000000.0"#, .number(1_700_000_000)),
        (#"{"exp":1700000300,"aud":["a","b"],"n":{"x":null}}"#,
         JSONValue.object(["exp": 1_700_000_300, "aud": ["a", "b"], "n": ["x": nil]])),
    ])
    func reads(_ text: String, _ expected: JSONValue) throws {
        #expect(try parse(text) == expected)
    }

    @Test(arguments: [
        ("", 0), (" ", 1), ("{", 1), ("[1,]", 3), (#"{"a":1,}"#, 7), (#"{"a" 1}"#, 5), ("[1 2]", 3),
        ("01", 1), ("+1", 0), ("-", 1), ("1.", 2), (".5", 0), ("1e", 2), ("1e+", 3), ("NaN", 0),
        ("Infinity", 0), ("1e400", 0), ("-1e400", 0), ("tru", 0), ("nulls", 4), ("'a'", 0),
        ("[1] x", 4), ("/* c */ 1", 0), (#"{"a":1}{"#, 7), (#"{a:1}"#, 1),
        (#""abc"#, 0), ("\"a\u{1}\"", 2), ("\"a\tb\"", 2), (#""\x""#, 1), (#""\u12""#, 3),
        (#""\u12G4""#, 5), (#""\ud800""#, 7), (#""\udc00""#, 7), (#""\ud800\u0041""#, 13),
        (#"{"a":1,"a":2}"#, 7), (#"{"b":{"c":1,"c":1}}"#, 12),
    ])
    func refuses(_ text: String, _ offset: Int) {
        #expect(throws: JSONValue.ParseError.self) { try parse(text) }
        do {
            _ = try parse(text)
        } catch let error as JSONValue.ParseError {
            #expect(error.offset == offset, "\(text): \(error)")
        } catch {
            Issue.record("not a ParseError: \(error)")
        }
    }

    @Test func refusesInvalidUTF8AndAByteOrderMark() {
        for bytes: [UInt8] in [
            [0x22, 0xC3, 0x28, 0x22],  // a truncated 2-octet sequence
            [0x22, 0xC0, 0xAF, 0x22],  // an overlong '/'
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // an encoded surrogate
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
            [0x22, 0xFF, 0x22],
            [0xEF, 0xBB, 0xBF, 0x7B, 0x7D],  // BOM then {}
        ] {
            #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: bytes) }
        }
    }

    @Test func boundsTheDepth() throws {
        let deep = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try parse(deep) }
        let tooDeep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONValue.ParseError.self) { try parse(tooDeep) }
        // A hostile nesting a million deep is refused without exhausting the stack.
        let hostile = String(repeating: "{\"a\":", count: 1_000_000)
        #expect(throws: JSONValue.ParseError.self) { try parse(hostile) }
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: Array("[[1]]".utf8), maximumDepth: 1) }
    }

    @Test func parseObjectWantsAnObject() throws {
        #expect(try JSONValue.parseObject(Array(#"{"a":"b"}"#.utf8)) == ["a": "b"])
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parseObject(Array("[1]".utf8)) }
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parseObject(Array(#""{}""#.utf8)) }
    }

    @Test func errorsNeverQuoteTheText() {
        do {
            _ = try parse(#"{"access_token":"s3cr3t-value","x":tru}"#)
            Issue.record("parsed")
        } catch {
            #expect(!"\(error)".contains("s3cr3t"))
        }
    }

    /// Random values written by Foundation's `JSONEncoder` read back equal; the same text read by
    /// `JSONSerialization` gives the same members and strings.
    @Test func agreesWithFoundation() throws {
        var generator = SplitMix(seed: 0x5EED)
        let encoder = JSONEncoder()
        for round in 0..<500 {
            let value = JSONValue.object(randomObject(&generator, depth: 0))
            let text = try encoder.encode(value)
            let parsed = try JSONValue(parsing: Array(text))
            #expect(parsed == value, "round \(round): \(String(decoding: text, as: UTF8.self))")
            let foundation = try JSONSerialization.jsonObject(with: text) as? [String: Any]
            #expect(foundation?.keys.sorted() == parsed.objectValue?.keys.sorted())
        }
    }

    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    func randomString(_ generator: inout SplitMix) -> String {
        let alphabet: [Character] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\u{1}", "é", "€", "😀", "\u{7F}", "-"]
        return String((0..<generator.below(12)).map { _ in alphabet[generator.below(alphabet.count)] })
    }

    func randomValue(_ generator: inout SplitMix, depth: Int) -> JSONValue {
        switch generator.below(depth > 3 ? 5 : 7) {
        case 0: return .null
        case 1: return .bool(generator.below(2) == 0)
        case 2: return .integer(Int64(bitPattern: generator.next()) >> Int64(generator.below(64)))
        case 3: return .number(Double(Int64(bitPattern: generator.next()) >> 24) + 0.25)
        case 4: return .string(randomString(&generator))
        case 5: return .array((0..<generator.below(4)).map { _ in randomValue(&generator, depth: depth + 1) })
        default: return .object(randomObject(&generator, depth: depth + 1))
        }
    }

    func randomObject(_ generator: inout SplitMix, depth: Int) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        for _ in 0..<generator.below(5) { object[randomString(&generator)] = randomValue(&generator, depth: depth) }
        return object
    }
}

/// `JSONValue`'s `Codable` form survives a round trip through `JSONEncoder` and `JSONDecoder`: a
/// number whose double is a whole number in Int64's range reads as that integer (CI's fuzz
/// finding in `metadata_json`: `3333333333333333331.5` read as a double, written back with an
/// exponent and read again as another integer); other numbers stay doubles.
@Suite struct JSONValueCodableTests {
    static func decode(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    @Test(arguments: [
        ("3333333333333333331.5", JSONValue.integer(3_333_333_333_333_333_504)),
        ("1.0", .integer(1)), ("-2e3", .integer(-2000)), ("7", .integer(7)),
        ("1.5", .number(1.5)), ("1e300", .number(1e300)), ("9.3e18", .number(9.3e18)), ("-9.3e18", .number(-9.3e18)),
    ])
    func numbersReadAndRoundTrip(_ text: String, _ expected: JSONValue) throws {
        let value = try Self.decode(text)
        #expect(value == expected)
        let again = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(again == value)
    }

    @Test func theFuzzFinding() throws {
        let text = #"{"issuer":"httr.example.com","authorization_response_iss_p":["LEl0.com","authorization56"],"x":3333333333333333331.5}"#
        let metadata = try JSONDecoder().decode(OAuth2.ServerMetadata.self, from: Data(text.utf8))
        let back = try JSONDecoder().decode(OAuth2.ServerMetadata.self, from: JSONEncoder().encode(metadata))
        #expect(back == metadata)
    }
}
