/// A password, client secret, token secret or key passphrase: a string that never shows.
///
/// - `==` compares in time that depends only on the longer length, never on where the two
///   differ (no early exit, not even for unequal lengths).
/// - `hash(into:)` feeds the hasher a constant, so a hash value tells nothing about the secret,
///   not even its length. Equal secrets still hash equally, as `Hashable` requires; a set or
///   dictionary keyed by secrets degrades to linear lookups, which is the right trade for a
///   type nobody should key a table by.
/// - `description`, `debugDescription` and `customMirror` show `<redacted>`, so string
///   interpolation, `print`, `dump`, test failure messages and logs never carry it.
/// - `Codable` as a plain JSON string, so stores written before this type existed still decode.
///
/// Code that must put the secret on the wire or into a key asks for it by name: ``reveal()``.
public struct Secret: Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    private let value: String

    /// Wraps `value`, which from then on only `reveal()` shows.
    public init(_ value: String) {
        self.value = value
    }

    public init(stringLiteral value: String) {
        self.value = value
    }

    /// The secret itself, for the code that must send, hash or store it. Never log the result.
    public func reveal() -> String { value }

    /// Calls `body` with the secret's UTF-8 bytes, without copying them into a new array.
    public func withRevealedUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        var value = value
        return try value.withUTF8(body)
    }

    /// `true` for the empty secret (RFC 7617 allows an empty password; PLAINTEXT an empty token secret).
    public var isEmpty: Bool { value.isEmpty }

    /// Compares in constant time: see ``Secret``.
    public static func == (lhs: Secret, rhs: Secret) -> Bool {
        lhs.withRevealedUTF8 { a in rhs.withRevealedUTF8 { b in constantTimeEqualsNoLengthExit(a, b) } }
    }

    /// Compares with a candidate received from outside (a password typed or sent), in constant time.
    public func matches(_ candidate: String) -> Bool {
        var candidate = candidate
        return withRevealedUTF8 { a in candidate.withUTF8 { b in constantTimeEqualsNoLengthExit(a, b) } }
    }

    /// A constant: see ``Secret``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(0 as UInt8)
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "Secret(<redacted>)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    public init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// Constant-time equality that does not even return early for unequal lengths: it walks the
/// longer input once, so the time depends on `max(a.count, b.count)` only.
func constantTimeEqualsNoLengthExit(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    var difference: UInt = a.count == b.count ? 0 : 1
    let length = Swift.max(a.count, b.count)
    var index = 0
    while index < length {
        let x = index < a.count ? a[index] : 0
        let y = index < b.count ? b[index] : 0
        difference |= UInt(x ^ y)
        index += 1
    }
    return difference == 0
}
