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

    /// Decodes canonical base64url: the URL-safe alphabet only, no padding, no white space, no
    /// length of 1 modulo 4, and the unused bits of the last group zero, so each byte string has
    /// exactly one accepted encoding (a JWS whose signature has another spelling is refused, not
    /// normalised). Returns `nil` for anything else.
    package static func decode(_ string: Substring) -> [UInt8]? {
        let utf8 = string.utf8
        guard utf8.count % 4 != 1 else { return nil }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                continue
            default:
                return nil
            }
        }
        guard
            let bytes = try? Base64.decode(bytes: utf8, options: [.base64UrlAlphabet, .omitPaddingCharacter])
        else { return nil }
        // Re-encoding gives back the input only when the unused bits were zero.
        guard Base64.encodeToBytes(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
            .elementsEqual(utf8)
        else { return nil }
        return bytes
    }

    package static func decode(_ string: String) -> [UInt8]? { decode(Substring(string)) }
}
