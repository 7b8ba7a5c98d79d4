extension OAuth2 {
    /// How `private_key_jwt` and `client_secret_jwt` make the JWT that authenticates the
    /// client ([RFC 7523 §2.2](https://www.rfc-editor.org/rfc/rfc7523#section-2.2),
    /// [§3](https://www.rfc-editor.org/rfc/rfc7523#section-3);
    /// [OpenID Connect Core §9](https://openid.net/specs/openid-connect-core-1_0.html#ClientAuthentication)).
    ///
    /// A fresh assertion is signed for every request, with the clock and the random source
    /// given here (the core has neither of its own):
    /// - `iss` and `sub`: the client id (RFC 7523 §3 items 1–2);
    /// - `aud`: see ``Audience``; by default the URL of the endpoint the request goes to, which
    ///   for a token request is the token endpoint (RFC 7523 §3 item 3);
    /// - `exp`: `iat` plus ``lifetime`` (60 s by default: short, as RFC 7523 §3 item 4 and
    ///   FAPI 2 ask), `iat`: now;
    /// - `jti`: 128 random bits as base64url, so that the server can refuse a replay (item 7).
    ///
    /// The header is `alg` (the key's) and `kid` when the key has one. The key stays in
    /// memory: a stored ``Session`` keeps the method name only, and whoever restores it gives
    /// the key again (the CLI keeps the key file's path with its profile).
    public struct ClientAssertion: Sendable, Hashable, CustomStringConvertible {
        /// `client_assertion_type` ([RFC 7523 §2.2](https://www.rfc-editor.org/rfc/rfc7523#section-2.2)).
        public static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
        /// The default ``lifetime``: 60 seconds.
        public static let defaultLifetime: Int64 = 60

        /// The `aud` claim.
        ///
        /// RFC 7523 §3 lets the authorization server say which audiences it accepts, and names
        /// the token endpoint URL as one that may be used: ``endpoint`` (the default, what
        /// OpenID Connect Core §9 asks for). The 2025 update of RFC 7523
        /// (draft-ietf-oauth-rfc7523bis) and FAPI 2.0 prefer the issuer identifier, a single
        /// string: ``issuer(_:)``.
        public enum Audience: Sendable, Hashable {
            /// The URL the request is posted to: the token endpoint for token requests (and the
            /// revocation or introspection endpoint for those requests).
            case endpoint
            /// The authorization server's issuer identifier.
            case issuer(String)
            /// Any other value the server documents.
            case custom(String)
        }

        let key: JOSE.SigningKey
        /// What the `aud` claim holds: by default the URL of the endpoint the request goes to.
        public let audience: Audience
        /// Seconds between `iat` and `exp`.
        public let lifetime: Int64
        private let now: @Sendable () -> Int64
        private let random: RandomSource

        /// - Parameters:
        ///   - now: the clock, in seconds since 1970.
        ///   - random: the source of each `jti`.
        ///   - key: the key that signs the assertion.
        ///   - audience: the `aud` claim.
        ///   - lifetime: seconds from `iat` to `exp`.
        public init(
            key: JOSE.SigningKey,
            audience: Audience = .endpoint,
            lifetime: Int64 = ClientAssertion.defaultLifetime,
            now: @escaping @Sendable () -> Int64,
            random: RandomSource
        ) {
            self.key = key
            self.audience = audience
            self.lifetime = lifetime
            self.now = now
            self.random = random
        }

        /// The algorithm the assertion is signed with.
        public var algorithm: JOSE.Algorithm { key.algorithm }

        /// The claims of an assertion for `clientID`, sent to `endpoint`, at `issuedAt`, with `jti`.
        public func claims(clientID: String, endpoint: String, issuedAt: Int64, jti: String) -> [String: JSONValue] {
            let aud: String =
                switch audience {
                case .endpoint: endpoint
                case .issuer(let issuer): issuer
                case .custom(let value): value
                }
            return [
                "iss": .string(clientID), "sub": .string(clientID), "aud": .string(aud),
                "iat": .integer(issuedAt), "exp": .integer(issuedAt + lifetime), "jti": .string(jti),
            ]
        }

        /// A freshly signed assertion: now, a new `jti`.
        public func sign(clientID: String, endpoint: String) throws -> String {
            let jti = RemoteAuthBase64URL.encode(random.bytes(16))
            do {
                return try JOSE.JWS.sign(
                    claims: claims(clientID: clientID, endpoint: endpoint, issuedAt: now(), jti: jti),
                    with: key
                )
            } catch {
                throw OAuth2.Error(.invalidConfiguration, "the client assertion cannot be signed: \(error)")
            }
        }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.audience == rhs.audience && lhs.lifetime == rhs.lifetime && lhs.key.algorithm == rhs.key.algorithm
                && lhs.key.keyID == rhs.key.keyID
                && (lhs.key.publicJWK ?? lhs.key.privateJWK) == (rhs.key.publicJWK ?? rhs.key.privateJWK)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(audience)
            hasher.combine(lifetime)
            hasher.combine(key.algorithm)
            hasher.combine(key.keyID)
        }

        public var description: String {
            "OAuth2.ClientAssertion(\(key.algorithm)\(key.keyID.map { ", kid: \($0)" } ?? ""), lifetime: \(lifetime) s)"
        }
    }
}
