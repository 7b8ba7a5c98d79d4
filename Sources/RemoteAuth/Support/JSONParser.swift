extension JSONValue {
    /// Why a text is not the JSON this library reads: what was wrong and where (an octet offset).
    /// The text itself is never quoted (a token response or an ID token is a credential).
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was wrong.
        public let reason: String
        /// The offset of the octet where the text stopped making sense.
        public let offset: Int

        public var description: String { "invalid JSON at octet \(offset): \(reason)" }
    }

    /// The default bound on nesting: 64 arrays or objects deep, far above any token response,
    /// JOSE header, claims set or JWK Set.
    public static let defaultMaximumDepth = 64

    /// Reads JSON text ([RFC 8259](https://www.rfc-editor.org/rfc/rfc8259)) strictly, in one pass:
    ///
    /// - UTF-8 only, without a byte order mark (§8.1), and valid: no overlong form, no surrogate
    ///   code point, no lone surrogate in a `\u` escape (§8.2: such strings do not interoperate).
    /// - The grammar of §2 to §7 and nothing more: no comments, no trailing comma, no single
    ///   quotes, no `NaN`, no leading zeros or `+`, control characters escaped in strings,
    ///   whitespace only between tokens (space, tab, line feed, carriage return).
    /// - An object's member names unique (§4 leaves duplicates undefined; JOSE requires parsers to
    ///   reject them or keep the last: [RFC 7515 §5.2](https://www.rfc-editor.org/rfc/rfc7515#section-5.2),
    ///   [RFC 7519 §4](https://www.rfc-editor.org/rfc/rfc7519#section-4); this one rejects them).
    /// - A number without fraction or exponent that fits 64 bits is ``integer(_:)``, any other
    ///   finite number ``number(_:)`` (§6); a number beyond `Double`'s range is refused.
    /// - At most `maximumDepth` nested arrays and objects, so hostile input cannot exhaust the stack.
    ///
    /// - Throws: ``ParseError``.
    public init(parsing text: some Collection<UInt8>, maximumDepth: Int = JSONValue.defaultMaximumDepth) throws {
        func read(_ bytes: UnsafeBufferPointer<UInt8>) throws -> JSONValue {
            var reader = JSONReader(bytes: bytes, maximumDepth: maximumDepth)
            return try reader.readDocument()
        }
        if let value = try text.withContiguousStorageIfAvailable(read) {
            self = value
        } else {
            self = try Array(text).withUnsafeBufferPointer(read)
        }
    }

    /// Reads JSON text that must be an object, as ``init(parsing:maximumDepth:)`` does.
    /// - Throws: ``ParseError``, also when the text is another JSON value.
    public static func parseObject(_ text: some Collection<UInt8>, maximumDepth: Int = JSONValue.defaultMaximumDepth)
        throws -> [String: JSONValue]
    {
        guard case .object(let members) = try JSONValue(parsing: text, maximumDepth: maximumDepth) else {
            throw ParseError(reason: "the text is not a JSON object", offset: 0)
        }
        return members
    }
}

