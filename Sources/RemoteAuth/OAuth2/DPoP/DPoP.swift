import Crypto
public import HTTPTypes

extension OAuth2 {
    /// OAuth 2.0 Demonstrating Proof of Possession: [RFC 9449](https://www.rfc-editor.org/rfc/rfc9449).
    ///
    /// A DPoP-bound access token is useless without the private key the client keeps: every
    /// request carries a fresh proof (a JWS in the `DPoP` field) signed over its method and URL.
    ///
    /// Client side: a ``Prover`` holds the key and the server nonces; a flow bound with
    /// ``OAuth2/Flow/binding(to:)`` adds proofs at the token endpoint; an
    /// ``OAuth2/TokenSession`` with a prover sends `DPoP` tokens
    /// ([RFC 9449 §7.1](https://www.rfc-editor.org/rfc/rfc9449#section-7.1)). Server side:
    /// ``ProofVerifier`` checks a proof as [RFC 9449 §4.3](https://www.rfc-editor.org/rfc/rfc9449#section-4.3)
    /// says, with a bounded ``ReplayCache``.
    public enum DPoP {}
}

/// The fields of DPoP ([RFC 9449](https://www.rfc-editor.org/rfc/rfc9449)).
extension HTTPField.Name {
    /// `DPoP`: the proof. [RFC 9449 §4.1](https://www.rfc-editor.org/rfc/rfc9449#section-4.1)
    public static let dpop = HTTPField.Name("DPoP")!
    /// `DPoP-Nonce`: a nonce the server wants in the next proof.
    /// [RFC 9449 §8](https://www.rfc-editor.org/rfc/rfc9449#section-8)
    public static let dpopNonce = HTTPField.Name("DPoP-Nonce")!
}

extension OAuth2.DPoP {
    /// The proof's `typ`. [RFC 9449 §4.2](https://www.rfc-editor.org/rfc/rfc9449#section-4.2)
    public static let proofType = "dpop+jwt"
    /// The auth-scheme of a DPoP-bound token (`Authorization: DPoP …`).
    /// [RFC 9449 §7.1](https://www.rfc-editor.org/rfc/rfc9449#section-7.1)
    public static let scheme = "DPoP"
    /// The `token_type` of a DPoP-bound token. [RFC 9449 §5](https://www.rfc-editor.org/rfc/rfc9449#section-5)
    public static let tokenType = "DPoP"

    /// `ath`: base64url of the SHA-256 of the access token's ASCII.
    /// [RFC 9449 §4.2](https://www.rfc-editor.org/rfc/rfc9449#section-4.2)
    public static func accessTokenHash(_ accessToken: Secret) -> String {
        accessToken.withRevealedUTF8 { RemoteAuthBase64URL.encode(Array(SHA256.hash(data: $0))) }
    }

    /// `htu`: the request's URI without its query and fragment.
    /// [RFC 9449 §4.2](https://www.rfc-editor.org/rfc/rfc9449#section-4.2)
    public static func htu(_ url: String) -> String {
        guard let mark = url.utf8.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else {
            return url
        }
        return String(url[..<mark])
    }

    /// The origin (`scheme://authority`, lowercased, default port dropped) a nonce is kept for:
    /// each authorization server and resource server gives its own.
    /// [RFC 9449 §8](https://www.rfc-editor.org/rfc/rfc9449#section-8), [§9](https://www.rfc-editor.org/rfc/rfc9449#section-9)
    public static func origin(of url: String) -> String {
        guard let (scheme, authority, _) = URIComparison.origin(url) else { return url.lowercased() }
        return scheme + "://" + authority
    }

