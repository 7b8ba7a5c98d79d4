/// Hexadecimal text for bytes: the one encoder for Digest hashes and `nc`
/// ([RFC 7616 §3.4](https://www.rfc-editor.org/rfc/rfc7616#section-3.4)), random nonces, cnonces
/// and states, and the one parser of hex digits (percent-decoding,
/// [RFC 3986 §2.1](https://www.rfc-editor.org/rfc/rfc3986#section-2.1)).
package enum Hex {
    /// Lowercase hex, two digits per byte: `[0xAB, 0x01]` → `"ab01"`.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            var index = 0
            for byte in bytes {
                buffer[index] = digit(byte >> 4, uppercase: false)
                buffer[index + 1] = digit(byte & 0x0F, uppercase: false)
                index += 2
            }
            return index
        }
    }

    /// The ASCII digit for a nibble (`0…15`): `0-9`, then `a-f` or `A-F`.
    @inline(__always)
    package static func digit(_ nibble: UInt8, uppercase: Bool) -> UInt8 {
        nibble < 10 ? nibble + UInt8(ascii: "0") : nibble - 10 + (uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a"))
    }

    /// The value of one hex digit, either case; `nil` for any other byte.
    @inline(__always)
    package static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    /// `HEXDIG`, either case.
    package static func isHexDigit(_ byte: UInt8) -> Bool { value(byte) != nil }

    /// Decodes an even number of hex digits (either case); `nil` for anything else.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            output.append(high << 4 | low)
            index += 2
        }
        return output
    }
}
