public import Foundation
public import RemoteAuth
import RemoteAuthFileStore

/// A `TokenStore` in the freedesktop Secret Service (GNOME Keyring, KWallet, KeePassXC), on
/// the D-Bus session bus, spoken directly (a D-Bus client of its own): nothing is needed at build time,
/// and when no Secret Service answers every call fails with
/// ``KeyringError/Code-swift.struct/unavailable``, so a caller can fall back to a file.
///
/// Each session is one item in the collection an alias names (`default`: the login keyring),
/// found by its [lookup attributes](https://specifications.freedesktop.org/secret-service-spec/latest/lookup-attributes.html)
/// `application=remote-auth`, `service=SERVICE`, `account=ACCOUNT`, with `xdg:schema=`
/// ``schema`` (libsecret's attribute for the schema that wrote an item): no secret is in the
/// attributes or in the label, `remote-auth: SERVICE at ISSUER`. The secret is the session's
/// JSON, written with content type `application/json` (gnome-keyring does not keep it).
///
/// Across processes, every change (a save, a removal, an ``withExclusiveAccess(service:account:_:)``)
/// holds the same `flock(2)` the file store uses, on ``lockFile`` (by default
/// `$REMOTE_AUTH_HOME/keyring.lock`), so an `OAuth2.TokenSession` refreshes once for every
/// process using the key, and saves the rotated tokens before it releases the lock.
///
/// Nothing that another program owns is overwritten: an item under the same attributes without
/// this store's schema is ``KeyringError/Code-swift.struct/foreignItem``, an item of this
/// store's that does not decode is ``KeyringError/Code-swift.struct/undecodable``, a collection
/// that is locked (or locks between two calls) and needs a prompt to unlock is
/// ``KeyringError/Code-swift.struct/locked``: each names the key, and nothing is written.
public actor SecretServiceTokenStore: CoordinatedTokenStore, SecretServiceClient {
    /// The `xdg:schema` attribute of this store's items.
    public static let schema = "org.remoteauth.Session"
    /// The `application` attribute of this store's items.
    public static let application = "remote-auth"
    /// The content type of this store's secrets.
    static let contentType = "application/json"

    /// Which collection holds the items.
    public enum Collection: Sendable, Hashable, CustomStringConvertible {
        /// The collection an alias names: `default` is the one desktop keyrings keep passwords
        /// in (gnome-keyring knows no other alias).
        case alias(String)
        /// A collection by its object path (`/org/freedesktop/secrets/collection/login`).
        case path(String)

        public var description: String {
            switch self {
            case .alias(let alias): "'\(alias)' collection"
            case .path(let path): "collection \(path)"
            }
        }
    }

    /// The collection the items are in.
    public let collection: Collection
    /// The lock file every change holds (`flock(2)`), shared by the processes using the store.
    public let lockFile: String
    /// How long a change waits for another process's lock before it fails.
    public let lockTimeout: Duration
    /// Each D-Bus call's deadline (connecting included).
    public let timeout: Duration
    let address: String?
    var service: SecretService?
    private let listeners = TokenStoreListeners()

    /// The default lock file: `$REMOTE_AUTH_HOME/keyring.lock`, else
    /// `$XDG_CONFIG_HOME/remote-auth/keyring.lock`, else `~/.config/remote-auth/keyring.lock`.
    public static func defaultLockFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        AtomicFile.defaultPath("keyring.lock", environment: environment)
    }

    /// A store on the session bus of `environment` (`DBUS_SESSION_BUS_ADDRESS`); it connects on
    /// first use.
    ///
    /// - Parameters:
    ///   - collection: the collection; by default the one the `default` alias names.
    ///   - environment: where `DBUS_SESSION_BUS_ADDRESS` and the lock file's default come from.
    ///   - lockFile: the lock file every change holds, beside the file store's by default.
    ///   - lockTimeout: how long a change waits for another process's lock.
    ///   - timeout: each D-Bus call's deadline.
    public init(
        collection: Collection = .alias("default"),
        environment: [String: String] = ProcessInfo.processInfo.environment,
        lockFile: String? = nil,
        lockTimeout: Duration = .seconds(30),
        timeout: Duration = .seconds(5)
    ) {
        self.collection = collection
        self.address = environment["DBUS_SESSION_BUS_ADDRESS"]
        self.lockFile = lockFile ?? Self.defaultLockFile(environment: environment)
        self.lockTimeout = lockTimeout
        self.timeout = timeout
    }

    /// Checks that a Secret Service answers and its collection can be used now (unlocked).
    ///
    /// - Throws: ``KeyringError``: `.unavailable`, `.noCollection`, `.locked`, `.failed`.
    public func check() async throws {
        try await run(.none) { service in _ = try await self.collectionPath(service, .none) }
    }

    /// Closes the connection to the bus (the next call opens another).
    public func close() async { await closeConnection() }

    public func session(service: String, account: String) async throws -> StoredSession? {
        let key = TokenStoreKey(service: service, account: account)
        return try await run(.profile(key)) { bus in
            let collection = try await self.collectionPath(bus, .profile(key))
            return try await self.read(key, bus, collection)?.session
        }
    }

    public func save(_ session: StoredSession, service: String, account: String) async throws {
        let key = TokenStoreKey(service: service, account: account)
        let lock = try await FileLock.acquire(lockFile: lockFile, timeout: lockTimeout)
        defer { lock.release() }
        try await run(.profile(key)) { bus in
            let collection = try await self.collectionPath(bus, .profile(key))
            _ = try await self.read(key, bus, collection)
            try await self.write(session, key, bus, collection)
        }
        listeners.yield(.saved(key, session))
    }

    /// Removes this store's item for the key (one that does not decode included); an item of
    /// another program's under the key is left, with ``KeyringError/Code-swift.struct/foreignItem``.
    public func removeSession(service: String, account: String) async throws {
        let key = TokenStoreKey(service: service, account: account)
        let lock = try await FileLock.acquire(lockFile: lockFile, timeout: lockTimeout)
        defer { lock.release() }
        try await run(.profile(key)) { bus in
            let collection = try await self.collectionPath(bus, .profile(key))
            try await self.delete(key, bus, collection)
        }
        listeners.yield(.removed(key))
    }

    /// Holds the lock file while `body` reads and changes the session under the key, and
    /// writes the item (or deletes it) before releasing it.
    ///
    /// - Throws: `FileStoreError` (`.lockTimeout`) when another holder keeps the lock longer
    ///   than ``lockTimeout``; ``KeyringError``; `body`'s error, with nothing written.
    public func withExclusiveAccess<Result: Sendable>(
        service: String,
        account: String,
        _ body: @Sendable (_ session: inout StoredSession?) async throws -> Result
    ) async throws -> Result {
        let key = TokenStoreKey(service: service, account: account)
        let lock = try await FileLock.acquire(lockFile: lockFile, timeout: lockTimeout)
        defer { lock.release() }
        let (bus, collection, current) = try await run(.profile(key)) { bus in
            let collection = try await self.collectionPath(bus, .profile(key))
            return (bus, collection, try await self.read(key, bus, collection)?.session)
        }
        var session = current
        let result = try await body(&session)
        guard session != current else { return result }
        try await run(.profile(key)) { _ in
            if let session {
                try await self.write(session, key, bus, collection)
            } else {
                try await self.delete(key, bus, collection)
            }
        }
        listeners.yield(session.map { .saved(key, $0) } ?? .removed(key))
        return result
    }

    /// Every key this store holds in the collection, sorted.
    public func keys() async throws -> [TokenStoreKey] {
        try await run(.none) { bus in
            let collection = try await self.collectionPath(bus, .none)
            let items = try await bus.searchItems(
                in: collection,
                ["application": Self.application, "xdg:schema": Self.schema]
            )
            var keys: Set<TokenStoreKey> = []
            for item in items {
                let attributes = try await bus.attributes(of: item)
                guard let service = attributes["service"], let account = attributes["account"] else { continue }
                keys.insert(TokenStoreKey(service: service, account: account))
            }
            return keys.sorted()
        }
    }

    /// Every save and removal made through this store object (not those of other processes).
    public nonisolated func changes() -> AsyncStream<TokenStoreChange> { listeners.stream() }

    // MARK: Items

    /// The attributes that find the key's item (this store's or another program's).
    static func lookup(_ key: TokenStoreKey) -> [String: String] {
        ["application": application, "service": key.service, "account": key.account]
    }

    /// `remote-auth: SERVICE at ISSUER` (the OAuth 2 issuer, else the token endpoint's host), or
    /// `remote-auth: SERVICE (ACCOUNT)` for a session of another kind.
    static func label(_ key: TokenStoreKey, _ session: StoredSession) -> String {
        if let oauth2 = session.oauth2 {
            let issuer = oauth2.issuer ?? URL(string: oauth2.tokenEndpoint)?.host ?? oauth2.tokenEndpoint
            return "remote-auth: \(key.service) at \(issuer)"
        }
        return "remote-auth: \(key.service) (\(key.account))"
    }

    /// This store's item for the key, or `nil`.
    ///
    /// - Throws: `.foreignItem` for an item another program wrote under the key's attributes;
    ///   `.duplicateItems` when this store has more than one.
    private func item(_ key: TokenStoreKey, _ bus: SecretService, _ collection: String) async throws -> String? {
        var ours: [String] = []
        for item in try await bus.searchItems(in: collection, Self.lookup(key)) {
            guard try await bus.attributes(of: item)["xdg:schema"] == Self.schema else {
                throw KeyringError(
                    .foreignItem,
                    key: key,
                    reason:
                        "the keyring item \(item) has the attributes of\(KeyringSubject.profile(key).naming) but was not written by remote-auth (no xdg:schema \(Self.schema)): it is left as it is; remove it (secret-tool clear application \(Self.application) service \(key.service) account \(key.account)) to use the profile here"
                )
            }
            ours.append(item)
        }
        guard ours.count <= 1 else {
            throw KeyringError(
                .duplicateItems,
                key: key,
                reason: "the keyring holds \(ours.count) items for\(KeyringSubject.profile(key).naming)"
            )
        }
        return ours.first
    }

    /// This store's item for the key and the session in it, or `nil`.
    private func read(
        _ key: TokenStoreKey,
        _ bus: SecretService,
        _ collection: String
    ) async throws -> (item: String, session: StoredSession)? {
        guard let item = try await item(key, bus, collection) else { return nil }
        // Not checked against contentType: gnome-keyring keeps no content type (it answers
        // text/plain for every secret); the JSON is what says whose the secret is.
        let (value, _) = try await bus.secret(of: item)
        guard let session = try? JSONDecoder().decode(StoredSession.self, from: Data(value)) else {
            throw KeyringError(
                .undecodable,
                key: key,
                reason:
                    "the keyring item \(item) for\(KeyringSubject.profile(key).naming) does not hold a session remote-auth can read (\(value.count) bytes): it is left as it is; remove the profile to replace it"
            )
        }
        return (item, session)
    }

    private func write(
        _ session: StoredSession,
        _ key: TokenStoreKey,
        _ bus: SecretService,
        _ collection: String
    ) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let secret = Array(try encoder.encode(session))
        var attributes = Self.lookup(key)
        attributes["xdg:schema"] = Self.schema
        let created = try await bus.createItem(
            in: collection,
            label: Self.label(key, session),
            attributes: attributes,
            secret: secret,
            contentType: Self.contentType
        )
        guard created != nil else { throw lockedError(.profile(key)) }
    }

    private func delete(_ key: TokenStoreKey, _ bus: SecretService, _ collection: String) async throws {
        guard let item = try await item(key, bus, collection) else { return }
        guard try await bus.delete(item) else { throw lockedError(.profile(key)) }
    }
}
