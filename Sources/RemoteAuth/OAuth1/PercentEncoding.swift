extension OAuth1 {
    /// The percent-encoding that OAuth 1.0 uses everywhere it writes a name or value:
    /// [RFC 5849 §3.6](https://www.rfc-editor.org/rfc/rfc5849#section-3.6).
    ///
    /// 1. Text is encoded as UTF-8 octets first.
    /// 2. The unreserved characters `ALPHA / DIGIT / "-" / "." / "_" / "~"` are not encoded.
    /// 3. Every other octet is written `%XY`, with `X` and `Y` uppercase hexadecimal digits.
    ///
    /// This is stricter than URL encoding: `+`, `*`, `/`, `:`, `!`, `'`, `(` and `)` are all encoded.
    public enum PercentEncoding {
        /// Encodes `text` per RFC 5849 §3.6.
        public static func encode(_ text: some StringProtocol) -> String {
            let text = String(text)
            return String(writingAtMost: text.utf8.count * 3) { $0.writeEncoded(text) }
        }

        /// Appends the RFC 5849 §3.6 encoding of `octets` to `output`, in one pass.
        public static func append(encoding octets: some Sequence<UInt8>, to output: inout [UInt8]) {
            output.appendPercentEncoded(octets)
        }

        /// `true` for the RFC 3986 §2.3 unreserved set, which §3.6 leaves as it is.
        @inlinable
        public static func isUnreserved(_ octet: UInt8) -> Bool {
            FormURLEncoding.isUnreserved(octet)
        }

        /// Decodes `%XY` escapes (either case of hex digit) and, when `plusIsSpace` is set (the
        /// `application/x-www-form-urlencoded` rule that RFC 5849 §3.4.1.3.1 applies to the query
        /// and the body), `+` as a space. Returns the raw octets.
        ///
        /// - Throws: ``OAuth1Error/Code-swift.struct/malformedEncoding`` for a `%` not followed by
        ///   two hexadecimal digits.
        public static func decode(_ encoded: some Collection<UInt8>, plusIsSpace: Bool) throws -> [UInt8] {
            do {
                return try FormURLEncoding.decodeOctets(encoded, plusIsSpace: plusIsSpace)
            } catch let error as FormURLEncodingError {
                throw OAuth1Error(.malformedEncoding, error.reason)
            }
        }

        /// Decodes to text; invalid UTF-8 is replaced by U+FFFD.
        public static func decode(_ encoded: some StringProtocol, plusIsSpace: Bool = false) throws -> String {
            String(decoding: try decode(Array(encoded.utf8), plusIsSpace: plusIsSpace), as: UTF8.self)
        }
    }
}
