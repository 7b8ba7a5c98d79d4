#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JOSE {
    /// Compact JWS signing: [RFC 7515 §5.1](https://www.rfc-editor.org/rfc/rfc7515#section-5.1),
    /// serialized as [§7.1](https://www.rfc-editor.org/rfc/rfc7515#section-7.1).
    public enum JWS {
        /// Signs `payload` with `key`. The protected header is `alg` (the key's), `kid` (the
        /// key's, when it has one) and `header`'s members, written as JSON with sorted members.
        ///
        /// - Throws: ``JOSE/Error/Code/malformed`` when `header` sets `alg` to another algorithm
        ///   than the key's, or holds `crit` (this library writes no extension).
        public static func sign(
            _ payload: some Collection<UInt8>, with key: SigningKey, header: [String: JSONValue] = [:]
        ) throws -> String {
            var members = header
            if let alg = members["alg"], alg != .string(key.algorithm.rawValue) {
                throw JOSE.Error(.malformed, "the header's alg is not the key's \(key.algorithm)")
            }
            guard members["crit"] == nil else { throw JOSE.Error(.malformed, "this library writes no 'crit' header") }
            members["alg"] = .string(key.algorithm.rawValue)
            if let keyID = key.keyID, members["kid"] == nil { members["kid"] = .string(keyID) }
            return try sign(payload, with: key, protectedHeader: JOSE.json(members))
        }

        /// Signs `payload` with `key` under the exact header octets given, which must name the
        /// key's algorithm (RFC 7515's appendices sign headers with line breaks; this reproduces
        /// them byte for byte).
        public static func sign(
            _ payload: some Collection<UInt8>, with key: SigningKey, protectedHeader: some Collection<UInt8>
        ) throws -> String {
            try sign(Array(payload), with: key, encodedHeader: RemoteAuthBase64URL.encode(protectedHeader))
        }

        /// Signs `payload` under a protected header already in base64url (a DPoP prover encodes
        /// its header once), in one buffer: the signing input, then the signature appended.
        static func sign(_ payload: [UInt8], with key: SigningKey, encodedHeader: String) throws -> String {
            // 1–4. BASE64URL(UTF8(JWS Protected Header)) || '.' || BASE64URL(JWS Payload).
            var compact: [UInt8] = []
            compact.reserveCapacity(encodedHeader.utf8.count + 1 + (payload.count * 4 + 2) / 3 + 1 + 700)
            compact.append(contentsOf: encodedHeader.utf8)
            compact.append(UInt8(ascii: "."))
            RemoteAuthBase64URL.append(encoding: payload, to: &compact)
            // 5. The signature over the ASCII of that input.
            let signature = try key.signature(for: compact)
            // 6–7. Compact serialization.
            compact.append(UInt8(ascii: "."))
            RemoteAuthBase64URL.append(encoding: signature, to: &compact)
            return String(decoding: compact, as: UTF8.self)
        }

        /// Signs the JSON of `claims` (members sorted): a JWT.
        /// [RFC 7519 §7.1](https://www.rfc-editor.org/rfc/rfc7519#section-7.1)
        public static func sign(
            claims: [String: JSONValue], with key: SigningKey, header: [String: JSONValue] = [:]
        ) throws -> String {
            try sign(JOSE.json(claims), with: key, header: header)
        }
    }

    /// A compact JWS as received: parsed, not yet trusted.
    /// [RFC 7515 §7.1](https://www.rfc-editor.org/rfc/rfc7515#section-7.1)
    ///
    /// `description` shows the header only, never the payload or the signature (an ID token or a
    /// DPoP proof is a credential).
    public struct CompactJWS: Sendable, CustomStringConvertible {
        /// The JWS Protected Header's members.
        public let header: [String: JSONValue]
        /// `alg`. [RFC 7515 §4.1.1](https://www.rfc-editor.org/rfc/rfc7515#section-4.1.1)
        public let algorithm: Algorithm
        /// `kid`. [RFC 7515 §4.1.4](https://www.rfc-editor.org/rfc/rfc7515#section-4.1.4)
        public let keyID: String?
        /// `typ`. [RFC 7515 §4.1.9](https://www.rfc-editor.org/rfc/rfc7515#section-4.1.9)
        public let type: String?
        /// The payload octets.
        public let payload: [UInt8]
        /// The JWS Signing Input: the first two parts and the dot between them.
        let signingInput: [UInt8]
        let signature: [UInt8]

        /// The default bound on a compact JWS's length: 64 KiB, far above any ID token or proof.
        public static let defaultMaximumLength = 64 * 1024

        /// Parses a compact JWS, strictly: three parts, each canonical base64url, the header a
        /// JSON object with a string `alg`, and at most `maximumLength` characters.
        /// [RFC 7515 §5.2](https://www.rfc-editor.org/rfc/rfc7515#section-5.2) steps 1–6.
        ///
        /// - Throws: ``JOSE/Error/Code/malformed``, ``JOSE/Error/Code/tooLarge``.
        public init(_ compact: String, maximumLength: Int = CompactJWS.defaultMaximumLength) throws {
            guard compact.utf8.count <= maximumLength else {
                throw JOSE.Error(.tooLarge, "a JWS of \(compact.utf8.count) characters (the limit is \(maximumLength))")
            }
            var compact = compact
            let parsed = try compact.withUTF8 { try Self.parse($0) }
            self.header = parsed.header
            self.algorithm = parsed.algorithm
            self.keyID = parsed.keyID
            self.type = parsed.type
            self.payload = parsed.payload
            self.signature = parsed.signature
            self.signingInput = parsed.signingInput
        }

        /// Steps 1–6 of RFC 7515 §5.2 over the octets of the compact serialization.
        private static func parse(_ compact: UnsafeBufferPointer<UInt8>) throws -> (
            header: [String: JSONValue], algorithm: Algorithm, keyID: String?, type: String?, payload: [UInt8],
            signature: [UInt8], signingInput: [UInt8]
        ) {
            // 1. Three parts separated by two dots (a JWE has five: refused here).
            var dots: (first: Int, second: Int) = (-1, -1)
            var dotCount = 0
            for index in compact.indices where compact[index] == UInt8(ascii: ".") {
                dotCount += 1
                if dotCount == 1 { dots.first = index } else if dotCount == 2 { dots.second = index }
            }
            guard dotCount == 2 else {
                throw JOSE.Error(.malformed, "a compact JWS has 3 dot-separated parts, not \(dotCount + 1)")
            }
            func part(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: compact[range]) }
            // 2–3. The header: canonical base64url of a JSON object.
            guard let headerBytes = RemoteAuthBase64URL.decode(bytes: part(0..<dots.first)) else {
                throw JOSE.Error(.malformed, "the header is not base64url")
            }
            guard let header = try? JSONValue.parseObject(headerBytes) else {
                throw JOSE.Error(.malformed, "the header is not a JSON object")
            }
            guard case .string(let alg)? = header["alg"] else {
                throw JOSE.Error(.malformed, "the header has no string 'alg'")
            }
            var keyID: String?
            if let kid = header["kid"] {
                guard case .string(let value) = kid else { throw JOSE.Error(.malformed, "'kid' is not a string") }
                keyID = value
            }
            var type: String?
            if let typ = header["typ"] {
                guard case .string(let value) = typ else { throw JOSE.Error(.malformed, "'typ' is not a string") }
                type = value
            }
            // 5–6. The payload and the signature.
            guard let payload = RemoteAuthBase64URL.decode(bytes: part(dots.first + 1..<dots.second)) else {
                throw JOSE.Error(.malformed, "the payload is not base64url")
            }
            guard let signature = RemoteAuthBase64URL.decode(bytes: part(dots.second + 1..<compact.count)) else {
                throw JOSE.Error(.malformed, "the signature is not base64url")
            }
            return (header, Algorithm(rawValue: alg), keyID, type, payload, signature, Array(part(0..<dots.second)))
        }

        /// Checks the header against the rules every verification shares, before any key is
        /// looked at: `alg` in `allowed` (never `none`), no `crit`, and `typ` equal to `type`
        /// when one is required.
        ///
        /// - Throws: ``JOSE/Error/Code/algorithmNotAllowed``, ``JOSE/Error/Code/unsupportedAlgorithm``,
        ///   ``JOSE/Error/Code/criticalHeader``, ``JOSE/Error/Code/malformed`` (a `typ` mismatch).
        public func checkHeader(allowing allowed: Set<Algorithm>, type expectedType: String? = nil) throws {
            // RFC 8725 §3.1: the algorithm is the verifier's choice, never the token's alone.
            // The sets are small and the names short (inline strings): comparing each is
            // cheaper than hashing the name.
            guard algorithm != .none, allowed.contains(where: { $0 == algorithm }) else {
                throw JOSE.Error(
                    .algorithmNotAllowed,
                    "alg '\(algorithm)' is not allowed here (allowed: \(allowed.map(\.rawValue).sorted().joined(separator: ", ")))")
            }
            guard Algorithm.implemented.contains(where: { $0 == algorithm }) else {
                throw JOSE.Error(.unsupportedAlgorithm, "alg '\(algorithm)'")
            }
            // RFC 7515 §4.1.11: a recipient that does not understand a listed extension must
            // reject the JWS; this library understands none.
            if header["crit"] != nil {
                throw JOSE.Error(.criticalHeader, "the header has 'crit'; no extension is understood here")
            }
            // RFC 7515 §4.1.9: a media type, compared case-insensitively, "application/" optional.
            if let expectedType {
                guard let type, JOSE.normalizedMediaType(type) == JOSE.normalizedMediaType(expectedType) else {
                    throw JOSE.Error(.malformed, "typ is '\(type ?? "")', not '\(expectedType)'")
                }
            }
        }

        /// Verifies the JWS with one of `keys`, allowing only `allowed` algorithms.
        ///
        /// Key selection is strict: with a `kid`, only keys with that `kid` (none: ``JOSE/Error/Code/unknownKey``,
        /// never another key); without one, the one key that fits the algorithm (more than one:
        /// ``JOSE/Error/Code/ambiguousKey``). The chosen key must allow the algorithm
        /// (``VerificationKey/check(_:)``).
        ///
        /// - Returns: the key that verified it.
        /// - Throws: what ``checkHeader(allowing:type:)`` throws, then ``JOSE/Error/Code/unknownKey``,
        ///   ``JOSE/Error/Code/ambiguousKey``, ``JOSE/Error/Code/keyMismatch``,
        ///   ``JOSE/Error/Code/invalidSignature``.
        @discardableResult
        public func verify(
            with keys: [VerificationKey], allowing allowed: Set<Algorithm>, type: String? = nil
        ) throws -> VerificationKey {
            try checkHeader(allowing: allowed, type: type)
            return try verifyCheckedHeader(with: keys)
        }

        /// ``verify(with:allowing:type:)`` once ``checkHeader(allowing:type:)`` has passed.
        func verifyCheckedHeader(with keys: [VerificationKey]) throws -> VerificationKey {
            let key = try JOSE.selectKey(from: keys, keyID: keyID, algorithm: algorithm)
            guard key.isValidSignature(signature, for: signingInput, algorithm: algorithm) else {
                throw JOSE.Error(.invalidSignature, "the \(algorithm) signature does not verify")
            }
            return key
        }

        /// Verifies with the one key the caller chose (a DPoP proof's own `jwk`, a client's
        /// registered key, a key file). A key without a `kid` is used whatever `kid` the JWS
        /// names (the caller picked it, not the token); a key with one must match it.
        @discardableResult
        public func verify(
            with key: VerificationKey, allowing allowed: Set<Algorithm>, type: String? = nil
        ) throws -> VerificationKey {
            guard key.keyID == nil else { return try verify(with: [key], allowing: allowed, type: type) }
            try checkHeader(allowing: allowed, type: type)
            try key.check(algorithm)
            guard key.isValidSignature(signature, for: signingInput, algorithm: algorithm) else {
                throw JOSE.Error(.invalidSignature, "the \(algorithm) signature does not verify")
            }
            return key
        }

        /// The payload as a JSON object (a JWT's claims set).
        /// [RFC 7519 §7.2](https://www.rfc-editor.org/rfc/rfc7519#section-7.2) step 10.
        /// - Throws: ``JOSE/Error/Code/malformed``.
        public func claims() throws -> [String: JSONValue] {
            guard let claims = try? JSONValue.parseObject(payload) else {
                throw JOSE.Error(.malformed, "the payload is not a JSON object")
            }
            return claims
        }

        /// Checks a JWT's time claims at `now`, allowing `leeway` seconds of clock skew:
        /// - `exp`: the JWT must not be accepted on or after it
        ///   ([RFC 7519 §4.1.4](https://www.rfc-editor.org/rfc/rfc7519#section-4.1.4)), so
        ///   `now < exp + leeway`;
        /// - `nbf`: nor before it ([§4.1.5](https://www.rfc-editor.org/rfc/rfc7519#section-4.1.5)),
        ///   so `now + leeway >= nbf`.
        ///
        /// Both are NumericDates (§2: seconds, possibly with a fraction); each is optional.
        ///
        /// - Throws: ``JOSE/Error/Code/expired``, ``JOSE/Error/Code/notYetValid``, or
        ///   ``JOSE/Error/Code/malformed`` for a time claim that is not a number.
        public static func checkTimes(of claims: [String: JSONValue], now: Int64, leeway: Int64 = 0) throws {
            func seconds(_ name: String) throws -> Double? {
                switch claims[name] {
                case nil: return nil
                case .integer(let value)?: return Double(value)
                case .number(let value)? where value.isFinite: return value
                default: throw JOSE.Error(.malformed, "'\(name)' is not a NumericDate (RFC 7519 §2)")
                }
            }
            func shown(_ value: Double) -> String {
                value == value.rounded() && abs(value) < 9.2e18 ? String(Int64(value)) : String(value)
            }
            let nowSeconds = now
            let now = Double(now)
            let leeway = Double(max(0, leeway))
            if let exp = try seconds("exp"), now >= exp + leeway {
                throw JOSE.Error(
                    .expired,
                    "the token expired: exp \(shown(exp)) is not after now \(nowSeconds) (leeway \(shown(leeway)) s, RFC 7519 §4.1.4)"
                )
            }
            if let nbf = try seconds("nbf"), now + leeway < nbf {
                throw JOSE.Error(
                    .notYetValid,
                    "the token is not valid yet: nbf \(shown(nbf)) is after now \(nowSeconds) (leeway \(shown(leeway)) s, RFC 7519 §4.1.5)"
                )
            }
        }

        public var description: String {
            "JOSE.CompactJWS(alg: \(algorithm)\(keyID.map { ", kid: \($0)" } ?? "")\(type.map { ", typ: \($0)" } ?? ""), <redacted>)"
        }
    }

    /// Picks the key for a JWS: see ``CompactJWS/verify(with:allowing:type:)``.
    static func selectKey(from keys: [VerificationKey], keyID: String?, algorithm: Algorithm) throws
        -> VerificationKey
    {
        // By index: no array of candidates, no copy of a key until the one chosen.
        var named = 0
        var chosen: Int?
        var fitting = 0
        var firstError: (any Swift.Error)?
        for index in keys.indices {
            if let keyID, keys[index].keyID != keyID { continue }
            named += 1
            do {
                try keys[index].check(algorithm)
                fitting += 1
                if chosen == nil { chosen = index }
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        if let keyID {
            guard named > 0 else { throw JOSE.Error(.unknownKey, "no key has kid '\(keyID)'") }
            guard let chosen else { throw firstError! }
            guard fitting == 1 else {
                throw JOSE.Error(.ambiguousKey, "\(fitting) keys have kid '\(keyID)' and fit \(algorithm)")
            }
            return keys[chosen]
        }
        guard let chosen else {
            throw JOSE.Error(.unknownKey, "the JWS has no kid and no key fits \(algorithm)")
        }
        guard fitting == 1 else {
            throw JOSE.Error(.ambiguousKey, "the JWS has no kid and \(fitting) keys fit \(algorithm)")
        }
        return keys[chosen]
    }

    /// JSON with sorted members and no escaped slashes: the same value always gives the same
    /// octets.
    static func json(_ object: [String: JSONValue]) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(object))
    }

    static func normalizedMediaType(_ type: String) -> String {
        let lowered = type.lowercased()
        return lowered.hasPrefix("application/") ? String(lowered.dropFirst("application/".count)) : lowered
    }
}
