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
        bytes.append(contentsOf: request.method.rawValue.utf8)
        bytes.append(0x0A)
        let target = request.target
        appendCanonicalPath(target.path, to: &bytes)
        bytes.append(0x0A)
        if target.query != nil || !extraQuery.isEmpty {
            bytes.append(contentsOf: Self.canonicalQuery(String(target.query ?? ""), extra: extraQuery).utf8)
        }
        bytes.append(0x0A)
        let signedRange = try Self.appendCanonicalHeaders(request, to: &bytes)
        bytes.append(0x0A)
        bytes.append(contentsOf: payloadHash.utf8)
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
    static func appendCanonicalHeaders(_ request: HTTPRequest, to bytes: inout [UInt8]) throws -> Range<Int> {
        guard let authority = request.authority, !authority.isEmpty else {
            throw AWS.SigV4Error("the request has no authority: SigV4 signs the host")
        }
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(request.headerFields.count + 1)
        fields.append(("host", authority))
        for field in request.headerFields {
            let name = field.name.canonicalName
            guard !(name.utf8.count == 4 && name == "host"), !isUnsigned(name) else { continue }
            // Sorted as they come, stable: repeated fields keep their order.
            fields.append((name, field.value))
            var index = fields.count - 1
            while index > 0, name.utf8.lexicographicallyPrecedes(fields[index - 1].name.utf8) {
                fields.swapAt(index, index - 1)
                index -= 1
            }
        }
        for index in fields.indices {
            if index > 0, fields[index - 1].name == fields[index].name {
                bytes.append(UInt8(ascii: ","))
            } else {
                if index > 0 { bytes.append(0x0A) }
                bytes.append(contentsOf: fields[index].name.utf8)
                bytes.append(UInt8(ascii: ":"))
            }
            appendFolded(fields[index].value, to: &bytes)
        }
        bytes.append(0x0A)
        bytes.append(0x0A)
        let start = bytes.count
        for index in fields.indices where index == 0 || fields[index - 1].name != fields[index].name {
            if index > 0 { bytes.append(UInt8(ascii: ";")) }
            bytes.append(contentsOf: fields[index].name.utf8)
        }
        return start..<bytes.count
    }

    /// Appends `value` trimmed, with each inner run of spaces and tabs folded to one space.
    static func appendFolded(_ value: String, to bytes: inout [UInt8]) {
        var value = value
        value.withUTF8 { octets in
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
    }

    /// Trimmed, with each inner run of spaces and tabs folded to one space.
    static func foldSpaces(_ value: String) -> String {
        var bytes: [UInt8] = []
        appendFolded(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the lowercase hex of `digest`.
    static func appendHex(_ digest: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: digest.count * 2))
        bytes.withUnsafeMutableBufferPointer { buffer in
            var index = start
            for byte in digest {
                buffer[index] = Hex.digit(byte >> 4, uppercase: false)
                buffer[index + 1] = Hex.digit(byte & 0x0F, uppercase: false)
                index += 2
            }
        }
    }
}
