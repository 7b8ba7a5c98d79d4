extension OAuth2.Session {
    /// The client this session was signed in as, with its stored authentication method and secret.
    ///
    /// - Throws: ``OAuth2/Error/Code/invalidConfiguration`` for a method this library does not
    ///   speak, or a confidential method without a secret.
    public func client() throws -> OAuth2.Client {
        OAuth2.Client(
            id: clientID,
            authentication: try OAuth2.ClientAuthentication(
                methodName: clientAuthentication.rawValue,
                secret: clientSecret
            )
        )
    }

    /// The flow that refreshes, revokes and introspects this session's tokens, at the endpoints
    /// it was signed in with.
    public func flow(over transport: any HTTPTransport, now: @escaping @Sendable () -> Int64) throws -> OAuth2.Flow {
        OAuth2.Flow(
            server: OAuth2.AuthorizationServer(
                issuer: issuer,
                tokenEndpoint: tokenEndpoint,
                revocationEndpoint: revocationEndpoint,
                introspectionEndpoint: introspectionEndpoint
            ),
            client: try client(),
            transport: transport,
            now: now
        )
    }
}

extension OAuth2.TokenSession {
    /// The session saved under `service` and `account`, refreshed at its own token endpoint over
    /// `transport` (RFC 6749 §6): the usual way to use a stored sign-in.
    ///
    /// ```swift
    /// let session = try await OAuth2.TokenSession.restore(from: FileTokenStore(), service: "my-app",
    ///                                                      account: "alice", transport: transport, now: now)
    /// await session.register(in: credentials)   // Bearer on the session's resource origins only
    /// ```
    ///
    /// A session with a ``OAuth2/Session/dpopKey`` gets a ``OAuth2/DPoP/Prover`` for it (`random`
    /// draws the proofs' `jti`s): its refreshes and `DPoP` tokens carry proofs.
    ///
    /// - Throws: ``OAuth2/Error/Code/reauthorizationRequired`` when nothing is stored there;
    ///   ``OAuth2/Error/Code/invalidConfiguration`` when the stored client cannot authenticate.
    public static func restore(
        from store: any TokenStore,
        service: String,
        account: String,
        transport: any HTTPTransport,
        policy: OAuth2.RefreshPolicy = .init(),
        now: @escaping @Sendable () -> Int64,
        random: RandomSource = .system
    ) async throws -> OAuth2.TokenSession {
        guard let stored = try await store.oauth2Session(service: service, account: account) else {
            throw OAuth2.Error(.reauthorizationRequired, "no OAuth 2 session is stored for \(service)/\(account)")
        }
        // A session with a DPoP key refreshes with proofs of that key (RFC 9449 §5).
        let dpop = try stored.dpopProver(now: now, random: random)
        let flow = try stored.flow(
            over: dpop.map { stored.dpopTransport(transport, prover: $0) } ?? transport,
            now: now
        )
        return try OAuth2.TokenSession(
            session: stored,
            store: store,
            service: service,
            account: account,
            policy: policy,
            now: now,
            dpop: dpop,
            refresher: { try await flow.refresh($0) }
        )
    }
}
