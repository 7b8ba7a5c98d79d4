/// Writes bytes into memory reserved up front; the hot paths (base string, `Authorization`
/// value) size their output once and then store without per-byte capacity checks.
struct ByteWriter {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        base = buffer.baseAddress!
        capacity = buffer.count
    }

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

    mutating func write(_ text: StaticString) {
        write(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func write(_ octets: some Sequence<UInt8>) {
        let done: Void? = octets.withContiguousStorageIfAvailable { write($0) }
        if done == nil { for octet in octets { write(octet) } }
    }

    /// Writes one octet percent-encoded per RFC 5849 §3.6.
    @inline(__always)
    mutating func writeEncoded(_ octet: UInt8) {
        if OAuth1.PercentEncoding.isUnreserved(octet) {
            write(octet)
        } else {
            precondition(count + 3 <= capacity, "ByteWriter overflow")
            let high = octet >> 4
            let low = octet & 0x0F
            base[count] = UInt8(ascii: "%")
            base[count + 1] = high < 10 ? high + 48 : high + 55
            base[count + 2] = low < 10 ? low + 48 : low + 55
            count += 3
        }
    }

    /// Writes `octets` percent-encoded per RFC 5849 §3.6 (at most 3 bytes each).
    @inline(__always)
    mutating func writeEncoded(_ octets: UnsafeBufferPointer<UInt8>) {
        precondition(count + octets.count * 3 <= capacity, "ByteWriter overflow")
        // Most values (keys, tokens, nonces, timestamps) need no escapes: copy them whole.
        if octets.allSatisfy(OAuth1.PercentEncoding.isUnreserved) {
            write(octets)
            return
        }
        var index = count
        for octet in octets {
            if OAuth1.PercentEncoding.isUnreserved(octet) {
                base[index] = octet
                index += 1
            } else {
                let high = octet >> 4
                let low = octet & 0x0F
                base[index] = UInt8(ascii: "%")
                base[index + 1] = high < 10 ? high + 48 : high + 55
                base[index + 2] = low < 10 ? low + 48 : low + 55
                index += 3
            }
        }
        count = index
    }

    mutating func writeEncoded(_ octets: some Sequence<UInt8>) {
        let done: Void? = octets.withContiguousStorageIfAvailable { writeEncoded($0) }
        if done == nil { for octet in octets { writeEncoded(octet) } }
    }

    mutating func writeEncoded(_ octets: [UInt8]) {
        octets.withUnsafeBufferPointer { writeEncoded($0) }
    }
}

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
