/// Where signed-in sessions are kept, keyed by a service name and an account (GTMOAuth's
/// keychain service name and account): a profile name and a user, say. Sessions of every
/// protocol share one store (``StoredSession``). An Apple Keychain store implements the same
/// protocol.
///
/// A store tells listeners about every save and removal through ``changes()``, so an app can
/// follow token rotations made by an ``OAuth2/TokenSession`` (golang/oauth2#84 asked for this
/// hook).
public protocol TokenStore: Sendable {
    /// The session under `service` and `account`; `nil` when there is none.
    func session(service: String, account: String) async throws -> StoredSession?
    /// Saves `session` under `service` and `account`, replacing what was there, and tells the
    /// listeners.
    func save(_ session: StoredSession, service: String, account: String) async throws
    /// Removes the session under `service` and `account`, if any, and tells the listeners.
    func removeSession(service: String, account: String) async throws
    /// Every stored key, sorted by service then account.
    func keys() async throws -> [TokenStoreKey]
    /// A stream of every change made through this store from now on, in order, until the
    /// listener stops iterating (``TokenStoreListeners`` does the bookkeeping).
    func changes() async -> AsyncStream<TokenStoreChange>
}

extension TokenStore {
    /// The OAuth 1.0a session under this key; `nil` when there is none or it is of another protocol.
    public func oauth1Session(service: String, account: String) async throws -> OAuth1.Session? {
        try await session(service: service, account: account)?.oauth1
    }

    /// Saves an OAuth 1.0a session under this key.
    public func save(_ session: OAuth1.Session, service: String, account: String) async throws {
        try await save(.oauth1(session), service: service, account: account)
    }

    /// The OAuth 2 session under this key; `nil` when there is none or it is of another protocol.
    public func oauth2Session(service: String, account: String) async throws -> OAuth2.Session? {
        try await session(service: service, account: account)?.oauth2
    }

    /// Saves an OAuth 2 session under this key.
    public func save(_ session: OAuth2.Session, service: String, account: String) async throws {
        try await save(.oauth2(session), service: service, account: account)
    }
}

/// A ``TokenStore`` key.
public struct TokenStoreKey: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The service name: what the session signs in to (a profile name, an API).
    public var service: String
    /// The account: whose session it is.
    public var account: String
    /// The key of `account`'s session for `service`.
    public init(service: String, account: String) {
        self.service = service
        self.account = account
    }
    /// Orders keys by service, then account.
    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.service, lhs.account) < (rhs.service, rhs.account) }
    public var description: String { "\(service)/\(account)" }
}

/// A ``TokenStore`` in memory, for the process's lifetime. Its
/// ``withExclusiveAccess(service:account:_:)`` serializes the tasks of this process, in the order
/// they asked.
public actor InMemoryTokenStore: CoordinatedTokenStore {
    private var sessions: [TokenStoreKey: StoredSession] = [:]
    private let listeners = TokenStoreListeners()
    private var exclusion = KeyedExclusion()

    /// An empty store.
    public init() {}

    public func session(service: String, account: String) -> StoredSession? {
        sessions[TokenStoreKey(service: service, account: account)]
    }

    public func save(_ session: StoredSession, service: String, account: String) {
        let key = TokenStoreKey(service: service, account: account)
        sessions[key] = session
        listeners.yield(.saved(key, session))
    }

    public func removeSession(service: String, account: String) {
        let key = TokenStoreKey(service: service, account: account)
        sessions[key] = nil
        listeners.yield(.removed(key))
    }

    public func keys() -> [TokenStoreKey] { sessions.keys.sorted() }

    public nonisolated func changes() -> AsyncStream<TokenStoreChange> { listeners.stream() }

    public func withExclusiveAccess<Result: Sendable>(
        service: String,
        account: String,
        _ body: @Sendable (_ session: inout StoredSession?) async throws -> Result
    ) async throws -> Result {
        let key = TokenStoreKey(service: service, account: account)
        if !exclusion.tryAcquire(key) {
            await withCheckedContinuation { exclusion.enqueue($0, for: key) }
        }
        defer { exclusion.release(key) }
        let current = sessions[key]
        var session = current
        let result = try await body(&session)
        if session != current {
            if let session {
                save(session, service: service, account: account)
            } else {
                removeSession(service: service, account: account)
            }
        }
        return result
    }
}
