import ExtrasBase64

/// Base64 with the standard alphabet and `=` padding: [RFC 4648 §4](https://www.rfc-editor.org/rfc/rfc4648#section-4).
///
/// A thin, strict layer over swift-extras-base64, shared inside the package (Basic credentials,
/// OAuth 1.0a signatures).
package enum RemoteAuthBase64 {
    /// Encodes `bytes`, padding the last group with `=`.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        Base64.encodeToString(bytes: bytes)
    }

    /// Decodes canonical Base64: padding required, no white space, and the unused bits of the
    /// last group zero (RFC 4648 §3.5), so each byte string has exactly one accepted encoding.
    /// Returns `nil` for anything else.
    package static func decode(_ string: String) -> [UInt8]? {
        guard string.utf8.count % 4 == 0, let bytes = try? Base64.decode(string: string) else { return nil }
        // Re-encoding gives back the input only when the unused bits were zero.
        guard Base64.encodeToString(bytes: bytes) == string else { return nil }
        return bytes
    }
}

/// Base64url without padding, as JOSE and PKCE use it:
/// [RFC 7515 §2](https://www.rfc-editor.org/rfc/rfc7515#section-2) ("Base64url Encoding"),
/// [RFC 4648 §5](https://www.rfc-editor.org/rfc/rfc4648#section-5).
package enum RemoteAuthBase64URL {
    /// Encodes `bytes` with the URL-safe alphabet and no `=`.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    /// Appends the encoding of `bytes` to `output`.
    package static func append(encoding bytes: some Collection<UInt8>, to output: inout [UInt8]) {
        output.append(contentsOf: Base64.encodeToBytes(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter]))
    }

    /// Decodes canonical base64url: the URL-safe alphabet only, no padding, no white space, no
    /// length of 1 modulo 4, and the unused bits of the last group zero, so each byte string has
    /// exactly one accepted encoding (a JWS whose signature has another spelling is refused, not
    /// normalised). Returns `nil` for anything else.
    package static func decode(_ string: Substring) -> [UInt8]? {
        if let decoded = string.utf8.withContiguousStorageIfAvailable({ decode(bytes: $0) }) { return decoded }
        return Array(string.utf8).withUnsafeBufferPointer { decode(bytes: $0) }
    }

    /// ``decode(_:)`` over the encoded octets.
    ///
    /// swift-extras-base64's decoder refuses every octet outside the alphabet in the full
    /// groups, so those are not checked twice; it reads `=` in the last group as padding, so
    /// that group, the length and the pad bits are checked here (a test puts every octet
    /// outside the alphabet at every position).
    package static func decode(bytes encoded: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        // A lone character in the last group carries 6 bits: no octet (RFC 4648 §5 groups).
        guard encoded.count % 4 != 1 else { return nil }
        for octet in encoded.suffix(4) where base64URLValues[Int(octet)] == 0xFF { return nil }
        // RFC 4648 §3.5: the pad bits of a last group of 2 (or 3) characters, its last
        // character's low 4 (or 2) bits, are zero in the one canonical encoding.
        if let last = encoded.last {
            let value = base64URLValues[Int(last)]
            guard value != 0xFF else { return nil }
            switch encoded.count % 4 {
            case 2: guard value & 0x0F == 0 else { return nil }
            case 3: guard value & 0x03 == 0 else { return nil }
            default: break
            }
        }
        return try? Base64.decode(bytes: encoded, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    /// Whether `octet` is one of the 64 characters of the base64url alphabet (RFC 4648 §5,
    /// Table 2): `A`–`Z`, `a`–`z`, `0`–`9`, `-`, `_`.
    @inline(__always)
    package static func isAlphabet(_ octet: UInt8) -> Bool { base64URLValues[Int(octet)] != 0xFF }

    package static func decode(_ string: String) -> [UInt8]? { decode(Substring(string)) }
}

/// The 6-bit value of each base64url character (RFC 4648 §5, Table 2), 0xFF for every other
/// octet. A global of literals, initialized statically.
private let base64URLValues: [UInt8] = [
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // 0x00
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // 0x10
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x3E, 0xFF, 0xFF,  // 0x20
    0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x3B, 0x3C, 0x3D, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // 0x30
    0xFF, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E,  // 0x40
    0x0F, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0xFF, 0xFF, 0xFF, 0xFF, 0x3F,  // 0x50
    0xFF, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28,  // 0x60
    0x29, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x2F, 0x30, 0x31, 0x32, 0x33, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // 0x70
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // 0x80
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // 0x90
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // 0xA0
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // 0xB0
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // 0xC0
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // 0xD0
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // 0xE0
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // 0xF0
]
