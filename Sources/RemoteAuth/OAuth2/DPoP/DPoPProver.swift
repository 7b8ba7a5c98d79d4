public import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OAuth2.DPoP {
    /// The `DPoP-Nonce`s servers gave, one per origin: the authorization server and each
    /// resource server keep their own. A newer nonce from the same origin replaces the older.
    /// [RFC 9449 §8](https://www.rfc-editor.org/rfc/rfc9449#section-8),
    /// [§9](https://www.rfc-editor.org/rfc/rfc9449#section-9)
    public struct NonceStore: Sendable, Hashable {
        private var nonces: [String: String] = [:]

        /// No nonce yet.
        public init() {}

        /// The nonce to put in the next proof for `url`, if its origin gave one.
        public func nonce(for url: String) -> String? {
            nonces.isEmpty ? nil : nonces[OAuth2.DPoP.origin(of: url)]
        }

        /// Remembers the `DPoP-Nonce` of a response to a request for `url` (any status: a `200`
        /// may carry the next nonce). A value that is not `1*NQCHAR` is ignored.
        ///
        /// - Returns: the nonce now remembered for that origin, when the response had one.
        @discardableResult
        public mutating func update(from fields: HTTPFields, for url: String) -> String? {
            guard let value = fields[.dpopNonce], OAuth2.DPoP.isNonce(value) else { return nil }
            nonces[OAuth2.DPoP.origin(of: url)] = value
            return value
        }

        /// How many origins gave a nonce.
        public var count: Int { nonces.count }
    }

    /// `nonce = 1*NQCHAR`, `NQCHAR = %x21 / %x23-5B / %x5D-7E`.
    /// [RFC 9449 §8.1](https://www.rfc-editor.org/rfc/rfc9449#section-8.1)
    public static func isNonce(_ value: String) -> Bool {
        !value.isEmpty
            && value.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }

    /// Whether a response asks for a proof with a (new) server nonce, and which:
    /// [RFC 9449 §8](https://www.rfc-editor.org/rfc/rfc9449#section-8) at the authorization
    /// server (`400` with the JSON error `use_dpop_nonce`), [§9](https://www.rfc-editor.org/rfc/rfc9449#section-9)
    /// at a resource server (`401` with a `DPoP` challenge whose `error` is `use_dpop_nonce`),
    /// with the nonce in `DPoP-Nonce`. `nil` when it does not, or when the nonce is the one the
    /// refused proof already had (a retry could only fail the same way).
    public static func nonceChallenge(
        in response: HTTPResponse,
        body: [UInt8]?,
        sentNonce: String?
    ) -> String? {
        guard let nonce = response.headerFields[.dpopNonce], isNonce(nonce), nonce != sentNonce else { return nil }
        switch response.status.code {
        case 400:
            guard let body,
                let object = try? JSONValue.parseObject(body),
                object["error"]?.stringValue == OAuth2.ErrorCode.useDPoPNonce.rawValue
            else { return nil }
            return nonce
        case 401:
            let challenges = AuthenticationChallenge.parseEachField(response.headerFields, name: .wwwAuthenticate)
            let asks = challenges.challenges.contains {
                $0.hasScheme(OAuth2.DPoP.scheme) && $0.parameter("error") == OAuth2.ErrorCode.useDPoPNonce.rawValue
            }
            return asks ? nonce : nil
        default:
            return nil
        }
    }

    /// A client's DPoP key, the clock and randomness for proofs, and the nonces servers gave:
    /// one per session, shared by its token endpoint requests and its resource requests.
    ///
    /// ```swift
    /// let prover = try OAuth2.DPoP.Prover(key: .generateP256(), now: now)
    /// let proof = try prover.proof(method: .get, url: "https://api.example.com/me", accessToken: token)
    /// ```
    public final class Prover: Sendable, CustomStringConvertible {
        /// The private key proofs are signed with.
        public let key: JOSE.SigningKey
        /// Its public JWK, sent in every proof's header.
        public let publicJWK: JOSE.JWK
        /// Its RFC 7638 thumbprint: the `jkt` tokens are bound to.
        /// [RFC 9449 §6.1](https://www.rfc-editor.org/rfc/rfc9449#section-6.1)
        public let thumbprint: String
        /// The protected header in base64url, the same for every proof.
        private let encodedHeader: String
        private let now: @Sendable () -> Int64
        private let random: RandomSource
        /// The nonces per origin; the lock guards only this value.
        private let nonces: Locked<NonceStore>

        /// - Parameters:
        ///   - key: an asymmetric key (P-256 by default, ``JOSE/SigningKey/generateP256(keyID:)``).
        ///   - now: seconds since 1970, for `iat`.
        ///   - random: where each proof's 128-bit `jti` comes from.
        /// - Throws: ``Error/Code/invalidKey`` for an HMAC key.
        public init(key: JOSE.SigningKey, now: @escaping @Sendable () -> Int64, random: RandomSource = .system) throws {
            guard let jwk = key.publicJWK, let thumbprint = try? jwk.thumbprint() else {
                throw Error(.invalidKey, "a DPoP key must be asymmetric (RFC 9449 §4.2)")
            }
            self.key = key
            self.publicJWK = jwk
            self.thumbprint = thumbprint
            self.encodedHeader = RemoteAuthBase64URL.encode(try OAuth2.DPoP.header(algorithm: key.algorithm, jwk: jwk))
            self.now = now
            self.random = random
            self.nonces = Locked(NonceStore())
        }

        /// A prover for the key stored as a private JWK (``OAuth2/Session/dpopKey``).
        public convenience init(
            jwk: JOSE.JWK,
            now: @escaping @Sendable () -> Int64,
            random: RandomSource = .system
        )
            throws
        {
            try self.init(key: try JOSE.SigningKey(jwk: jwk), now: now, random: random)
        }

        /// A fresh proof for a request with `method` to `url`, with the origin's nonce when it
        /// gave one, and `ath` when `accessToken` is given (a resource request).
        /// [RFC 9449 §4.2](https://www.rfc-editor.org/rfc/rfc9449#section-4.2)
        public func proof(method: HTTPRequest.Method, url: String, accessToken: Secret? = nil) throws -> String {
            try proofAndNonce(method: method, url: url, accessToken: accessToken).proof
        }

        /// ``proof(method:url:accessToken:)`` and the nonce it carries.
        package func proofAndNonce(
            method: HTTPRequest.Method,
            url: String,
            accessToken: Secret? = nil
        ) throws -> (proof: String, nonce: String?) {
            let nonce = nonce(for: url)
            let claims = OAuth2.DPoP.claims(
                method: method,
                url: url,
                issuedAt: now(),
                jti: RemoteAuthBase64URL.encode(random.bytes(16)),
                accessToken: accessToken,
                nonce: nonce
            )
            return (try JOSE.JWS.sign(claims, with: key, encodedHeader: encodedHeader), nonce)
        }

        /// The nonce the next proof for `url` carries.
        public func nonce(for url: String) -> String? { nonces.withLock { $0.nonce(for: url) } }

        /// Remembers the `DPoP-Nonce` of a response to a request for `url`.
        @discardableResult
        public func update(from fields: HTTPFields, for url: String) -> String? {
            nonces.withLock { $0.update(from: fields, for: url) }
        }

        /// The key as a private JWK, to store with the session (``OAuth2/Session/dpopKey``).
        public var privateJWK: JOSE.JWK? { key.privateJWK }

        /// `OAuth2.DPoP.Prover(jkt: …)`: the thumbprint only, never the key.
        public var description: String { "OAuth2.DPoP.Prover(jkt: \(thumbprint))" }
    }
}
