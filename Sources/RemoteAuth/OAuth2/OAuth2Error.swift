extension OAuth2 {
    /// Why an OAuth 2 step stopped: a stable ``code``, a ``reason`` that never holds a secret
    /// (no token, code, verifier or client secret), and what the server said when it said
    /// something: its ``serverError`` (RFC 6749 §5.2) and HTTP ``status``.
    public struct Error: Swift.Error, Hashable, CustomStringConvertible {
        /// What went wrong, as a stable code: compare it with `==` (the set is open).
        public struct Code: Hashable, Sendable, CustomStringConvertible {
            private enum Base: String, Sendable {
                case serverRefused, malformedResponse, stateMismatch, issuerMismatch
                case reauthorizationRequired, insecureEndpoint, invalidConfiguration
                case refreshLimitExceeded, unsupportedTokenType, deviceCodeExpired, unexpectedTokens, resourceMismatch
                case unsuitableAuthorizationServer, signedMetadataRefused, registrationRefused
            }
            private let base: Base
            /// The server answered with an OAuth error (``Error/serverError`` holds it), at the
            /// authorization endpoint (through the redirect) or at a token-style endpoint.
            public static let serverRefused = Code(base: .serverRefused)
            /// The server's answer is not what the RFC says it sends (not JSON, a member missing
            /// or of the wrong type, an HTML error page): ``Error/status`` and a short excerpt in
            /// the reason.
            public static let malformedResponse = Code(base: .malformedResponse)
            /// The redirect's `state` is not the one this client sent
            /// ([RFC 6749 §10.12](https://www.rfc-editor.org/rfc/rfc6749#section-10.12)).
            public static let stateMismatch = Code(base: .stateMismatch)
            /// An `iss` (RFC 9207) or a discovered `issuer` (RFC 8414 §3.3) is not the issuer
            /// this client was configured with.
            public static let issuerMismatch = Code(base: .issuerMismatch)
            /// The refresh token no longer works (`invalid_grant` after re-reading the store):
            /// the user must sign in again. Distinct from a network failure, which is transient.
            public static let reauthorizationRequired = Code(base: .reauthorizationRequired)
            /// An endpoint over plain `http` to a host that is not loopback.
            public static let insecureEndpoint = Code(base: .insecureEndpoint)
            /// A request this library refuses to build (PKCE `plain`, a state under 128 bits, …).
            public static let invalidConfiguration = Code(base: .invalidConfiguration)
            /// A token session refreshed as often as its refresh window allows and was asked to
            /// again (a server that keeps refusing fresh tokens): transient, the next window may
            /// try again. Alamofire's `RefreshWindow`.
            public static let refreshLimitExceeded = Code(base: .refreshLimitExceeded)
            /// The token's `token_type` is not one this client can present (a `DPoP` token needs
            /// a proof of the session's DPoP key, and the session has none,
            /// [RFC 9449 §7.1](https://www.rfc-editor.org/rfc/rfc9449#section-7.1)).
            /// [RFC 6749 §7.1](https://www.rfc-editor.org/rfc/rfc6749#section-7.1)
            public static let unsupportedTokenType = Code(base: .unsupportedTokenType)
            /// The device grant's `expires_in` passed before the user approved
            /// ([RFC 8628 §3.5](https://www.rfc-editor.org/rfc/rfc8628#section-3.5)); the server's
            /// own `expired_token` is a ``serverRefused`` with that code.
            public static let deviceCodeExpired = Code(base: .deviceCodeExpired)
            /// A redirect carries tokens the request did not ask for: an `access_token` or
            /// `id_token` answering `response_type=code` (token injection,
            /// [RFC 9700 §4.5](https://www.rfc-editor.org/rfc/rfc9700#section-4.5)), or a `code`
            /// answering `response_type=token`. Refused, never used.
            public static let unexpectedTokens = Code(base: .unexpectedTokens)
            /// Protected resource metadata whose `resource` is not the resource the client asked
            /// about ([RFC 9728 §3.3](https://www.rfc-editor.org/rfc/rfc9728#section-3.3)):
            /// refused, as it could send the client's tokens to an attacker's authorization server.
            public static let resourceMismatch = Code(base: .resourceMismatch)
            /// An authorization server a resource sign-in must not use: one the resource's
            /// metadata does not list ([RFC 9728 §7.6](https://www.rfc-editor.org/rfc/rfc9728#section-7.6)),
            /// or one whose metadata does not list `S256` in `code_challenge_methods_supported`,
            /// so that PKCE cannot be relied on ([RFC 9700 §2.1.1](https://www.rfc-editor.org/rfc/rfc9700#section-2.1.1)).
            public static let unsuitableAuthorizationServer = Code(base: .unsuitableAuthorizationServer)
            /// Signed protected resource metadata that does not verify: not a JWS, an algorithm
            /// or key not allowed, a bad signature, no `iss` or one not trusted, expired; or
            /// absent where the caller requires it
            /// ([RFC 9728 §2.2](https://www.rfc-editor.org/rfc/rfc9728#section-2.2)).
            public static let signedMetadataRefused = Code(base: .signedMetadataRefused)
            /// The dynamic registration of a sign-in from a resource
            /// (``OAuth2/ResourceSignIn``) was refused: ``OAuth2/Error/serverError`` holds the
            /// server's `invalid_redirect_uri`, `invalid_client_metadata`, …
            /// ([RFC 7591 §3.2.2](https://www.rfc-editor.org/rfc/rfc7591#section-3.2.2)), or the
            /// answer could not be read. ``OAuth2/DynamicRegistration/register(_:at:initialAccessToken:transport:)``
            /// called alone reports the server's refusal as ``serverRefused``.
            public static let registrationRefused = Code(base: .registrationRefused)
            public var description: String { base.rawValue }
        }

        public let code: Code
        /// Names what failed; never a secret.
        public let reason: String
        /// What the server sent, for ``Code/serverRefused``.
        public let serverError: ErrorResponse?
        /// The HTTP status of the response that ended the step, when there was one.
        public let status: Int?

        /// Creates the error `code` with a `reason` that holds no secret, the server's error response
        /// and the HTTP status, when there were any.
        public init(_ code: Code, _ reason: String, serverError: ErrorResponse? = nil, status: Int? = nil) {
            self.code = code
            self.reason = reason
            self.serverError = serverError
            self.status = status
        }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.code == rhs.code && lhs.serverError?.code == rhs.serverError?.code
        }
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }
        public var description: String { "OAuth2.Error.\(code): \(reason)" }
    }
}
