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
