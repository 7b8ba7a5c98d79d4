import Foundation
import RemoteAuth
import Testing

@testable import RemoteAuthKeyring

/// A collection of its own in the real Secret Service (gnome-keyring) for one test, made with a
/// known password through gnome-keyring's `org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface`
/// (no prompt), given to the store by its path (gnome-keyring knows no alias but `default`),
/// deleted at the end.
///
/// The suites that use it run only when `REMOTE_AUTH_KEYRING_TESTS=1` says a Secret Service is
/// on `DBUS_SESSION_BUS_ADDRESS` (scripts/interop/keyring.sh starts one); without it they are
/// reported as skipped, never passed, and that script fails when any is.
struct KeyringFixture {
    static let enabled = ProcessInfo.processInfo.environment["REMOTE_AUTH_KEYRING_TESTS"] == "1"
    static let password = "remote-auth-test"
    private static let internalInterface = "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface"

    let bus: SecretService
    /// The collection's label, unique to the test.
    let name: String
    let collection: String
    let folder: URL

    static func make() async throws -> KeyringFixture {
        let environment = ProcessInfo.processInfo.environment
        let address = try #require(
            environment["DBUS_SESSION_BUS_ADDRESS"],
            "REMOTE_AUTH_KEYRING_TESTS=1 needs a session bus"
        )
        let bus = try await SecretService.open(address: address, timeout: .seconds(10))
        let name = "remoteauth\(UUID().uuidString.prefix(8).lowercased())"
        let reply = try await bus.call(
            SecretService.servicePath,
            internalInterface,
            "CreateWithMasterPassword",
            [.properties([("org.freedesktop.Secret.Collection.Label", .string(name))]), master(bus)],
            returning: "o"
        )
        let collection = try #require(reply[0].objectPath)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "remote-auth-keyring-\(UUID().uuidString)"
        )
        return KeyringFixture(bus: bus, name: name, collection: collection, folder: folder)
    }

    private static func master(_ bus: SecretService) -> DBusValue {
        .structure([.objectPath(bus.session), .bytes([]), .bytes(Array(password.utf8)), .string("text/plain")])
    }

    /// A store on this collection, its lock file in a folder of this test's.
    func store(lockTimeout: Duration = .seconds(30)) -> SecretServiceTokenStore {
        SecretServiceTokenStore(
            collection: .path(collection),
            lockFile: folder.appendingPathComponent("keyring.lock").path,
            lockTimeout: lockTimeout,
            timeout: .seconds(10)
        )
    }

    /// Unlocks the collection with its password (no prompt).
    func unlock() async throws {
        _ = try await bus.call(
            SecretService.servicePath,
            Self.internalInterface,
            "UnlockWithMasterPassword",
            [.objectPath(collection), Self.master(bus)],
            returning: ""
        )
    }

    /// An item as another program writes it (secret-tool: no `xdg:schema`, `text/plain`), or with
    /// this store's schema and any bytes.
    func writeItem(
        _ attributes: [String: String],
        secret: String,
        contentType: String = "text/plain"
    ) async throws -> String {
        try #require(
            try await bus.createItem(
                in: collection,
                label: "written by a test",
                attributes: attributes,
                secret: Array(secret.utf8),
                contentType: contentType
            )
        )
    }

    func delete() async {
        _ = try? await bus.call(collection, SecretService.collectionInterface, "Delete", returning: "o")
        await bus.close()
        try? FileManager.default.removeItem(at: folder)
    }
}
