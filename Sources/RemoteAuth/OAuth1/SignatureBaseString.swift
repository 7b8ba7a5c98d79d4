public import HTTPTypes

extension OAuth1 {
    /// The signature base string that `oauth_signature` is computed over; client and server must
    /// build it byte for byte the same.
    /// [RFC 5849 §3.4.1](https://www.rfc-editor.org/rfc/rfc5849#section-3.4.1)
    public enum SignatureBaseString {
        /// The base string from its three parts.
        /// [RFC 5849 §3.4.1.1](https://www.rfc-editor.org/rfc/rfc5849#section-3.4.1.1)
        ///
        /// - Parameters:
        ///   - method: the HTTP request method; written in uppercase.
        ///   - baseStringURI: from ``baseStringURI(scheme:authority:path:)``.
        ///   - parameters: every parameter to sign, decoded: query, form body and `oauth_*`
        ///     (without `oauth_signature` and `realm`).
        public static func make(method: HTTPRequest.Method, baseStringURI: String, parameters: [Parameter]) -> String {
            var pairs = EncodedPairs()
            for parameter in parameters { pairs.append(name: parameter.name.utf8, value: parameter.value.utf8) }
            return String(
                decoding: pairs.baseString(method: method.rawValue, baseStringURI: Array(baseStringURI.utf8)),
                as: UTF8.self
            )
        }

        /// The base string URI: [RFC 5849 §3.4.1.2](https://www.rfc-editor.org/rfc/rfc5849#section-3.4.1.2).
        ///
        /// 1. The scheme and host are written in lowercase.
        /// 2. The port is dropped when it is the scheme's default (80 for `http`, 443 for `https`),
        ///    and kept otherwise.
        /// 3. The path is kept exactly as sent (no case change, no decoding); an empty path is `/`.
        /// 4. The query and fragment are dropped; user information in the authority is dropped.
        ///
        /// - Throws: ``OAuth1Error/Code-swift.struct/malformedRequest`` for an empty scheme or host,
        ///   or a port that is not a number.
        public static func baseStringURI(scheme: String, authority: String, path: String) throws -> String {
            String(decoding: try baseStringURIBytes(scheme: scheme, authority: authority, path: path), as: UTF8.self)
        }

        /// ``baseStringURI(scheme:authority:path:)`` as bytes, worked out over UTF-8 alone.
        static func baseStringURIBytes(scheme: String, authority: String, path: String) throws -> [UInt8] {
            @inline(__always) func lower(_ octet: UInt8) -> UInt8 {
                octet >= UInt8(ascii: "A") && octet <= UInt8(ascii: "Z") ? octet + 32 : octet
            }
            var result: [UInt8] = []
            result.reserveCapacity(scheme.utf8.count + authority.utf8.count + path.utf8.count + 3)
            for octet in scheme.utf8 { result.append(lower(octet)) }
            guard !result.isEmpty else {
                throw OAuth1Error(.malformedRequest, "the request has no scheme")
            }
            let isHTTP = result.elementsEqual("http".utf8)
            let isHTTPS = !isHTTP && result.elementsEqual("https".utf8)
            result.append(contentsOf: "://".utf8)

            var authority = authority
            return try authority.withUTF8 { bytes in
                var hostStart = 0
                if let at = bytes.lastIndex(of: UInt8(ascii: "@")) { hostStart = at + 1 }
                var hostEnd = bytes.count
                var portStart: Int? = nil
                if hostStart < bytes.count, bytes[hostStart] == UInt8(ascii: "[") {
                    // IP-literal (RFC 3986 §3.2.2): "[v6]" or "[v6]:port".
                    guard let close = bytes[hostStart...].firstIndex(of: UInt8(ascii: "]")) else {
                        throw OAuth1Error(.malformedRequest, "unterminated IPv6 literal in the authority")
                    }
                    hostEnd = close + 1
                    if hostEnd < bytes.count {
                        guard bytes[hostEnd] == UInt8(ascii: ":") else {
                            throw OAuth1Error(.malformedRequest, "unexpected characters after the IPv6 literal")
                        }
                        portStart = hostEnd + 1
                    }
                } else if let colon = bytes[hostStart...].lastIndex(of: UInt8(ascii: ":")) {
                    hostEnd = colon
                    portStart = colon + 1
                }
                guard hostEnd > hostStart else {
                    throw OAuth1Error(.malformedRequest, "the request has no host")
                }
                for octet in bytes[hostStart..<hostEnd] { result.append(lower(octet)) }
                if let portStart, portStart < bytes.count {
                    let digits = UnsafeBufferPointer(rebasing: bytes[portStart...])
                    guard digits.count <= 5, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
                    else {
                        throw OAuth1Error(
                            .malformedRequest,
                            "the port '\(String(decoding: digits, as: UTF8.self))' is not a number"
                        )
                    }
                    let number = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
                    let isDefault = (isHTTP && number == 80) || (isHTTPS && number == 443)
                    if !isDefault {
                        result.append(UInt8(ascii: ":"))
                        result.append(contentsOf: String(number).utf8)
                    }
                }
                let pathStart = result.count
                for octet in path.utf8 {
                    if octet == UInt8(ascii: "?") || octet == UInt8(ascii: "#") { break }
                    result.append(octet)
                }
                if result.count == pathStart { result.append(UInt8(ascii: "/")) }
                return result
            }
        }

