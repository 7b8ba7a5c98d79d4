public import RemoteAuth

/// Why a call on the D-Bus session bus failed: a stable ``code`` and a ``reason`` in plain words
/// that never holds a secret (a D-Bus error's message is kept to its first 200 characters, control
/// characters replaced).
public struct DBusError: Error, Hashable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case noBus, unsupportedAddress, connectFailed, authenticationRejected, timeout, malformedMessage,
                messageTooLarge, connectionClosed, invalidArgument, methodError, unexpectedReply
        }
        private let base: Base
        /// No session bus is named: `DBUS_SESSION_BUS_ADDRESS` is unset or empty (no desktop
        /// session, a headless server, a shell over ssh).
        public static let noBus = Code(base: .noBus)
        /// The address names only transports this client does not speak (it speaks `unix:path=`
        /// and `unix:abstract=`).
        public static let unsupportedAddress = Code(base: .unsupportedAddress)
        /// The bus's socket could not be reached (nothing listens there).
        public static let connectFailed = Code(base: .connectFailed)
        /// The bus refused `AUTH EXTERNAL` for this user.
        public static let authenticationRejected = Code(base: .authenticationRejected)
        /// The bus or the service on it did not answer within the deadline.
        public static let timeout = Code(base: .timeout)
        /// The bus sent bytes that are not a valid D-Bus message, or an authentication line that
        /// is not the protocol's.
        public static let malformedMessage = Code(base: .malformedMessage)
        /// The bus sent a message longer than this client reads.
        public static let messageTooLarge = Code(base: .messageTooLarge)
        /// The connection closed before the reply came.
        public static let connectionClosed = Code(base: .connectionClosed)
        /// A value this client was asked to send cannot be sent (a NUL byte in a string).
        public static let invalidArgument = Code(base: .invalidArgument)
        /// The service answered with a D-Bus error: ``DBusError/errorName`` names it.
        public static let methodError = Code(base: .methodError)
        /// The reply's signature is not the one the method is documented to return.
        public static let unexpectedReply = Code(base: .unexpectedReply)
        public var description: String { base.rawValue }
    }

    public let code: Code
    /// What is wrong, in plain words.
    public let reason: String
    /// The D-Bus error's name, for ``Code-swift.struct/methodError``
    /// (`org.freedesktop.Secret.Error.IsLocked`).
    public let errorName: String?

    /// An error of `code`, `reason` in plain words (never a secret).
    public init(_ code: Code, _ reason: String, errorName: String? = nil) {
        self.code = code
        self.reason = reason
        self.errorName = errorName
    }

    /// Errors are equal when their codes and D-Bus error names are: the reason is for people.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code && lhs.errorName == rhs.errorName }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(errorName)
    }

    public var description: String { "DBusError.\(code): \(reason)" }

    static func malformed(_ reason: String) -> DBusError { DBusError(.malformedMessage, "the bus sent \(reason)") }
    static func invalid(_ reason: String) -> DBusError { DBusError(.invalidArgument, "cannot send \(reason)") }

    /// Runs `body`, a malformed-message error turned into an invalid argument (a signature this
    /// client was asked to send).
    static func asInvalid<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as DBusError where error.code == .malformedMessage {
            throw DBusError(.invalidArgument, "cannot send a bad signature: \(error.reason)")
        }
    }

    /// Text from the bus, made safe to print: at most `limit` characters, no control characters.
    static func printable(_ text: String, limit: Int = 200) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars.prefix(limit) {
            scalars.append(scalar.properties.generalCategory == .control ? "?" : scalar)
        }
        return String(scalars) + (text.unicodeScalars.count > limit ? "…" : "")
    }
}

extension DBusError: CodedError {}
