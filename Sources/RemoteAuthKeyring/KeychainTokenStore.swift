// Apple platforms only: not built or run on Linux, where this file is empty (see the README,
// "Tokens in the desktop keyring"). It keeps the expectations of SecretServiceTokenStore, which
// its tests (KeychainTokenStoreTests, also Apple-only) restate.
#if canImport(Security)
public import Foundation
public import RemoteAuth
import RemoteAuthFileStore
import Security

/// A `TokenStore` in the Apple Keychain: each session is one generic password item
/// (`kSecClassGenericPassword`) whose `kSecAttrService` is the service (the profile) and whose
/// `kSecAttrAccount` is the account, the secret (`kSecValueData`) being the session's JSON and
/// the label (`kSecAttrLabel`) readable by a person, `remote-auth: SERVICE at ISSUER`; no secret
/// is in an attribute. The item's `kSecAttrGeneric` holds ``marker``: an item under the same
/// service and account without it belongs to another program and is never overwritten.
///
/// Items are in the data protection keychain (`kSecUseDataProtectionKeychain`) unless
/// ``dataProtectionKeychain`` is `false` (on macOS, a program without the
/// `keychain-access-groups` entitlement, such as a command-line tool, uses the login keychain),
/// in ``accessGroup`` when one is given (shared by the apps of a team), readable as
/// ``accessibility`` says: by default `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`, so a
/// background refresh works after the first unlock and the item never leaves the device in a
/// backup.
///
/// Across processes (an app and its extensions, several command-line processes), every change
/// holds the same `flock(2)` as ``SecretServiceTokenStore``, on ``lockFile``, so an
/// `OAuth2.TokenSession` refreshes once and saves the rotated tokens before it releases it.
///
/// Errors are ``KeyringError``: `.locked` when the keychain cannot be read now
/// (`errSecInteractionNotAllowed`: the device is locked), `.foreignItem`, `.undecodable`, and
/// `.failed` with the `OSStatus` and its message; each names the key, and nothing is written.
///
/// Not built or run on Linux; the same expectations as the Secret Service store's tests are
/// written down in `KeychainTokenStoreTests`, which run only on Apple platforms.
public actor KeychainTokenStore: CoordinatedTokenStore {
    /// The `kSecAttrGeneric` of this store's items: the Secret Service store's `xdg:schema`.
    public static let marker = Data(SecretServiceTokenStore.schema.utf8)

    /// When an item can be read (`kSecAttrAccessible`).
    public enum Accessibility: String, Sendable, Hashable, CaseIterable {
        /// After the first unlock since boot, on this device only (the default).
        case afterFirstUnlockThisDeviceOnly
        /// After the first unlock since boot; moves to a new device with an encrypted backup.
        case afterFirstUnlock
        /// While the device is unlocked, on this device only.
        case whenUnlockedThisDeviceOnly
        /// While the device is unlocked.
        case whenUnlocked
        /// While unlocked, on a device with a passcode set, on this device only.
        case whenPasscodeSetThisDeviceOnly

        /// The `kSecAttrAccessible` value.
        var attribute: CFString {
            switch self {
            case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            case .afterFirstUnlock: kSecAttrAccessibleAfterFirstUnlock
            case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
            case .whenUnlocked: kSecAttrAccessibleWhenUnlocked
            case .whenPasscodeSetThisDeviceOnly: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
            }
        }
    }

    /// The keychain access group (`kSecAttrAccessGroup`), or `nil` for the app's default.
    public let accessGroup: String?
    /// When the items can be read.
    public let accessibility: Accessibility
    /// Whether the items are in the data protection keychain (`kSecUseDataProtectionKeychain`).
    public let dataProtectionKeychain: Bool
    /// The lock file every change holds (`flock(2)`), shared by the processes using the store.
    public let lockFile: String
    /// How long a change waits for another process's lock before it fails.
    public let lockTimeout: Duration
    private let listeners = TokenStoreListeners()

    /// A store in the keychain.
    ///
    /// - Parameters:
    ///   - accessGroup: the access group the items are in; `nil` for the app's default.
    ///   - accessibility: when the items can be read.
    ///   - dataProtectionKeychain: `false` on macOS for a program without the
    ///     `keychain-access-groups` entitlement (its items go to the login keychain).
    ///   - lockFile: the lock file every change holds; by default the Secret Service store's.
    ///   - lockTimeout: how long a change waits for another process's lock.
    public init(
        accessGroup: String? = nil,
        accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly,
        dataProtectionKeychain: Bool = true,
        lockFile: String? = nil,
        lockTimeout: Duration = .seconds(30)
    ) {
        self.accessGroup = accessGroup
        self.accessibility = accessibility
        self.dataProtectionKeychain = dataProtectionKeychain
        self.lockFile = lockFile ?? SecretServiceTokenStore.defaultLockFile()
        self.lockTimeout = lockTimeout
    }

    public func session(service: String, account: String) async throws -> StoredSession? {
        try read(TokenStoreKey(service: service, account: account))
    }

    public func save(_ session: StoredSession, service: String, account: String) async throws {
        let key = TokenStoreKey(service: service, account: account)
        let lock = try await FileLock.acquire(lockFile: lockFile, timeout: lockTimeout)
        defer { lock.release() }
        try write(session, key, exists: try read(key) != nil)
        listeners.yield(.saved(key, session))
    }

    /// Removes this store's item for the key (one that does not decode included); another
    /// program's item under the key is left, with ``KeyringError/Code-swift.struct/foreignItem``.
    public func removeSession(service: String, account: String) async throws {
        let key = TokenStoreKey(service: service, account: account)
        let lock = try await FileLock.acquire(lockFile: lockFile, timeout: lockTimeout)
        defer { lock.release() }
        try delete(key)
        listeners.yield(.removed(key))
    }

    /// Holds the lock file while `body` reads and changes the session under the key, and
    /// writes the item (or deletes it) before releasing it.
    public func withExclusiveAccess<Result: Sendable>(
        service: String,
        account: String,
        _ body: @Sendable (_ session: inout StoredSession?) async throws -> Result
    ) async throws -> Result {
        let key = TokenStoreKey(service: service, account: account)
        let lock = try await FileLock.acquire(lockFile: lockFile, timeout: lockTimeout)
        defer { lock.release() }
        let current = try read(key)
        var session = current
        let result = try await body(&session)
        guard session != current else { return result }
        if let session {
            try write(session, key, exists: current != nil)
        } else {
            try delete(key)
        }
        listeners.yield(session.map { .saved(key, $0) } ?? .removed(key))
        return result
    }

    /// Every key this store holds (items with ``marker``), sorted.
    public func keys() async throws -> [TokenStoreKey] {
        var query = baseQuery()
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        query[kSecReturnAttributes as String] = true
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return [] }
        guard status == errSecSuccess else { throw failure(status, nil, "list the keychain's items") }
        let items = result as? [[String: Any]] ?? []
        let keys = items.compactMap { attributes -> TokenStoreKey? in
            guard attributes[kSecAttrGeneric as String] as? Data == Self.marker,
                let service = attributes[kSecAttrService as String] as? String,
                let account = attributes[kSecAttrAccount as String] as? String
            else { return nil }
            return TokenStoreKey(service: service, account: account)
        }
        return Set(keys).sorted()
    }

    /// Every save and removal made through this store object (not those of other processes).
    public nonisolated func changes() -> AsyncStream<TokenStoreChange> { listeners.stream() }

    // MARK: Items

    /// The class, the access group and the data protection keychain: what every query names.
    private func baseQuery() -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword]
        if dataProtectionKeychain { query[kSecUseDataProtectionKeychain as String] = true }
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    /// The query that finds the key's item (this store's or another program's).
    private func query(_ key: TokenStoreKey) -> [String: Any] {
        var query = baseQuery()
        query[kSecAttrService as String] = key.service
        query[kSecAttrAccount as String] = key.account
        return query
    }

    /// This store's item for the key and the session in it, or `nil`.
    ///
    /// - Throws: `.foreignItem` for an item without ``marker``; `.undecodable` for one whose
    ///   data is not a session; `.locked`; `.failed`.
    private func read(_ key: TokenStoreKey) throws -> StoredSession? {
        var query = query(key)
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        query[kSecReturnAttributes as String] = true
        query[kSecReturnData as String] = true
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let attributes = result as? [String: Any] else {
            throw failure(status, key, "read the keychain item")
        }
        guard attributes[kSecAttrGeneric as String] as? Data == Self.marker else {
            throw KeyringError(
                .foreignItem,
                key: key,
                reason:
                    "the keychain item of service '\(key.service)', account '\(key.account)' was not written by remote-auth: it is left as it is; remove it to use the profile here"
            )
        }
        let data = attributes[kSecValueData as String] as? Data ?? Data()
        guard let session = try? JSONDecoder().decode(StoredSession.self, from: data) else {
            throw KeyringError(
                .undecodable,
                key: key,
                reason:
                    "the keychain item of profile '\(key.service)' does not hold a session remote-auth can read (\(data.count) bytes): it is left as it is; remove the profile to replace it"
            )
        }
        return session
    }

    private func write(_ session: StoredSession, _ key: TokenStoreKey, exists: Bool) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(session)
        let label = SecretServiceTokenStore.label(key, session)
        if exists {
            let changes: [String: Any] = [kSecValueData as String: data, kSecAttrLabel as String: label]
            let status = SecItemUpdate(query(key) as CFDictionary, changes as CFDictionary)
            guard status == errSecSuccess else { throw failure(status, key, "update the keychain item") }
        } else {
            var item = query(key)
            item[kSecValueData as String] = data
            item[kSecAttrLabel as String] = label
            item[kSecAttrGeneric as String] = Self.marker
            item[kSecAttrAccessible as String] = accessibility.attribute
            let status = SecItemAdd(item as CFDictionary, nil)
            guard status == errSecSuccess else { throw failure(status, key, "add the keychain item") }
        }
    }

    /// Deletes this store's item for the key, one that does not decode included; another
    /// program's is left, with `.foreignItem`.
    private func delete(_ key: TokenStoreKey) throws {
        do {
            guard try read(key) != nil else { return }
        } catch let error as KeyringError where error.code == .undecodable {
            // This store's item, unreadable: removing the profile is how it is replaced.
        }
        let status = SecItemDelete(query(key) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else {
            throw failure(status, key, "delete the keychain item")
        }
    }

    private func failure(_ status: OSStatus, _ key: TokenStoreKey?, _ action: String) -> KeyringError {
        let naming = key.map { " of profile '\($0.service)', account '\($0.account)'" } ?? ""
        if status == errSecInteractionNotAllowed {
            return KeyringError(
                .locked,
                key: key,
                reason: "the keychain is locked (the device has not been unlocked): could not \(action)\(naming); nothing was written"
            )
        }
        let message = SecCopyErrorMessageString(status, nil) as String? ?? "no message"
        return KeyringError(.failed, key: key, reason: "could not \(action)\(naming): OSStatus \(status) (\(message))")
    }
}
#endif
