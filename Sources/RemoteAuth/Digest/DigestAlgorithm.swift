import Crypto
import CryptoExtras

/// The Digest `algorithm` parameter: the hash function and whether HA1 is per session.
/// [RFC 7616 §3.3](https://www.rfc-editor.org/rfc/rfc7616#section-3.3),
/// registry in [RFC 7616 §6.1](https://www.rfc-editor.org/rfc/rfc7616#section-6.1)
///
/// Values compare case-insensitively (`md5-sess` == `MD5-sess`); ``rawValue`` keeps the
/// spelling that was sent.
public struct DigestAlgorithm: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    /// The hash function and `-sess` flag, worked out once from ``rawValue``.
    private let kind: (function: Function?, isSession: Bool)

    public init(rawValue: String) {
        self.rawValue = rawValue
        let bytes = rawValue.utf8
        let isSession = bytes.count >= 5 && Self.equalsIgnoringCase(bytes.suffix(5), "-sess")
        let name = bytes.prefix(isSession ? bytes.count - 5 : bytes.count)
        var function: Function? = nil
        if Self.equalsIgnoringCase(name, "md5") {
            function = .md5
        } else if Self.equalsIgnoringCase(name, "sha-256") {
            function = .sha256
        } else if Self.equalsIgnoringCase(name, "sha-512-256") {
            function = .sha512_256
        }
        kind = (function, isSession)
    }

    /// `MD5`, the default when a challenge names no algorithm.
    /// - Warning: MD5 is broken; accept it only for legacy servers.
    public static let md5 = Self(rawValue: "MD5")
    /// `MD5-sess`. - Warning: MD5 is broken; accept it only for legacy servers.
    public static let md5Sess = Self(rawValue: "MD5-sess")
    /// `SHA-256`.
    public static let sha256 = Self(rawValue: "SHA-256")
    /// `SHA-256-sess`.
    public static let sha256Sess = Self(rawValue: "SHA-256-sess")
    /// `SHA-512-256`: FIPS 180-4 SHA-512/256 (not truncated SHA-512, see RFC 7616 erratum
    /// EID 4897 on the §3.9.2 example).
    public static let sha512_256 = Self(rawValue: "SHA-512-256")
    /// `SHA-512-256-sess`.
    public static let sha512_256Sess = Self(rawValue: "SHA-512-256-sess")

    private var folded: String { String(decoding: rawValue.utf8.map(asciiLowercase), as: UTF8.self) }

    public static func == (lhs: Self, rhs: Self) -> Bool { asciiCaseInsensitiveEquals(lhs.rawValue, rhs.rawValue) }
    public func hash(into hasher: inout Hasher) { hasher.combine(folded) }
    public var description: String { rawValue }

    /// Whether HA1 is computed per session, `H(H(user:realm:password):nonce:cnonce)`.
    /// [RFC 7616 §3.4.2](https://www.rfc-editor.org/rfc/rfc7616#section-3.4.2)
    public var isSession: Bool { kind.isSession }

    /// ASCII case-insensitive comparison, without building a folded copy.
    private static func equalsIgnoringCase(_ bytes: some Collection<UInt8>, _ lower: StaticString) -> Bool {
        guard bytes.count == lower.utf8CodeUnitCount else { return false }
        let other = UnsafeBufferPointer(start: lower.utf8Start, count: lower.utf8CodeUnitCount)
        return zip(bytes, other).allSatisfy { asciiLowercase($0) == $1 }
    }

    /// Whether this package implements the algorithm.
    public var isSupported: Bool { function != nil }

    /// The algorithm without `-sess`.
    var base: DigestAlgorithm {
        isSession ? DigestAlgorithm(rawValue: String(rawValue.dropLast(5))) : self
    }

    enum Function: Sendable { case md5, sha256, sha512_256 }

    var function: Function? { kind.function }

    /// Strength order for choosing among challenges: higher is stronger, `nil` unsupported.
    var strength: Int? {
        guard let function else { return nil }
        let base: Int
        switch function {
        case .md5: base = 1
        case .sha256: base = 3
        case .sha512_256: base = 5
        }
        return isSession ? base : base + 1
    }

    /// Size of the digest in bytes, for checking a precomputed HA1.
    var digestByteCount: Int? {
        switch function {
        case .md5: return Insecure.MD5Digest.byteCount
        case .sha256: return SHA256Digest.byteCount
        case .sha512_256: return SHA512256Digest.byteCount
        case nil: return nil
        }
    }

    /// `H(data)` as lowercase hex. [RFC 7616 §3.4.1](https://www.rfc-editor.org/rfc/rfc7616#section-3.4.1)
    /// Only called on supported algorithms (checked when a challenge is decoded).
    func hexDigest(_ data: [UInt8]) -> String {
        data.withUnsafeBytes { hexDigest(bufferPointer: $0) }
    }

    /// `H(data)` as lowercase hex, hashed from the buffer in one update.
    func hexDigest(bufferPointer data: UnsafeRawBufferPointer) -> String {
        switch function {
        case .md5:
            var hasher = Insecure.MD5()
            hasher.update(bufferPointer: data)
            return hasher.finalize().withUnsafeBytes { Hex.encode($0) }
        case .sha256:
            var hasher = SHA256()
            hasher.update(bufferPointer: data)
            return hasher.finalize().withUnsafeBytes { Hex.encode($0) }
        case .sha512_256:
            var hasher = SHA512256()
            hasher.update(bufferPointer: data)
            return hasher.finalize().withUnsafeBytes { Hex.encode($0) }
        case nil: preconditionFailure("unsupported Digest algorithm reached hashing")
        }
    }

    /// `H(p1 ":" p2 ":" …)`, as lowercase hex, assembled in one buffer on the stack (no array
    /// per hash): the form of every Digest hash input (RFC 7616 §3.4.1–§3.4.4).
    func hexDigest(joining parts: String...) -> String {
        var byteCount = parts.count
        for part in parts { byteCount += part.utf8.count }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: byteCount) { buffer in
            var writer = ByteWriter(buffer)
            for (index, part) in parts.enumerated() {
                if index > 0 { writer.write(UInt8(ascii: ":")) }
                writer.write(contentsOf: part)
            }
            return hexDigest(bufferPointer: UnsafeRawBufferPointer(start: buffer.baseAddress, count: writer.count))
        }
    }
}

