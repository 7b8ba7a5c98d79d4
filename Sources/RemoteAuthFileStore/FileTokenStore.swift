public import Foundation
public import RemoteAuth

/// A ``TokenStore`` in one JSON file (mode 0600, replaced atomically), by default
/// `$REMOTE_AUTH_HOME/tokens.json` or `$XDG_CONFIG_HOME/remote-auth/tokens.json`. Secrets are in
/// clear text, protected by the file's mode. Files written before sessions of other protocols
/// existed (an OAuth 1.0a session without a `kind`) still open.
///
/// Every read goes to the file, and every save reads, changes and rewrites it, so a token
/// another process rotated is seen (an ``OAuth2/TokenSession`` re-reads the store after
/// `invalid_grant`) and its other entries are kept. Two processes saving at the same instant
/// can still race: the last rename wins, whole.
public actor FileTokenStore: TokenStore {
    struct Entry: Codable {
        var key: TokenStoreKey
        var session: StoredSession
    }

    public let path: String
    private let listeners = TokenStoreListeners()
    /// The file's contents as last read, for ``session(service:account:)`` and ``keys()`` when
    /// the file cannot be read now (they do not throw).
    private var lastRead: [TokenStoreKey: StoredSession]

    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        AtomicFile.defaultPath("tokens.json", environment: environment)
    }

    /// Opens the store at `path`, checking that what is saved there (if anything) can be read.
    ///
    /// - Throws: ``FileStoreError`` when group or others can access the file
    ///   (`.permissionsTooOpen`), or it is not the JSON this store writes (`.corruptFile`).
    public init(path: String = FileTokenStore.defaultPath()) throws {
        self.path = path
        self.lastRead = try Self.read(path)
    }

    public func session(service: String, account: String) -> StoredSession? {
        current()[TokenStoreKey(service: service, account: account)]
    }

    public func save(_ session: StoredSession, service: String, account: String) throws {
        let key = TokenStoreKey(service: service, account: account)
        var sessions = try Self.read(path)
        sessions[key] = session
        try write(sessions)
        listeners.yield(.saved(key, session))
    }

    public func removeSession(service: String, account: String) throws {
        let key = TokenStoreKey(service: service, account: account)
        var sessions = try Self.read(path)
        sessions[key] = nil
        try write(sessions)
        listeners.yield(.removed(key))
    }

    public func keys() -> [TokenStoreKey] { current().keys.sorted() }

    /// Every save and removal made through this store object (not those of other processes).
    public nonisolated func changes() -> AsyncStream<TokenStoreChange> { listeners.stream() }

    /// The file's contents now, or as last read when it cannot be read.
    private func current() -> [TokenStoreKey: StoredSession] {
        if let sessions = try? Self.read(path) { lastRead = sessions }
        return lastRead
    }

    private static func read(_ path: String) throws -> [TokenStoreKey: StoredSession] {
        guard let data = try AtomicFile.readPrivate(path) else { return [:] }
        let entries = try AtomicFile.decode([Entry].self, from: data, path: path)
        var sessions: [TokenStoreKey: StoredSession] = [:]
        for entry in entries { sessions[entry.key] = entry.session }
        return sessions
    }

    private func write(_ sessions: [TokenStoreKey: StoredSession]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let entries = sessions.keys.sorted().map { Entry(key: $0, session: sessions[$0]!) }
        try AtomicFile.write(try encoder.encode(entries), to: path)
        lastRead = sessions
    }
}
