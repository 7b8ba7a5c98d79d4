/// OpenID Connect, as a relying party sees it: an OAuth 2 sign-in (``OAuth2/Flow``) plus a
/// `nonce` on the authorization request and the validation of the ID token that comes back
/// ([OpenID Connect Core 1.0 §3.1](https://openid.net/specs/openid-connect-core-1_0.html#CodeFlowAuth)),
/// discovery ([OpenID Connect Discovery 1.0](https://openid.net/specs/openid-connect-discovery-1_0.html)),
/// UserInfo ([Core §5.3](https://openid.net/specs/openid-connect-core-1_0.html#UserInfo)) and
/// RP-initiated logout ([OpenID Connect RP-Initiated Logout 1.0](https://openid.net/specs/openid-connect-rpinitiated-1_0.html)).
public enum OpenIDConnect {}

extension OpenIDConnect {
    /// Why an ID token, a UserInfo response or an OpenID Connect configuration was refused: a
    /// stable ``code`` and a ``reason`` naming the claim or rule, never a token.
    public struct Error: Swift.Error, Hashable, CustomStringConvertible {
        /// What went wrong, as a stable code: compare it with `==` (the set is open).
        public struct Code: Hashable, Sendable, CustomStringConvertible {
            private enum Base: String, Sendable {
                case malformed, invalidSignature, algorithmNotAllowed, unknownKey, keySetUnavailable
                case issuerMismatch, audienceMismatch, authorizedPartyMismatch, expired, issuedInFuture
                case nonceMismatch, authTimeMissing, authenticationTooOld, accessTokenHashMismatch
                case codeHashMismatch, subjectMismatch, missingIDToken, invalidConfiguration, userInfoFailed
                case authenticationClassNotMet
            }
            private let base: Base
            /// Not a compact JWS with a JSON claims set, or a required claim missing or of the
            /// wrong type ([Core §2](https://openid.net/specs/openid-connect-core-1_0.html#IDToken)).
            public static let malformed = Code(base: .malformed)
            /// The signature does not verify with the issuer's key
            /// ([Core §3.1.3.7](https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation) rule 6).
            public static let invalidSignature = Code(base: .invalidSignature)
            /// `alg` is not in the allow-list (never `none`; HS256 only when explicitly allowed)
            /// (rules 6–8).
            public static let algorithmNotAllowed = Code(base: .algorithmNotAllowed)
            /// No key of the issuer's JWK Set has the token's `kid`, even after one re-fetch.
            public static let unknownKey = Code(base: .unknownKey)
            /// The issuer's `jwks_uri` could not be fetched or read.
            public static let keySetUnavailable = Code(base: .keySetUnavailable)
            /// `iss` is not the issuer, character for character (rule 2).
            public static let issuerMismatch = Code(base: .issuerMismatch)
            /// `aud` does not hold the client id, or holds an audience the client does not trust
            /// (rule 3).
            public static let audienceMismatch = Code(base: .audienceMismatch)
            /// `azp` is missing with several audiences, or is not the client id (rules 4–5).
            public static let authorizedPartyMismatch = Code(base: .authorizedPartyMismatch)
            /// `exp` is past, beyond the leeway (rule 9).
            public static let expired = Code(base: .expired)
            /// `iat` is in the future, beyond the leeway (rule 10).
            public static let issuedInFuture = Code(base: .issuedInFuture)
            /// `nonce` is missing or not the one sent (rule 11).
            public static let nonceMismatch = Code(base: .nonceMismatch)
            /// `max_age` was requested and the token has no `auth_time` (rule 13).
            public static let authTimeMissing = Code(base: .authTimeMissing)
            /// `auth_time` is older than the `max_age` requested (rule 13).
            public static let authenticationTooOld = Code(base: .authenticationTooOld)
            /// `acr_values` were required (``IDTokenValidator/Expectation/requiredACRValues``) and
            /// the token's `acr` is none of them (rule 12; a step-up's class,
            /// [RFC 9470 §4](https://www.rfc-editor.org/rfc/rfc9470#section-4)).
            public static let authenticationClassNotMet = Code(base: .authenticationClassNotMet)
            /// `at_hash` is not the hash of the access token
            /// ([Core §3.1.3.8](https://openid.net/specs/openid-connect-core-1_0.html#CodeFlowTokenValidation)).
            public static let accessTokenHashMismatch = Code(base: .accessTokenHashMismatch)
            /// `c_hash` is not the hash of the code
            /// ([Core §3.3.2.11](https://openid.net/specs/openid-connect-core-1_0.html#HybridIDToken2)).
            public static let codeHashMismatch = Code(base: .codeHashMismatch)
            /// A refreshed ID token or a UserInfo response names another `sub`, `iss` or `aud`
            /// ([Core §12.2](https://openid.net/specs/openid-connect-core-1_0.html#RefreshTokenResponse),
            /// [§5.3.2](https://openid.net/specs/openid-connect-core-1_0.html#UserInfoResponse)).
            public static let subjectMismatch = Code(base: .subjectMismatch)
            /// The token response to an OpenID Connect request has no `id_token`
            /// ([Core §3.1.3.3](https://openid.net/specs/openid-connect-core-1_0.html#TokenResponse)).
            public static let missingIDToken = Code(base: .missingIDToken)
            /// The relying party is configured so that no token could pass (no algorithm left,
            /// HS256 without a client secret, a provider without `jwks_uri`).
            public static let invalidConfiguration = Code(base: .invalidConfiguration)
            /// The UserInfo endpoint refused the request or did not answer with a JSON object
            /// ([Core §5.3.3](https://openid.net/specs/openid-connect-core-1_0.html#UserInfoError)).
            public static let userInfoFailed = Code(base: .userInfoFailed)
            public var description: String { base.rawValue }
        }

        public let code: Code
        /// Names the claim or rule that failed; never a token.
        public let reason: String
        /// The HTTP status, for ``Code/userInfoFailed``.
        public let status: Int?

        /// Creates the error `code` with a `reason` that names the claim or rule, never a token, and
        /// the HTTP status for a UserInfo failure.
        public init(_ code: Code, _ reason: String, status: Int? = nil) {
            self.code = code
            self.reason = reason
            self.status = status
        }

        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }
        public var description: String { "OpenIDConnect.Error.\(code): \(reason)" }
    }
}