/// The Digest `qop` (quality of protection) values.
/// [RFC 7616 §3.3](https://www.rfc-editor.org/rfc/rfc7616#section-3.3)
public struct DigestQOP: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `auth`: authentication only.
    public static let auth = Self(rawValue: "auth")
    /// `auth-int`: authentication with integrity protection of the body.
    public static let authInt = Self(rawValue: "auth-int")

    public static func == (lhs: Self, rhs: Self) -> Bool { asciiCaseInsensitiveEquals(lhs.rawValue, rhs.rawValue) }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(String(decoding: rawValue.utf8.map(asciiLowercase), as: UTF8.self))
    }
    public var description: String { rawValue }
}

/// Digest's `nc`, in the package's one hex codec.
extension Hex {
    /// `nc-value = 8LHEX`. [RFC 7616 §3.4](https://www.rfc-editor.org/rfc/rfc7616#section-3.4)
    static func nonceCount(_ value: UInt32) -> String {
        String(unsafeUninitializedCapacity: 8) { buffer in
            for index in 0..<8 {
                let nibble = UInt8((value >> (28 - 4 * UInt32(index))) & 0xF)
                buffer[index] = nibble < 10 ? nibble + 48 : nibble + 87
            }
            return 8
        }
    }

    /// Parses exactly 8 hex digits.
    static func parseNonceCount(_ text: String) -> UInt32? {
        guard text.utf8.count == 8, text.utf8.allSatisfy({ isHexDigit($0) }) else { return nil }
        return UInt32(text, radix: 16)
    }
}
