/// Base64 with the standard alphabet and `=` padding, without Foundation.
/// [RFC 4648 §4](https://www.rfc-editor.org/rfc/rfc4648#section-4)
///
/// Shared inside the package (Basic credentials, OAuth 1.0a signatures), hence `package`.
package enum RemoteAuthBase64 {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8
    )

    /// Maps an ASCII byte to its 6-bit value, or `0xFF` when it is not in the alphabet.
    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Encodes `bytes`, padding the last group with `=`.
    /// [RFC 4648 §4](https://www.rfc-editor.org/rfc/rfc4648#section-4)
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = iterator.next()
            output.append(alphabet[Int(b0 >> 2)])
            output.append(alphabet[Int((b0 & 0x03) << 4 | (b1 ?? 0) >> 4)])
            if let b1 {
                output.append(alphabet[Int((b1 & 0x0F) << 2 | (b2 ?? 0) >> 6)])
            } else {
                output.append(UInt8(ascii: "="))
            }
            if let b2 {
                output.append(alphabet[Int(b2 & 0x3F)])
            } else {
                output.append(UInt8(ascii: "="))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes strictly: the length is a multiple of 4, every character is in the alphabet,
    /// `=` appears only as one or two final padding characters, and the unused bits before the
    /// padding are zero (the canonical encoding,
    /// [RFC 4648 §3.5](https://www.rfc-editor.org/rfc/rfc4648#section-3.5)). No whitespace or
    /// line breaks ([RFC 4648 §3.3](https://www.rfc-editor.org/rfc/rfc4648#section-3.3)).
    /// Returns `nil` for anything else.
    package static func decode(_ string: String) -> [UInt8]? {
        let input = Array(string.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            let c0 = reverse[Int(input[index])]
            let c1 = reverse[Int(input[index + 1])]
            guard c0 != 0xFF, c1 != 0xFF else { return nil }
            let pad2 = input[index + 2] == UInt8(ascii: "=")
            let pad3 = input[index + 3] == UInt8(ascii: "=")
            if pad2 || pad3 {
                // Padding only in the final group, and "x=" + "y" is never valid.
                guard isLast, pad3 else { return nil }
                if pad2 {
                    guard c1 & 0x0F == 0 else { return nil }
                    output.append(c0 << 2 | c1 >> 4)
                } else {
                    let c2 = reverse[Int(input[index + 2])]
                    guard c2 != 0xFF, c2 & 0x03 == 0 else { return nil }
                    output.append(c0 << 2 | c1 >> 4)
                    output.append((c1 & 0x0F) << 4 | c2 >> 2)
                }
            } else {
                let c2 = reverse[Int(input[index + 2])]
                let c3 = reverse[Int(input[index + 3])]
                guard c2 != 0xFF, c3 != 0xFF else { return nil }
                output.append(c0 << 2 | c1 >> 4)
                output.append((c1 & 0x0F) << 4 | c2 >> 2)
                output.append((c2 & 0x03) << 6 | c3)
            }
            index += 4
        }
        return output
    }
}
