public import Logging

extension OAuth2 {
    /// Where a client's `private_key_jwt` key comes from when its session is restored: the
    /// session keeps only ``Session/clientKeyReference``, an opaque reference its owner chose (a
    /// keychain item, a file, a key in a hardware module), never the key
    /// ([RFC 7523 §2.2](https://www.rfc-editor.org/rfc/rfc7523#section-2.2)). The library reads
    /// no file: a provider does. A ``JOSE/SigningKey`` is its own provider.
    public protocol ClientKeyProvider: Sendable {
        /// The signing key for `clientID`, found by `reference` (`nil` when none was stored).
        func clientKey(reference: String?, clientID: String) throws -> JOSE.SigningKey
    }
}

extension JOSE.SigningKey: OAuth2.ClientKeyProvider {
    /// This key, whatever the reference.
    public func clientKey(reference: String?, clientID: String) -> JOSE.SigningKey { self }
}

extension OAuth2.Session {
    /// The client this session was signed in as, for any method: `private_key_jwt` signs with
    /// the key `assertionKey` provides for ``clientKeyReference`` (asked only for that method:
    /// the key is never stored with the session), `client_secret_jwt` with the stored secret; the other
    /// methods as ``client()``. Assertions are made per request with `now` and `random`
    /// ([RFC 7523 §3](https://www.rfc-editor.org/rfc/rfc7523#section-3)).
    ///
    /// - Throws: ``OAuth2/Error/Code/invalidConfiguration`` for `private_key_jwt` without a
    ///   key, `client_secret_jwt` without a secret, or what ``client()`` throws.
    public func client(
        assertionKey: (any OAuth2.ClientKeyProvider)?,
        audience: OAuth2.ClientAssertion.Audience = .endpoint,
        now: @escaping @Sendable () -> Int64,
        random: RandomSource
    ) throws -> OAuth2.Client {
        switch clientAuthentication {
        case .privateKeyJWT:
            guard let assertionKey else {
                throw OAuth2.Error(
                    .invalidConfiguration,
                    "the session authenticates with private_key_jwt: its key (\(clientKeyReference ?? "no reference stored")) is needed"
                )
            }
            let key = try assertionKey.clientKey(reference: clientKeyReference, clientID: clientID)
            return OAuth2.Client(
                id: clientID,
                authentication: try .privateKeyJWT(key, audience: audience, now: now, random: random)
            )
        case .clientSecretJWT:
            guard let clientSecret else {
                throw OAuth2.Error(
                    .invalidConfiguration,
                    "the session authenticates with client_secret_jwt and has no secret"
                )
            }
            return OAuth2.Client(
                id: clientID,
                authentication: try .clientSecretJWT(clientSecret, audience: audience, now: now, random: random)
            )
        default:
            return try client()
        }
    }

    /// ``flow(over:now:)`` for a client that signs assertions (see
    /// ``client(assertionKey:audience:now:random:)``).
    public func flow(
        over transport: any HTTPTransport,
        now: @escaping @Sendable () -> Int64,
        assertionKey: (any OAuth2.ClientKeyProvider)?,
        random: RandomSource
    ) throws -> OAuth2.Flow {
        var flow = OAuth2.Flow(
            server: server,
            client: try client(assertionKey: assertionKey, now: now, random: random),
            transport: transport,
            now: now
        )
        // Core §12.2: an OpenID Connect session validates the ID token of every refresh.
        flow.openIDConnect = try relyingParty(over: transport, now: now)
        return flow
    }
}

extension OAuth2.TokenSession {
    /// ``restore(from:service:account:transport:policy:now:random:)`` for a session whose client
    /// authenticates with `private_key_jwt` (`assertionKey`) or `client_secret_jwt`. A session
    /// with a ``OAuth2/Session/dpopKey`` refreshes with proofs of that key here too. A session
    /// whose ``OAuth2/Session/grant`` is `client_credentials` renews itself with a new grant at
    /// expiry (``OAuth2/Session/tokenSource(flow:)``).
    ///
    /// - Parameters:
    ///   - store: where the session is kept.
    ///   - service: the session's service name.
    ///   - account: the session's account.
    ///   - transport: sends the refreshes.
    ///   - policy: when to refresh.
    ///   - now: the clock, seconds since 1970.
    ///   - assertionKey: the client's `private_key_jwt` key; `nil` for other methods.
    ///   - clientSecret: the client secret to authenticate with instead of the stored one (a
    ///     secret rotated since the sign-in, or one never stored); it is not saved.
    ///   - random: the source of assertion `jti`s and DPoP proofs.
    ///   - logger: where the session's refreshes and token requests are logged, at `debug`.
    public static func restore(
        from store: any TokenStore,
        service: String,
        account: String,
        transport: any HTTPTransport,
        policy: OAuth2.RefreshPolicy = .init(),
        now: @escaping @Sendable () -> Int64,
        assertionKey: (any OAuth2.ClientKeyProvider)?,
        clientSecret: Secret? = nil,
        random: RandomSource,
        logger: Logger = Logger(label: "RemoteAuth.OAuth2.TokenSession")
    ) async throws -> OAuth2.TokenSession {
        guard let stored = try await store.oauth2Session(service: service, account: account) else {
            throw OAuth2.Error(.reauthorizationRequired, "no OAuth 2 session is stored for \(service)/\(account)")
        }
        var client = stored
        if let clientSecret { client.clientSecret = clientSecret }
        // A session with a DPoP key refreshes with proofs of that key (RFC 9449 §5).
        let dpop = try stored.dpopProver(now: now, random: random)
        var flow = try client.flow(over: transport, now: now, assertionKey: assertionKey, random: random)
        if let dpop { flow = flow.binding(to: dpop) }
        flow.logger = logger
        return try OAuth2.TokenSession(
            session: stored,
            store: store,
            service: service,
            account: account,
            policy: policy,
            now: now,
            dpop: dpop,
            logger: logger,
            source: stored.tokenSource(flow: flow)
        )
    }
}
