public import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OAuth2.DPoP {
    /// What a verified proof says: its key (public members only), that key's thumbprint (the
    /// `jkt` a token is bound to), and the claims a server may keep.
    public struct VerifiedProof: Sendable, Hashable {
        /// The header's `jwk`.
        public let jwk: JOSE.JWK
        /// The `jwk`'s RFC 7638 SHA-256 thumbprint: `cnf.jkt` of a token bound to this key.
        /// [RFC 9449 §6.1](https://www.rfc-editor.org/rfc/rfc9449#section-6.1)
        public let thumbprint: String
        /// `jti`: the proof's unique id, recorded by the replay cache.
        public let jti: String
        /// `iat`: when the client made the proof, seconds since 1970.
        public let issuedAt: Int64
        /// `nonce`: the server nonce the proof carried, if any.
        public let nonce: String?
    }

    /// Checks DPoP proofs as a server, step by step as
    /// [RFC 9449 §4.3](https://www.rfc-editor.org/rfc/rfc9449#section-4.3) lists them. The
    /// clock is passed to each call; the `jti` replay cache is the caller's (one per server),
    /// passed `inout` so the check and the insert are one step.
    ///
    /// ```swift
    /// let verifier = OAuth2.DPoP.ProofVerifier()
    /// var replay = OAuth2.DPoP.ReplayCache()
    /// let proof = try OAuth2.DPoP.ProofVerifier.proof(in: request.headerFields)
    /// let verified = try verifier.verify(proof, method: request.method, url: url, at: now,
    ///                                    accessToken: token, boundTo: jkt, replayCache: &replay)
    /// ```
    public struct ProofVerifier: Sendable {
        /// The `alg` values accepted: asymmetric only (step 5); `none` is never accepted.
        public var allowedAlgorithms: Set<JOSE.Algorithm>
        /// How long after its `iat` a proof is accepted, in seconds (step 11).
        public var maximumAge: Int64
        /// How far the client's clock may be off, in seconds: a proof issued up to this far in
        /// the future, or this much older than ``maximumAge``, is still accepted.
        public var leeway: Int64
        /// A bound on the proof's length, so a huge header is refused before it is parsed.
        public var maximumLength: Int

        /// A verifier of asymmetric proofs at most `maximumAge` seconds old.
        public init(
            allowedAlgorithms: Set<JOSE.Algorithm> = JOSE.Algorithm.asymmetric,
            maximumAge: Int64 = 300,
            leeway: Int64 = 60,
            maximumLength: Int = 8 * 1024
        ) {
            self.allowedAlgorithms = allowedAlgorithms.subtracting([.hs256, .none])
            self.maximumAge = maximumAge
            self.leeway = leeway
            self.maximumLength = maximumLength
        }

        /// The request's one `DPoP` field, or `nil` when it has none.
        /// [RFC 9449 §4.3](https://www.rfc-editor.org/rfc/rfc9449#section-4.3) step 1.
        ///
        /// - Throws: ``Error/Code/multipleProofs``.
        public static func proof(in fields: HTTPFields) throws -> String? {
            let values = fields[values: .dpop]
            guard values.count <= 1 else {
                throw Error(.multipleProofs, "\(values.count) DPoP fields; exactly one is allowed")
            }
            return values.first
        }

        /// Verifies `proof` for a request with `method` to `url` (the full request URI; its
        /// query and fragment are ignored), then records its `jti` in `replayCache`.
        ///
        /// - Parameters:
        ///   - now: the server's clock, in seconds since 1970.
        ///   - accessToken: the token presented with the proof (a resource request): `ath`
        ///     must be its hash.
        ///   - thumbprint: the `cnf.jkt` the token is bound to: the proof's key must have it.
        ///   - nonce: the nonce the server currently requires, if it requires one.
        ///   - proof: the `DPoP` field's value.
        ///   - method: the request's method.
        ///   - url: the request's URL as the server was reached.
        ///   - replayCache: the `jti`s seen recently; this proof's is added.
        /// - Throws: ``Error`` with the code of the first failed step.
        public func verify(
            _ proof: String,
            method: HTTPRequest.Method,
            url: String,
            at now: Int64,
            accessToken: Secret? = nil,
            boundTo thumbprint: String? = nil,
            nonce: String? = nil,
            replayCache: inout ReplayCache
        ) throws -> VerifiedProof {
            let verified = try verify(
                proof,
                method: method,
                url: url,
                at: now,
                accessToken: accessToken,
                boundTo: thumbprint,
                nonce: nonce
            )
            // 12 (and §11.1): a proof is used once. Keyed by the key and the jti, kept until the
            // proof would be too old anyway.
            let entry = verified.thumbprint + " " + verified.jti
            guard replayCache.insert(entry, expiresAt: verified.issuedAt + maximumAge + leeway, now: now) else {
                throw Error(.replayed, "this proof's jti was already used")
            }
            return verified
        }

        /// ``verify(_:method:url:at:accessToken:boundTo:nonce:replayCache:)`` without the replay
        /// check, for a caller that keeps `jti`s itself (or a test vector).
        public func verify(
            _ proof: String,
            method: HTTPRequest.Method,
            url: String,
            at now: Int64,
            accessToken: Secret? = nil,
            boundTo thumbprint: String? = nil,
            nonce expectedNonce: String? = nil
        ) throws -> VerifiedProof {
            // 2. One well-formed JWS.
            let jws: JOSE.CompactJWS
            do {
                jws = try JOSE.CompactJWS(proof, maximumLength: maximumLength)
            } catch {
                throw Error(.malformed, "not a compact JWS")
            }
            // 4. typ is dpop+jwt (compared as RFC 7515 §4.1.9 says: case-insensitively).
            guard let type = jws.type, JOSE.normalizedMediaType(type) == OAuth2.DPoP.proofType else {
                throw Error(.invalidType, "typ is '\(jws.type ?? "")', not '\(OAuth2.DPoP.proofType)'")
            }
            // 5. An asymmetric algorithm this server allows; never none, never a MAC.
            guard jws.algorithm != .none, jws.algorithm != .hs256, allowedAlgorithms.contains(jws.algorithm) else {
                throw Error(.algorithmNotAllowed, "alg '\(jws.algorithm)' is not allowed for DPoP proofs")
            }
            // 3. The header's jwk.
            guard case .object(let members)? = jws.header["jwk"] else {
                throw Error(.malformed, "the header has no 'jwk' object")
            }
            let jwk: JOSE.JWK
            do {
                jwk = try JOSE.JWK(json: try JSONEncoder().encode(JSONValue.object(members)))
            } catch {
                throw Error(.malformed, "the header's 'jwk' is not a JWK")
            }
            // 7. The jwk is a public key.
            let privateMembers = ["d", "p", "q", "dp", "dq", "qi", "k", "oth"]
            guard jwk.keyType != .oct, !privateMembers.contains(where: { members[$0] != nil }) else {
                throw Error(.privateKey, "the header's 'jwk' holds private key members")
            }
            // 6. The signature verifies with that key, under the allowed algorithms.
            let key: JOSE.VerificationKey
            do {
                key = try JOSE.VerificationKey(jwk: jwk)
            } catch {
                throw Error(.invalidKey, "the header's 'jwk' is not a usable public key")
            }
            do {
                try jws.verify(with: key, allowing: allowedAlgorithms)
            } catch let error as JOSE.Error where error.code == .invalidSignature {
                throw Error(.invalidSignature, "the signature does not verify with the header's 'jwk'")
            } catch {
                throw Error(.invalidKey, "the header's 'jwk' does not fit alg '\(jws.algorithm)'")
            }
            // 3. The claims: jti, htm, htu, iat.
            guard let claims = try? jws.claims() else { throw Error(.malformed, "the payload is not a JSON object") }
            guard case .string(let jti)? = claims["jti"], !jti.isEmpty, jti.utf8.count <= 256 else {
                throw Error(.malformed, "no 'jti' (a non-empty string of at most 256 octets)")
            }
            guard case .string(let htm)? = claims["htm"] else { throw Error(.malformed, "no string 'htm'") }
            guard case .string(let htu)? = claims["htu"] else { throw Error(.malformed, "no string 'htu'") }
            guard let issuedAt = Self.seconds(claims["iat"]) else { throw Error(.malformed, "no numeric 'iat'") }
            // 8. htm is the request's method (methods are case-sensitive, RFC 9110 §9.1).
            guard htm == method.rawValue else {
                throw Error(.methodMismatch, "htm '\(htm)' is not the request's method \(method.rawValue)")
            }
            // 9. htu is the request's URI, query and fragment ignored, after RFC 3986 §6.2.2
            // and §6.2.3 normalization.
            guard Self.htuMatches(htu, url) else {
                throw Error(.urlMismatch, "htu '\(htu)' is not the request's URI")
            }
            // 10. The server's nonce, when it requires one.
            var nonce: String?
            if let value = claims["nonce"] {
                guard case .string(let string) = value else { throw Error(.malformed, "'nonce' is not a string") }
                nonce = string
            }
            if let expectedNonce {
                guard let nonce else { throw Error(.nonceRequired, "the server requires a nonce") }
                guard nonce == expectedNonce else { throw Error(.nonceMismatch, "the nonce is not the current one") }
            }
            // 11. iat within the window, with leeway for clock skew.
            guard issuedAt <= now + leeway, issuedAt >= now - maximumAge - leeway else {
                throw Error(.issuedAtOutOfWindow, "iat \(issuedAt) is outside the accepted window around \(now)")
            }
            // 12. With an access token: ath is its hash, and the key is the one it is bound to.
            if let accessToken {
                guard case .string(let ath)? = claims["ath"],
                    constantTimeEquals(ath, OAuth2.DPoP.accessTokenHash(accessToken))
                else { throw Error(.accessTokenHashMismatch, "'ath' is not the hash of the presented access token") }
            }
            let jkt: String
            do {
                jkt = try jwk.thumbprint()
            } catch {
                throw Error(.invalidKey, "the header's 'jwk' has no thumbprint")
            }
            if let thumbprint, !constantTimeEquals(thumbprint, jkt) {
                throw Error(.keyMismatch, "the proof's key is not the key the token is bound to")
            }
            return VerifiedProof(
                jwk: jwk.publicKey ?? jwk,
                thumbprint: jkt,
                jti: jti,
                issuedAt: issuedAt,
                nonce: nonce
            )
        }

        /// Whether a proof's `htu` names the request URI `url`: the query and fragment dropped
        /// (MUST), then scheme and host case, the default port, an empty path,
        /// percent-encoding case, percent-encoded unreserved characters and dot segments
        /// normalized (SHOULD, [RFC 3986 §6.2.2](https://www.rfc-editor.org/rfc/rfc3986#section-6.2.2),
        /// [§6.2.3](https://www.rfc-editor.org/rfc/rfc3986#section-6.2.3)). The path stays
        /// case-sensitive. [RFC 9449 §4.3](https://www.rfc-editor.org/rfc/rfc9449#section-4.3) step 9.
        public static func htuMatches(_ htu: String, _ url: String) -> Bool {
            guard let claimed = URIComparison(htu), let actual = URIComparison(url) else { return false }
            return claimed == actual
        }

        static func seconds(_ value: JSONValue?) -> Int64? {
            switch value {
            case .integer(let value)?: return value
            case .number(let value)? where value.rounded() == value && abs(value) < 1e15: return Int64(value)
            default: return nil
            }
        }
    }

    /// The `jti`s seen recently, so a proof is accepted once
    /// ([RFC 9449 §11.1](https://www.rfc-editor.org/rfc/rfc9449#section-11.1)): a value, bounded in
    /// size and in time. Each entry is dropped once its proof would be refused as too old
    /// anyway. When ``capacity`` entries are still live, the oldest is evicted: a proof older
    /// than the last `capacity` accepted ones could then be replayed within its window, so size
    /// the cache above the proofs a server accepts per ``ProofVerifier/maximumAge``.
    public struct ReplayCache: Sendable {
        /// The most `jti`s kept.
        public let capacity: Int
        private var expiries: [String: Int64] = [:]
        private var order: [(key: String, expiresAt: Int64)] = []
        private var head = 0

        /// An empty cache of at most `capacity` entries.
        public init(capacity: Int = 100_000) {
            precondition(capacity > 0, "a replay cache holds at least one entry")
            self.capacity = capacity
        }

        /// How many entries are held.
        public var count: Int { expiries.count }

        /// Records `key` until `expiresAt`; `false` when it is already there and live.
        public mutating func insert(_ key: String, expiresAt: Int64, now: Int64) -> Bool {
            purge(now: now)
            if let expiry = expiries[key], expiry > now { return false }
            while expiries.count >= capacity, head < order.count { evictHead() }
            expiries[key] = expiresAt
            order.append((key, expiresAt))
            return true
        }

        private mutating func purge(now: Int64) {
            while head < order.count, order[head].expiresAt <= now { evictHead() }
            if head > 1024, head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
        }

        private mutating func evictHead() {
            let entry = order[head]
            if expiries[entry.key] == entry.expiresAt { expiries[entry.key] = nil }
            head += 1
        }
    }
}

