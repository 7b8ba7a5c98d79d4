import HTTPTypes

extension OAuth2.ServerMetadata {
    /// `id_token_signing_alg_values_supported` ([OpenID Connect Discovery 1.0 §3](https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderMetadata)).
    ///
    /// - Throws: ``OpenIDConnect/Error/Code/malformed`` when it is not an array of strings.
    public func idTokenSigningAlgValuesSupported() throws -> [String]? {
        try openIDStringArray("id_token_signing_alg_values_supported")
    }

    /// `end_session_endpoint` ([OpenID Connect RP-Initiated Logout 1.0 §2.1](https://openid.net/specs/openid-connect-rpinitiated-1_0.html#OPMetadata)).
    ///
    /// - Throws: ``OpenIDConnect/Error/Code/malformed`` when it is not a string.
    public func endSessionEndpoint() throws -> String? {
        guard let value = additionalParameters["end_session_endpoint"] else { return nil }
        guard case .string(let endpoint) = value else {
            throw OpenIDConnect.Error(.malformed, "the metadata's 'end_session_endpoint' is not a string")
        }
        return endpoint
    }

    private func openIDStringArray(_ name: String) throws -> [String]? {
        guard let value = additionalParameters[name] else { return nil }
        guard case .array(let values) = value else {
            throw OpenIDConnect.Error(.malformed, "the metadata's '\(name)' is not an array")
        }
        return try values.map {
            guard case .string(let string) = $0 else {
                throw OpenIDConnect.Error(.malformed, "the metadata's '\(name)' holds a value that is not a string")
            }
            return string
        }
    }
}

extension OpenIDConnect {
    /// What a client needs to act as an OpenID Connect relying party at one provider: the ID
    /// token validator (with the provider's keys), the UserInfo endpoint and the logout
    /// endpoint. Set it on an ``OAuth2/Flow`` (``OAuth2/Flow/openIDConnect``), or make both with
    /// ``OAuth2/Flow/discoverOpenIDConnect(issuer:client:transport:now:allowedAlgorithms:leeway:keySetCache:)``.
    public struct RelyingParty: Sendable {
        /// Validates the provider's ID tokens for this client.
        public var validator: IDTokenValidator
        /// `userinfo_endpoint` ([Core §5.3](https://openid.net/specs/openid-connect-core-1_0.html#UserInfo)).
        public var userInfoEndpoint: String?
        /// `end_session_endpoint` (RP-Initiated Logout §2.1).
        public var endSessionEndpoint: String?

        /// A relying party from its validator and the provider's endpoints.
        public init(validator: IDTokenValidator, userInfoEndpoint: String? = nil, endSessionEndpoint: String? = nil) {
            self.validator = validator
            self.userInfoEndpoint = userInfoEndpoint
            self.endSessionEndpoint = endSessionEndpoint
        }

        /// The relying party of discovered `metadata` (whose `issuer` discovery has checked,
        /// Discovery §4.3): the keys from its `jwks_uri` through a ``JOSE/KeySetCache`` over
        /// `transport`, the algorithms intersected with `id_token_signing_alg_values_supported`.
        ///
        /// - Parameters:
        ///   - clientSecret: needed only when `allowedAlgorithms` holds HS256.
        ///   - keySetCache: the cache to use (one per issuer, shared between flows); made here
        ///     when `nil`.
        ///   - metadata: the provider's metadata.
        ///   - clientID: the client's `client_id`.
        ///   - transport: fetches the provider's keys.
        ///   - now: the clock, seconds since 1970.
        ///   - allowedAlgorithms: the ID token algorithms accepted.
        ///   - leeway: seconds of clock skew allowed.
        /// - Throws: ``OpenIDConnect/Error/Code/invalidConfiguration`` when the metadata has no
        ///   `jwks_uri` or no algorithm is left; ``OpenIDConnect/Error/Code/malformed``;
        ///   ``OAuth2/Error/Code/insecureEndpoint`` for a `jwks_uri` over plain http elsewhere
        ///   than loopback.
        public init(
            metadata: OAuth2.ServerMetadata,
            clientID: String,
            transport: any HTTPTransport,
            now: @escaping @Sendable () -> Int64,
            allowedAlgorithms: Set<JOSE.Algorithm> = IDTokenValidator.defaultAlgorithms,
            clientSecret: Secret? = nil,
            leeway: Int64 = 60,
            keySetCache: JOSE.KeySetCache? = nil
        ) throws {
            let cache: JOSE.KeySetCache
            if let keySetCache {
                cache = keySetCache
            } else {
                guard let jwksURI = metadata.jwksURI else {
                    throw OpenIDConnect.Error(.invalidConfiguration, "the provider's metadata has no jwks_uri")
                }
                cache = try JOSE.KeySetCache(url: jwksURI, transport: transport, now: now)
            }
            self.init(
                validator: try IDTokenValidator(
                    issuer: metadata.issuer,
                    clientID: clientID,
                    keys: .keySetCache(cache),
                    allowedAlgorithms: allowedAlgorithms,
                    supportedAlgorithms: try metadata.idTokenSigningAlgValuesSupported(),
                    clientSecret: clientSecret,
                    leeway: leeway
                ),
                userInfoEndpoint: metadata.userinfoEndpoint,
                endSessionEndpoint: try metadata.endSessionEndpoint()
            )
        }
    }

