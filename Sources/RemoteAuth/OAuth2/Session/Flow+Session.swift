/// From a sign-in to a client that renews its token: the one-line paths.
extension AuthenticatingClient {
    /// A client that sends `session`'s tokens to the session's resource origins, and only
    /// there, renewing them as needed: from tokens in hand to a client in one line with
    /// ``OAuth2/Flow/session(for:resources:store:service:account:dpop:grant:)``.
    public init(
        transport: any HTTPTransport,
        session: OAuth2.TokenSession,
        allowingPlainHTTP: Bool = false,
        configuration: Configuration = .init()
    ) {
        self.init(
            transport: transport,
            authenticators: session.authenticators(allowingPlainHTTP: allowingPlainHTTP),
            configuration: configuration
        )
    }
}

extension OAuth2.Flow {
    /// A token session for `tokens` this flow got, renewed through this flow: by its refresh
    /// token, or by a new client credentials grant when `grant` is `client_credentials`. Kept
    /// in memory unless `store` is given (then saved there first, under `service`/`account`).
    ///
    /// - Parameters:
    ///   - resources: where the access token may be sent: origins (`https://api.example.com`),
    ///     or resources narrower than their origin (`https://api.example.com/v1`: that path and
    ///     below only).
    ///   - dpop: the prover the tokens are bound to (give the flow's transport the same one).
    ///   - tokens: the tokens of the sign-in.
    ///   - store: where the session is kept.
    ///   - service: the store's service name for the session.
    ///   - account: the store's account for the session.
    ///   - grant: the grant the tokens came from.
    /// - Throws: ``ClientError/Code/invalidURL`` for a resource that is not an absolute
    ///   `http`/`https` URL; the store's error.
    public func session(
        for tokens: OAuth2.Tokens,
        resources: [String],
        store: any TokenStore = InMemoryTokenStore(),
        service: String = "default",
        account: String = "default",
        dpop: OAuth2.DPoP.Prover? = nil,
        grant: OAuth2.GrantType = .authorizationCode
    ) async throws -> OAuth2.TokenSession {
        try await session(
            for: tokens,
            resources: resources,
            store: store,
            service: service,
            account: account,
            dpop: dpop,
            grant: grant,
            scope: nil,
            resourceIndicators: nil
        )
    }

    /// The session both public paths make: saved first, renewed by ``OAuth2/Session/tokenSource(flow:)``.
    private func session(
        for tokens: OAuth2.Tokens,
        resources: [String],
        store: any TokenStore,
        service: String,
        account: String,
        dpop: OAuth2.DPoP.Prover?,
        grant: OAuth2.GrantType,
        scope: [String]?,
        resourceIndicators: [String]?
    ) async throws -> OAuth2.TokenSession {
        // Each resource's origin, narrowed to its path when it names one (`https://api.example/v1`).
        let origins = try resources.map { resource -> String in
            var path = Substring(URIReference(parsing: resource).path)
            while path.hasSuffix("/") { path = path.dropLast() }
            return try AuthScope(url: resource).origin.description + path
        }
        guard server.tokenEndpoint != nil else {
            throw OAuth2.Error(.invalidConfiguration, "the authorization server has no token endpoint configured")
        }
        // The server as configured (every endpoint, the metadata document) and the client's
        // registration with its secret, so that another process renews without this flow.
        let session = OAuth2.Session(
            server: server,
            registration: OAuth2.ClientRegistration(client),
            tokens: tokens,
            grant: grant,
            scope: scope ?? tokens.scope,
            resources: resourceIndicators,
            resourceOrigins: origins,
            binding: .init(dpopKey: dpop?.privateJWK),
            // Core §12.2: a later process validates refreshed ID tokens, and can call UserInfo.
            openIDProvider: openIDConnect.flatMap(OAuth2.Session.OpenIDProvider.init(relyingParty:))
        )
        try await store.save(.oauth2(session), service: service, account: account)
        return try OAuth2.TokenSession(
            session: session,
            store: store,
            service: service,
            account: account,
            now: now,
            dpop: dpop,
            logger: logger,
            source: session.tokenSource(flow: self)
        )
    }
}