/// The reader behind ``JSONValue/init(parsing:maximumDepth:)``: a recursive descent over the
/// octets, one value per call, the depth counted.
private struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var index = 0
    var depth = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    func fail(_ reason: String, at offset: Int? = nil) -> JSONValue.ParseError {
        JSONValue.ParseError(reason: reason, offset: offset ?? index)
    }

    mutating func readDocument() throws -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw fail("a byte order mark (RFC 8259 §8.1)")
        }
        skipWhitespace()
        let value = try readValue()
        skipWhitespace()
        guard index == bytes.count else { throw fail("text after the value") }
        return value
    }

    /// RFC 8259 §2: `ws = *( %x20 / %x09 / %x0A / %x0D )`.
    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func readValue() throws -> JSONValue {
        guard index < bytes.count else { throw fail("the text ends where a value should be") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object(try readObject())
        case UInt8(ascii: "["): return .array(try readArray())
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"):
            try readLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try readLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try readLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        default: throw fail("no JSON value starts with this octet")
        }
    }

    mutating func readLiteral(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count,
            UnsafeBufferPointer(rebasing: bytes[index..<index + count]).elementsEqual(
                UnsafeBufferPointer(start: literal.utf8Start, count: count)
            )
        else { throw fail("not a JSON literal (true, false or null)") }
        index += count
    }

    mutating func enter() throws {
        depth += 1
        guard depth <= maximumDepth else { throw fail("nested more than \(maximumDepth) deep") }
    }

    /// RFC 8259 §4. The members are collected first and the dictionary made at its final size
    /// (growing it member by member rehashed it at every doubling).
    mutating func readObject() throws -> [String: JSONValue] {
        try enter()
        index += 1  // {
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return [:]
        }
        var collected: [(name: String, value: JSONValue, offset: Int)] = []
        collected.reserveCapacity(16)
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw fail("an object member must start with a string name")
            }
            let nameOffset = index
            let name = try readString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("a ':' is missing") }
            index += 1
            skipWhitespace()
            collected.append((name, try readValue(), nameOffset))
            skipWhitespace()
            guard index < bytes.count else { throw fail("the object is not closed") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw fail("a ',' or '}' is missing") }
            index += 1
            depth -= 1
            var members = [String: JSONValue](minimumCapacity: collected.count)
            for member in collected where members.updateValue(member.value, forKey: member.name) != nil {
                throw fail("a member name appears twice", at: member.offset)
            }
            return members
        }
    }

    /// RFC 8259 §5.
    mutating func readArray() throws -> [JSONValue] {
        try enter()
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return elements
        }
        while true {
            elements.append(try readValue())
            skipWhitespace()
            guard index < bytes.count else { throw fail("the array is not closed") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw fail("a ',' or ']' is missing") }
            index += 1
            depth -= 1
            return elements
        }
    }

    /// RFC 8259 §7. The common case, a run of printable ASCII without escapes, becomes a
    /// `String` straight from the octets; anything else goes through a buffer and is validated
    /// as UTF-8 once.
    mutating func readString() throws -> String {
        index += 1  // "
        let start = index
        // Fast path: printable ASCII up to the closing quote.
        while index < bytes.count {
            let octet = bytes[index]
            if octet == UInt8(ascii: "\"") {
                let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return string
            }
            if octet == UInt8(ascii: "\\") || octet < 0x20 || octet >= 0x80 { break }
            index += 1
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(index - start + 16)
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while true {
            guard index < bytes.count else { throw fail("the string is not closed", at: start - 1) }
            let octet = bytes[index]
            switch octet {
            case UInt8(ascii: "\""):
                index += 1
                guard let string = String(validatingUTF8Bytes: buffer) else {
                    throw fail("the string is not valid UTF-8 (RFC 8259 §8.1)", at: start)
                }
                return string
            case UInt8(ascii: "\\"):
                index += 1
                try readEscape(into: &buffer)
            case 0..<0x20:
                throw fail("a control character in a string must be escaped")
            default:
                buffer.append(octet)
                index += 1
            }
        }
    }

    /// One escape after its `\` (RFC 8259 §7), appended as UTF-8.
    mutating func readEscape(into buffer: inout [UInt8]) throws {
        guard index < bytes.count else { throw fail("the string ends inside an escape") }
        let octet = bytes[index]
        index += 1
        switch octet {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(octet)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low one (§7).
                guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw fail("a lone surrogate in a \\u escape (RFC 8259 §8.2)") }
                index += 2
                let low = try readHex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw fail("a high surrogate not followed by a low one (RFC 8259 §8.2)")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw fail("a lone surrogate in a \\u escape (RFC 8259 §8.2)")
            }
            // A valid scalar now: write its UTF-8.
            for unit in UTF8.encode(Unicode.Scalar(scalar)!)! { buffer.append(unit) }
        default:
            throw fail("not a JSON escape (RFC 8259 §7)", at: index - 2)
        }
    }

    mutating func readHex4() throws -> UInt32 {
        guard bytes.count - index >= 4 else { throw fail("a \\u escape needs four hexadecimal digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Hex.value(bytes[index]) else { throw fail("a \\u escape needs four hexadecimal digits") }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// RFC 8259 §6: `[ minus ] int [ frac ] [ exp ]`, `int = zero / ( digit1-9 *DIGIT )`.
    mutating func readNumber() throws -> JSONValue {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        @inline(__always) func isDigit(_ octet: UInt8) -> Bool { octet >= 0x30 && octet <= 0x39 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("a number needs a digit") }
        var integer: Int64 = 0
        var fits = true
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw fail("a number with a leading zero") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                let digit = Int64(bytes[index] &- 0x30)
                if fits {
                    // Accumulated as a negative number, whose range includes Int64.min.
                    let (times10, overflow1) = integer.multipliedReportingOverflow(by: 10)
                    let (next, overflow2) = times10.subtractingReportingOverflow(digit)
                    if overflow1 || overflow2 { fits = false } else { integer = next }
                }
                index += 1
            }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("a fraction needs a digit") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("an exponent needs a digit") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if isInteger && fits {
            if negative { return .integer(integer) }
            if integer != .min { return .integer(-integer) }
        }
        guard let value = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)),
            value.isFinite
        else { throw fail("a number beyond the range of a double", at: start) }
        return .number(value)
    }
}