    /// A completed OpenID Connect sign-in: the token response and its validated ID token.
    public struct SignIn: Sendable, CustomStringConvertible {
        /// The token response.
        public let response: OAuth2.TokenResponse
        /// Its ID token, validated.
        public let idToken: IDToken
        /// The tokens of the response.
        public var tokens: OAuth2.Tokens { response.tokens }
        public var description: String { "OpenIDConnect.SignIn(\(response.tokens), idToken: \(idToken))" }
    }
}

extension OAuth2.Flow {
    /// Discovers an OpenID provider (`/.well-known/openid-configuration`, whose `issuer` must
    /// equal `issuer` exactly, [Discovery §4.3](https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderConfigurationValidation))
    /// and returns the flow of `client` there, with its ``openIDConnect`` relying party set.
    public static func discoverOpenIDConnect(
        issuer: String,
        client: OAuth2.Client,
        transport: any HTTPTransport,
        now: @escaping @Sendable () -> Int64,
        allowedAlgorithms: Set<JOSE.Algorithm> = OpenIDConnect.IDTokenValidator.defaultAlgorithms,
        leeway: Int64 = 60,
        keySetCache: JOSE.KeySetCache? = nil
    ) async throws -> OAuth2.Flow {
        let metadata = try await discover(issuer: issuer, document: .openIDConfiguration, transport: transport)
        var flow = OAuth2.Flow(
            server: OAuth2.AuthorizationServer(metadata: metadata),
            client: client,
            transport: transport,
            now: now
        )
        flow.openIDConnect = try OpenIDConnect.RelyingParty(
            metadata: metadata,
            clientID: client.id,
            transport: transport,
            now: now,
            allowedAlgorithms: allowedAlgorithms,
            clientSecret: client.authentication.secret,
            leeway: leeway,
            keySetCache: keySetCache
        )
        return flow
    }

    /// Checks the redirect, redeems the code and validates the ID token
    /// ([Core §3.1.3.5–3.1.3.8](https://openid.net/specs/openid-connect-core-1_0.html#TokenResponseValidation)):
    /// the OAuth 2 sign-in of ``tokens(fromCallback:pending:resources:)``, plus the ID token.
    ///
    /// - Throws: ``OpenIDConnect/Error/Code/invalidConfiguration`` without ``openIDConnect``;
    ///   ``OpenIDConnect/Error/Code/missingIDToken``; the errors of
    ///   ``OpenIDConnect/IDTokenValidator/validate(_:expecting:now:)`` and of the OAuth 2 flow.
    public func signIn(
        fromCallback url: String,
        pending: OAuth2.PendingAuthorization,
        resources: [String] = []
    ) async throws -> OpenIDConnect.SignIn {
        let relyingParty = try requireOpenIDConnect()
        let code = try pending.parseCallback(url).code
        let response = try await requestToken(.authorizationCode(code, pending: pending, resources: resources))
        let idToken = try await validateIDToken(of: response, pending: pending, code: code, with: relyingParty)
        return OpenIDConnect.SignIn(response: response, idToken: idToken)
    }

    /// The ID token of a code exchange, validated when ``openIDConnect`` is set (the hook of
    /// ``exchange(code:pending:resources:)``): required when the request carried a nonce (it
    /// asked for `openid`).
    func checkIDToken(
        of response: OAuth2.TokenResponse,
        pending: OAuth2.PendingAuthorization,
        code: Secret
    )
        async throws
    {
        guard let relyingParty = openIDConnect else { return }
        _ = try await validateIDToken(of: response, pending: pending, code: code, with: relyingParty)
    }

