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
            return String(decoding: pairs.baseString(method: method.rawValue, baseStringURI: baseStringURI), as: UTF8.self)
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
            let scheme = scheme.lowercased()
            guard !scheme.isEmpty else {
                throw OAuth1Error(.malformedRequest, "the request has no scheme")
            }
            var hostPort = Substring(authority)
            if let at = hostPort.lastIndex(of: "@") { hostPort = hostPort[hostPort.index(after: at)...] }
            var host = hostPort
            var port: Substring? = nil
            if hostPort.hasPrefix("[") {
                // IP-literal (RFC 3986 §3.2.2): "[v6]" or "[v6]:port".
                guard let close = hostPort.firstIndex(of: "]") else {
                    throw OAuth1Error(.malformedRequest, "unterminated IPv6 literal in the authority")
                }
                host = hostPort[...close]
                let rest = hostPort[hostPort.index(after: close)...]
                if rest.hasPrefix(":") { port = rest.dropFirst() } else if !rest.isEmpty {
                    throw OAuth1Error(.malformedRequest, "unexpected characters after the IPv6 literal")
                }
            } else if let colon = hostPort.lastIndex(of: ":") {
                host = hostPort[..<colon]
                port = hostPort[hostPort.index(after: colon)...]
            }
            guard !host.isEmpty else {
                throw OAuth1Error(.malformedRequest, "the request has no host")
            }
            var result = scheme + "://" + host.lowercased()
            if let port, !port.isEmpty {
                guard port.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let number = Int(port) else {
                    throw OAuth1Error(.malformedRequest, "the port '\(port)' is not a number")
                }
                let isDefault = (scheme == "http" && number == 80) || (scheme == "https" && number == 443)
                if !isDefault { result += ":" + String(number) }
            }
            var pathOnly = Substring(path)
            if let mark = pathOnly.firstIndex(where: { $0 == "?" || $0 == "#" }) { pathOnly = pathOnly[..<mark] }
            result += pathOnly.isEmpty ? "/" : String(pathOnly)
            return result
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
            pairs.appendNormalized(to: &output, encodeAgain: false)
            return String(decoding: output, as: UTF8.self)
        }

        /// Parses an `application/x-www-form-urlencoded` string (a query or a form body) into
        /// decoded name/value pairs, the way [RFC 5849 §3.4.1.3.1](https://www.rfc-editor.org/rfc/rfc5849#section-3.4.1.3.1)
        /// collects them: `&` separates pairs, the first `=` separates name from value, a pair
        /// without `=` has an empty value, `+` is a space, empty pairs (`a&&b`) are skipped.
        public static func formParameters(_ encoded: some StringProtocol) throws -> [Parameter] {
            var result: [Parameter] = []
            try forEachFormPair(Array(encoded.utf8)) { name, value in
                let name = try PercentEncoding.decode(name, plusIsSpace: true)
                let value = try PercentEncoding.decode(value, plusIsSpace: true)
                result.append(Parameter(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            }
            return result
        }

        /// Calls `body` with the raw (still encoded) name and value of each pair.
        static func forEachFormPair(
            _ bytes: [UInt8],
            _ body: (ArraySlice<UInt8>, ArraySlice<UInt8>) throws -> Void
        ) throws {
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
    }
}

/// Encoded name/value pairs, collected once and sorted per RFC 5849 §3.4.1.3.2; the one
/// place the base string is assembled, straight into bytes.
struct EncodedPairs {
    var names: [[UInt8]] = []
    var values: [[UInt8]] = []

    init() {
        names.reserveCapacity(12)
        values.reserveCapacity(12)
    }

    /// Appends a decoded pair, encoding it (§3.6).
    mutating func append(name: some Sequence<UInt8>, value: some Sequence<UInt8>) {
        var n: [UInt8] = []
        OAuth1.PercentEncoding.append(encoding: name, to: &n)
        var v: [UInt8] = []
        OAuth1.PercentEncoding.append(encoding: value, to: &v)
        names.append(n)
        values.append(v)
    }

    /// Appends every pair of a raw `application/x-www-form-urlencoded` string: each name and
    /// value is decoded, then encoded again (§3.4.1.3.1).
    mutating func appendForm(_ bytes: [UInt8]) throws {
        try OAuth1.SignatureBaseString.forEachFormPair(bytes) { name, value in
            append(
                name: try OAuth1.PercentEncoding.decode(name, plusIsSpace: true),
                value: try OAuth1.PercentEncoding.decode(value, plusIsSpace: true)
            )
        }
    }

    /// The order of §3.4.1.3.2: by encoded name, then encoded value, byte order.
    func sortedOrder() -> [Int] {
        var order = Array(names.indices)
        order.sort { a, b in
            if names[a] != names[b] { return names[a].lexicographicallyPrecedes(names[b]) }
            return values[a].lexicographicallyPrecedes(values[b])
        }
        return order
    }

    /// Writes `name=value&…` in sorted order; with `encodeAgain` each octet is encoded once
    /// more, as the base string (§3.4.1.1 step 5) needs, so no intermediate string is built.
    func appendNormalized(to output: inout [UInt8], encodeAgain: Bool) {
        var first = true
        for index in sortedOrder() {
            if encodeAgain {
                if !first { output.append(contentsOf: [UInt8(ascii: "%"), UInt8(ascii: "2"), UInt8(ascii: "6")]) }
                OAuth1.PercentEncoding.append(encoding: names[index], to: &output)
                output.append(contentsOf: [UInt8(ascii: "%"), UInt8(ascii: "3"), UInt8(ascii: "D")])
                OAuth1.PercentEncoding.append(encoding: values[index], to: &output)
            } else {
                if !first { output.append(UInt8(ascii: "&")) }
                output.append(contentsOf: names[index])
                output.append(UInt8(ascii: "="))
                output.append(contentsOf: values[index])
            }
            first = false
        }
    }

    /// The whole base string (§3.4.1.1):
    /// 1. the method in uppercase; 2. `&`; 3. the encoded base string URI; 4. `&`;
    /// 5. the encoded normalized parameters.
    func baseString(method: String, baseStringURI: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(baseStringURI.utf8.count * 2 + names.count * 48 + 64)
        for octet in method.utf8 {
            output.append(octet >= UInt8(ascii: "a") && octet <= UInt8(ascii: "z") ? octet - 32 : octet)
        }
        output.append(UInt8(ascii: "&"))
        OAuth1.PercentEncoding.append(encoding: baseStringURI.utf8, to: &output)
        output.append(UInt8(ascii: "&"))
        appendNormalized(to: &output, encodeAgain: true)
        return output
    }
}
