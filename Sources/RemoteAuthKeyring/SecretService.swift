/// The calls of the [freedesktop Secret Service API](https://specifications.freedesktop.org/secret-service-spec/latest/)
/// this package makes, over one ``DBusConnection`` and one session opened with the `plain`
/// algorithm ([Transfer of Secrets](https://specifications.freedesktop.org/secret-service-spec/latest/transfer-secrets.html)).
///
/// Why `plain` is enough here: the session bus is a Unix socket of this user's, the bus daemon
/// and the keyring daemon run as this user, and any process of this user may call `GetSecret`
/// itself; the `dh-ietf1024-sha256-aes128-cbc-pkcs7` algorithm hides the secret only from a
/// process of the same user that watches the bus (`dbus-monitor`), which could ask the keyring
/// for it as well. It keeps secrets out of the bus daemon's memory, which is not worth a Diffie-
/// Hellman exchange in a 1024-bit group here.
struct SecretService: Sendable {
    static let destination = "org.freedesktop.secrets"
    static let servicePath = "/org/freedesktop/secrets"
    static let serviceInterface = "org.freedesktop.Secret.Service"
    static let collectionInterface = "org.freedesktop.Secret.Collection"
    static let itemInterface = "org.freedesktop.Secret.Item"

    let connection: DBusConnection
    /// The session's object path, which every secret names.
    let session: String
    /// Each call's deadline.
    let timeout: Duration

    /// Connects to the bus at `address` and opens a `plain` session.
    ///
    /// - Throws: ``DBusError`` when the bus cannot be reached, or no Secret Service answers
    ///   (`.methodError` with `org.freedesktop.DBus.Error.ServiceUnknown`), or in time.
    static func open(address: String, timeout: Duration) async throws -> SecretService {
        let connection = try await DBusConnection.connect(address: address, timeout: timeout)
        do {
            let reply = try await call(
                connection,
                path: servicePath,
                interface: serviceInterface,
                member: "OpenSession",
                [.string("plain"), .variant(.string(""))],
                returning: "vo",
                timeout: timeout
            )
            return SecretService(connection: connection, session: reply[1].objectPath!, timeout: timeout)
        } catch {
            await connection.close()
            throw error
        }
    }

    func close() async { await connection.close() }

    private static func call(
        _ connection: DBusConnection,
        path: String,
        interface: String,
        member: String,
        _ body: [DBusValue] = [],
        returning signature: String,
        timeout: Duration
    ) async throws -> [DBusValue] {
        let reply = try await connection.call(
            .methodCall(destination: destination, path: path, interface: interface, member: member, body: body),
            timeout: timeout
        )
        guard reply.signature == signature else {
            throw DBusError(
                .unexpectedReply,
                "\(member) on \(path) answered with signature '\(reply.signature)', not '\(signature)'"
            )
        }
        return reply.body
    }

    func call(
        _ path: String,
        _ interface: String,
        _ member: String,
        _ body: [DBusValue] = [],
        returning signature: String
    ) async throws -> [DBusValue] {
        try await Self.call(
            connection,
            path: path,
            interface: interface,
            member: member,
            body,
            returning: signature,
            timeout: timeout
        )
    }

    /// The collection an alias names (`default`), or `nil` when it names none.
    func collection(alias: String) async throws -> String? {
        let path = try await call(
            Self.servicePath,
            Self.serviceInterface,
            "ReadAlias",
            [.string(alias)],
            returning: "o"
        )[0]
        return path.objectPath == "/" ? nil : path.objectPath
    }

    /// A property of an object, through `org.freedesktop.DBus.Properties.Get`.
    func property(_ path: String, _ interface: String, _ name: String) async throws -> DBusValue {
        try await call(
            path,
            "org.freedesktop.DBus.Properties",
            "Get",
            [.string(interface), .string(name)],
            returning: "v"
        )[0].unwrapped
    }

