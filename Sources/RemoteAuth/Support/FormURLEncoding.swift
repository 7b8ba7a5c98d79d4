public import HTTPTypes

/// `application/x-www-form-urlencoded`: the one encoder and decoder of name/value lists for
/// query strings, form bodies, OAuth 1.0a provider answers and callbacks, and OAuth 2 token
/// requests. Pairs keep their order and duplicates.
///
/// Decoding follows the [WHATWG URL Standard §5.1](https://url.spec.whatwg.org/#urlencoded-parsing),
/// which OAuth 1.0a applies to the query and the body
/// ([RFC 5849 §3.4.1.3.1](https://www.rfc-editor.org/rfc/rfc5849#section-3.4.1.3.1)):
/// 1. The input is split at `&`; empty pieces (`a&&b`) are skipped.
/// 2. Each piece is split at its first `=`; a piece without `=` is a name with an empty value.
/// 3. In name and value, `+` becomes a space, then `%XY` escapes (either case) are decoded.
/// 4. The octets are read as UTF-8.
///
/// It is stricter than WHATWG in two places, both typed errors rather than silent repairs:
/// a `%` not followed by two hex digits (WHATWG keeps it as it is) and octets that are not UTF-8
/// (WHATWG writes U+FFFD). A signature computed over a repaired value would not be the one the
/// sender signed.
///
/// Encoding writes each name and value as UTF-8 and percent-encodes every octet outside the
/// [RFC 3986 §2.3](https://www.rfc-editor.org/rfc/rfc3986#section-2.3) unreserved set
/// (`ALPHA / DIGIT / "-" / "." / "_" / "~"`) as `%XY` with uppercase digits, a space as `%20`:
/// the encoding of [RFC 5849 §3.6](https://www.rfc-editor.org/rfc/rfc5849#section-3.6), which
/// every form decoder reads back to the same text.
public enum FormURLEncoding {
    /// The media type, for `Content-Type`.
    public static let mediaType = "application/x-www-form-urlencoded"

    /// `true` when the first `Content-Type` is `application/x-www-form-urlencoded` (parameters
    /// such as `charset` ignored, case-insensitive): the condition of
    /// [RFC 5849 §3.4.1.3.1](https://www.rfc-editor.org/rfc/rfc5849#section-3.4.1.3.1) for
    /// signing a body's parameters, and of a form a server reads.
    public static func isFormEncoded(_ fields: HTTPFields) -> Bool {
        // The first Content-Type field (`fields[name]` would join every one of them).
        guard let value = fields.first(where: { $0.name == .contentType })?.value else { return false }
        if value == mediaType { return true }
        // The media type, before any `;` parameter, without surrounding white space.
        var bytes = Substring(value).utf8
        if let semicolon = bytes.firstIndex(of: UInt8(ascii: ";")) { bytes = bytes[..<semicolon] }
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        return bytes.count == mediaType.utf8.count
            && zip(bytes, mediaType.utf8).allSatisfy { a, b in
                (a >= UInt8(ascii: "A") && a <= UInt8(ascii: "Z") ? a + 32 : a) == b
            }
    }

    /// `name=value&name=value`, each name and value percent-encoded (see ``FormURLEncoding``).
    /// An empty value still gets its `=`.
    public static func encode(_ pairs: [(name: String, value: String)]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(pairs.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 })
        for (index, pair) in pairs.enumerated() {
            if index > 0 { output.append(UInt8(ascii: "&")) }
            appendPair(name: pair.name, value: pair.value, to: &output)
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends `name=value`, both percent-encoded, to `output` (no `&`).
    package static func appendPair(name: String, value: String, to output: inout [UInt8]) {
        appendEncoded(name.utf8, to: &output)
        output.append(UInt8(ascii: "="))
        appendEncoded(value.utf8, to: &output)
    }

    /// Appends `octets`, every octet outside the unreserved set written `%XY`.
    package static func appendEncoded(_ octets: some Sequence<UInt8>, to output: inout [UInt8]) {
        output.appendPercentEncoded(octets)
    }

    /// The RFC 3986 §2.3 unreserved set, written as it is.
    @inlinable
    public static func isUnreserved(_ octet: UInt8) -> Bool {
        switch octet {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Decodes a query string (without its `?`) or a form body given as text.
    ///
    /// - Throws: ``FormURLEncodingError`` `.malformedPercentEncoding`, `.invalidUTF8`.
    public static func decode(_ encoded: some StringProtocol) throws -> [(name: String, value: String)] {
        try decode(bytes: Array(encoded.utf8))
    }

    /// Decodes a form body as received, without reading it as text first.
    ///
    /// - Throws: ``FormURLEncodingError`` `.malformedPercentEncoding`, `.invalidUTF8`.
    public static func decode(bytes: some Collection<UInt8>) throws -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        let bytes = Array(bytes)
        try forEachPair(bytes[...]) { name, value in
            result.append((try decodeText(name, part: "name"), try decodeText(value, part: "value")))
        }
        return result
    }

    /// The value of the first pair named `name` in `encoded`, or `nil`.
    public static func firstValue(named name: String, in encoded: some StringProtocol) throws -> String? {
        try decode(encoded).first { $0.name == name }?.value
    }

    /// Calls `body` with the raw (still encoded) name and value of each non-empty pair: steps 1
    /// and 2 of ``FormURLEncoding``.
    package static func forEachPair(
        _ bytes: ArraySlice<UInt8>,
        _ body: (ArraySlice<UInt8>, ArraySlice<UInt8>) throws -> Void
    ) rethrows {
        var start = bytes.startIndex
        while start <= bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
            let pair = bytes[start..<end]
            if !pair.isEmpty {
                if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                    try body(pair[..<equals], pair[(equals + 1)...])
                } else {
                    try body(pair, pair[pair.endIndex...])
                }
            }
            start = end + 1
        }
    }

