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
            var capacity = 0
            for parameter in parameters { capacity += parameter.name.utf8.count + parameter.value.utf8.count }
            var pairs = EncodedPairs(capacity: capacity, form: .twice)
            for parameter in parameters { pairs.append(name: parameter.name, value: parameter.value) }
            pairs.sort()
            var baseStringURI = baseStringURI
            return String(
                decoding: baseStringURI.withUTF8 { pairs.baseString(method: method.rawValue, baseStringURI: $0) },
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

        /// ``baseStringURI(scheme:authority:path:)`` as bytes, worked out over UTF-8 alone, in
        /// one buffer sized up front.
        static func baseStringURIBytes(scheme: String, authority: String, path: String) throws -> [UInt8] {
            try withBaseStringURI(scheme: scheme, authority: authority, path: path) { Array($0) }
        }

        /// Calls `body` with the base string URI's bytes, written into a temporary buffer (no
        /// array per request). Inlined, so the closure's captures are not copied into a context.
        @inline(__always)
        static func withBaseStringURI<Result>(
            scheme: String,
            authority: String,
            path: String,
            _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
        ) throws -> Result {
            @inline(__always) func lower(_ octet: UInt8) -> UInt8 {
                octet >= UInt8(ascii: "A") && octet <= UInt8(ascii: "Z") ? octet + 32 : octet
            }
            var scheme = scheme
            var authority = authority
            var path = path
            return try scheme.withUTF8 { scheme in
                try authority.withUTF8 { bytes in
                    try path.withUTF8 { path in
                        let capacity = scheme.count + bytes.count + path.count + 4
                        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
                            var out = ByteWriter(buffer)
                            guard !scheme.isEmpty else {
                                throw OAuth1Error(.malformedRequest, "the request has no scheme")
                            }
                            for octet in scheme { out.write(lower(octet)) }
                            let lowered = out.base
                            let isHTTP =
                                out.count == 4 && lowered[0] == UInt8(ascii: "h") && lowered[1] == UInt8(ascii: "t")
                                && lowered[2] == UInt8(ascii: "t") && lowered[3] == UInt8(ascii: "p")
                            let isHTTPS =
                                out.count == 5 && lowered[0] == UInt8(ascii: "h") && lowered[1] == UInt8(ascii: "t")
                                && lowered[2] == UInt8(ascii: "t") && lowered[3] == UInt8(ascii: "p")
                                && lowered[4] == UInt8(ascii: "s")
                            out.write("://")
                            try writeAuthority(bytes, isHTTP: isHTTP, isHTTPS: isHTTPS, to: &out)
                            let pathStart = out.count
                            for octet in path {
                                if octet == UInt8(ascii: "?") || octet == UInt8(ascii: "#") { break }
                                out.write(octet)
                            }
                            if out.count == pathStart { out.write(UInt8(ascii: "/")) }
                            return try body(UnsafeBufferPointer(start: out.base, count: out.count))
                        }
                    }
                }
            }
        }

        /// The host in lowercase and the port unless it is the scheme's default; user
        /// information dropped.
        private static func writeAuthority(
            _ bytes: UnsafeBufferPointer<UInt8>,
            isHTTP: Bool,
            isHTTPS: Bool,
            to out: inout ByteWriter
        ) throws {
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
            for index in hostStart..<hostEnd {
                let octet = bytes[index]
                out.write(octet >= UInt8(ascii: "A") && octet <= UInt8(ascii: "Z") ? octet + 32 : octet)
            }
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
                    // The number in decimal, without leading zeros.
                    out.write(UInt8(ascii: ":"))
                    var divisor = 1
                    while divisor * 10 <= number { divisor *= 10 }
                    while divisor > 0 {
                        out.write(UInt8(ascii: "0") + UInt8((number / divisor) % 10))
                        divisor /= 10
                    }
                }
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
            var capacity = 0
            for parameter in parameters { capacity += parameter.name.utf8.count + parameter.value.utf8.count }
            var pairs = EncodedPairs(capacity: capacity, form: .once)
            for parameter in parameters { pairs.append(name: parameter.name, value: parameter.value) }
            pairs.sort()
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
/// §3.4.1.3.2 by index, without moving the bytes; the one place the base string is assembled,
/// straight into bytes.
struct EncodedPairs {
    /// How names and values are kept.
    enum Form {
        /// Encoded once (§3.6), as in the normalized parameter string (§3.4.1.3.2).
        case once
        /// Encoded twice, as in the signature base string, where the normalized parameter
        /// string is encoded again (§3.4.1.1 step 5): an octet outside the unreserved set is
        /// `%25XY`. The second encoding keeps the sort order of the first (`%` sorts below every
        /// unreserved octet either way), so pairs are sorted in this form as they are, and the
        /// base string is copied from it.
        case twice
    }

    /// Where one pair lies in `storage`: its name in `nameStart..<nameEnd`, its value in
    /// `nameEnd..<valueEnd`.
    struct Pair {
        var nameStart: Int
        var nameEnd: Int
        var valueEnd: Int
    }

