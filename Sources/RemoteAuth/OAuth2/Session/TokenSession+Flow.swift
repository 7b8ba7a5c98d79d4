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

    /// The flow that refreshes, revokes and introspects this session's tokens, at the server it
    /// was signed in with (every endpoint it named: ``server``).
    public func flow(over transport: any HTTPTransport, now: @escaping @Sendable () -> Int64) throws -> OAuth2.Flow {
        var flow = OAuth2.Flow(
            server: server,
            client: try client(),
            transport: transport,
            now: now
        )
        // Core §12.2: an OpenID Connect session validates the ID token of every refresh.
        flow.openIDConnect = try relyingParty(over: transport, now: now)
        return flow
    }
}

extension OAuth2.TokenSession {
    /// The session saved under `service` and `account`, refreshed at its own token endpoint over
    /// `transport` (RFC 6749 §6): the usual way to use a stored sign-in.
    ///
    /// ```swift
    /// let session = try await OAuth2.TokenSession.restore(from: FileTokenStore(), service: "my-app",
    ///                                                      account: "alice", transport: transport, now: now)
    /// let client = AuthenticatingClient(transport: transport, session: session)   // its resource origins only
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
        try await restore(
            from: store,
            service: service,
            account: account,
            transport: transport,
            policy: policy,
            now: now,
            assertionKey: nil,
            random: random
        )
    }
}
