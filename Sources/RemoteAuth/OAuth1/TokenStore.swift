extension OAuth1 {
    /// A signed-in session: everything needed to make signed calls again at the next start,
    /// without a new sign-in. `description` redacts the secrets.
    public struct Session: Sendable, Hashable, Codable, CustomStringConvertible {
        public var provider: Provider
        public var client: ClientCredentials
        public var accessToken: AccessToken

        public init(provider: Provider, client: ClientCredentials, accessToken: AccessToken) {
            self.provider = provider
            self.client = client
            self.accessToken = accessToken
        }

        public var description: String {
            "Session(\(client), \(accessToken.credentials), user: \(accessToken.screenName ?? accessToken.userID ?? "?"))"
        }
    }
}

/// Where signed-in sessions are kept, keyed by a service name and an account (GTMOAuth's
/// keychain service name and account): a profile name and a user, say. An Apple Keychain store
/// implements the same protocol.
public protocol TokenStore: Sendable {
    func session(service: String, account: String) async throws -> OAuth1.Session?
    func save(_ session: OAuth1.Session, service: String, account: String) async throws
    func removeSession(service: String, account: String) async throws
    /// Every stored key, sorted by service then account.
    func keys() async throws -> [TokenStoreKey]
}

/// A ``TokenStore`` key.
public struct TokenStoreKey: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public var service: String
    public var account: String
    public init(service: String, account: String) {
        self.service = service
        self.account = account
    }
    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.service, lhs.account) < (rhs.service, rhs.account) }
    public var description: String { "\(service)/\(account)" }
}

/// A ``TokenStore`` in memory, for the process's lifetime.
public actor InMemoryTokenStore: TokenStore {
    private var sessions: [TokenStoreKey: OAuth1.Session] = [:]

    public init() {}

    public func session(service: String, account: String) -> OAuth1.Session? {
        sessions[TokenStoreKey(service: service, account: account)]
    }

    public func save(_ session: OAuth1.Session, service: String, account: String) {
        sessions[TokenStoreKey(service: service, account: account)] = session
    }

    public func removeSession(service: String, account: String) {
        sessions[TokenStoreKey(service: service, account: account)] = nil
    }

    public func keys() -> [TokenStoreKey] { sessions.keys.sorted() }
}
