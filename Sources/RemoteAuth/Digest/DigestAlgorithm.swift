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
    public init(rawValue: String) { self.rawValue = rawValue }

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
    public var isSession: Bool { folded.hasSuffix("-sess") }

    /// Whether this package implements the algorithm.
    public var isSupported: Bool { function != nil }

    /// The algorithm without `-sess`.
    var base: DigestAlgorithm {
        isSession ? DigestAlgorithm(rawValue: String(rawValue.dropLast(5))) : self
    }

    enum Function { case md5, sha256, sha512_256 }

    var function: Function? {
        switch base.folded {
        case "md5": return .md5
        case "sha-256": return .sha256
        case "sha-512-256": return .sha512_256
        default: return nil
        }
    }

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
    func hexDigest(_ data: some Collection<UInt8>) -> String {
        Hex.encode(digest(data))
    }

    func digest(_ data: some Collection<UInt8>) -> [UInt8] {
        let bytes = Array(data)
        switch function {
        case .md5: return Array(Insecure.MD5.hash(data: bytes))
        case .sha256: return Array(SHA256.hash(data: bytes))
        case .sha512_256: return Array(SHA512256.hash(data: bytes))
        case nil: preconditionFailure("unsupported Digest algorithm reached hashing")
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

/// Lowercase hexadecimal, as Digest writes hashes and `nc`.
enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var output: [UInt8] = []
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `nc-value = 8LHEX`. [RFC 7616 §3.4](https://www.rfc-editor.org/rfc/rfc7616#section-3.4)
    static func nonceCount(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: false)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// Parses exactly 8 hex digits.
    static func parseNonceCount(_ text: String) -> UInt32? {
        guard text.utf8.count == 8, text.utf8.allSatisfy({ isHexDigit($0) }) else { return nil }
        return UInt32(text, radix: 16)
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) || (0x41...0x46).contains(byte)
    }
}
