public import Foundation
public import RemoteAuth

/// A `TokenStore` in one JSON file (mode 0600, replaced atomically), by default
/// `$REMOTE_AUTH_HOME/tokens.json` or `$XDG_CONFIG_HOME/remote-auth/tokens.json`. Secrets are in
/// clear text, protected by the file's mode. Files written before sessions of other protocols
/// existed (an OAuth 1.0a session without a `kind`) still open.
///
/// Every read goes to the file, and every save reads, changes and rewrites it, so a token
/// another process rotated is seen and its other entries are kept.
///
/// Processes share it safely: every change (a save, a removal, an
/// ``withExclusiveAccess(service:account:_:)``) holds an advisory lock (`flock(2)`) on `PATH.lock`
/// beside the file, so two changes never interleave, and an `OAuth2.TokenSession` refreshes
/// holding it: two `remote-auth request --profile` processes whose token expired at the same
/// moment refresh once, and the second uses what the first saved. Readers take no lock: the file
/// is replaced whole by `rename(2)`, so a reader (or a `kill -9` in the middle of a write) sees
/// the old file or the new one, never part of either. The kernel releases the lock of a process
/// that dies; a holder that hangs makes the others fail with
/// ``FileStoreError/Code-swift.struct/lockTimeout`` after `lockTimeout`.
public actor FileTokenStore: CoordinatedTokenStore {
    struct Entry: Codable {
        var key: TokenStoreKey
        var session: StoredSession
    }

    /// The JSON file the sessions are saved in (its lock file is `PATH.lock`).
    public let path: String
    /// How long a change waits for another process's lock before it fails.
    public let lockTimeout: Duration
    private let listeners = TokenStoreListeners()
    /// The file's contents as last read, for ``session(service:account:)`` and ``keys()`` when
    /// the file cannot be read now (they do not throw).
    private var lastRead: [TokenStoreKey: StoredSession]

    /// The default file: `$REMOTE_AUTH_HOME/tokens.json`, else
    /// `$XDG_CONFIG_HOME/remote-auth/tokens.json`, else `~/.config/remote-auth/tokens.json`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        AtomicFile.defaultPath("tokens.json", environment: environment)
    }

    /// Opens the store at `path`, checking that what is saved there (if anything) can be read.
    ///
    /// - Parameter lockTimeout: how long a change waits for the lock another process (or store
    ///   object) holds, a refresh included, before it fails with
    ///   ``FileStoreError/Code-swift.struct/lockTimeout``.
    /// - Parameter path: the JSON file; created (mode 0600) on the first save.
    /// - Throws: ``FileStoreError`` when group or others can access the file
    ///   (`.permissionsTooOpen`), or it is not the JSON this store writes (`.corruptFile`).
    public init(path: String = FileTokenStore.defaultPath(), lockTimeout: Duration = .seconds(30)) throws {
        self.path = path
        self.lockTimeout = lockTimeout
        self.lastRead = try Self.read(path)
    }

    public func session(service: String, account: String) -> StoredSession? {
        current()[TokenStoreKey(service: service, account: account)]
    }

    public func save(_ session: StoredSession, service: String, account: String) async throws {
        let key = TokenStoreKey(service: service, account: account)
        let lock = try await FileLock.acquire(path, timeout: lockTimeout)
        defer { lock.release() }
        var sessions = try Self.read(path)
        sessions[key] = session
        try write(sessions)
        listeners.yield(.saved(key, session))
    }

    public func removeSession(service: String, account: String) async throws {
        let key = TokenStoreKey(service: service, account: account)
        let lock = try await FileLock.acquire(path, timeout: lockTimeout)
        defer { lock.release() }
        var sessions = try Self.read(path)
        sessions[key] = nil
        try write(sessions)
        listeners.yield(.removed(key))
    }

    /// Holds the lock on `PATH.lock` while `body` reads and changes the session under the key,
    /// and writes the file (atomically) before releasing it. Other processes' changes wait for
    /// it, up to their `lockTimeout`.
    ///
    /// - Throws: ``FileStoreError/Code-swift.struct/lockTimeout`` when another holder keeps the
    ///   lock longer than ``lockTimeout``; the file's errors; `body`'s error, with nothing written.
    public func withExclusiveAccess<Result: Sendable>(
        service: String,
        account: String,
        _ body: @Sendable (_ session: inout StoredSession?) async throws -> Result
    ) async throws -> Result {
        let key = TokenStoreKey(service: service, account: account)
        let lock = try await FileLock.acquire(path, timeout: lockTimeout)
        defer { lock.release() }
        var sessions = try Self.read(path)
        let current = sessions[key]
        var session = current
        let result = try await body(&session)
        guard session != current else { return result }
        sessions[key] = session
        try write(sessions)
        listeners.yield(session.map { .saved(key, $0) } ?? .removed(key))
        return result
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
        AtomicFile.removeTemporaryFiles(of: path)
        try AtomicFile.write(try encoder.encode(entries), to: path)
        lastRead = sessions
    }
}
