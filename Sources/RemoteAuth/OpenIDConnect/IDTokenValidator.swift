import Crypto

extension OpenIDConnect {
    /// Validates ID tokens as [OpenID Connect Core §3.1.3.7](https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation)
    /// says, for one client of one issuer. The rules, numbered as there:
    ///
    /// 1. An encrypted ID token (a JWE) is refused: this client registers none.
    /// 2. `iss` equals the issuer exactly (the one discovery checked, Discovery §4.3).
    /// 3. `aud` (a string or an array) contains the client id; any other audience must be one
    ///    the client trusts (``trustedAudiences``, empty by default).
    /// 4. With several audiences, `azp` is required (this library requires it, as the 2023
    ///    errata do); `aud` itself is always required: `azp` alone is never enough.
    /// 5. `azp`, when present, equals the client id.
    /// 6–8. The signature verifies with one of the issuer's keys (its `jwks_uri`, through a
    ///    ``JOSE/KeySetCache``), under an allow-list of algorithms: RS256 and ES256 by default,
    ///    intersected with the discovered `id_token_signing_alg_values_supported`; `none`
    ///    never; HS256 only when explicitly allowed, and then only with the client secret as
    ///    the key (never a key from the JWK Set).
    /// 9. `exp` is after now, with ``leeway`` seconds of clock skew allowed.
    /// 10. `iat` is not after now plus the leeway.
    /// 11. `nonce` equals the one sent, compared in constant time; required when one was sent.
    /// 12. `acr`: returned in ``IDToken/authenticationContextClass`` for the caller to judge;
    ///    when the request's `acr_values` must be met (``Expectation/requiredACRValues``, a
    ///    step-up's, [RFC 9470 §4](https://www.rfc-editor.org/rfc/rfc9470#section-4)), it is
    ///    required and one of them.
    /// 13. When `max_age` was requested, `auth_time` is required and not older than `max_age`
    ///    plus the leeway.
    ///
    /// Then, from [§3.1.3.8](https://openid.net/specs/openid-connect-core-1_0.html#CodeFlowTokenValidation)
    /// and [§3.3.2.11](https://openid.net/specs/openid-connect-core-1_0.html#HybridIDToken2):
    /// `at_hash` and `c_hash`, when present, are the base64url of the left half of the hash
    /// of the access token or code (SHA-256 for the `…256` algorithms, SHA-512 for EdDSA over
    /// Ed25519).
    public struct IDTokenValidator: Sendable {
        /// Where the issuer's verification keys come from.
        public enum Keys: Sendable {
            /// The issuer's `jwks_uri`, cached; re-fetched once on an unknown `kid`.
            case keySetCache(JOSE.KeySetCache)
            /// A fixed set (tests, a provider configured by hand).
            case keys([JOSE.VerificationKey])
        }

        /// What the authorization request asked for, that the ID token must match.
        public struct Expectation: Sendable {
            /// The `nonce` sent (rule 11).
            public var nonce: Secret?
            /// The `max_age` sent, in seconds (rule 13).
            public var maxAge: Int64?
            /// The access token issued with the ID token, for `at_hash`.
            public var accessToken: Secret?
            /// The authorization code, for `c_hash`.
            public var code: Secret?
            /// `acr_values` the sign-in had to meet (rule 12): a resource's step-up asked for
            /// them. `acr_values` alone is a voluntary request (Core §3.1.2.1); set this only
            /// where the class is needed.
            public var requiredACRValues: [String]?

            /// What to check the ID token against: the `nonce` and `max_age` sent, the access token
            /// and code issued with it (for `at_hash` and `c_hash`), and the `acr` values it must meet.
            public init(
                nonce: Secret? = nil,
                maxAge: Int64? = nil,
                accessToken: Secret? = nil,
                code: Secret? = nil,
                requiredACRValues: [String]? = nil
            ) {
                self.nonce = nonce
                self.maxAge = maxAge
                self.accessToken = accessToken
                self.code = code
                self.requiredACRValues = requiredACRValues
            }
        }

        /// The algorithms allowed when nothing else is said: RS256 (which every provider must
        /// support, Core §15.1) and ES256.
        public static let defaultAlgorithms: Set<JOSE.Algorithm> = [.rs256, .es256]

        /// The issuer `iss` must equal exactly.
        public let issuer: String
        /// The client `aud` must contain.
        public let clientID: String
        /// Where the issuer's verification keys come from.
        public let keys: Keys
        /// The algorithms a token may use: the allow-list asked for, intersected with what the
        /// provider said it signs with; never `none`.
        public let allowedAlgorithms: Set<JOSE.Algorithm>
        /// Seconds of clock skew allowed on `exp`, `iat` and `auth_time`. Default 60.
        public var leeway: Int64
        /// Audiences besides the client id that a token may name (rule 3).
        public var trustedAudiences: Set<String>
        /// The HS256 key, when HS256 is allowed.
        private let clientSecret: Secret?
        /// ``allowedAlgorithms`` without HS256: what the issuer's keys may verify.
        private let asymmetricAlgorithms: Set<JOSE.Algorithm>