    let form: Form
    /// Every encoded name and value, back to back, in `storage[0..<used]`.
    private(set) var storage: [UInt8]
    private(set) var used = 0
    private(set) var pairs: [Pair] = []
    /// Pairs stored from this offset on are protocol parameters appended in name order with distinct
    /// names (``markProtocolParameters()``): the sort need not compare them with each other.
    private var protocolStart = Int.max

    /// - Parameter capacity: the decoded bytes that will be added, at most; the buffer grows if
    ///   more come.
    init(capacity: Int = 256, form: Form) {
        self.form = form
        storage = [UInt8](repeating: 0, count: capacity * (form == .once ? 3 : 5))
        pairs.reserveCapacity(12)
    }

    var count: Int { pairs.count }

    func name(at index: Int) -> ArraySlice<UInt8> { storage[pairs[index].nameStart..<pairs[index].nameEnd] }

    @inline(__always)
    private mutating func ensureRoom(_ decoded: Int) {
        let extra = decoded * (form == .once ? 3 : 5)
        if used + extra > storage.count {
            storage.append(contentsOf: repeatElement(0, count: Swift.max(extra, storage.count)))
        }
    }

    /// Appends decoded octets, encoded once or twice (§3.6).
    private mutating func appendEncoded(_ octets: UnsafeBufferPointer<UInt8>) {
        ensureRoom(octets.count)
        let start = used
        let form = form
        used += storage.withUnsafeMutableBufferPointer { buffer in
            var writer = ByteWriter(UnsafeMutableBufferPointer(rebasing: buffer[start...]))
            if form == .once { writer.writeEncoded(octets) } else { writer.writeDoublyEncoded(octets) }
            return writer.count
        }
    }

