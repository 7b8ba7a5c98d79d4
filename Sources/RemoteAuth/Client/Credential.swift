/// A user and password for HTTP authentication, and the schemes it may answer.
///
/// Limiting a credential to Digest keeps a server (or a man in the middle) from downgrading it
/// to Basic, which would reveal the password. `description` and `debugDescription` show the user
/// and hide the password.
public struct Credential: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The authentication schemes a credential may answer.
    public struct Schemes: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// `Basic`: [RFC 7617](https://www.rfc-editor.org/rfc/rfc7617).
        public static let basic = Schemes(rawValue: 1)
        /// `Digest`: [RFC 7616](https://www.rfc-editor.org/rfc/rfc7616).
        public static let digest = Schemes(rawValue: 2)
        /// Both `Basic` and `Digest`.
        public static let all: Schemes = [.basic, .digest]
    }

    /// The user name.
    public let user: String
    let password: Secret
    /// The schemes the credential may answer; `Digest` alone keeps the password off the wire.
    public let schemes: Schemes

    /// - Warning: with ``Schemes/basic`` allowed, the password crosses the wire in the clear
    ///   whenever a server asks for Basic; use it only over `https` (or loopback).
    public init(user: String, password: Secret, schemes: Schemes = .all) {
        self.user = user
        self.password = password
        self.schemes = schemes
    }

    /// The same, the password given as a plain string.
    public init(user: String, password: String, schemes: Schemes = .all) {
        self.init(user: user, password: Secret(password), schemes: schemes)
    }

    /// A credential for `Basic` only.
    public static func basic(user: String, password: String) -> Credential {
        Credential(user: user, password: password, schemes: .basic)
    }

    /// A credential for `Basic` only.
    public static func basic(user: String, password: Secret) -> Credential {
        Credential(user: user, password: password, schemes: .basic)
    }

    /// A credential for `Digest` only.
    public static func digest(user: String, password: String) -> Credential {
        Credential(user: user, password: password, schemes: .digest)
    }

    /// A credential for `Digest` only.
    public static func digest(user: String, password: Secret) -> Credential {
        Credential(user: user, password: password, schemes: .digest)
    }

    /// Whether the credential may answer a challenge of `scheme` (case-insensitive).
    public func allows(scheme: String) -> Bool {
        if asciiCaseInsensitiveEquals(scheme, "Basic") { return schemes.contains(.basic) }
        if asciiCaseInsensitiveEquals(scheme, "Digest") { return schemes.contains(.digest) }
        return false
    }

    var basicCredentials: BasicCredentials {
        get throws { try BasicCredentials(user: user, password: password) }
    }

    var digestCredentials: DigestCredentials { DigestCredentials(username: user, password: password) }

    /// Compares the passwords in constant time (``Secret``).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.user == rhs.user && lhs.schemes == rhs.schemes && lhs.password == rhs.password
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(user)
        hasher.combine(schemes.rawValue)
    }

    public var description: String {
        var names: [String] = []
        if schemes.contains(.basic) { names.append("Basic") }
        if schemes.contains(.digest) { names.append("Digest") }
        return "Credential(user: \(user), password: <redacted>, schemes: \(names.joined(separator: "|")))"
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["user": user, "password": password, "schemes": schemes], displayStyle: .struct)
    }
}

/// A credential with the scope it is valid for, and whether it may cross plain `http`.
public struct ScopedCredential: Sendable, Hashable, CustomStringConvertible {
    /// The origin, and optionally the realm, the credential is valid for.
    public let scope: AuthScope
    /// The user, password and schemes.
    public let credential: Credential
    /// The caller's opt-in to send this credential over plain `http` to a host that is not
    /// loopback. Off by default.
    public let allowsPlainHTTP: Bool

    /// Scopes `credential` to `scope`; over plain `http` to a host that is not loopback only with
    /// `allowsPlainHTTP`.
    public init(scope: AuthScope, credential: Credential, allowsPlainHTTP: Bool = false) {
        self.scope = scope
        self.credential = credential
        self.allowsPlainHTTP = allowsPlainHTTP
    }

    public var description: String {
        "\(credential) for \(scope)" + (allowsPlainHTTP ? " (plain http allowed)" : "")
    }
}

/// Where ``AuthenticatingClient`` finds credentials. Lookups must never return a credential
/// whose scope has another scheme, host or port than asked for.
public protocol CredentialStore: Sendable {
    /// The credential for `realm` at `origin` (a scope without realm). `realm` is `nil` when
    /// no challenge has named one (preemptive mode): then only scopes without a realm match.
    func credential(for origin: AuthScope, realm: String?) async -> ScopedCredential?
}

/// How long a store keeps a credential, as `URLCredential.Persistence` does.
public enum CredentialPersistence: String, Sendable, Hashable, Codable {
    /// For one use: the first lookup that returns it also forgets it.
    case none
    /// For the store's (and so the client's) lifetime, in memory.
    case forClient
    /// Across runs: a store that writes (``CredentialStore`` implementations with a file) keeps
    /// it there; an in-memory store keeps it like ``forClient``.
    case permanent
}

extension Credential {
    /// The password, for stores inside this package that must write it (a file store).
    package var storedPassword: Secret { password }
}

/// An in-memory ``CredentialStore``. Among matching entries, one limited to the realm asked
/// for wins over one for every realm; among equals the one added last wins.
public actor InMemoryCredentialStore: CredentialStore {
    private var entries: [ScopedCredential] = []
    /// Scopes whose credential is for one use (``CredentialPersistence/none``).
    private var singleUse: Set<AuthScope> = []

    /// A store holding `entries` for the store's lifetime.
    public init(_ entries: [ScopedCredential] = []) {
        self.entries = entries
    }

    /// Adds `credential` for `scope`, replacing any credential for exactly that scope.
    public func add(
        _ credential: Credential,
        for scope: AuthScope,
        allowingPlainHTTP: Bool = false,
        persistence: CredentialPersistence = .forClient
    ) {
        entries.removeAll { $0.scope == scope }
        entries.append(ScopedCredential(scope: scope, credential: credential, allowsPlainHTTP: allowingPlainHTTP))
        if persistence == .none { singleUse.insert(scope) } else { singleUse.remove(scope) }
    }

    /// Removes the credential for exactly `scope`.
    public func remove(_ scope: AuthScope) {
        entries.removeAll { $0.scope == scope }
        singleUse.remove(scope)
    }

    public func credential(for origin: AuthScope, realm: String?) -> ScopedCredential? {
        guard let found = Self.bestMatch(in: entries, for: origin, realm: realm) else { return nil }
        if singleUse.contains(found.scope) { remove(found.scope) }
        return found
    }

    /// Among matching entries, one limited to `realm` wins over one for every realm; among
    /// equals the one added last wins. Shared by the stores of this package.
    package static func bestMatch(
        in entries: [ScopedCredential],
        for origin: AuthScope,
        realm: String?
    ) -> ScopedCredential? {
        let matching = entries.filter { entry in
            entry.scope.matches(origin, realm: realm) && (realm != nil || entry.scope.realm == nil)
        }
        return matching.last { $0.scope.realm != nil } ?? matching.last
    }
}
