import Crypto
import HTTPTypes

extension AWS.SigV4Signer {
    /// A canonical request, as the bytes that are hashed, and its signed header names.
    struct Canonical {
        var bytes: [UInt8]
        /// Where in ``bytes`` the signed header names are.
        var signedRange: Range<Int>
        /// The signed header names, lowercase, sorted, joined with `;`.
        var signedHeaders: String { String(decoding: bytes[signedRange], as: UTF8.self) }
        var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    /// The canonical request and its signed header names, written in one buffer: the method,
    /// the path, the query, the header lines, the signed names and the payload hash, each on a
    /// line ([AWS: create a canonical request](https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html#create-canonical-request)).
    func canonicalRequest(
        _ request: HTTPRequest,
        extraQuery: [(String, String)],
        payloadHash: String
    ) throws -> Canonical {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        bytes.appendUTF8(request.method.rawValue)
        bytes.append(0x0A)
        let target = request.target
        appendCanonicalPath(target.path, to: &bytes)
        bytes.append(0x0A)
        if target.query != nil || !extraQuery.isEmpty {
            bytes.appendUTF8(Self.canonicalQuery(String(target.query ?? ""), extra: extraQuery))
        }
        bytes.append(0x0A)
        let signedRange = try Self.appendCanonicalHeaders(request, to: &bytes)
        bytes.append(0x0A)
        bytes.appendUTF8(payloadHash)
        return Canonical(bytes: bytes, signedRange: signedRange)
    }

