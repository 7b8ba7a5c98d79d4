/// Why Basic credentials could not be built or a received `Authorization: Basic` value could
/// not be read. The ``reason`` names the field and never contains the password.
/// [RFC 7617 §2](https://www.rfc-editor.org/rfc/rfc7617#section-2)
public struct BasicError: Error, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable code: compare it with `==` (the set is open).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case invalidUserID, invalidPassword, unencodableCharacter, wrongScheme, malformedCredentials
        }
        private let base: Base
        /// The user-id contains a colon or a control character.
        public static let invalidUserID = Code(base: .invalidUserID)
        /// The password contains a control character.
        public static let invalidPassword = Code(base: .invalidPassword)
        /// A character cannot be written in the chosen ``BasicCredentials/Encoding``.
        public static let unencodableCharacter = Code(base: .unencodableCharacter)
        /// A received `Authorization` value is not of the `Basic` scheme.
        public static let wrongScheme = Code(base: .wrongScheme)
        /// A received `Authorization: Basic` value is not `base64(user-id ":" password)`.
        public static let malformedCredentials = Code(base: .malformedCredentials)
        public var description: String { base.rawValue }
    }

    public let code: Code
    /// Names the field or the position; never a secret.
    public let reason: String

    /// Creates the error `code` with a `reason` that names the field or position, never a secret.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { "BasicError.\(code): \(reason)" }
}
