/// A username with a password, or with a precomputed `H(username:realm:password)`, for Digest.
/// Used by clients to answer a challenge and by servers to verify an answer.
/// [RFC 7616 §3.4.2](https://www.rfc-editor.org/rfc/rfc7616#section-3.4.2)
///
/// `description` and `debugDescription` show the username and hide the secret.
public struct DigestCredentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// Compared in constant time; hashed as a constant (see ``Secret``).
    enum Stored: Sendable, Hashable {
        case password(Secret)
        /// The raw digest bytes of `H(username:realm:password)` for one algorithm and realm.
        case ha1([UInt8])

        static func == (lhs: Self, rhs: Self) -> Bool {
            switch (lhs, rhs) {
            case (.password(let a), .password(let b)): return a == b
            case (.ha1(let a), .ha1(let b)): return constantTimeEquals(a, b)
            default: return false
            }
        }

        func hash(into hasher: inout Hasher) {
            switch self {
            case .password: hasher.combine(0 as UInt8)
            case .ha1: hasher.combine(1 as UInt8)
            }
        }
    }

    /// The username, not hashed.
    public let username: String
    let secret: Stored

    /// A username and password. Both are hashed as UTF-8
    /// ([RFC 7616 §3.4.1](https://www.rfc-editor.org/rfc/rfc7616#section-3.4.1),
    /// `charset=UTF-8`).
    public init(username: String, password: Secret) {
        self.username = username
        self.secret = .password(password)
    }

    /// A username and password, the password given as a plain string.
    public init(username: String, password: String) {
        self.init(username: username, password: Secret(password))
    }

    /// A username and the stored digest of `username ":" realm ":" password` (the non-session
    /// HA1, as raw bytes), so that a server need not keep the password. It is valid for one
    /// realm and one hash function only. [RFC 7616 §3.4.2](https://www.rfc-editor.org/rfc/rfc7616#section-3.4.2)
    public init(username: String, ha1: [UInt8]) {
        self.username = username
        self.secret = .ha1(ha1)
    }

    /// `H(username:realm:password)` as lowercase hex, or the stored HA1.
    ///
    /// - Throws: ``DigestError/Code/invalidParameter`` when a stored HA1 has the wrong length
    ///   for `algorithm`.
    func baseHA1(algorithm: DigestAlgorithm, realm: String) throws -> String {
        switch secret {
        case .password(let password):
            return DigestComputation.baseHA1(
                algorithm: algorithm,
                username: username,
                realm: realm,
                password: password.reveal()
            )
        case .ha1(let bytes):
            guard bytes.count == algorithm.digestByteCount else {
                throw DigestError(
                    .invalidParameter,
                    "stored HA1 has \(bytes.count) bytes; \(algorithm.rawValue) needs \(algorithm.digestByteCount ?? 0)"
                )
            }
            return Hex.encode(bytes)
        }
    }

    public var description: String { "DigestCredentials(username: \(username), secret: <redacted>)" }
    public var debugDescription: String {
        switch secret {
        case .password: return "DigestCredentials(username: \(String(reflecting: username)), password: <redacted>)"
        case .ha1: return "DigestCredentials(username: \(String(reflecting: username)), ha1: <redacted>)"
        }
    }
    public var customMirror: Mirror { Mirror(self, children: ["username": username], displayStyle: .struct) }
}

/// Where cnonces come from: by default 128 bits from ``RandomSource/system``, as 32 lowercase
/// hex digits. Tests and reproducible runs pass a fixed cnonce or a seeded ``RandomSource``.
/// [RFC 7616 §3.4](https://www.rfc-editor.org/rfc/rfc7616#section-3.4) (`cnonce`)
public struct DigestCnonceGenerator: Sendable {
    private let make: @Sendable () -> String

    /// A generator that takes each cnonce from `make`.
    public init(_ make: @escaping @Sendable () -> String) {
        self.make = make
    }

    /// The next cnonce.
    public func next() -> String { make() }

    /// 16 bytes from ``RandomSource/system``, lowercase hex.
    public static let system = random(.system)

    /// 16 bytes from `source` for each cnonce, lowercase hex.
    public static func random(_ source: RandomSource) -> DigestCnonceGenerator {
        DigestCnonceGenerator { source.hex(byteCount: 16) }
    }

    /// Always `cnonce`; for tests and for reproducing a captured exchange.
    public static func fixed(_ cnonce: String) -> DigestCnonceGenerator {
        DigestCnonceGenerator { cnonce }
    }
}