    /// Whether a collection or item is locked.
    func isLocked(_ path: String, interface: String = collectionInterface) async throws -> Bool {
        guard case .boolean(let locked) = try await property(path, interface, "Locked") else {
            throw DBusError(.unexpectedReply, "the Locked property of \(path) is not a boolean")
        }
        return locked
    }

    /// Unlocks `paths` when that needs no prompt; else dismisses the prompt.
    ///
    /// - Returns: whether they are unlocked now (`false`: a person would have to type a password).
    func unlock(_ paths: [String]) async throws -> Bool {
        let reply = try await call(
            Self.servicePath,
            Self.serviceInterface,
            "Unlock",
            [.array(.objectPath, paths.map { .objectPath($0) })],
            returning: "aoo"
        )
        guard let prompt = reply[1].objectPath, prompt != "/" else { return true }
        // Nobody is here to answer it: dismiss it rather than leave a dialog behind.
        _ = try? await call(prompt, "org.freedesktop.Secret.Prompt", "Dismiss", returning: "")
        return false
    }

    /// Locks `paths` (gnome-keyring needs no prompt for that).
    func lock(_ paths: [String]) async throws {
        _ = try await call(
            Self.servicePath,
            Self.serviceInterface,
            "Lock",
            [.array(.objectPath, paths.map { .objectPath($0) })],
            returning: "aoo"
        )
    }

    /// The items of `collection` whose attributes include all of `attributes`.
    func searchItems(in collection: String, _ attributes: [String: String]) async throws -> [String] {
        let reply = try await call(
            collection,
            Self.collectionInterface,
            "SearchItems",
            [.stringDictionary(attributes)],
            returning: "ao"
        )
        return reply[0].objectPaths ?? []
    }

    /// An item's lookup attributes.
    func attributes(of item: String) async throws -> [String: String] {
        guard let attributes = try await property(item, Self.itemInterface, "Attributes").stringDictionary else {
            throw DBusError(.unexpectedReply, "the Attributes property of \(item) is not an a{ss}")
        }
        return attributes
    }

    /// An item's secret and its content type.
    func secret(of item: String) async throws -> (value: [UInt8], contentType: String) {
        let reply = try await call(item, Self.itemInterface, "GetSecret", [.objectPath(session)], returning: "(oayays)")
        guard case .structure(let fields) = reply[0], case .bytes(let value) = fields[2], let type = fields[3].string
        else { throw DBusError(.unexpectedReply, "GetSecret on \(item) answered with no secret") }
        return (value, type)
    }

    /// Creates an item in `collection`, replacing the one with the same attributes.
    ///
    /// - Returns: the item's path, or `nil` when the service asked for a prompt (dismissed).
    func createItem(
        in collection: String,
        label: String,
        attributes: [String: String],
        secret: [UInt8],
        contentType: String
    ) async throws -> String? {
        let properties = DBusValue.properties([
            ("org.freedesktop.Secret.Item.Label", .string(label)),
            ("org.freedesktop.Secret.Item.Attributes", .stringDictionary(attributes)),
        ])
        let value = DBusValue.structure([.objectPath(session), .bytes([]), .bytes(secret), .string(contentType)])
        let reply = try await call(
            collection,
            Self.collectionInterface,
            "CreateItem",
            [properties, value, .boolean(true)],
            returning: "oo"
        )
        if let prompt = reply[1].objectPath, prompt != "/" {
            _ = try? await call(prompt, "org.freedesktop.Secret.Prompt", "Dismiss", returning: "")
            return nil
        }
        return reply[0].objectPath
    }

    /// Deletes an item.
    ///
    /// - Returns: `false` when the service asked for a prompt (dismissed; nothing deleted).
    func delete(_ item: String) async throws -> Bool {
        let reply = try await call(item, Self.itemInterface, "Delete", returning: "o")
        guard let prompt = reply[0].objectPath, prompt != "/" else { return true }
        _ = try? await call(prompt, "org.freedesktop.Secret.Prompt", "Dismiss", returning: "")
        return false
    }
}
