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
    package static func decode(bytes encoded: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        // A lone character in the last group carries 6 bits: no octet (RFC 4648 §5 groups).
        guard encoded.count % 4 != 1 else { return nil }
        var last: UInt8 = 0
        for octet in encoded {
            last = value(of: octet)
            guard last != invalid else { return nil }
        }
        // RFC 4648 §3.5: the pad bits of a last group of 2 (or 3) characters, its last
        // character's low 4 (or 2) bits, are zero in the one canonical encoding.
        switch encoded.count % 4 {
        case 2: guard last & 0x0F == 0 else { return nil }
        case 3: guard last & 0x03 == 0 else { return nil }
        default: break
        }
        return try? Base64.decode(bytes: encoded, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    private static let invalid: UInt8 = 0xFF

    /// The 6-bit value of a base64url character (RFC 4648 §5, Table 2), or ``invalid``.
    @inline(__always)
    private static func value(of octet: UInt8) -> UInt8 {
        switch octet {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): octet &- UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): octet &- UInt8(ascii: "a") &+ 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): octet &- UInt8(ascii: "0") &+ 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: invalid
        }
    }

    package static func decode(_ string: String) -> [UInt8]? { decode(Substring(string)) }
}