    private func validateIDToken(
        of response: OAuth2.TokenResponse,
        pending: OAuth2.PendingAuthorization,
        code: Secret,
        with relyingParty: OpenIDConnect.RelyingParty
    ) async throws -> OpenIDConnect.IDToken {
        guard let token = response.tokens.idToken else {
            throw OpenIDConnect.Error(.missingIDToken, "the token response has no id_token (Core §3.1.3.3)")
        }
        return try await relyingParty.validator.validate(
            token,
            expecting: .init(
                nonce: pending.nonce,
                maxAge: pending.maxAge,
                accessToken: response.tokens.accessToken,
                code: code
            ),
            now: now()
        )
    }

    /// The ID token of a refresh response, validated when ``openIDConnect`` is set and the
    /// response carried a new one ([Core §12.2](https://openid.net/specs/openid-connect-core-1_0.html#RefreshTokenResponse)).
    func checkRefreshedIDToken(of response: OAuth2.TokenResponse, previous: OAuth2.Tokens) async throws {
        guard let relyingParty = openIDConnect, let token = response.tokens.idToken,
            let original = previous.idToken, token != original
        else { return }
        let originalToken = try OpenIDConnect.IDToken(
            claims: OpenIDConnect.IDTokenValidator.claims(of: OpenIDConnect.IDTokenValidator.parse(original)),
            token: original
        )
        _ = try await relyingParty.validator.validateRefreshed(
            token,
            original: originalToken,
            accessToken: response.tokens.accessToken,
            now: now()
        )
    }

    /// Asks the UserInfo endpoint about the end-user ([Core §5.3](https://openid.net/specs/openid-connect-core-1_0.html#UserInfo))
    /// and checks that its `sub` is the ID token's (§5.3.2).
    /// The access token goes as `Bearer`; for a DPoP-bound token use
    /// ``userInfo(tokens:subject:dpop:)``.
    public func userInfo(accessToken: Secret, subject: String) async throws -> OpenIDConnect.UserInfo {
        try await userInfo(tokens: OAuth2.Tokens(accessToken: accessToken, tokenType: "Bearer"), subject: subject)
    }

    /// ``userInfo(accessToken:subject:)`` with the tokens as the token endpoint gave them: a
    /// `DPoP` token goes with a proof of `dpop`'s key, and a `use_dpop_nonce` is retried once
    /// with the server's nonce ([RFC 9449 §7.1, §9](https://www.rfc-editor.org/rfc/rfc9449#section-7.1)).
    ///
    /// - Throws: ``OAuth2/Error/Code/unsupportedTokenType`` for a `DPoP` token without `dpop`.
    public func userInfo(tokens: OAuth2.Tokens, subject: String, dpop: OAuth2.DPoP.Prover? = nil) async throws
        -> OpenIDConnect.UserInfo
    {
        try await userInfo(subject: subject, authenticator: OAuth2.AccessTokenAuthenticator(tokens: tokens, dpop: dpop))
    }

    /// ``userInfo(accessToken:subject:)`` authenticated by any ``RequestAuthenticator`` (a
    /// ``TokenSession``, which renews its token when it has expired or is refused).
    public func userInfo(subject: String, authenticator: any RequestAuthenticator) async throws
        -> OpenIDConnect.UserInfo
    {
        guard let endpoint = try requireOpenIDConnect().userInfoEndpoint else {
            throw OpenIDConnect.Error(.invalidConfiguration, "the provider has no userinfo_endpoint")
        }
        return try await OpenIDConnect.UserInfo.fetch(
            from: endpoint,
            expectedSubject: subject,
            authenticator: authenticator,
            transport: transport
        )
    }

    /// The RP-initiated logout URL for `idToken` at the provider's `end_session_endpoint`.
    public func logoutRequest(
        idToken: OpenIDConnect.IDToken?,
        postLogoutRedirectURI: String? = nil,
        state: String? = nil
    ) throws -> OpenIDConnect.LogoutRequest {
        guard let endpoint = try requireOpenIDConnect().endSessionEndpoint else {
            throw OpenIDConnect.Error(.invalidConfiguration, "the provider has no end_session_endpoint")
        }
        return try OpenIDConnect.LogoutRequest(
            endSessionEndpoint: endpoint,
            idTokenHint: idToken?.token,
            clientID: client.id,
            postLogoutRedirectURI: postLogoutRedirectURI,
            state: state
        )
    }

    private func requireOpenIDConnect() throws -> OpenIDConnect.RelyingParty {
        guard let openIDConnect else {
            throw OpenIDConnect.Error(
                .invalidConfiguration,
                "the flow has no OpenID Connect relying party (Flow.openIDConnect)"
            )
        }
        return openIDConnect
    }
}