/// A URI reduced for comparison: scheme and host lowercased, the default port dropped, the
/// path's percent-encodings normalized and its dot segments removed, the query and fragment
/// gone. [RFC 3986 §6.2.2](https://www.rfc-editor.org/rfc/rfc3986#section-6.2.2),
/// [§6.2.3](https://www.rfc-editor.org/rfc/rfc3986#section-6.2.3)
struct URIComparison: Hashable {
    let scheme: String
    let authority: String
    let path: String

    init?(_ uri: String) {
        guard let (scheme, authority, rest) = Self.origin(uri) else { return nil }
        var path = Self.normalizePercentEncoding(String(rest))
        path = Self.removeDotSegments(path)
        if path.isEmpty { path = "/" }
        self.scheme = scheme
        self.authority = authority
        self.path = path
    }

    /// The scheme and authority of `uri`, normalized as ``init(_:)`` does, and the path after
    /// them (without query and fragment, not normalized): what an origin needs, without the
    /// work the path takes.
    static func origin(_ uri: String) -> (scheme: String, authority: String, path: Substring)? {
        let withoutQuery = Substring(OAuth2.DPoP.htu(uri))
        guard let colon = withoutQuery.utf8.firstIndex(of: UInt8(ascii: ":")),
            withoutQuery[colon...].utf8.starts(with: "://".utf8)
        else { return nil }
        let scheme = withoutQuery[..<colon].lowercased()
        guard !scheme.isEmpty else { return nil }
        let rest = withoutQuery[withoutQuery.utf8.index(colon, offsetBy: 3)...]
        let slash = rest.utf8.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
        var authority = Substring(rest[..<slash])
        if let at = authority.utf8.lastIndex(of: UInt8(ascii: "@")) { authority = authority[authority.utf8.index(after: at)...] }
        guard !authority.isEmpty else { return nil }
        // The port follows the last colon after any IPv6 literal's closing bracket.
        var host = authority
        var port: Substring = ""
        let portSearchStart = authority.utf8.lastIndex(of: UInt8(ascii: "]")) ?? authority.startIndex
        if let portColon = authority[portSearchStart...].utf8.lastIndex(of: UInt8(ascii: ":")) {
            host = authority[..<portColon]
            port = authority[authority.utf8.index(after: portColon)...]
        }
        guard port.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        let defaultPort = scheme == "https" ? "443" : scheme == "http" ? "80" : nil
        let normalizedPort = port.drop(while: { $0 == "0" })
        var normalizedAuthority = Self.normalizePercentEncoding(String(host)).lowercased()
        if !port.isEmpty, String(normalizedPort) != defaultPort {
            normalizedAuthority += ":" + (normalizedPort.isEmpty ? "0" : String(normalizedPort))
        }
        return (scheme, normalizedAuthority, rest[slash...])
    }

    /// Percent-encodings in uppercase hex, and those of unreserved characters decoded.
    /// [RFC 3986 §6.2.2.1](https://www.rfc-editor.org/rfc/rfc3986#section-6.2.2.1),
    /// [§6.2.2.2](https://www.rfc-editor.org/rfc/rfc3986#section-6.2.2.2)
    static func normalizePercentEncoding(_ string: String) -> String {
        let bytes = Array(string.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                let value = high << 4 | low
                if isUnreserved(value) {
                    output.append(value)
                } else {
                    output += [UInt8(ascii: "%"), hexDigit(high), hexDigit(low)]
                }
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// [RFC 3986 §5.2.4](https://www.rfc-editor.org/rfc/rfc3986#section-5.2.4), the one implementation
    /// the redirect resolver uses too.
    static func removeDotSegments(_ path: String) -> String { URIReference.removeDotSegments(path) }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
