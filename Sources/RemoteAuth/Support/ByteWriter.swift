/// Writes bytes into memory reserved up front; the hot paths (base string, `Authorization`
/// value) size their output once and then store without per-byte capacity checks.
///
/// The percent-encoders here are the one implementation of
/// [RFC 5849 §3.6](https://www.rfc-editor.org/rfc/rfc5849#section-3.6) (the RFC 3986 §2.3
/// unreserved set kept, every other octet `%XY` in uppercase hex) that the signer, the verifier and
/// ``FormURLEncoding`` share: one table lookup per octet, stores straight into the buffer.
struct ByteWriter {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        base = buffer.baseAddress!
        capacity = buffer.count
    }

    /// The room left.
    var available: Int { capacity - count }

    @inline(__always)
    mutating func write(_ octet: UInt8) {
        precondition(count < capacity, "ByteWriter overflow")
        base[count] = octet
        count += 1
    }

    @inline(__always)
    mutating func write(_ octets: UnsafeBufferPointer<UInt8>) {
        precondition(count + octets.count <= capacity, "ByteWriter overflow")
        if let source = octets.baseAddress { (base + count).update(from: source, count: octets.count) }
        count += octets.count
    }

    @inline(__always)
    mutating func write(_ text: StaticString) {
        write(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Writes a string's UTF-8 (no copy of the string for native and small strings).
    @inline(__always)
    mutating func write(contentsOf text: String) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { write($0) }
        if done == nil { for octet in text.utf8 { write(octet) } }
    }

    mutating func write(_ octets: some Sequence<UInt8>) {
        let done: Void? = octets.withContiguousStorageIfAvailable { write($0) }
        if done == nil { for octet in octets { write(octet) } }
    }

    /// Writes one octet percent-encoded per RFC 5849 §3.6.
    @inline(__always)
    mutating func writeEncoded(_ octet: UInt8) {
        precondition(count + 3 <= capacity, "ByteWriter overflow")
        count = PercentOctets.encode(octet, to: base + count) - base
    }

    /// Writes `octets` percent-encoded per RFC 5849 §3.6 (at most 3 bytes each), in one pass.
    mutating func writeEncoded(_ octets: UnsafeBufferPointer<UInt8>) {
        precondition(count + octets.count * 3 <= capacity, "ByteWriter overflow")
        count = PercentOctets.encode(octets, to: base + count, twice: false) - base
    }

    /// Writes a string percent-encoded per RFC 5849 §3.6.
    @inline(__always)
    mutating func writeEncoded(_ text: String) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { writeEncoded($0) }
        if done == nil { for octet in text.utf8 { writeEncoded(octet) } }
    }

    mutating func writeEncoded(_ octets: some Sequence<UInt8>) {
        let done: Void? = octets.withContiguousStorageIfAvailable { writeEncoded($0) }
        if done == nil { for octet in octets { writeEncoded(octet) } }
    }

    mutating func writeEncoded(_ octets: [UInt8]) {
        octets.withUnsafeBufferPointer { writeEncoded($0) }
    }

    /// Writes `octets` encoded twice per RFC 5849 §3.6, in one pass: an unreserved octet as it is,
    /// any other as `%25XY` (its `%XY`, whose `%` the second encoding writes `%25`). This is how
    /// a parameter name or value appears in the signature base string, where the normalized
    /// parameter string, itself made of encoded names and values, is encoded again
    /// ([RFC 5849 §3.4.1.1](https://www.rfc-editor.org/rfc/rfc5849#section-3.4.1.1) step 5).
    /// At most 5 bytes per octet.
    mutating func writeDoublyEncoded(_ octets: UnsafeBufferPointer<UInt8>) {
        precondition(count + octets.count * 5 <= capacity, "ByteWriter overflow")
        count = PercentOctets.encode(octets, to: base + count, twice: true) - base
    }
}

/// The per-octet steps of the percent-encoders: a 256-entry table for the RFC 3986 §2.3
/// unreserved set (`ALPHA / DIGIT / "-" / "." / "_" / "~"`), which
/// [RFC 5849 §3.6](https://www.rfc-editor.org/rfc/rfc5849#section-3.6) writes as it is.
enum PercentOctets {
    /// Writes `octets` at `out`, encoded once (`%XY`) or twice (`%25XY`); returns the next
    /// position. The hot loop of every encoder: a table load and a store per unreserved octet.
    @inline(__always)
    static func encode(
        _ octets: UnsafeBufferPointer<UInt8>,
        to out: UnsafeMutablePointer<UInt8>,
        twice: Bool
    ) -> UnsafeMutablePointer<UInt8> {
        unreservedOctets.withUnsafeBufferPointer { table in
            var out = out
            for octet in octets {
                if table[Int(octet)] != 0 {
                    out.pointee = octet
                    out += 1
                } else if twice {
                    out[0] = UInt8(ascii: "%")
                    out[1] = UInt8(ascii: "2")
                    out[2] = UInt8(ascii: "5")
                    out[3] = upperHexDigit(octet >> 4)
                    out[4] = upperHexDigit(octet & 0x0F)
                    out += 5
                } else {
                    out[0] = UInt8(ascii: "%")
                    out[1] = upperHexDigit(octet >> 4)
                    out[2] = upperHexDigit(octet & 0x0F)
                    out += 3
                }
            }
            return out
        }
    }

