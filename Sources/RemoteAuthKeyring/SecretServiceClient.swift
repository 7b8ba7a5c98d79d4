import RemoteAuth

/// What a keyring error is about: a profile of the token store, a credential's scope, or
/// neither (a check of the collection).
struct KeyringSubject: Sendable {
    var key: TokenStoreKey?
    var scope: AuthScope?
    /// Words that name the subject in a reason, with a leading space, or nothing.
    var naming: String

    static let none = KeyringSubject(key: nil, scope: nil, naming: "")

    static func profile(_ key: TokenStoreKey) -> KeyringSubject {
        KeyringSubject(
            key: key,
            scope: nil,
            naming: " (profile '\(DBusError.printable(key.service))', account '\(DBusError.printable(key.account))')"
        )
    }

    static func credential(_ scope: AuthScope) -> KeyringSubject {
        KeyringSubject(key: nil, scope: scope, naming: " (the credential for \(DBusError.printable(scope.description)))")
    }

    func error(_ code: KeyringError.Code, _ reason: String, dbus: DBusError? = nil) -> KeyringError {
        KeyringError(code, key: key, scope: scope, reason: reason, dbus: dbus)
    }
}

/// A store that keeps its items in the Secret Service: one connection, opened on first use
/// and dropped when it fails, and the collection's path resolved and unlocked before each use.
/// The two stores (``SecretServiceTokenStore``, ``SecretServiceCredentialStore``) share this.
protocol SecretServiceClient: Actor {
    /// The collection the items are in.
    var collection: SecretServiceTokenStore.Collection { get }
    /// `DBUS_SESSION_BUS_ADDRESS`.
    var address: String? { get }
    /// Each D-Bus call's deadline (connecting included).
    var timeout: Duration { get }
    /// The open connection, if any.
    var service: SecretService? { get set }
}

extension SecretServiceClient {
    /// Runs `body` on the open connection (opening it first), a D-Bus error turned into a
    /// ``KeyringError`` naming `subject`; a connection that failed is dropped, so the next call
    /// opens another.
    func run<T: Sendable>(
        _ subject: KeyringSubject,
        _ body: (SecretService) async throws -> T
    ) async throws -> T {
        let bus: SecretService
        if let service {
            bus = service
        } else {
            guard let address, !address.isEmpty else {
                throw subject.error(
                    .unavailable,
                    "no Secret Service: DBUS_SESSION_BUS_ADDRESS is not set (no desktop session on this bus)",
                    dbus: DBusError(.noBus, "DBUS_SESSION_BUS_ADDRESS is not set")
                )
            }
            do {
                bus = try await SecretService.open(address: address, timeout: timeout)
            } catch let error as DBusError {
                throw keyringError(error, subject)
            }
            if service != nil {
                await bus.close()
                return try await run(subject, body)
            }
            service = bus
        }
        do {
            return try await body(bus)
        } catch let error as DBusError {
            if [.connectionClosed, .timeout, .malformedMessage, .messageTooLarge].contains(error.code) {
                service = nil
                await bus.close()
            }
            throw keyringError(error, subject)
        }
    }

    /// Closes the connection to the bus (the next call opens another).
    func closeConnection() async {
        await service?.close()
        service = nil
    }

    /// The collection's path, unlocked.
    func collectionPath(_ bus: SecretService, _ subject: KeyringSubject) async throws -> String {
        let path: String
        switch collection {
        case .alias(let alias):
            guard let found = try await bus.collection(alias: alias) else {
                throw subject.error(
                    .noCollection,
                    "the Secret Service has no \(collection): create a keyring in the desktop's keyring manager"
                )
            }
            path = found
        case .path(let given):
            path = given
        }
        let locked: Bool
        do {
            locked = try await bus.isLocked(path)
        } catch let error as DBusError where error.errorName == "org.freedesktop.Secret.Error.NoSuchObject" {
            throw subject.error(.noCollection, "the Secret Service has no \(collection)", dbus: error)
        }
        if locked, !(try await bus.unlock([path])) {
            throw lockedError(subject)
        }
        return path
    }

    /// The collection is locked and unlocking it needs a prompt.
    func lockedError(_ subject: KeyringSubject) -> KeyringError {
        subject.error(
            .locked,
            "the keyring's \(collection) is locked and unlocking it needs a password at a prompt\(subject.naming): unlock the keyring and try again; nothing was written"
        )
    }

    func keyringError(_ error: DBusError, _ subject: KeyringSubject) -> KeyringError {
        let unavailableNames = [
            "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
            "org.freedesktop.DBus.Error.NoServer", "org.freedesktop.DBus.Error.Spawn.ChildExited",
            "org.freedesktop.DBus.Error.Spawn.ExecFailed",
        ]
        switch error.code {
        case .noBus, .unsupportedAddress, .connectFailed, .authenticationRejected:
            return subject.error(.unavailable, "no Secret Service: \(error.reason)", dbus: error)
        case .methodError where error.errorName.map(unavailableNames.contains) == true:
            return subject.error(.unavailable, "no Secret Service answers on the session bus: \(error.reason)", dbus: error)
        case .methodError where error.errorName == "org.freedesktop.Secret.Error.IsLocked":
            return lockedError(subject)
        default:
            return subject.error(.failed, "the Secret Service failed\(subject.naming): \(error.reason)", dbus: error)
        }
    }
}