        /// - Parameters:
        ///   - issuer: the issuer identifier, as discovery returned (and checked) it.
        ///   - allowedAlgorithms: the allow-list; default RS256 and ES256.
        ///   - supportedAlgorithms: the provider's `id_token_signing_alg_values_supported`,
        ///     when discovered: the allow-list is intersected with it.
        ///   - clientSecret: the client secret, the HS256 key; used only when `allowedAlgorithms`
        ///     holds HS256.
        ///   - clientID: the client's `client_id`, which `aud` must contain.
        ///   - keys: where the issuer's verification keys come from.
        ///   - leeway: seconds of clock skew allowed for `exp`, `iat` and `auth_time`.
        ///   - trustedAudiences: audiences besides the client that may appear in `aud`.
        /// - Throws: ``OpenIDConnect/Error/Code/invalidConfiguration`` when no algorithm is left,
        ///   or HS256 is allowed without a client secret.
        public init(
            issuer: String,
            clientID: String,
            keys: Keys,
            allowedAlgorithms: Set<JOSE.Algorithm> = IDTokenValidator.defaultAlgorithms,
            supportedAlgorithms: [String]? = nil,
            clientSecret: Secret? = nil,
            leeway: Int64 = 60,
            trustedAudiences: Set<String> = []
        ) throws {
            var allowed = allowedAlgorithms.subtracting([.none])
            if let supportedAlgorithms {
                allowed.formIntersection(supportedAlgorithms.map { JOSE.Algorithm(rawValue: $0) })
            }
            guard !allowed.isEmpty else {
                throw OpenIDConnect.Error(
                    .invalidConfiguration,
                    "no ID token algorithm is left: allowed \(allowedAlgorithms.map(\.rawValue).sorted()), the provider signs with \(supportedAlgorithms ?? [])"
                )
            }
            if allowed.contains(.hs256) {
                guard let clientSecret else {
                    throw OpenIDConnect.Error(
                        .invalidConfiguration,
                        "HS256 ID tokens need the client secret as their key"
                    )
                }
                do {
                    _ = try JOSE.VerificationKey(hmacSecret: clientSecret)
                } catch {
                    throw OpenIDConnect.Error(
                        .invalidConfiguration,
                        "the client secret cannot be an HS256 key: \(error)"
                    )
                }
                self.clientSecret = clientSecret
            } else {
                self.clientSecret = nil
            }
            self.issuer = issuer
            self.clientID = clientID
            self.keys = keys
            self.allowedAlgorithms = allowed
            self.asymmetricAlgorithms = allowed.subtracting([.hs256])
            self.leeway = leeway
            self.trustedAudiences = trustedAudiences
        }

        /// Validates `token` (rules 1–13, `at_hash`, `c_hash`) at `now` (seconds since 1970).
        ///
        /// - Returns: the claims.
        /// - Throws: ``OpenIDConnect/Error`` with the code of the first rule that fails.
        public func validate(
            _ token: Secret,
            expecting expectation: Expectation = Expectation(),
            now: Int64
        )
            async throws -> IDToken
        {
            let jws = try Self.parse(token)
            try await verifySignature(jws)
            let idToken = try IDToken(claims: Self.claims(of: jws), token: token)
            try checkClaims(idToken, algorithm: jws.algorithm, expecting: expectation, now: now)
            return idToken
        }

        /// Validates the ID token of a refresh response
        /// ([Core §12.2](https://openid.net/specs/openid-connect-core-1_0.html#RefreshTokenResponse)):
        /// every rule of ``validate(_:expecting:now:)`` but the nonce, then `iss`, `sub` and
        /// `aud` the same as `original`'s, `auth_time` the same when both have one, and `nonce`
        /// absent or the same.
        ///
        /// - Throws: ``OpenIDConnect/Error/Code/subjectMismatch`` for another `iss`, `sub`,
        ///   `aud` or `auth_time`; ``OpenIDConnect/Error/Code/nonceMismatch``; the errors of
        ///   ``validate(_:expecting:now:)``.
        public func validateRefreshed(
            _ token: Secret,
            original: IDToken,
            accessToken: Secret? = nil,
            now: Int64
        ) async throws -> IDToken {
            let refreshed = try await validate(token, expecting: Expectation(accessToken: accessToken), now: now)
            guard refreshed.issuer == original.issuer, refreshed.subject == original.subject,
                Set(refreshed.audiences) == Set(original.audiences)
            else {
                throw OpenIDConnect.Error(
                    .subjectMismatch,
                    "the refreshed ID token's iss, sub or aud differ from the original's (Core §12.2)"
                )
            }
            if let before = original.authTime, let after = refreshed.authTime, before != after {
                throw OpenIDConnect.Error(.subjectMismatch, "the refreshed ID token's auth_time differs (Core §12.2)")
            }
            if let nonce = refreshed.nonce {
                guard let originalNonce = original.nonce, constantTimeEquals(nonce, originalNonce) else {
                    throw OpenIDConnect.Error(
                        .nonceMismatch,
                        "the refreshed ID token's nonce is not the original's (Core §12.2)"
                    )
                }
            }
            return refreshed
        }