    /// Whether `value` has the form of a SHA-256 JWK thumbprint in base64url: 43 characters of
    /// the URL-safe alphabet, no padding (`jkt`, `dpop_jkt`;
    /// [RFC 9449 §6.1](https://www.rfc-editor.org/rfc/rfc9449#section-6.1), [§10](https://www.rfc-editor.org/rfc/rfc9449#section-10)).
    public static func isThumbprint(_ value: String) -> Bool {
        value.utf8.count == 43
            && value.utf8.allSatisfy { byte in
                (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                    || byte == 0x2D || byte == 0x5F
            }
    }

    /// Whether `token_type` is `DPoP`, compared case-insensitively
    /// ([RFC 6749 §7.1](https://www.rfc-editor.org/rfc/rfc6749#section-7.1)).
    public static func isDPoPTokenType(_ tokenType: String) -> Bool {
        tokenType.lowercased() == "dpop"
    }

    /// A fresh proof: header `typ`, `alg` and `jwk` (public members only), claims `jti`, `htm`,
    /// `htu`, `iat`, and `ath` and `nonce` when given.
    /// [RFC 9449 §4.2](https://www.rfc-editor.org/rfc/rfc9449#section-4.2)
    ///
    /// - Parameters:
    ///   - jti: unique per proof; ``Prover`` draws 128 random bits.
    ///   - accessToken: for a resource request, the token the proof goes with (`ath`).
    ///   - method: the request's method (`htm`).
    ///   - url: the request's URL (`htu`, without its query and fragment).
    ///   - key: the private key that signs the proof.
    ///   - publicJWK: the public key to put in the header; derived from `key` when `nil`.
    ///   - issuedAt: `iat`, seconds since 1970.
    ///   - nonce: the server's `DPoP-Nonce`, if it gave one.
    /// - Throws: ``Error/Code/invalidKey`` for a key without a public JWK (HMAC).
    public static func proof(
        method: HTTPRequest.Method,
        url: String,
        key: JOSE.SigningKey,
        publicJWK: JOSE.JWK? = nil,
        issuedAt: Int64,
        jti: String,
        accessToken: Secret? = nil,
        nonce: String? = nil
    ) throws -> String {
        guard let jwk = publicJWK ?? key.publicJWK else {
            throw Error(.invalidKey, "a DPoP key must be asymmetric (RFC 9449 §4.2)")
        }
        return try JOSE.JWS.sign(
            claims(method: method, url: url, issuedAt: issuedAt, jti: jti, accessToken: accessToken, nonce: nonce),
            with: key,
            protectedHeader: header(algorithm: key.algorithm, jwk: jwk)
        )
    }

    /// The protected header, the same for every proof of one key: `alg`, `jwk`, `typ`.
    static func header(algorithm: JOSE.Algorithm, jwk: JOSE.JWK) throws -> [UInt8] {
        try JOSE.json(["typ": .string(proofType), "alg": .string(algorithm.rawValue), "jwk": jwk.jsonValue()])
    }

    /// The claims as JSON, members sorted, written directly (a proof is made per request).
    static func claims(
        method: HTTPRequest.Method,
        url: String,
        issuedAt: Int64,
        jti: String,
        accessToken: Secret?,
        nonce: String?
    ) -> [UInt8] {
        var json: [UInt8] = []
        json.reserveCapacity(160 + url.utf8.count)
        json.append(UInt8(ascii: "{"))
        func member(_ name: String, _ value: String, first: Bool = false) {
            if !first { json.append(UInt8(ascii: ",")) }
            appendJSONString(name, to: &json)
            json.append(UInt8(ascii: ":"))
            appendJSONString(value, to: &json)
        }
        if let accessToken {
            member("ath", accessTokenHash(accessToken), first: true)
            member("htm", method.rawValue)
        } else {
            member("htm", method.rawValue, first: true)
        }
        member("htu", htu(url))
        json.append(contentsOf: ",\"iat\":".utf8)
        json.append(contentsOf: String(issuedAt).utf8)
        member("jti", jti)
        if let nonce { member("nonce", nonce) }
        json.append(UInt8(ascii: "}"))
        return json
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\u00XX`
    /// ([RFC 8259 §7](https://www.rfc-editor.org/rfc/rfc8259#section-7)).
    static func appendJSONString(_ string: String, to json: inout [UInt8]) {
        json.append(UInt8(ascii: "\""))
        // Most values need no escape: copied whole.
        if string.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            json.append(contentsOf: string.utf8)
            json.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                json += [UInt8(ascii: "\\"), byte]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                json += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default:
                json.append(byte)
            }
        }
        json.append(UInt8(ascii: "\""))
    }
}

extension JOSE.JWK {
    /// The public members that identify the key (those of its thumbprint, RFC 7638 §3.2), as
    /// the JSON object of a proof's `jwk` header: never a private member.
    func jsonValue() throws -> JSONValue {
        var members: [String: JSONValue] = ["kty": .string(keyType.rawValue)]
        let named: [(String, String?)] = [("crv", curve), ("x", x), ("y", y), ("n", n), ("e", e)]
        for case (let name, let value?) in named { members[name] = .string(value) }
        return .object(members)
    }
}

extension OAuth2.DPoP {
    /// Why a DPoP proof was refused or could not be made: a stable ``code`` and a ``reason``
    /// naming the claim or rule, never the proof, the key or a token.
    public struct Error: Swift.Error, Hashable, CustomStringConvertible {
        /// What went wrong, as a stable code: compare it with `==` (the set is open).
        public struct Code: Hashable, Sendable, CustomStringConvertible {
            private enum Base: String, Sendable {
                case missingProof, multipleProofs, malformed, invalidType, algorithmNotAllowed, invalidKey
                case privateKey, invalidSignature, methodMismatch, urlMismatch, issuedAtOutOfWindow
                case replayed, nonceRequired, nonceMismatch, accessTokenHashMismatch, keyMismatch
            }
            private let base: Base
            /// No `DPoP` field where one is required.
            public static let missingProof = Code(base: .missingProof)
            /// More than one `DPoP` field ([RFC 9449 §4.3](https://www.rfc-editor.org/rfc/rfc9449#section-4.3) step 1).
            public static let multipleProofs = Code(base: .multipleProofs)
            /// Not a JWS with the required claims (steps 2–4).
            public static let malformed = Code(base: .malformed)
            /// `typ` is not `dpop+jwt` (step 4).
            public static let invalidType = Code(base: .invalidType)
            /// `alg` is `none`, symmetric, or not allowed here (step 5).
            public static let algorithmNotAllowed = Code(base: .algorithmNotAllowed)
            /// The `jwk` is not a usable public key, or the client's key cannot sign proofs.
            public static let invalidKey = Code(base: .invalidKey)
            /// The `jwk` holds private members (step 7).
            public static let privateKey = Code(base: .privateKey)
            /// The signature does not verify with the `jwk` (step 6).
            public static let invalidSignature = Code(base: .invalidSignature)
            /// `htm` is not the request's method (step 8).
            public static let methodMismatch = Code(base: .methodMismatch)
            /// `htu` is not the request's URI (step 9).
            public static let urlMismatch = Code(base: .urlMismatch)
            /// `iat` is outside the accepted window (step 11).
            public static let issuedAtOutOfWindow = Code(base: .issuedAtOutOfWindow)
            /// The `jti` was seen before (step 12, §11.1).
            public static let replayed = Code(base: .replayed)
            /// The server requires a nonce and the proof has none: answer `use_dpop_nonce` (step 10).
            public static let nonceRequired = Code(base: .nonceRequired)
            /// The proof's `nonce` is not the server's current one (step 10).
            public static let nonceMismatch = Code(base: .nonceMismatch)
            /// `ath` is missing or not the hash of the presented access token (step 12).
            public static let accessTokenHashMismatch = Code(base: .accessTokenHashMismatch)
            /// The proof's key is not the one the token is bound to (`cnf.jkt`, step 12).
            public static let keyMismatch = Code(base: .keyMismatch)
            public var description: String { base.rawValue }
        }

        public let code: Code
        public let reason: String

        /// An error with its code and a reason that holds no secret.
        public init(_ code: Code, _ reason: String) {
            self.code = code
            self.reason = reason
        }

        /// Whether the server should answer `use_dpop_nonce` with a fresh `DPoP-Nonce`.
        public var asksForNonce: Bool { code == .nonceRequired || code == .nonceMismatch }

        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }
        public var description: String { "OAuth2.DPoP.Error.\(code): \(reason)" }
    }
}
