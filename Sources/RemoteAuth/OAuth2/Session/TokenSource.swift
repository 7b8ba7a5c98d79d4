extension OAuth2 {
    /// Where an ``OAuth2/TokenSession`` gets new tokens when its access token expires or is
    /// refused: the grant that renews it. The session keeps the single flight, the
    /// cross-process lock of a ``CoordinatedTokenStore``, persist-before-use and the change feed
    /// around whichever source it has.
    ///
    /// - ``RefreshTokenSource``: `grant_type=refresh_token`
    ///   ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)); needs a refresh token.
    /// - ``ClientCredentialsSource``: a new client credentials grant
    ///   ([RFC 6749 §4.4](https://www.rfc-editor.org/rfc/rfc6749#section-4.4)), for a client
    ///   acting for itself: its tokens come without a refresh token (§4.4.3) and never need a
    ///   person to sign in again.
    /// - ``JWTBearerSource``: a new assertion grant
    ///   ([RFC 7523 §2.1](https://www.rfc-editor.org/rfc/rfc7523#section-2.1)).
    /// - ``TokenExchangeSource``: a new token exchange
    ///   ([RFC 8693 §2.1](https://www.rfc-editor.org/rfc/rfc8693#section-2.1)).
    public protocol TokenSource: Sendable {
        /// The grant it renews with.
        var grantType: GrantType { get }
        /// `true` when it renews tokens that have no refresh token: then an expired or refused
        /// access token is renewed instead of ending the session with
        /// ``OAuth2/Error/Code/reauthorizationRequired``.
        var renewsWithoutRefreshToken: Bool { get }
        /// New tokens to replace `tokens`. An ``OAuth2/Error`` whose
        /// ``OAuth2/Error/serverError`` is `invalid_grant` means the grant is dead (the session
        /// then re-reads its store before giving up); any other error is transient.
        func renew(_ tokens: Tokens) async throws -> Tokens
    }

    /// Renews with the tokens' refresh token at the flow's token endpoint
    /// ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)); an OpenID Connect
    /// flow validates the ID token of the response
    /// ([Core §12.2](https://openid.net/specs/openid-connect-core-1_0.html#RefreshTokenResponse)).
    public struct RefreshTokenSource: TokenSource {
        /// The flow whose token endpoint refreshes.
        public let flow: Flow
        public var grantType: GrantType { .refreshToken }
        public var renewsWithoutRefreshToken: Bool { false }

        /// Renews through `flow`.
        public init(flow: Flow) { self.flow = flow }

        public func renew(_ tokens: Tokens) async throws -> Tokens { try await flow.refresh(tokens) }
    }

    /// Renews with a new client credentials grant
    /// ([RFC 6749 §4.4.2](https://www.rfc-editor.org/rfc/rfc6749#section-4.4.2)), with the same
    /// `scope` and `resource` values (RFC 8707) as the first one; a refresh token the server
    /// returned anyway is not used (§4.4.3: it should not issue one).
    public struct ClientCredentialsSource: TokenSource {
        /// The flow of the client whose credentials are granted.
        public let flow: Flow
        /// The scopes asked for on every grant.
        public var scope: [String]
        /// The RFC 8707 `resource` values asked for on every grant.
        public var resources: [String]
        public var grantType: GrantType { .clientCredentials }
        public var renewsWithoutRefreshToken: Bool { true }

        /// Renews through `flow`, asking for `scope` and `resources` each time.
        public init(flow: Flow, scope: [String] = [], resources: [String] = []) {
            self.flow = flow
            self.scope = scope
            self.resources = resources
        }

        public func renew(_ tokens: Tokens) async throws -> Tokens {
            try await flow.clientCredentials(scope: scope, resources: resources).tokens
        }
    }

    /// Renews with a new JWT bearer assertion grant
    /// ([RFC 7523 §2.1](https://www.rfc-editor.org/rfc/rfc7523#section-2.1)): `assertion` is asked
    /// for a fresh assertion each time (assertions are short-lived and single-use, §3).
    public struct JWTBearerSource: TokenSource {
        /// The flow whose token endpoint takes the assertion.
        public let flow: Flow
        /// The scopes asked for on every grant.
        public var scope: [String]
        /// Makes a fresh assertion for each grant.
        public let assertion: @Sendable () async throws -> Secret
        public var grantType: GrantType { .jwtBearer }
        public var renewsWithoutRefreshToken: Bool { true }

        /// Renews through `flow` with a new assertion from `assertion` each time.
        public init(flow: Flow, scope: [String] = [], assertion: @escaping @Sendable () async throws -> Secret) {
            self.flow = flow
            self.scope = scope
            self.assertion = assertion
        }

        public func renew(_ tokens: Tokens) async throws -> Tokens {
            try await flow.requestToken(.jwtBearer(assertion: try await assertion(), scope: scope)).tokens
        }
    }

    /// Renews with a new token exchange
    /// ([RFC 8693 §2.1](https://www.rfc-editor.org/rfc/rfc8693#section-2.1)): `subject` is asked
    /// for the subject token (and its type URI, §3) each time, since it may itself have been
    /// renewed.
    public struct TokenExchangeSource: TokenSource {
        /// The flow whose token endpoint exchanges.
        public let flow: Flow
        /// The `resource` values asked for (RFC 8693 §2.1).
        public var resources: [String]
        /// The `audience` values asked for (RFC 8693 §2.1).
        public var audiences: [String]
        /// The scopes asked for.
        public var scope: [String]
        /// `requested_token_type`, a token type URI; `nil` lets the server choose.
        public var requestedTokenType: String?
        /// Gives the subject token and its type URI for each exchange.
        public let subject: @Sendable () async throws -> (token: Secret, type: String)
        public var grantType: GrantType { .tokenExchange }
        public var renewsWithoutRefreshToken: Bool { true }

        /// Renews through `flow`, exchanging the token `subject` gives each time.
        public init(
            flow: Flow,
            resources: [String] = [],
            audiences: [String] = [],
            scope: [String] = [],
            requestedTokenType: String? = nil,
            subject: @escaping @Sendable () async throws -> (token: Secret, type: String)
        ) {
            self.flow = flow
            self.resources = resources
            self.audiences = audiences
            self.scope = scope
            self.requestedTokenType = requestedTokenType
            self.subject = subject
        }

        public func renew(_ tokens: Tokens) async throws -> Tokens {
            let subject = try await subject()
            let request = TokenRequest.tokenExchange(
                subjectToken: subject.token,
                subjectTokenType: subject.type,
                resources: resources,
                audiences: audiences,
                scope: scope,
                requestedTokenType: requestedTokenType
            )
            return try await flow.requestToken(request).tokens
        }
    }

    /// A refresher closure as a source (``TokenSession/Refresher``).
    struct ClosureTokenSource: TokenSource {
        let refresher: TokenSession.Refresher
        var grantType: GrantType { .refreshToken }
        var renewsWithoutRefreshToken: Bool { false }
        func renew(_ tokens: Tokens) async throws -> Tokens { try await refresher(tokens) }
    }
}