    /// The path as signed: normalized and encoded again, or for S3 as sent.
    ///
    /// The normalization is the AWS SDKs' (botocore's `remove_dot_segments`): empty, `.`
    /// and `..` segments go, and the path keeps its trailing `/` only when it had one and
    /// segments remain, so `/a/b/..` is `/a` where RFC 3986 §5.2.4 would give `/a/`, and
    /// `//a//` is `/a/`. The server computes the same, so it is followed byte for byte.
    func appendCanonicalPath(_ path: Substring, to bytes: inout [UInt8]) {
        let utf8 = path.utf8
        guard !utf8.isEmpty else {
            bytes.append(UInt8(ascii: "/"))
            return
        }
        guard service != "s3" else {
            bytes.append(contentsOf: utf8)
            return
        }
        var segments: [Range<Substring.UTF8View.Index>] = []
        var start = utf8.startIndex
        while start < utf8.endIndex {
            let end = utf8[start...].firstIndex(of: UInt8(ascii: "/")) ?? utf8.endIndex
            let segment = utf8[start..<end]
            if segment.elementsEqual("..".utf8) {
                _ = segments.popLast()
            } else if !segment.isEmpty, !segment.elementsEqual(".".utf8) {
                segments.append(start..<end)
            }
            start = end == utf8.endIndex ? end : utf8.index(after: end)
        }
        bytes.append(UInt8(ascii: "/"))
        for (index, segment) in segments.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "/")) }
            bytes.appendPercentEncoded(utf8[segment])
        }
        if !segments.isEmpty, utf8.last == UInt8(ascii: "/") { bytes.append(UInt8(ascii: "/")) }
    }

    /// The path as signed, as text (see ``appendCanonicalPath(_:to:)``).
    func canonicalPath(_ path: String) -> String {
        var bytes: [UInt8] = []
        appendCanonicalPath(Substring(path), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The query's parameters, decoded, encoded again and sorted by name, then value.
    static func canonicalQuery(_ query: String, extra: [(String, String)]) -> String {
        var pairs: [(String, String)] = []
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let equals = part.firstIndex(of: "=")
            let name = String(part[..<(equals ?? part.endIndex)])
            let value = equals.map { String(part[part.index(after: $0)...]) } ?? ""
            pairs.append((uriEncode(percentDecode(name)), uriEncode(percentDecode(value))))
        }
        pairs += extra.map { (uriEncode($0.0), uriEncode($0.1)) }
        pairs.sort { $0.0 == $1.0 ? $0.1.utf8.lexicographicallyPrecedes($1.1.utf8) : $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
        return pairs.map { $0.0 + "=" + $0.1 }.joined(separator: "&")
    }

    /// Whether SigV4 leaves the field (lowercase name) unsigned: botocore's list, and the
    /// signature's own field.
    static func isUnsigned(_ name: String) -> Bool {
        // Most names are none of these: their length says so without comparing the text.
        switch name.utf8.count {
        case 13: name == "authorization"
        case 10: name == "user-agent"
        case 6: name == "expect"
        case 15: name == "x-amzn-trace-id"
        default: false
        }
    }

    /// Appends the `name:value\n` lines, sorted by name (`host` always, repeated fields joined
    /// with `,` in their order), an empty line, and the names joined with `;`; returns where the
    /// names are.
    ///
    /// Each signed field is read once, its name and folded value written after `bytes` in the
    /// request's order; the lines are then sorted as byte ranges of that text (a stable
    /// insertion sort: repeated fields keep their order) and written in place of it. No field,
    /// name or value is copied into an array of its own on the way.
    static func appendCanonicalHeaders(_ request: HTTPRequest, to bytes: inout [UInt8]) throws -> Range<Int> {
        guard let authority = request.authority, !authority.isEmpty else {
            throw AWS.SigV4Error("the request has no authority: SigV4 signs the host")
        }
        let fields = request.headerFields
        return withUnsafeTemporaryAllocation(of: FieldText.self, capacity: fields.count + 1) { texts in
            let scratch = bytes.count
            bytes.append(contentsOf: "host".utf8)
            appendFolded(authority, to: &bytes)
            texts[0] = FieldText(start: scratch, nameEnd: scratch + 4, end: bytes.count, repeated: false)
            var count = 1
            for field in fields {
                let name = field.name.canonicalName
                guard !(name.utf8.count == 4 && name == "host"), !isUnsigned(name) else { continue }
                let start = bytes.count
                bytes.appendUTF8(name)
                let nameEnd = bytes.count
                appendFolded(field.value, to: &bytes)
                texts[count] = FieldText(start: start, nameEnd: nameEnd, end: bytes.count, repeated: false)
                count += 1
            }
            let scratchLength = bytes.count - scratch
            // Each line is at most its text, `:` and a line feed; each name at most its text and `;`.
            let capacity = 2 * scratchLength + 3 * count + 2
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { out in
                var writer = ByteWriter(out)
                var namesOffset = 0
                bytes.withUnsafeBufferPointer { text in
                    let base = text.baseAddress!
                    func name(_ slot: Int) -> UnsafeBufferPointer<UInt8> {
                        let field = texts[slot]
                        return UnsafeBufferPointer(start: base + field.start, count: field.nameEnd - field.start)
                    }
                    // Names are tokens (RFC 9110 §5.1): compared as bytes.
                    func precedes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
                        for index in 0..<min(a.count, b.count) where a[index] != b[index] {
                            return a[index] < b[index]
                        }
                        return a.count < b.count
                    }
                    func sameName(_ slot: Int) -> Bool { texts[slot].repeated }
                    for slot in 1..<count {
                        let moving = texts[slot]
                        let movingName = name(slot)
                        var target = slot
                        while target > 0, precedes(movingName, name(target - 1)) {
                            texts[target] = texts[target - 1]
                            target -= 1
                        }
                        texts[target] = moving
                    }
                    // Whether each line's name is its predecessor's (a repeated field, joined with
                    // `,`): in sorted order, the same length and not before it.
                    for slot in 1..<count {
                        let previous = name(slot - 1)
                        texts[slot].repeated = previous.count == name(slot).count && !precedes(previous, name(slot))
                    }
                    for slot in 0..<count {
                        let field = texts[slot]
                        let value = UnsafeBufferPointer(start: base + field.nameEnd, count: field.end - field.nameEnd)
                        if sameName(slot) {
                            writer.write(UInt8(ascii: ","))
                        } else {
                            if slot > 0 { writer.write(0x0A) }
                            writer.write(name(slot))
                            writer.write(UInt8(ascii: ":"))
                        }
                        writer.write(value)
                    }
                    writer.write(0x0A)
                    writer.write(0x0A)
                    namesOffset = writer.count
                    for slot in 0..<count where !sameName(slot) {
                        if slot > 0 { writer.write(UInt8(ascii: ";")) }
                        writer.write(name(slot))
                    }
                }
                bytes.removeLast(scratchLength)
                let namesStart = bytes.count + namesOffset
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: out[..<writer.count]))
                return namesStart..<bytes.count
            }
        }
    }

    /// Where a signed field's name and folded value were written (see ``appendCanonicalHeaders(_:to:)``).
    private struct FieldText {
        var start: Int
        var nameEnd: Int
        var end: Int
        /// Whether the name is the one of the line before, once sorted.
        var repeated: Bool
    }

    /// Appends `value` trimmed, with each inner run of spaces and tabs folded to one space.
    static func appendFolded(_ value: String, to bytes: inout [UInt8]) {
        let done: Void? = value.utf8.withContiguousStorageIfAvailable { appendFolded($0, to: &bytes) }
        if done == nil { Array(value.utf8).withUnsafeBufferPointer { appendFolded($0, to: &bytes) } }
    }

    /// Appends `octets` trimmed, with each inner run of spaces and tabs folded to one space.
    static func appendFolded(_ octets: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        // Most values need nothing folded: copied as they are.
        func isSpace(_ octet: UInt8) -> Bool { octet == 0x20 || octet == 0x09 }
        var clean = octets.isEmpty || (!isSpace(octets[0]) && !isSpace(octets[octets.count - 1]))
        if clean {
            var previousSpace = false
            for octet in octets {
                let space = isSpace(octet)
                if space && (previousSpace || octet == 0x09) {
                    clean = false
                    break
                }
                previousSpace = space
            }
        }
        if clean {
            bytes.append(contentsOf: octets)
            return
        }
        var started = false
        var pendingSpace = false
        for octet in octets {
            if isSpace(octet) {
                pendingSpace = started
                continue
            }
            if pendingSpace { bytes.append(0x20) }
            pendingSpace = false
            started = true
            bytes.append(octet)
        }
    }

    /// Trimmed, with each inner run of spaces and tabs folded to one space.
    static func foldSpaces(_ value: String) -> String {
        var bytes: [UInt8] = []
        appendFolded(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    /// Appends `text`'s UTF-8, borrowed in place (`append(contentsOf: text.utf8)` takes the
    /// string, a retain and a release per call).
    @inline(__always)
    mutating func appendUTF8(_ text: String) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { append(contentsOf: $0) }
        if done == nil { append(contentsOf: text.utf8) }
    }
}