    /// ``forEachPair(_:_:)-(ArraySlice<UInt8>,_)`` over a buffer: the hot path of the OAuth 1.0a
    /// signer and verifier, which read the query and the body without copying them.
    package static func forEachPair(
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) throws -> Void
    ) rethrows {
        let count = bytes.count
        var start = 0
        while start <= count {
            var end = start
            while end < count, bytes[end] != UInt8(ascii: "&") { end += 1 }
            if end > start {
                var equals = start
                while equals < end, bytes[equals] != UInt8(ascii: "=") { equals += 1 }
                let name = UnsafeBufferPointer(rebasing: bytes[start..<equals])
                let value = UnsafeBufferPointer(rebasing: bytes[Swift.min(equals + 1, end)..<end])
                try body(name, value)
            }
            start = end + 1
        }
    }

    /// Step 3: `+` as a space, then `%XY` escapes; the octets, not yet read as UTF-8.
    ///
    /// - Throws: ``FormURLEncodingError/Code-swift.struct/malformedPercentEncoding``.
    package static func decodeOctets(_ encoded: some Collection<UInt8>, plusIsSpace: Bool = true) throws -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(encoded.count)
        var index = encoded.startIndex
        while index != encoded.endIndex {
            let octet = encoded[index]
            if octet == UInt8(ascii: "%") {
                let first = encoded.index(after: index)
                guard first != encoded.endIndex, let high = Hex.value(encoded[first]) else {
                    throw FormURLEncodingError(
                        .malformedPercentEncoding,
                        "a '%' is not followed by two hexadecimal digits"
                    )
                }
                let second = encoded.index(after: first)
                guard second != encoded.endIndex, let low = Hex.value(encoded[second]) else {
                    throw FormURLEncodingError(
                        .malformedPercentEncoding,
                        "a '%' is not followed by two hexadecimal digits"
                    )
                }
                output.append(high << 4 | low)
                index = encoded.index(after: second)
                continue
            }
            output.append(plusIsSpace && octet == UInt8(ascii: "+") ? UInt8(ascii: " ") : octet)
            index = encoded.index(after: index)
        }
        return output
    }

    /// Steps 3 and 4.
    static func decodeText(_ encoded: ArraySlice<UInt8>, part: String) throws -> String {
        let octets = try decodeOctets(encoded)
        guard let text = String(validatingUTF8Bytes: octets) else {
            throw FormURLEncodingError(.invalidUTF8, "a decoded \(part) is not UTF-8")
        }
        return text
    }
}

/// Why an `application/x-www-form-urlencoded` string could not be decoded. The ``reason``
/// never repeats the input, which may carry a secret.
public struct FormURLEncodingError: Error, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable code: compare it with `==` (the set is open).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable { case malformedPercentEncoding, invalidUTF8 }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// A `%` not followed by two hexadecimal digits.
        public static let malformedPercentEncoding = Code(.malformedPercentEncoding)
        /// Decoded octets that are not UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)
        public var description: String { base.rawValue }
    }

    public let code: Code
    public let reason: String

    /// Creates the error `code` with `reason`, in plain words.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { "FormURLEncodingError.\(code): \(reason)" }
}
