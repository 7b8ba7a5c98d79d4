extension OpenIDConnect {
    /// The claims of a validated ID token
    /// ([OpenID Connect Core §2](https://openid.net/specs/openid-connect-core-1_0.html#IDToken)):
    /// the standard ones typed, and every member in ``claims``.
    ///
    /// `description` shows the claims (who signed in, when, for whom): none of them is a
    /// credential. The token itself, which is one (it is an `id_token_hint` and, at some
    /// providers, a bearer assertion), is kept as a ``Secret`` in ``token`` and never printed.
    public struct IDToken: Sendable, Hashable, CustomStringConvertible {
        /// `iss`: the issuer identifier.
        public let issuer: String
        /// `sub`: the end-user's identifier at the issuer, never reassigned.
        public let subject: String
        /// `aud`: one string or an array, read as a list.
        public let audiences: [String]
        /// `exp`, seconds since 1970.
        public let expiresAt: Int64
        /// `iat`, seconds since 1970.
        public let issuedAt: Int64
        /// `auth_time`, seconds since 1970: when the end-user authenticated.
        public let authTime: Int64?
        /// `nonce`, as the client sent it.
        public let nonce: String?
        /// `acr`: the authentication context class reference.
        public let authenticationContextClass: String?
        /// `amr`: the authentication methods references.
        public let authenticationMethods: [String]?
        /// `azp`: the authorized party.
        public let authorizedParty: String?
        /// `at_hash` ([Core §3.1.3.6](https://openid.net/specs/openid-connect-core-1_0.html#CodeIDToken)).
        public let accessTokenHash: String?
        /// `c_hash` ([Core §3.3.2.11](https://openid.net/specs/openid-connect-core-1_0.html#HybridIDToken2)).
        public let codeHash: String?
        /// Every claim, the standard ones included (`name`, `email`, … of
        /// [Core §5.1](https://openid.net/specs/openid-connect-core-1_0.html#StandardClaims)).
        public let claims: [String: JSONValue]
        /// The compact JWS, for `id_token_hint` (RP-initiated logout). Never printed.
        public let token: Secret

        /// Reads the claims set of an ID token, checking the type of each standard claim and
        /// that the required ones are there: `iss`, `sub`, `aud`, `exp`, `iat`
        /// ([Core §2](https://openid.net/specs/openid-connect-core-1_0.html#IDToken)). It checks
        /// no value: ``IDTokenValidator`` does.
        ///
        /// - Throws: ``OpenIDConnect/Error/Code/malformed``.
        public init(claims: [String: JSONValue], token: Secret) throws {
            func string(_ name: String) throws -> String? {
                guard let value = claims[name] else { return nil }
                guard case .string(let string) = value else {
                    throw OpenIDConnect.Error(.malformed, "the ID token's '\(name)' is not a string")
                }
                return string
            }
            func required(_ name: String) throws -> String {
                guard let value = try string(name) else {
                    throw OpenIDConnect.Error(.malformed, "the ID token has no '\(name)' (Core §2)")
                }
                return value
            }
            func time(_ name: String) throws -> Int64? {
                // NumericDate (RFC 7519 §2) may have a fraction: whole seconds are kept.
                switch claims[name] {
                case nil: return nil
                case .integer(let value)?: return value
                case .number(let value)? where value.isFinite && abs(value) < 1e15: return Int64(value.rounded(.down))
                default: throw OpenIDConnect.Error(.malformed, "the ID token's '\(name)' is not a NumericDate")
                }
            }
            issuer = try required("iss")
            subject = try required("sub")
            guard !subject.isEmpty, subject.utf8.count <= 255 else {
                throw OpenIDConnect.Error(
                    .malformed,
                    "the ID token's 'sub' must have 1 to 255 ASCII characters (Core §2)"
                )
            }
            switch claims["aud"] {
            case .string(let audience)?:
                audiences = [audience]
            case .array(let values)?:
                audiences = try values.map {
                    guard case .string(let audience) = $0 else {
                        throw OpenIDConnect.Error(.malformed, "the ID token's 'aud' holds a value that is not a string")
                    }
                    return audience
                }
                guard !audiences.isEmpty else { throw OpenIDConnect.Error(.malformed, "the ID token's 'aud' is empty") }
            case nil:
                throw OpenIDConnect.Error(.malformed, "the ID token has no 'aud' (Core §2)")
            default:
                throw OpenIDConnect.Error(.malformed, "the ID token's 'aud' is neither a string nor an array")
            }
            guard let expiresAt = try time("exp") else {
                throw OpenIDConnect.Error(.malformed, "the ID token has no 'exp' (Core §2)")
            }
            guard let issuedAt = try time("iat") else {
                throw OpenIDConnect.Error(.malformed, "the ID token has no 'iat' (Core §2)")
            }
            self.expiresAt = expiresAt
            self.issuedAt = issuedAt
            authTime = try time("auth_time")
            nonce = try string("nonce")
            authenticationContextClass = try string("acr")
            switch claims["amr"] {
            case nil: authenticationMethods = nil
            case .array(let values)?:
                authenticationMethods = try values.map {
                    guard case .string(let method) = $0 else {
                        throw OpenIDConnect.Error(.malformed, "the ID token's 'amr' holds a value that is not a string")
                    }
                    return method
                }
            default: throw OpenIDConnect.Error(.malformed, "the ID token's 'amr' is not an array")
            }
            authorizedParty = try string("azp")
            accessTokenHash = try string("at_hash")
            codeHash = try string("c_hash")
            self.claims = claims
            self.token = token
        }

        public var description: String {
            let members = claims.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            return "OpenIDConnect.IDToken(\(members.joined(separator: ", ")))"
        }
    }
}