extension OAuth2.Flow {
    /// This flow with its token requests (and pushed authorization requests) carrying DPoP
    /// proofs of `prover`'s key and its authorization requests `dpop_jkt`, so that the tokens
    /// are bound to the key ([RFC 9449 §5, §10](https://www.rfc-editor.org/rfc/rfc9449#section-5)).
    public func binding(to prover: OAuth2.DPoP.Prover) -> OAuth2.Flow {
        var flow = self
        flow.dpop = prover
        flow.dpopJKT = prover.thumbprint
        return flow
    }

    /// Sends a request to the token or PAR endpoint: through ``OAuth2/DPoP/ProofAuthenticator``
    /// when the flow is bound to a key (a proof, the server's nonce answered once, §8), as is
    /// otherwise. Redirects are not followed: a token endpoint answers itself (RFC 6749 §3.2).
    func sendProving(_ head: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        guard let dpop else { return try await transport.send(head, body: body) }
        var configuration = AuthenticatingClient.Configuration()
        configuration.followsRedirects = false
        // The endpoint's scheme was checked when it was configured (OAuth2.checkEndpoint); a
        // proof is no secret.
        let proving = ScopedAuthenticator(
            OAuth2.DPoP.ProofAuthenticator(prover: dpop),
            for: try AuthScope(origin: head),
            allowingPlainHTTP: true
        )
        return try await AuthenticatingClient(transport: transport, authenticators: [proving], configuration: configuration)
            .send(head, body: body)
    }

    /// A flow for `client` at `issuer`, from the issuer's metadata
    /// ([RFC 8414 §3](https://www.rfc-editor.org/rfc/rfc8414#section-3), falling back to the
    /// OpenID Connect document when a provider serves only that one).
    ///
    /// - Throws: what ``discover(issuer:document:transport:fallingBackToOpenIDConfiguration:)`` throws.
    public init(
        discovering issuer: String,
        client: OAuth2.Client,
        transport: any HTTPTransport,
        now: @escaping @Sendable () -> Int64 = UnixTime.now
    ) async throws {
        let metadata = try await Self.discover(
            issuer: issuer,
            transport: transport,
            fallingBackToOpenIDConfiguration: true
        )
        self.init(server: OAuth2.AuthorizationServer(metadata: metadata), client: client, transport: transport, now: now)
    }

    /// A client credentials grant ([RFC 6749 §4.4](https://www.rfc-editor.org/rfc/rfc6749#section-4.4))
    /// as a session that renews itself with a new grant when its token expires or is refused:
    /// hand it to ``AuthenticatingClient/init(transport:session:allowingPlainHTTP:configuration:)``.
    ///
    /// - Parameters:
    ///   - resources: where the access token may be sent: origins (`https://api.example.com`), or
    ///     resources narrower than their origin (`https://api.example.com/v1`: that path and below).
    ///   - resourceIndicators: RFC 8707 `resource` values to ask the token for, on every grant.
    ///   - scope: the scopes asked for.
    ///   - store: where the session is kept.
    ///   - service: the store's service name for the session.
    ///   - account: the store's account; the client id when `nil`.
    public func clientCredentialsSession(
        scope: [String] = [],
        resources: [String],
        resourceIndicators: [String] = [],
        store: any TokenStore = InMemoryTokenStore(),
        service: String = "default",
        account: String? = nil
    ) async throws -> OAuth2.TokenSession {
        try await session(
            for: try await clientCredentials(scope: scope, resources: resourceIndicators).tokens,
            resources: resources,
            store: store,
            service: service,
            account: account ?? client.id,
            dpop: nil,
            grant: .clientCredentials,
            scope: scope.isEmpty ? nil : scope,
            resourceIndicators: resourceIndicators.isEmpty ? nil : resourceIndicators
        )
    }
}
