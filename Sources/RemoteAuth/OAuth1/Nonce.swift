extension OAuth1 {
    /// `oauth_nonce` values: [RFC 5849 §3.3](https://www.rfc-editor.org/rfc/rfc5849#section-3.3).
    public enum Nonce {
        /// 128 bits from the system's cryptographic random source, as 32 lowercase hex digits.
        public static func random() -> String {
            random(from: .system)
        }

        /// 128 bits from `source`, as 32 lowercase hex digits; pass ``RandomSource/seeded(_:)`` in tests.
        public static func random(from source: RandomSource) -> String {
            source.hex(byteCount: 16)
        }

        /// 128 bits from `generator`, as 32 lowercase hex digits; pass a seeded generator in tests.
        public static func random(using generator: inout some RandomNumberGenerator) -> String {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(16)
            for _ in 0..<2 {
                var word = generator.next() as UInt64
                for _ in 0..<8 {
                    bytes.append(UInt8(truncatingIfNeeded: word))
                    word >>= 8
                }
            }
            return Hex.encode(bytes)
        }
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