        // MARK: - The steps

        /// Rule 1: a compact JWS, not a JWE.
        static func parse(_ token: Secret) throws -> JOSE.CompactJWS {
            do {
                return try JOSE.CompactJWS(token.reveal())
            } catch let error as JOSE.Error {
                if token.reveal().split(separator: ".", omittingEmptySubsequences: false).count == 5 {
                    throw OpenIDConnect.Error(.malformed, "an encrypted ID token (JWE) is not supported here (rule 1)")
                }
                throw OpenIDConnect.Error(.malformed, "the ID token is not a compact JWS: \(error.reason)")
            }
        }

        static func claims(of jws: JOSE.CompactJWS) throws -> [String: JSONValue] {
            do {
                return try jws.claims()
            } catch {
                throw OpenIDConnect.Error(.malformed, "the ID token's payload is not a JSON object")
            }
        }

        /// Rules 6–8.
        func verifySignature(_ jws: JOSE.CompactJWS) async throws {
            guard case .keySetCache(let cache) = keys, !usesClientSecret(jws) else {
                try verifySignatureWithoutFetch(jws)
                return
            }
            do {
                try await cache.verify(jws, allowing: asymmetricAlgorithms)
            } catch let error as JOSE.Error {
                throw Self.map(error)
            }
        }

        /// Rule 8: an HS256 token is verified with the client secret, whatever the JWK Set holds.
        private func usesClientSecret(_ jws: JOSE.CompactJWS) -> Bool {
            jws.algorithm == .hs256 && allowedAlgorithms.contains(.hs256) && clientSecret != nil
        }

        /// Rules 6–8 without a fetch: with the client secret (HS256) or the fixed keys
        /// (``Keys/keys(_:)``); a ``Keys/keySetCache(_:)`` validator refuses here with
        /// ``OpenIDConnect/Error/Code/keySetUnavailable`` (it verifies in ``verifySignature(_:)``).
        func verifySignatureWithoutFetch(_ jws: JOSE.CompactJWS) throws {
            do {
                if usesClientSecret(jws), let clientSecret {
                    let key = try JOSE.VerificationKey(hmacSecret: clientSecret, keyID: jws.keyID)
                    try jws.verify(with: key, allowing: [.hs256])
                    return
                }
                switch keys {
                case .keySetCache:
                    throw JOSE.Error(.keySetUnavailable, "the JWK Set is verified with in verifySignature(_:)")
                case .keys(let keys):
                    try jws.verify(with: keys, allowing: asymmetricAlgorithms)
                }
            } catch let error as JOSE.Error {
                throw Self.map(error)
            }
        }

        static func map(_ error: JOSE.Error) -> OpenIDConnect.Error {
            let code: OpenIDConnect.Error.Code =
                switch error.code {
                case .algorithmNotAllowed, .unsupportedAlgorithm: .algorithmNotAllowed
                case .unknownKey, .ambiguousKey: .unknownKey
                case .keySetUnavailable: .keySetUnavailable
                case .malformed, .tooLarge, .criticalHeader: .malformed
                default: .invalidSignature
                }
            return OpenIDConnect.Error(code, "\(error.code): \(error.reason)")
        }