    private mutating func appendEncoded(_ text: String) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { appendEncoded($0) }
        if done == nil { Array(text.utf8).withUnsafeBufferPointer { appendEncoded($0) } }
    }

    /// Appends a decoded pair, encoding it (§3.6).
    mutating func append(name: String, value: String) {
        let nameStart = used
        appendEncoded(name)
        let nameEnd = used
        appendEncoded(value)
        pairs.append(Pair(nameStart: nameStart, nameEnd: nameEnd, valueEnd: used))
    }

    /// Marks the pairs appended from now on as protocol parameters in name order, names distinct.
    mutating func markProtocolParameters() {
        protocolStart = used
    }

    /// Appends a pair whose name is known to be all unreserved (`oauth_…`), copied as it is; so
    /// is the value when `verbatim` says it is unreserved too.
    mutating func append(name: StaticString, value: String, verbatim: Bool) {
        let nameStart = used
        appendVerbatim(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        let nameEnd = used
        if verbatim {
            let done: Void? = value.utf8.withContiguousStorageIfAvailable { appendVerbatim($0) }
            if done == nil { appendEncoded(value) }
        } else {
            appendEncoded(value)
        }
        pairs.append(Pair(nameStart: nameStart, nameEnd: nameEnd, valueEnd: used))
    }

    /// Appends octets known to be unreserved, which both encodings leave as they are.
    private mutating func appendVerbatim(_ octets: UnsafeBufferPointer<UInt8>) {
        ensureRoom(octets.count)
        let start = used
        storage.withUnsafeMutableBufferPointer { buffer in
            if let source = octets.baseAddress {
                (buffer.baseAddress! + start).update(from: source, count: octets.count)
            }
        }
        used += octets.count
    }

    /// Appends every pair of a raw `application/x-www-form-urlencoded` string (§3.4.1.3.1):
    /// each name and value is decoded (`%XY`, `+` as space) and encoded again (§3.6) in one pass.
    mutating func appendForm(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        try FormURLEncoding.forEachPair(bytes) { name, value in
            let nameStart = used
            try appendFormComponent(name)
            let nameEnd = used
            try appendFormComponent(value)
            pairs.append(Pair(nameStart: nameStart, nameEnd: nameEnd, valueEnd: used))
        }
    }

    mutating func appendForm(_ bytes: ArraySlice<UInt8>) throws {
        try bytes.withUnsafeBufferPointer { try appendForm($0) }
    }

    private mutating func appendFormComponent(_ raw: UnsafeBufferPointer<UInt8>) throws {
        ensureRoom(raw.count)
        let start = used
        let twice = form == .twice
        used += try storage.withUnsafeMutableBufferPointer { buffer in
            try PercentOctets.withTable { table in
                let base = buffer.baseAddress! + start
                var out = base
                var index = 0
                let count = raw.count
                while index < count {
                    var octet = raw[index]
                    index += 1
                    if table[Int(octet)] != 0 {
                        // Unreserved: the same after decoding and after encoding.
                        out.pointee = octet
                        out += 1
                        continue
                    }
                    if octet == UInt8(ascii: "%") {
                        guard index + 1 < count,
                            let high = Hex.value(raw[index]),
                            let low = Hex.value(raw[index + 1])
                        else {
                            throw OAuth1Error(.malformedEncoding, "a '%' is not followed by two hexadecimal digits")
                        }
                        octet = high << 4 | low
                        index += 2
                    } else if octet == UInt8(ascii: "+") {
                        octet = UInt8(ascii: " ")
                    }
                    out = twice ? PercentOctets.encodeTwice(octet, to: out) : PercentOctets.encode(octet, to: out)
                }
                return out - base
            }
        }
    }

    /// Sorts the pairs by encoded name, then encoded value, in ascending byte order (§3.4.1.3.2);
    /// an insertion sort of the ranges, which are few and mostly in order already.
    mutating func sort() {
        storage.withUnsafeBufferPointer { storage in
            let base = storage.baseAddress!
            /// Byte order, a shorter prefix first.
            @inline(__always)
            func less(_ a: Int, _ aEnd: Int, _ b: Int, _ bEnd: Int) -> Int {
                let aCount = aEnd - a
                let bCount = bEnd - b
                let n = Swift.min(aCount, bCount)
                var i = 0
                while i < n {
                    let x = base[a + i]
                    let y = base[b + i]
                    if x != y { return x < y ? -1 : 1 }
                    i += 1
                }
                return aCount == bCount ? 0 : (aCount < bCount ? -1 : 1)
            }
            let protocolStart = protocolStart
            @inline(__always)
            func inOrder(_ p: Pair, _ q: Pair) -> Bool {
                // Two protocol parameters are in order already (`p` was appended first).
                if p.nameStart >= protocolStart && q.nameStart >= protocolStart { return true }
                let byName = less(p.nameStart, p.nameEnd, q.nameStart, q.nameEnd)
                if byName != 0 { return byName < 0 }
                return less(p.nameEnd, p.valueEnd, q.nameEnd, q.valueEnd) <= 0
            }
            pairs.withUnsafeMutableBufferPointer { pairs in
                var i = 1
                while i < pairs.count {
                    let pair = pairs[i]
                    var j = i
                    while j > 0, !inOrder(pairs[j - 1], pair) {
                        pairs[j] = pairs[j - 1]
                        j -= 1
                    }
                    pairs[j] = pair
                    i += 1
                }
            }
        }
    }

    /// Writes `name=value&…` in the current order (§3.4.1.3.2); the pairs are encoded once.
    func appendNormalized(to output: inout [UInt8]) {
        precondition(form == .once)
        var first = true
        for pair in pairs {
            if !first { output.append(UInt8(ascii: "&")) }
            output.append(contentsOf: storage[pair.nameStart..<pair.nameEnd])
            output.append(UInt8(ascii: "="))
            output.append(contentsOf: storage[pair.nameEnd..<pair.valueEnd])
            first = false
        }
    }

    /// The whole base string (§3.4.1.1), the pairs sorted and encoded twice:
    /// 1. the method in uppercase; 2. `&`; 3. the encoded base string URI; 4. `&`;
    /// 5. the encoded normalized parameters: the pairs as they are, `=` as `%3D`, `&` as `%26`.
    func baseString(method: String, baseStringURI: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        withBaseString(method: method, baseStringURI: baseStringURI) { Array($0) }
    }

    /// Calls `body` with the base string, written into a temporary buffer (no array).
    @inline(__always)
    func withBaseString<Result>(
        method: String,
        baseStringURI: UnsafeBufferPointer<UInt8>,
        _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result {
        precondition(form == .twice)
        let capacity = method.utf8.count + 2 + baseStringURI.count * 3 + used + pairs.count * 6
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var out = ByteWriter(buffer)
            writeBaseString(method: method, baseStringURI: baseStringURI, to: &out)
            return try body(UnsafeBufferPointer(start: out.base, count: out.count))
        }
    }

    private func writeBaseString(method: String, baseStringURI: UnsafeBufferPointer<UInt8>, to out: inout ByteWriter) {
        storage.withUnsafeBufferPointer { storage in
            for octet in method.utf8 {
                out.write(octet >= UInt8(ascii: "a") && octet <= UInt8(ascii: "z") ? octet - 32 : octet)
            }
            out.write(UInt8(ascii: "&"))
            out.writeEncoded(baseStringURI)
            out.write(UInt8(ascii: "&"))
            var first = true
            for pair in pairs {
                if !first { out.write("%26") }
                first = false
                out.write(UnsafeBufferPointer(rebasing: storage[pair.nameStart..<pair.nameEnd]))
                out.write("%3D")
                out.write(UnsafeBufferPointer(rebasing: storage[pair.nameEnd..<pair.valueEnd]))
            }
        }
    }

    func baseString(method: String, baseStringURI: [UInt8]) -> [UInt8] {
        baseStringURI.withUnsafeBufferPointer { baseString(method: method, baseStringURI: $0) }
    }
}
