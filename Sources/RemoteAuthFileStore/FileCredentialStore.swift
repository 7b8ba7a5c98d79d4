public import Foundation
public import RemoteAuth

/// A `CredentialStore` that keeps `CredentialPersistence.permanent` credentials in a JSON
/// file, and the others in memory.
///
/// The file is created with mode 0600 before any secret is written, and replaced atomically (a
/// temporary file in the same folder, synced, then renamed over the old one), so a crash leaves
/// the old file or the new one, never half of either. Its passwords are in clear text, protected
/// by the file's mode, as `.netrc` keeps them; on Apple platforms a Keychain store can implement
/// the same `CredentialStore` protocol.
public actor FileCredentialStore: CredentialStore {
    struct Entry: Codable, Sendable {
        var scheme: String
        var host: String
        var port: Int
        var realm: String?
        var user: String
        /// A plain JSON string, as before `Secret` existed.
        var password: Secret
        var basic: Bool
        var digest: Bool
        var allowsPlainHTTP: Bool
    }

    /// The JSON file the permanent credentials are saved in.
    public let path: String
    private var permanent: [ScopedCredential] = []
    private let memory = InMemoryCredentialStore()

    /// The default file: `$REMOTE_AUTH_HOME/credentials.json`, else
    /// `$XDG_CONFIG_HOME/remote-auth/credentials.json`, else `~/.config/remote-auth/credentials.json`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        AtomicFile.defaultPath("credentials.json", environment: environment)
    }

    /// Opens the store at `path`, reading the credentials saved there (none if the file does
    /// not exist yet).
    ///
    /// - Throws: ``FileStoreError`` when group or others can access the file
    ///   (`.permissionsTooOpen`), or it is not the JSON this store writes (`.corruptFile`).
    public init(path: String = FileCredentialStore.defaultPath()) throws {
        self.path = path
        guard let data = try AtomicFile.readPrivate(path) else { return }
        let entries = try AtomicFile.decode([Entry].self, from: data, path: path)
        permanent = try entries.map { entry in
            var schemes: Credential.Schemes = []
            if entry.basic { schemes.insert(.basic) }
            if entry.digest { schemes.insert(.digest) }
            return ScopedCredential(
                scope: try AuthScope(scheme: entry.scheme, host: entry.host, port: entry.port, realm: entry.realm),
                credential: Credential(user: entry.user, password: entry.password, schemes: schemes),
                allowsPlainHTTP: entry.allowsPlainHTTP
            )
        }
    }

    /// Adds `credential` for `scope` with `persistence`; a permanent one is written to the file
    /// before this returns.
    public func add(
        _ credential: Credential,
        for scope: AuthScope,
        allowingPlainHTTP: Bool = false,
        persistence: CredentialPersistence = .permanent
    ) async throws {
        await memory.remove(scope)
        permanent.removeAll { $0.scope == scope }
        if persistence == .permanent {
            permanent.append(ScopedCredential(scope: scope, credential: credential, allowsPlainHTTP: allowingPlainHTTP))
        } else {
            await memory.add(credential, for: scope, allowingPlainHTTP: allowingPlainHTTP, persistence: persistence)
        }
        try save()
    }

    /// Removes the credential for exactly `scope`, from memory and from the file.
    public func remove(_ scope: AuthScope) async throws {
        await memory.remove(scope)
        permanent.removeAll { $0.scope == scope }
        try save()
    }

    public func credential(for origin: AuthScope, realm: String?) async -> ScopedCredential? {
        // Memory first: a credential given for this run overrides the saved one.
        if let found = await memory.credential(for: origin, realm: realm) { return found }
        return InMemoryCredentialStore.bestMatch(in: permanent, for: origin, realm: realm)
    }

    private func save() throws {
        let entries = permanent.map { scoped in
            Entry(
                scheme: scoped.scope.scheme,
                host: scoped.scope.host,
                port: scoped.scope.port,
                realm: scoped.scope.realm,
                user: scoped.credential.user,
                password: scoped.credential.storedPassword,
                basic: scoped.credential.schemes.contains(.basic),
                digest: scoped.credential.schemes.contains(.digest),
                allowsPlainHTTP: scoped.allowsPlainHTTP
            )
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(entries)
        try AtomicFile.write(data, to: path)
    }
}