        /// Rules 2–5 and 9–13, `at_hash`, `c_hash`.
        func checkClaims(
            _ token: IDToken,
            algorithm: JOSE.Algorithm,
            expecting expectation: Expectation,
            now: Int64
        )
            throws
        {
            // 2. iss: exact string comparison.
            guard token.issuer == issuer else {
                throw OpenIDConnect.Error(.issuerMismatch, "iss is '\(token.issuer)', not '\(issuer)' (rule 2)")
            }
            // 3. aud contains the client id, and no audience the client does not trust.
            guard token.audiences.contains(clientID) else {
                throw OpenIDConnect.Error(
                    .audienceMismatch,
                    "aud \(token.audiences) does not hold '\(clientID)' (rule 3)"
                )
            }
            if let untrusted = token.audiences.first(where: { $0 != clientID && !trustedAudiences.contains($0) }) {
                throw OpenIDConnect.Error(
                    .audienceMismatch,
                    "aud holds '\(untrusted)', an audience not trusted (rule 3)"
                )
            }
            // 4. Several audiences: azp required.
            if token.audiences.count > 1, token.authorizedParty == nil {
                throw OpenIDConnect.Error(
                    .authorizedPartyMismatch,
                    "aud has several audiences and there is no azp (rule 4)"
                )
            }
            // 5. azp, when present, is the client id.
            if let azp = token.authorizedParty, azp != clientID {
                throw OpenIDConnect.Error(.authorizedPartyMismatch, "azp is '\(azp)', not '\(clientID)' (rule 5)")
            }
            // 9. exp: the current time is before it (with the leeway).
            guard now < token.expiresAt.addingSaturating(leeway) else {
                // Named with the skew it would take, so that a clock set wrong is easy to see.
                let past = now.subtractingSaturating(token.expiresAt)
                throw OpenIDConnect.Error(
                    .expired,
                    "exp \(token.expiresAt) is \(past) s past (now \(now), leeway \(leeway) s): the token expired, "
                        + "or this machine's clock is at least \(past) s ahead of the issuer's (rule 9)"
                )
            }
            // 10. iat: not in the future beyond the leeway.
            guard token.issuedAt <= now.addingSaturating(leeway) else {
                let ahead = token.issuedAt.subtractingSaturating(now)
                throw OpenIDConnect.Error(
                    .issuedInFuture,
                    "iat \(token.issuedAt) is \(ahead) s in the future (now \(now), leeway \(leeway) s): this machine's "
                        + "clock is at least \(ahead) s behind the issuer's (rule 10)"
                )
            }
            // 11. nonce: required and equal when one was sent.
            if let nonce = expectation.nonce {
                guard let received = token.nonce else {
                    throw OpenIDConnect.Error(.nonceMismatch, "a nonce was sent and the ID token has none (rule 11)")
                }
                guard nonce.matches(received) else {
                    throw OpenIDConnect.Error(.nonceMismatch, "the ID token's nonce is not the one sent (rule 11)")
                }
            }
            // 12. acr, when the class must be met.
            if let required = expectation.requiredACRValues {
                guard let acr = token.authenticationContextClass, required.contains(acr) else {
                    let got = token.authenticationContextClass.map { "is \(PeerText.printable($0, limit: 200))" } ?? "is missing"
                    throw OpenIDConnect.Error(
                        .authenticationClassNotMet,
                        "the ID token's acr \(got), not one of the acr_values asked for: \(required.joined(separator: " ")) (rule 12, RFC 9470 §4)"
                    )
                }
            }
            // 13. auth_time, when max_age was requested.
            if let maxAge = expectation.maxAge {
                guard let authTime = token.authTime else {
                    throw OpenIDConnect.Error(
                        .authTimeMissing,
                        "max_age was requested and there is no auth_time (rule 13)"
                    )
                }
                guard now.subtractingSaturating(authTime) <= maxAge.addingSaturating(leeway) else {
                    throw OpenIDConnect.Error(
                        .authenticationTooOld,
                        "auth_time \(authTime) is more than max_age \(maxAge) s before now \(now) (rule 13)"
                    )
                }
            }
            // §3.1.3.8: at_hash, when present.
            if let atHash = token.accessTokenHash, let accessToken = expectation.accessToken {
                guard constantTimeEquals(atHash, Self.halfHash(accessToken.reveal(), algorithm: algorithm)) else {
                    throw OpenIDConnect.Error(
                        .accessTokenHashMismatch,
                        "at_hash is not the access token's (Core §3.1.3.8)"
                    )
                }
            }
            // §3.3.2.11: c_hash, when present.
            if let cHash = token.codeHash, let code = expectation.code {
                guard constantTimeEquals(cHash, Self.halfHash(code.reveal(), algorithm: algorithm)) else {
                    throw OpenIDConnect.Error(.codeHashMismatch, "c_hash is not the code's (Core §3.3.2.11)")
                }
            }
        }

        /// `at_hash` / `c_hash`: the base64url of the left-most half of the hash of the ASCII
        /// octets of `value`, with the hash of the JWS algorithm
        /// ([Core §3.1.3.6](https://openid.net/specs/openid-connect-core-1_0.html#CodeIDToken)):
        /// SHA-256 for RS256, PS256, ES256 and HS256; SHA-512 for EdDSA over Ed25519.
        public static func halfHash(_ value: String, algorithm: JOSE.Algorithm) -> String {
            let digest: [UInt8] =
                algorithm == .edDSA
                ? Array(SHA512.hash(data: Array(value.utf8))) : Array(SHA256.hash(data: Array(value.utf8)))
            return RemoteAuthBase64URL.encode(digest.prefix(digest.count / 2))
        }
    }
}
