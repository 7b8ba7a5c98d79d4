extension CredentialStore {
    public func authorizer(for origin: AuthScope) async -> ScopedAuthorizer? { nil }
}

extension InMemoryCredentialStore {
    /// Adds `credential` for the origin of `url` (`https://api.example.com`; a path is
    /// ignored), limited to `realm` when given, replacing any credential for exactly that scope.
    ///
    /// - Throws: ``ClientError/Code/invalidURL`` when `url` is not an absolute `http`/`https`
    ///   URL.
    public func add(
        _ credential: Credential,
        for url: String,
        realm: String? = nil,
        allowingPlainHTTP: Bool = false,
        persistence: CredentialPersistence = .forClient
    ) throws {
        add(
            credential,
            for: try AuthScope(url: url, realm: realm),
            allowingPlainHTTP: allowingPlainHTTP,
            persistence: persistence
        )
    }

    /// Uses `authorizer` (a ``BearerToken``, a token session) for every request to the origin
    /// of `scope`, replacing any authorizer for that origin.
    public func add(_ authorizer: any RequestAuthorizer, for scope: AuthScope, allowingPlainHTTP: Bool = false) {
        let scoped = ScopedAuthorizer(scope: scope, authorizer: authorizer, allowsPlainHTTP: allowingPlainHTTP)
        authorizers[scoped.scope] = scoped
    }

    /// Uses `authorizer` for every request to the origin of `url`.
    ///
    /// - Throws: ``ClientError/Code/invalidURL`` when `url` is not an absolute `http`/`https`
    ///   URL.
    public func add(_ authorizer: any RequestAuthorizer, for url: String, allowingPlainHTTP: Bool = false) throws {
        add(authorizer, for: try AuthScope(url: url), allowingPlainHTTP: allowingPlainHTTP)
    }

    /// Stops using the authorizer for the origin of `scope`.
    public func removeAuthorizer(for scope: AuthScope) {
        authorizers[scope.origin] = nil
    }

    public func authorizer(for origin: AuthScope) -> ScopedAuthorizer? {
        authorizers[origin.origin]
    }
}
