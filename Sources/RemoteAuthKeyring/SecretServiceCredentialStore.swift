public import Foundation
public import RemoteAuth

/// A `CredentialStore` (Basic and Digest passwords) that keeps `CredentialPersistence.permanent`
/// credentials in the freedesktop Secret Service, one item per scope, and the others in memory:
/// the keyring counterpart of `FileCredentialStore`.
///
/// `CredentialStore.credential(for:realm:)` cannot fail, so the store reads its items when it
/// is opened (``open(collection:environment:timeout:)``), as `FileCredentialStore` reads its
/// file, and answers lookups from memory; ``reload()`` reads them again (another process's
/// additions). Changes are written to the keyring before they return.
///
/// Each item is found by the attributes `application=remote-auth`, `protocol` (`http` or
/// `https`), `server` (the host), `port` and `realm` (empty for a scope of every realm), with
/// `xdg:schema=` ``schema``; its label is `remote-auth: USER at ORIGIN` (and the realm); its
/// secret is the JSON `{"user", "password", "schemes", "allowsPlainHTTP"}`, so that neither the
/// password nor the user name is in the attributes or the label. Writing a scope again replaces
/// its item in one call (`CreateItem` with `replace`: the attributes are exactly the scope's).
///
/// Nothing another program owns is overwritten or read as a credential: an item under a scope's
/// attributes without this store's schema is ``KeyringError/Code-swift.struct/foreignItem`` when
/// that scope is written or removed; an item of this store's that does not decode makes
/// ``open(collection:environment:timeout:)`` and ``reload()`` fail with
/// ``KeyringError/Code-swift.struct/undecodable`` naming its scope; a collection that is locked
/// and needs a prompt is ``KeyringError/Code-swift.struct/locked``. No Secret Service is
/// ``KeyringError/Code-swift.struct/unavailable``, so a caller can fall back to the file store.
public actor SecretServiceCredentialStore: CredentialStore, SecretServiceClient {
    /// The `xdg:schema` attribute of this store's items.
    public static let schema = "org.remoteauth.Credential"

    /// The collection the items are in.
    public let collection: SecretServiceTokenStore.Collection
    /// Each D-Bus call's deadline (connecting included).
    public let timeout: Duration
    let address: String?
    var service: SecretService?
    private var permanent: [ScopedCredential] = []
    private let memory = InMemoryCredentialStore()

    /// The secret of an item.
    struct Entry: Codable, Sendable {
        var user: String
        var password: Secret
        /// `basic`, `digest`.
        var schemes: [String]
        var allowsPlainHTTP: Bool
    }

    private init(collection: SecretServiceTokenStore.Collection, address: String?, timeout: Duration) {
        self.collection = collection
        self.address = address
        self.timeout = timeout
    }

    /// Opens the store on the session bus of `environment` (`DBUS_SESSION_BUS_ADDRESS`) and reads
    /// the credentials kept in `collection`.
    ///
    /// - Parameters:
    ///   - collection: the collection; by default the one the `default` alias names.
    ///   - environment: where `DBUS_SESSION_BUS_ADDRESS` comes from.
    ///   - timeout: each D-Bus call's deadline.
    /// - Throws: ``KeyringError``: `.unavailable` (no Secret Service), `.locked`, `.noCollection`,
    ///   `.undecodable` (an item of this store's that does not decode, named by its scope),
    ///   `.failed`.
    public static func open(
        collection: SecretServiceTokenStore.Collection = .alias("default"),
        environment: [String: String] = ProcessInfo.processInfo.environment,
        timeout: Duration = .seconds(5)
    ) async throws -> SecretServiceCredentialStore {
        let store = SecretServiceCredentialStore(
            collection: collection,
            address: environment["DBUS_SESSION_BUS_ADDRESS"],
            timeout: timeout
        )
        do {
            try await store.reload()
        } catch {
            await store.close()
            throw error
        }
        return store
    }

    /// Reads the permanent credentials from the keyring again (what other processes wrote);
    /// the ones in memory are kept.
    ///
    /// - Throws: ``KeyringError``, with the credentials read before left as they were.
    public func reload() async throws {
        permanent = try await run(.none) { bus in
            let collection = try await self.collectionPath(bus, .none)
            var found: [ScopedCredential] = []
            let items = try await bus.searchItems(
                in: collection,
                ["application": SecretServiceTokenStore.application, "xdg:schema": Self.schema]
            )
            for item in items.sorted() {
                found.append(try await Self.decode(item, bus))
            }
            return found
        }
    }

    /// Adds `credential` for `scope` with `persistence`; a permanent one is written to the
    /// keyring (replacing the scope's item) before this returns.
    ///
    /// - Throws: ``KeyringError``: `.foreignItem` when another program's item has the scope's
    ///   attributes (nothing is written), `.locked`, `.unavailable`, `.failed`.
    public func add(
        _ credential: Credential,
        for scope: AuthScope,
        allowingPlainHTTP: Bool = false,
        persistence: CredentialPersistence = .permanent
    ) async throws {
        if persistence == .permanent {
            let scoped = ScopedCredential(scope: scope, credential: credential, allowsPlainHTTP: allowingPlainHTTP)
            try await run(.credential(scope)) { bus in
                let collection = try await self.collectionPath(bus, .credential(scope))
                _ = try await Self.ownItems(scope, bus, collection)
                try await Self.write(scoped, bus, collection, locked: self.lockedError(.credential(scope)))
            }
            await memory.remove(scope)
            permanent.removeAll { $0.scope == scope }
            permanent.append(scoped)
        } else {
            try await removeFromKeyring(scope)
            await memory.add(credential, for: scope, allowingPlainHTTP: allowingPlainHTTP, persistence: persistence)
        }
    }

    /// Removes the credential for exactly `scope`, from memory and from the keyring.
    ///
    /// - Throws: ``KeyringError``: `.foreignItem` when another program's item has the scope's
    ///   attributes (it is left), `.locked`, `.unavailable`, `.failed`.
    public func remove(_ scope: AuthScope) async throws {
        try await removeFromKeyring(scope)
        await memory.remove(scope)
    }

    public func credential(for origin: AuthScope, realm: String?) async -> ScopedCredential? {
        // Memory first: a credential given for this run overrides the saved one.
        if let found = await memory.credential(for: origin, realm: realm) { return found }
        return InMemoryCredentialStore.bestMatch(in: permanent, for: origin, realm: realm)
    }

    /// Closes the connection to the bus (the next change opens another).
    public func close() async { await closeConnection() }

    private func removeFromKeyring(_ scope: AuthScope) async throws {
        try await run(.credential(scope)) { bus in
            let collection = try await self.collectionPath(bus, .credential(scope))
            for item in try await Self.ownItems(scope, bus, collection) {
                guard try await bus.delete(item) else { throw self.lockedError(.credential(scope)) }
            }
        }
        permanent.removeAll { $0.scope == scope }
    }

    // MARK: Items

    /// The attributes of the scope's item: exactly these, so that `replace` finds only it.
    static func attributes(_ scope: AuthScope) -> [String: String] {
        [
            "application": SecretServiceTokenStore.application, "xdg:schema": schema, "protocol": scope.scheme,
            "server": scope.host, "port": String(scope.port), "realm": scope.realm ?? "",
        ]
    }

    /// `remote-auth: USER at https://host:443`, and ` (realm "R")`.
    static func label(_ scoped: ScopedCredential) -> String {
        let origin = "\(scoped.scope.scheme)://\(scoped.scope.host.contains(":") ? "[\(scoped.scope.host)]" : scoped.scope.host):\(scoped.scope.port)"
        let realm = scoped.scope.realm.map { " (realm \"\($0)\")" } ?? ""
        return "remote-auth: \(scoped.credential.user) at \(origin)\(realm)"
    }

    /// This store's items under the scope's attributes.
    ///
    /// - Throws: `.foreignItem` when an item under them was not written by this store.
    private static func ownItems(_ scope: AuthScope, _ bus: SecretService, _ collection: String) async throws -> [String] {
        var lookup = attributes(scope)
        lookup["xdg:schema"] = nil
        var ours: [String] = []
        for item in try await bus.searchItems(in: collection, lookup) {
            guard try await bus.attributes(of: item)["xdg:schema"] == schema else {
                throw KeyringSubject.credential(scope).error(
                    .foreignItem,
                    "the keyring item \(item) has the attributes of\(KeyringSubject.credential(scope).naming) but was not written by remote-auth (no xdg:schema \(schema)): it is left as it is"
                )
            }
            ours.append(item)
        }
        return ours
    }

    private static func write(
        _ scoped: ScopedCredential,
        _ bus: SecretService,
        _ collection: String,
        locked: KeyringError
    ) async throws {
        var schemes: [String] = []
        if scoped.credential.schemes.contains(.basic) { schemes.append("basic") }
        if scoped.credential.schemes.contains(.digest) { schemes.append("digest") }
        let entry = Entry(
            user: scoped.credential.user,
            password: scoped.credential.storedPassword,
            schemes: schemes,
            allowsPlainHTTP: scoped.allowsPlainHTTP
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let created = try await bus.createItem(
            in: collection,
            label: label(scoped),
            attributes: attributes(scoped.scope),
            secret: Array(try encoder.encode(entry)),
            contentType: "application/json"
        )
        guard created != nil else { throw locked }
    }

    /// The credential an item of this store's holds.
    ///
    /// - Throws: `.undecodable`, naming the scope when its attributes name one.
    private static func decode(_ item: String, _ bus: SecretService) async throws -> ScopedCredential {
        let attributes = try await bus.attributes(of: item)
        guard let scheme = attributes["protocol"], let host = attributes["server"],
            let port = attributes["port"].flatMap({ Int($0) }), let realm = attributes["realm"],
            let scope = try? AuthScope(scheme: scheme, host: host, port: port, realm: realm.isEmpty ? nil : realm)
        else {
            throw KeyringError(
                .undecodable,
                reason:
                    "the keyring item \(item) has the schema \(schema) but its attributes name no scope (protocol, server, port, realm): it is left as it is; remove it to open the store"
            )
        }
        let subject = KeyringSubject.credential(scope)
        let (value, _) = try await bus.secret(of: item)
        guard let entry = try? JSONDecoder().decode(Entry.self, from: Data(value)),
            entry.schemes.allSatisfy({ ["basic", "digest"].contains($0) }), !entry.schemes.isEmpty
        else {
            throw subject.error(
                .undecodable,
                "the keyring item \(item) for\(subject.naming) does not hold a credential remote-auth can read (\(value.count) bytes): it is left as it is; remove it to open the store"
            )
        }
        var schemes: Credential.Schemes = []
        if entry.schemes.contains("basic") { schemes.insert(.basic) }
        if entry.schemes.contains("digest") { schemes.insert(.digest) }
        return ScopedCredential(
            scope: scope,
            credential: Credential(user: entry.user, password: entry.password, schemes: schemes),
            allowsPlainHTTP: entry.allowsPlainHTTP
        )
    }
}
