public import Foundation
public import RemoteAuth

/// A ``TokenStore`` in one JSON file (mode 0600, replaced atomically), by default
/// `$REMOTE_AUTH_HOME/tokens.json` or `$XDG_CONFIG_HOME/remote-auth/tokens.json`. Secrets are in
/// clear text, protected by the file's mode. Files written before sessions of other protocols
/// existed (an OAuth 1.0a session without a `kind`) still open.
public actor FileTokenStore: TokenStore {
    struct Entry: Codable {
        var key: TokenStoreKey
        var session: StoredSession
    }

    public let path: String
    private var sessions: [TokenStoreKey: StoredSession] = [:]

    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        AtomicFile.defaultPath("tokens.json", environment: environment)
    }

    /// Opens the store at `path`, reading what is saved there (nothing if the file does not exist).
    ///
    /// - Throws: ``FileStoreError`` when group or others can access the file
    ///   (`.permissionsTooOpen`), or it is not the JSON this store writes (`.corruptFile`).
    public init(path: String = FileTokenStore.defaultPath()) throws {
        self.path = path
        guard let data = try AtomicFile.readPrivate(path) else { return }
        let entries = try AtomicFile.decode([Entry].self, from: data, path: path)
        for entry in entries { sessions[entry.key] = entry.session }
    }

    public func session(service: String, account: String) -> StoredSession? {
        sessions[TokenStoreKey(service: service, account: account)]
    }

    public func save(_ session: StoredSession, service: String, account: String) throws {
        sessions[TokenStoreKey(service: service, account: account)] = session
        try write()
    }

    public func removeSession(service: String, account: String) throws {
        sessions[TokenStoreKey(service: service, account: account)] = nil
        try write()
    }

    public func keys() -> [TokenStoreKey] { sessions.keys.sorted() }

    private func write() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let entries = sessions.keys.sorted().map { Entry(key: $0, session: sessions[$0]!) }
        try AtomicFile.write(try encoder.encode(entries), to: path)
    }
}