        /// The base string URI of a request (its `:scheme`, `:authority` and `:path`).
        public static func baseStringURI(of request: HTTPRequest) throws -> String {
            guard let scheme = request.scheme, let authority = request.authority else {
                throw OAuth1Error(.malformedRequest, "the request has no scheme or authority")
            }
            return try baseStringURI(scheme: scheme, authority: authority, path: request.path ?? "/")
        }

        /// The normalized parameter string: [RFC 5849 §3.4.1.3.2](https://www.rfc-editor.org/rfc/rfc5849#section-3.4.1.3.2).
        ///
        /// 1. Each name and value is encoded (§3.6).
        /// 2. The pairs are sorted by encoded name, then by encoded value, in ascending byte order;
        ///    duplicate names are all kept.
        /// 3. Each pair is written `name=value` (an empty value still gets its `=`).
        /// 4. The pairs are joined with `&`.
        public static func normalizedParameters(_ parameters: [Parameter]) -> String {
            var pairs = EncodedPairs()
            for parameter in parameters { pairs.append(name: parameter.name.utf8, value: parameter.value.utf8) }
            var output: [UInt8] = []
            pairs.appendNormalized(to: &output)
            return String(decoding: output, as: UTF8.self)
        }
    }
}

extension OAuth1 {
    /// ``FormURLEncoding/decode(bytes:)`` as ``Parameter`` values, its errors as
    /// ``OAuth1Error/Code-swift.struct/malformedEncoding``.
    static func formParameters(bytes: some Collection<UInt8>) throws -> [Parameter] {
        do {
            return try FormURLEncoding.decode(bytes: bytes).map { Parameter($0.name, $0.value) }
        } catch let error as FormURLEncodingError {
            throw OAuth1Error(.malformedEncoding, error.reason)
        }
    }

    /// ``FormURLEncoding/decode(_:)`` as ``Parameter`` values, its errors as
    /// ``OAuth1Error/Code-swift.struct/malformedEncoding``.
    static func formParameters(_ encoded: some StringProtocol) throws -> [Parameter] {
        try formParameters(bytes: Array(encoded.utf8))
    }

    /// `name=value&…`, each percent-encoded (§3.6, the same octets as ``FormURLEncoding``).
    static func formEncoded(_ parameters: [Parameter]) -> String {
        FormURLEncoding.encode(parameters.map { ($0.name, $0.value) })
    }
}

/// Encoded name/value pairs, collected once into one buffer and sorted per RFC 5849
/// §3.4.1.3.2; the one place the base string is assembled, straight into bytes.
struct EncodedPairs {
    /// Every encoded name and value, back to back, in `storage[0..<used]`.
    private(set) var storage: [UInt8]
    private(set) var used = 0
    /// For each pair: where its name and value lie in `storage`.
    private(set) var pairs: [(name: Range<Int>, value: Range<Int>)] = []

    /// - Parameter capacity: the decoded bytes that will be added, at most (each encodes to at
    ///   most 3); the buffer grows if more come.
    init(capacity: Int = 256) {
        storage = [UInt8](repeating: 0, count: capacity * 3)
        pairs.reserveCapacity(12)
    }

    var count: Int { pairs.count }

    func name(at index: Int) -> ArraySlice<UInt8> { storage[pairs[index].name] }

    private mutating func ensureRoom(_ extra: Int) {
        if used + extra > storage.count {
            storage.append(contentsOf: repeatElement(0, count: Swift.max(extra, storage.count)))
        }
    }

    /// Appends a decoded pair, encoding it (§3.6).
    mutating func append(name: some Collection<UInt8>, value: some Collection<UInt8>) {
        let nameStart = used
        appendEncoded(name)
        let valueStart = used
        appendEncoded(value)
        pairs.append((nameStart..<valueStart, valueStart..<used))
    }

