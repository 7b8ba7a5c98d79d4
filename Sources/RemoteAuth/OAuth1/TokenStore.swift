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

        /// A signer for this session's client and access token, with the provider's signature method.
        ///
        /// - Parameter privateKey: the client's RSA key, for a provider that uses RSA-SHA1.
        public func signer(privateKey: RSAPrivateKey? = nil) throws -> Signer {
            try Signer(
                client: client,
                token: accessToken.credentials,
                signatureMethod: provider.signatureMethod,
                privateKey: privateKey
            )
        }

        /// An ``HTTPTransport`` that signs every request to `origin` with this session: the
        /// shortest way from a stored sign-in to a signed call.
        ///
        /// ```swift
        /// let session = try await store.oauth1Session(service: "twitter", account: "alice")!
        /// let api = try session.signingTransport(over: transport, now: { Int64(Date().timeIntervalSince1970) })
        /// let (response, body) = try await api.send(request, body: nil)
        /// ```
        ///
        /// - Parameters:
        ///   - origin: the only origin whose requests are signed; the origin of the provider's
        ///     request token URL when `nil` (where a Twitter-style provider also serves its API).
        ///   - now: seconds since 1970 for `oauth_timestamp`.
        ///   - nonce: `oauth_nonce` values; 128 bits from ``RandomSource/system`` by default.
        public func signingTransport(
            over inner: any HTTPTransport,
            now: @escaping @Sendable () -> Int64,
            origin: AuthScope? = nil,
            placement: Placement? = nil,
            privateKey: RSAPrivateKey? = nil,
            nonce: @escaping @Sendable () -> String = { Nonce.random() }
        ) throws -> SigningTransport {
            SigningTransport(
                inner,
                signer: try signer(privateKey: privateKey),
                origin: try origin ?? AuthScope(url: provider.requestTokenURL),
                now: now,
                placement: placement ?? provider.placement,
                realm: provider.realm,
                nonce: nonce
            )
        }
    }
}

/// A signed-in session of any protocol, as a ``TokenStore`` keeps it. OAuth 1.0a today; OAuth 2
/// sessions join as another case, in the same stores.
public enum StoredSession: Sendable, Hashable, Codable, CustomStringConvertible {
    case oauth1(OAuth1.Session)

    /// The OAuth 1.0a session, if this is one.
    public var oauth1: OAuth1.Session? {
        switch self {
        case .oauth1(let session): return session
        }
    }

    public var description: String {
        switch self {
        case .oauth1(let session): return "OAuth1.\(session)"
        }
    }

    private enum CodingKeys: String, CodingKey { case kind, oauth1 }

    /// `{"kind": "oauth1", "oauth1": {…}}`; an object without `kind` is an OAuth 1.0a session as
    /// stores wrote them before sessions of other protocols existed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let kind = try container.decodeIfPresent(String.self, forKey: .kind) else {
            self = .oauth1(try OAuth1.Session(from: decoder))
            return
        }
        switch kind {
        case "oauth1":
            self = .oauth1(try container.decode(OAuth1.Session.self, forKey: .oauth1))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .kind,
                in: container,
                debugDescription: "unknown session kind '\(kind)'"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .oauth1(let session):
            try container.encode("oauth1", forKey: .kind)
            try container.encode(session, forKey: .oauth1)
        }
    }
}

/// Where signed-in sessions are kept, keyed by a service name and an account (GTMOAuth's
/// keychain service name and account): a profile name and a user, say. Sessions of every
/// protocol share one store (``StoredSession``). An Apple Keychain store implements the same
/// protocol.
public protocol TokenStore: Sendable {
    func session(service: String, account: String) async throws -> StoredSession?
    func save(_ session: StoredSession, service: String, account: String) async throws
    func removeSession(service: String, account: String) async throws
    /// Every stored key, sorted by service then account.
    func keys() async throws -> [TokenStoreKey]
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
    private var sessions: [TokenStoreKey: StoredSession] = [:]

    public init() {}

    public func session(service: String, account: String) -> StoredSession? {
        sessions[TokenStoreKey(service: service, account: account)]
    }

    public func save(_ session: StoredSession, service: String, account: String) {
        sessions[TokenStoreKey(service: service, account: account)] = session
    }

    public func removeSession(service: String, account: String) {
        sessions[TokenStoreKey(service: service, account: account)] = nil
    }

    public func keys() -> [TokenStoreKey] { sessions.keys.sorted() }
}