    /// `table`, the unreserved set, for a loop of its own.
    @inline(__always)
    static func withTable<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try unreservedOctets.withUnsafeBufferPointer(body)
    }

    /// Writes `octet` encoded once (`%XY` unless unreserved) at `out`; returns the next position.
    @inline(__always)
    static func encode(_ octet: UInt8, to out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        if unreservedOctets[Int(octet)] != 0 {
            out.pointee = octet
            return out + 1
        }
        out[0] = UInt8(ascii: "%")
        out[1] = upperHexDigit(octet >> 4)
        out[2] = upperHexDigit(octet & 0x0F)
        return out + 3
    }

    /// Writes `octet` encoded twice (`%25XY` unless unreserved) at `out`; returns the next position.
    @inline(__always)
    static func encodeTwice(_ octet: UInt8, to out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        if unreservedOctets[Int(octet)] != 0 {
            out.pointee = octet
            return out + 1
        }
        out[0] = UInt8(ascii: "%")
        out[1] = UInt8(ascii: "2")
        out[2] = UInt8(ascii: "5")
        out[3] = upperHexDigit(octet >> 4)
        out[4] = upperHexDigit(octet & 0x0F)
        return out + 5
    }

    @inline(__always)
    static func isUnreserved(_ octet: UInt8) -> Bool { unreservedOctets[Int(octet)] != 0 }

    @inline(__always)
    static func upperHexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? nibble &+ UInt8(ascii: "0") : nibble &+ (UInt8(ascii: "A") - 10)
    }
}

/// 1 for the octets of the RFC 3986 §2.3 unreserved set, 0 for every other octet. A global of
/// literals, initialized statically (no lazy set-up on access).
private let unreservedOctets: [UInt8] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  // 0x00
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  // 0x10
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0,  // 0x20: - .
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0,  // 0x30: 0-9
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  // 0x40: A-O
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1,  // 0x50: P-Z _
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  // 0x60: a-o
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0,  // 0x70: p-z ~
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  // 0x80
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  // 0x90
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  // 0xA0
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  // 0xB0
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  // 0xC0
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  // 0xD0
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  // 0xE0
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  // 0xF0
]

extension Array where Element == UInt8 {
    /// An array of at most `capacity` bytes written by `body`.
    @inline(__always)
    init(writingAtMost capacity: Int, _ body: (inout ByteWriter) throws -> Void) rethrows {
        try self.init(unsafeUninitializedCapacity: Swift.max(capacity, 1)) { buffer, initialized in
            var writer = ByteWriter(buffer)
            try body(&writer)
            initialized = writer.count
        }
    }
}

extension String {
    /// A string of at most `capacity` UTF-8 bytes written by `body`, straight into its storage
    /// (validated as UTF-8 once written, as `String(unsafeUninitializedCapacity:)` does).
    @inline(__always)
    init(writingAtMost capacity: Int, _ body: (inout ByteWriter) throws -> Void) rethrows {
        try self.init(unsafeUninitializedCapacity: Swift.max(capacity, 1)) { buffer in
            var writer = ByteWriter(buffer)
            try body(&writer)
            return writer.count
        }
    }
}

extension Array where Element == UInt8 {
    /// Appends `octets` percent-encoded per RFC 5849 §3.6 (see ``ByteWriter/writeEncoded(_:)-(UnsafeBufferPointer<UInt8>)``).
    mutating func appendPercentEncoded(_ octets: UnsafeBufferPointer<UInt8>) {
        let start = count
        append(contentsOf: repeatElement(0, count: octets.count * 3))
        let written = withUnsafeMutableBufferPointer { buffer in
            var writer = ByteWriter(UnsafeMutableBufferPointer(rebasing: buffer[start...]))
            writer.writeEncoded(octets)
            return writer.count
        }
        removeLast(octets.count * 3 - written)
    }

    /// Appends `octets` percent-encoded per RFC 5849 §3.6, contiguous or not.
    mutating func appendPercentEncoded(_ octets: some Sequence<UInt8>) {
        let done: Void? = octets.withContiguousStorageIfAvailable { appendPercentEncoded($0) }
        if done == nil { Array(octets).withUnsafeBufferPointer { appendPercentEncoded($0) } }
    }
}
