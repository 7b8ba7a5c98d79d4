public import RemoteAuth

/// Why a Secret Service store (or, on Apple platforms, the Keychain store) could not read or
/// write a session or a credential: a stable ``code``, the ``key`` (the profile) or the
/// ``scope`` (the credential) it concerns when there is one, and a ``reason`` in plain words that
/// never holds a secret.
public struct KeyringError: Error, Hashable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case unavailable, locked, noCollection, foreignItem, undecodable, duplicateItems, failed
        }
        private let base: Base
        /// No Secret Service answers: no session bus (`DBUS_SESSION_BUS_ADDRESS` unset: a
        /// headless server, an ssh shell), nothing listening on it, or no service owns
        /// `org.freedesktop.secrets`. A caller may fall back to the file store, saying so.
        public static let unavailable = Code(base: .unavailable)
        /// The collection (or the item) is locked, and unlocking it needs a person to answer a
        /// prompt: unlock the keyring (log in to the desktop, or `gnome-keyring-daemon --unlock`)
        /// and try again. Nothing was written.
        public static let locked = Code(base: .locked)
        /// The alias (`default`) names no collection: create a keyring in the desktop's keyring
        /// manager.
        public static let noCollection = Code(base: .noCollection)
        /// An item under the profile's attributes was not written by this store (no
        /// `xdg:schema` of ``SecretServiceTokenStore/schema``): it is left alone, and the
        /// profile cannot be read or written until it is removed.
        public static let foreignItem = Code(base: .foreignItem)
        /// This store's item holds a secret that is not a session it can read (a newer format,
        /// edited by hand): it is left alone, and only removing the profile replaces it.
        public static let undecodable = Code(base: .undecodable)
        /// More than one of this store's items carry the profile's attributes.
        public static let duplicateItems = Code(base: .duplicateItems)
        /// The Secret Service failed a call otherwise (an error it sent, a deadline passed, a
        /// malformed reply): ``KeyringError/dbus`` holds the D-Bus error.
        public static let failed = Code(base: .failed)
        public var description: String { base.rawValue }
    }

    public let code: Code
    /// The key (profile) concerned, when there is one.
    public let key: TokenStoreKey?
    /// The credential's scope concerned (``SecretServiceCredentialStore``), when there is one.
    public let scope: AuthScope?
    /// What is wrong, in plain words.
    public let reason: String
    /// The D-Bus error underneath, when there is one.
    public let dbus: DBusError?

    /// An error of `code` about `key` (a profile) or `scope` (a credential), `reason` in plain
    /// words (never a secret).
    public init(
        _ code: Code,
        key: TokenStoreKey? = nil,
        scope: AuthScope? = nil,
        reason: String,
        dbus: DBusError? = nil
    ) {
        self.code = code
        self.key = key
        self.scope = scope
        self.reason = reason
        self.dbus = dbus
    }

    /// Errors are equal when their codes, keys and scopes are: the reason is for people.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.code == rhs.code && lhs.key == rhs.key && lhs.scope == rhs.scope
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(key)
        hasher.combine(scope)
    }

    public var description: String { "KeyringError.\(code): \(reason)" }
}

extension KeyringError: CodedError {}
