import Foundation
import Testing

@testable import RemoteAuthKeyring

/// The D-Bus client on a real bus: authentication and `Hello` on a `unix:path=` bus (the session
/// bus of scripts/interop/keyring.sh) and on a `unix:abstract=` one (a second `dbus-daemon` it
/// starts, `REMOTE_AUTH_DBUS_ABSTRACT_ADDRESS`); an error reply as a typed error; a call nobody
/// answers ends at its deadline.
@Suite(
    "Keyring: D-Bus connection",
    .enabled(
        if: KeyringFixture.enabled,
        "needs REMOTE_AUTH_KEYRING_TESTS=1 and a session bus (scripts/interop/keyring.sh)"
    ),
    .timeLimit(.minutes(2))
)
struct DBusConnectionTests {
    static let environment = ProcessInfo.processInfo.environment

    private func bus(_ connection: DBusConnection, _ member: String, _ body: [DBusValue] = []) -> DBusMessage {
        .methodCall(
            destination: "org.freedesktop.DBus",
            path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus",
            member: member,
            body: body
        )
    }

    @Test(arguments: ["DBUS_SESSION_BUS_ADDRESS", "REMOTE_AUTH_DBUS_ABSTRACT_ADDRESS"])
    func helloAndACall(variable: String) async throws {
        let address = try #require(Self.environment[variable], "\(variable) is not set")
        if variable == "REMOTE_AUTH_DBUS_ABSTRACT_ADDRESS" { #expect(address.hasPrefix("unix:abstract=")) }
        let connection = try await DBusConnection.connect(address: address)
        #expect(connection.uniqueName.hasPrefix(":1."))
        let id = try await connection.call(bus(connection, "GetId"))
        #expect(id.signature == "s")
        #expect(id.body.first?.string?.count == 32)
        // The bus knows this connection by the name Hello gave it.
        let owner = try await connection.call(bus(connection, "GetNameOwner", [.string(connection.uniqueName)]))
        #expect(owner.body == [.string(connection.uniqueName)])
        await connection.close()
    }

    @Test func anErrorReplyIsTyped() async throws {
        let connection = try await DBusConnection.connect(
            address: try #require(Self.environment["DBUS_SESSION_BUS_ADDRESS"])
        )
        let error = await #expect(throws: DBusError.self) {
            try await connection.call(bus(connection, "GetNameOwner", [.string("org.example.nobody")]))
        }
        #expect(error?.code == .methodError)
        #expect(error?.errorName == "org.freedesktop.DBus.Error.NameHasNoOwner")
        #expect(error?.reason.contains("GetNameOwner") == true)
        await connection.close()
    }

    /// A call to this connection itself, which answers no call: the deadline ends it, and the
    /// connection still serves the next call.
    @Test func aCallNobodyAnswersEndsAtItsDeadline() async throws {
        let connection = try await DBusConnection.connect(
            address: try #require(Self.environment["DBUS_SESSION_BUS_ADDRESS"])
        )
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: DBusError.self) {
            try await connection.call(
                .methodCall(
                    destination: connection.uniqueName,
                    path: "/",
                    interface: "org.example.Nobody",
                    member: "Wait"
                ),
                timeout: .milliseconds(300)
            )
        }
        #expect(error?.code == .timeout)
        #expect(clock.now - start >= .milliseconds(300))
        #expect(try await connection.call(bus(connection, "GetId")).signature == "s")
        await connection.close()
    }
}
