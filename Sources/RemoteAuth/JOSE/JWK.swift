import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JOSE {
    /// A JSON Web Key: [RFC 7517 §4](https://www.rfc-editor.org/rfc/rfc7517#section-4), with the
    /// members of [RFC 7518 §6](https://www.rfc-editor.org/rfc/rfc7518#section-6) (EC, RSA, oct)
    /// and [RFC 8037 §2](https://www.rfc-editor.org/rfc/rfc8037#section-2) (OKP).
    ///
    /// The private members (`d`, `p`, `q`, `dp`, `dq`, `qi`, and `k` of a symmetric key) are
    /// ``Secret``s: `description`, `debugDescription` and the mirror never show them. Members this
    /// type does not name are ignored, as [RFC 7517 §4](https://www.rfc-editor.org/rfc/rfc7517#section-4)
    /// says.
    public struct JWK: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        /// `kty`. [RFC 7517 §4.1](https://www.rfc-editor.org/rfc/rfc7517#section-4.1)
        public struct KeyType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            /// `EC`: an elliptic-curve key (P-256, P-384).
            public static let ec = Self(rawValue: "EC")
            /// `RSA`.
            public static let rsa = Self(rawValue: "RSA")
            /// `OKP`: an octet key pair (Ed25519, [RFC 8037](https://www.rfc-editor.org/rfc/rfc8037)).
            public static let okp = Self(rawValue: "OKP")
            /// `oct`: a symmetric key.
            public static let oct = Self(rawValue: "oct")
            public var description: String { rawValue }
        }

        /// `kty`.
        public var keyType: KeyType
        /// `kid`. [RFC 7517 §4.5](https://www.rfc-editor.org/rfc/rfc7517#section-4.5)
        public var keyID: String?
        /// `use`: `sig` or `enc`. [RFC 7517 §4.2](https://www.rfc-editor.org/rfc/rfc7517#section-4.2)
        public var use: String?
        /// `key_ops`. [RFC 7517 §4.3](https://www.rfc-editor.org/rfc/rfc7517#section-4.3)
        public var keyOperations: [String]?
        /// `alg`: the one algorithm this key is for. [RFC 7517 §4.4](https://www.rfc-editor.org/rfc/rfc7517#section-4.4)
        public var algorithm: Algorithm?
        /// `crv` of an EC or OKP key.
        public var curve: String?
        /// `x`, `y` of an EC key; `x` of an OKP key.
        public var x: String?
        /// `y` of an EC key.
        public var y: String?
        /// `n`, `e` of an RSA key.
        public var n: String?
        /// `e`, the public exponent of an RSA key.
        public var e: String?
        /// Private members.
        public var d: Secret?
        /// `p`, the first prime factor of an RSA private key.
        public var p: Secret?
        /// `q`, the second prime factor of an RSA private key.
        public var q: Secret?
        /// `dp`, the first factor's CRT exponent of an RSA private key.
        public var dp: Secret?
        /// `dq`, the second factor's CRT exponent of an RSA private key.
        public var dq: Secret?
        /// `qi`, the first CRT coefficient of an RSA private key.
        public var qi: Secret?
        /// `k` of a symmetric (`oct`) key.
        public var k: Secret?

        /// A key from its members; ``json()`` writes them, absent ones omitted.
        public init(
            keyType: KeyType, keyID: String? = nil, use: String? = nil, keyOperations: [String]? = nil,
            algorithm: Algorithm? = nil, curve: String? = nil, x: String? = nil, y: String? = nil, n: String? = nil,
            e: String? = nil, d: Secret? = nil, p: Secret? = nil, q: Secret? = nil, dp: Secret? = nil,
            dq: Secret? = nil, qi: Secret? = nil, k: Secret? = nil
        ) {
            self.keyType = keyType
            self.keyID = keyID
            self.use = use
            self.keyOperations = keyOperations
            self.algorithm = algorithm
            self.curve = curve
            self.x = x
            self.y = y
            self.n = n
            self.e = e
            self.d = d
            self.p = p
            self.q = q
            self.dp = dp
            self.dq = dq
            self.qi = qi
            self.k = k
        }

        private enum CodingKeys: String, CodingKey {
            case keyType = "kty", keyID = "kid", use, keyOperations = "key_ops", algorithm = "alg", curve = "crv"
            case x, y, n, e, d, p, q, dp, dq, qi, k
        }

        /// Holds private material: `d` (EC, OKP, RSA) or `k` (oct).
        public var isPrivate: Bool { d != nil || k != nil }

        /// The same key without its private members; `nil` for a symmetric key, which has no
        /// public part. `k` goes too: it is secret key material wherever it appears (RFC 7518
        /// §6.4.1), and no other key type has it.
        public var publicKey: JWK? {
            guard keyType != .oct else { return nil }
            var copy = self
            copy.k = nil
            copy.d = nil
            copy.p = nil
            copy.q = nil
            copy.dp = nil
            copy.dq = nil
            copy.qi = nil
            return copy
        }

        /// The JSON hashed for the thumbprint: the required members of the key type, in
        /// lexicographic order, with no white space.
        /// [RFC 7638 §3.2](https://www.rfc-editor.org/rfc/rfc7638#section-3.2),
        /// [RFC 8037 §2](https://www.rfc-editor.org/rfc/rfc8037#section-2) for OKP.
        ///
        /// - Throws: ``JOSE/Error/Code/invalidKey`` when a required member is missing or holds
        ///   something other than base64url or a curve name.
        public func thumbprintInput() throws -> [UInt8] {
            let members: [(String, String?)]
            switch keyType {
            case .ec: members = [("crv", curve), ("kty", keyType.rawValue), ("x", x), ("y", y)]
            case .rsa: members = [("e", e), ("kty", keyType.rawValue), ("n", n)]
            case .okp: members = [("crv", curve), ("kty", keyType.rawValue), ("x", x)]
            case .oct: members = [("k", k?.reveal()), ("kty", keyType.rawValue)]
            default: throw JOSE.Error(.invalidKey, "no thumbprint is defined for kty '\(keyType)'")
            }
            var json: [UInt8] = [UInt8(ascii: "{")]
            for (index, (name, value)) in members.enumerated() {
                guard let value, !value.isEmpty else {
                    throw JOSE.Error(.invalidKey, "a \(keyType) key has no '\(name)'")
                }
                // Every value here is base64url, a curve name or a kty: no character that JSON
                // would escape, so the member is written as it is (§3.3 notes the same).
                guard value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
                else { throw JOSE.Error(.invalidKey, "'\(name)' holds characters a key member never has") }
                if index > 0 { json.append(UInt8(ascii: ",")) }
                json += Array("\"\(name)\":\"".utf8) + Array(value.utf8) + [UInt8(ascii: "\"")]
            }
            json.append(UInt8(ascii: "}"))
            return json
        }

        /// The JWK SHA-256 thumbprint, base64url: what DPoP's `jkt` and `cnf.jkt` carry.
        /// [RFC 7638 §3](https://www.rfc-editor.org/rfc/rfc7638#section-3)
        public func thumbprint() throws -> String {
            RemoteAuthBase64URL.encode(Array(SHA256.hash(data: try thumbprintInput())))
        }

        /// The key as JSON (members sorted, so the same key gives the same bytes).
        public func json() throws -> [UInt8] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return Array(try encoder.encode(self))
        }

        /// Reads one JWK from JSON, strictly: member names unique
        /// ([RFC 7517 §4](https://www.rfc-editor.org/rfc/rfc7517#section-4) lets a parser refuse
        /// duplicates; this one does, as ``JSONValue/init(parsing:maximumDepth:)`` does everywhere).
        /// - Throws: ``JOSE/Error/Code/malformed`` when it is not a JSON object with a string `kty`
        ///   and string members.
        public init(json: some Collection<UInt8>) throws {
            let members: [String: JSONValue]
            do {
                members = try JSONValue.parseObject(json)
            } catch {
                throw JOSE.Error(.malformed, "not a JWK: \(error)")
            }
            self = try JWK(members: members)
        }

        /// A JWK from the members of a JSON object already parsed (one parse for a whole JWK
        /// Set), read as its `Codable` form reads them: `kty` a string; `kid`, `use`, `alg`,
        /// `crv` and the key material strings, `key_ops` an array of strings, each absent or
        /// `null` when not given; other members ignored
        /// ([RFC 7517 §4](https://www.rfc-editor.org/rfc/rfc7517#section-4): "Additional members
        /// can be present in the JWK; if not understood by implementations encountering them,
        /// they MUST be ignored").
        /// - Throws: ``JOSE/Error/Code/malformed`` when `kty` is not a string or a known member
        ///   has another type.
        public init(members: [String: JSONValue]) throws(JOSE.Error) {
            let malformed = JOSE.Error(.malformed, "not a JWK: a JSON object with a string 'kty' and string members")
            func string(_ name: String) throws(JOSE.Error) -> String? {
                switch members[name] {
                case nil, .null?: return nil
                case .string(let value)?: return value
                default: throw malformed
                }
            }
            guard case .string(let keyType)? = members["kty"] else { throw malformed }
            var operations: [String]? = nil
            switch members["key_ops"] {
            case nil, .null?:
                break
            case .array(let values)?:
                var strings: [String] = []
                for value in values {
                    guard case .string(let operation) = value else { throw malformed }
                    strings.append(operation)
                }
                operations = strings
            default:
                throw malformed
            }
            self.init(keyType: KeyType(rawValue: keyType), keyOperations: operations)
            keyID = try string("kid")
            use = try string("use")
            algorithm = try string("alg").map { Algorithm(rawValue: $0) }
            curve = try string("crv")
            x = try string("x")
            y = try string("y")
            n = try string("n")
            e = try string("e")
            d = try string("d").map { Secret($0) }
            p = try string("p").map { Secret($0) }
            q = try string("q").map { Secret($0) }
            dp = try string("dp").map { Secret($0) }
            dq = try string("dq").map { Secret($0) }
            qi = try string("qi").map { Secret($0) }
            k = try string("k").map { Secret($0) }
        }

        public var description: String {
            var parts = ["kty: \(keyType)"]
            if let keyID { parts.append("kid: \(keyID)") }
            if let algorithm { parts.append("alg: \(algorithm)") }
            if let use { parts.append("use: \(use)") }
            if let curve { parts.append("crv: \(curve)") }
            if isPrivate { parts.append("private: <redacted>") }
            return "JOSE.JWK(\(parts.joined(separator: ", ")))"
        }

        public var debugDescription: String { description }
        public var customMirror: Mirror {
            Mirror(self, children: ["description": description], displayStyle: .struct)
        }
    }
}
