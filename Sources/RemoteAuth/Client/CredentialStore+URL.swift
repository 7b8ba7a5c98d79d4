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
}