/// The hash computations of RFC 7616 §3.4, on hex strings as the RFC writes them.
/// `package` so that tests can check HA1 and HA2 against known answers.
package enum DigestComputation {
    /// `H(unq(username) ":" unq(realm) ":" passwd)`.
    /// [RFC 7616 §3.4.2](https://www.rfc-editor.org/rfc/rfc7616#section-3.4.2)
    package static func baseHA1(algorithm: DigestAlgorithm, username: String, realm: String, password: String) -> String
    {
        algorithm.hexDigest(joining: username, realm, password)
    }

    /// HA1: the base HA1, or for `-sess` `H(baseHA1 ":" unq(nonce) ":" unq(cnonce))`.
    /// [RFC 7616 §3.4.2](https://www.rfc-editor.org/rfc/rfc7616#section-3.4.2)
    package static func ha1(algorithm: DigestAlgorithm, baseHA1: String, nonce: String, cnonce: String?) -> String {
        guard algorithm.isSession else { return baseHA1 }
        return algorithm.hexDigest(joining: baseHA1, nonce, cnonce ?? "")
    }

    /// HA2: `H(method ":" uri)`, or for `auth-int` `H(method ":" uri ":" H(entity-body))`.
    /// [RFC 7616 §3.4.3](https://www.rfc-editor.org/rfc/rfc7616#section-3.4.3)
    package static func ha2(
        algorithm: DigestAlgorithm,
        method: String,
        uri: String,
        qop: DigestQOP?,
        body: [UInt8]?
    ) -> String {
        if qop == .authInt {
            return algorithm.hexDigest(joining: method, uri, algorithm.hexDigest(body ?? []))
        }
        return algorithm.hexDigest(joining: method, uri)
    }

    /// `KD(HA1, nonce ":" nc ":" cnonce ":" qop ":" HA2)`, or without qop (RFC 2069)
    /// `KD(HA1, nonce ":" HA2)`, where `KD(s, d) = H(s ":" d)`.
    /// [RFC 7616 §3.4.1](https://www.rfc-editor.org/rfc/rfc7616#section-3.4.1),
    /// [RFC 2617 §3.2.2.1](https://www.rfc-editor.org/rfc/rfc2617#section-3.2.2.1)
    package static func response(
        algorithm: DigestAlgorithm,
        ha1: String,
        nonce: String,
        nc: String?,
        cnonce: String?,
        qop: DigestQOP?,
        ha2: String
    ) -> String {
        if let qop {
            return algorithm.hexDigest(joining: ha1, nonce, nc ?? "", cnonce ?? "", qop.rawValue, ha2)
        }
        return algorithm.hexDigest(joining: ha1, nonce, ha2)
    }

    /// `rspauth`: as the response, with `A2 = ":" uri` (`auth`) or
    /// `":" uri ":" H(response-body)` (`auth-int`).
    /// [RFC 7616 §3.5](https://www.rfc-editor.org/rfc/rfc7616#section-3.5)
    package static func rspauth(
        algorithm: DigestAlgorithm,
        ha1: String,
        nonce: String,
        nc: String?,
        cnonce: String?,
        qop: DigestQOP?,
        uri: String,
        responseBody: [UInt8]?
    ) -> String {
        let ha2 = ha2(algorithm: algorithm, method: "", uri: uri, qop: qop, body: responseBody)
        return response(algorithm: algorithm, ha1: ha1, nonce: nonce, nc: nc, cnonce: cnonce, qop: qop, ha2: ha2)
    }

    /// `userhash`: `H(unq(username) ":" unq(realm))`.
    /// [RFC 7616 §3.4.4](https://www.rfc-editor.org/rfc/rfc7616#section-3.4.4)
    package static func userhash(algorithm: DigestAlgorithm, username: String, realm: String) -> String {
        algorithm.hexDigest(joining: username, realm)
    }

    /// `ext-value` of RFC 8187: `UTF-8''` and the percent-encoded octets, `attr-char` kept.
    /// [RFC 8187 §3.2.1](https://www.rfc-editor.org/rfc/rfc8187#section-3.2.1)
    static func extValue(_ value: String) -> String {
        var output = Array("UTF-8''".utf8)
        for byte in value.utf8 {
            if isAttrChar(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(Hex.digit(byte >> 4, uppercase: true))
                output.append(Hex.digit(byte & 0x0F, uppercase: true))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes an RFC 8187 `ext-value` in `UTF-8`; the language tag is ignored.
    /// [RFC 8187 §3.2.1](https://www.rfc-editor.org/rfc/rfc8187#section-3.2.1)
    static func decodeExtValue(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, asciiCaseInsensitiveEquals(String(parts[0]), "UTF-8") else { return nil }
        let encoded = Array(parts[2].utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index < encoded.count {
            let byte = encoded[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < encoded.count, let high = Hex.value(encoded[index + 1]),
                    let low = Hex.value(encoded[index + 2])
                else { return nil }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                guard isAttrChar(byte) else { return nil }
                bytes.append(byte)
                index += 1
            }
        }
        return String(validatingUTF8Bytes: bytes)
    }

    /// `attr-char`. [RFC 8187 §3.2.1](https://www.rfc-editor.org/rfc/rfc8187#section-3.2.1)
    static func isAttrChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "+"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"),
            UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