    private mutating func appendEncoded(_ octets: some Collection<UInt8>) {
        ensureRoom(octets.count * 3)
        let start = used
        let written: Int = storage.withUnsafeMutableBufferPointer { buffer in
            var writer = ByteWriter(UnsafeMutableBufferPointer(rebasing: buffer[start...]))
            writer.writeEncoded(octets)
            return writer.count
        }
        used += written
    }

    /// Appends every pair of a raw `application/x-www-form-urlencoded` string (§3.4.1.3.1):
    /// each name and value is decoded (`%XY`, `+` as space) and encoded again (§3.6) in one pass.
    mutating func appendForm(_ bytes: ArraySlice<UInt8>) throws {
        try FormURLEncoding.forEachPair(bytes) { name, value in
            let nameStart = used
            try appendFormComponent(name)
            let valueStart = used
            try appendFormComponent(value)
            pairs.append((nameStart..<valueStart, valueStart..<used))
        }
    }

    private mutating func appendFormComponent(_ raw: ArraySlice<UInt8>) throws {
        ensureRoom(raw.count * 3)
        let start = used
        let written: Int = try storage.withUnsafeMutableBufferPointer { buffer in
            var writer = ByteWriter(UnsafeMutableBufferPointer(rebasing: buffer[start...]))
            var index = raw.startIndex
            while index < raw.endIndex {
                var octet = raw[index]
                if octet == UInt8(ascii: "%") {
                    guard index + 2 < raw.endIndex,
                        let high = Hex.value(raw[index + 1]),
                        let low = Hex.value(raw[index + 2])
                    else {
                        throw OAuth1Error(.malformedEncoding, "a '%' is not followed by two hexadecimal digits")
                    }
                    octet = high << 4 | low
                    index += 3
                } else {
                    if octet == UInt8(ascii: "+") { octet = UInt8(ascii: " ") }
                    index += 1
                }
                writer.writeEncoded(octet)
            }
            return writer.count
        }
        used += written
    }

    /// The order of §3.4.1.3.2: by encoded name, then encoded value, byte order.
    func sortedOrder() -> [Int] {
        var order = Array(pairs.indices)
        storage.withUnsafeBufferPointer { buffer in
            func less(_ a: Range<Int>, _ b: Range<Int>) -> Int {
                let n = min(a.count, b.count)
                var i = 0
                while i < n {
                    let x = buffer[a.lowerBound + i]
                    let y = buffer[b.lowerBound + i]
                    if x != y { return x < y ? -1 : 1 }
                    i += 1
                }
                return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
            }
            order.sort { a, b in
                let byName = less(pairs[a].name, pairs[b].name)
                if byName != 0 { return byName < 0 }
                return less(pairs[a].value, pairs[b].value) < 0
            }
        }
        return order
    }

    /// Writes `name=value&…` in sorted order (§3.4.1.3.2).
    func appendNormalized(to output: inout [UInt8]) {
        var first = true
        for index in sortedOrder() {
            let (name, value) = pairs[index]
            if !first { output.append(UInt8(ascii: "&")) }
            output.append(contentsOf: storage[name])
            output.append(UInt8(ascii: "="))
            output.append(contentsOf: storage[value])
            first = false
        }
    }

    /// The whole base string (§3.4.1.1):
    /// 1. the method in uppercase; 2. `&`; 3. the encoded base string URI; 4. `&`;
    /// 5. the encoded normalized parameters.
    func baseString(method: String, baseStringURI: [UInt8]) -> [UInt8] {
        let order = sortedOrder()
        let capacity = method.utf8.count + 2 + baseStringURI.count * 3 + storage.count * 3 + pairs.count * 6
        return storage.withUnsafeBufferPointer { storage in
            [UInt8](writingAtMost: capacity) { out in
                for octet in method.utf8 {
                    out.write(octet >= UInt8(ascii: "a") && octet <= UInt8(ascii: "z") ? octet - 32 : octet)
                }
                out.write(UInt8(ascii: "&"))
                out.writeEncoded(baseStringURI)
                out.write(UInt8(ascii: "&"))
                var first = true
                for index in order {
                    let (name, value) = pairs[index]
                    if !first { out.write("%26") }
                    first = false
                    out.writeEncoded(UnsafeBufferPointer(rebasing: storage[name]))
                    out.write("%3D")
                    out.writeEncoded(UnsafeBufferPointer(rebasing: storage[value]))
                }
            }
        }
    }
}
