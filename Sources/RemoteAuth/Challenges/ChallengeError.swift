/// Why a `WWW-Authenticate` (or `Proxy-Authenticate`, `Authorization`, `Authentication-Info`)
/// field value could not be parsed. The ``reason`` names the offset (in UTF-8 bytes) and, for
/// ``AuthenticationChallenge/parse(_:name:)``, the field; it never quotes parameter values.
/// [RFC 9110 §11.2](https://www.rfc-editor.org/rfc/rfc9110#section-11.2)
public struct ChallengeError: Error, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable code: compare it with `==` (the set is open).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case unterminatedQuotedString, missingValue, invalidCharacter, parameterWithoutScheme
            case duplicateParameter, parameterAfterToken68
        }
        private let base: Base
        /// A quoted-string has no closing `"`.
        public static let unterminatedQuotedString = Code(base: .unterminatedQuotedString)
        /// `name=` is not followed by a token or a quoted-string.
        public static let missingValue = Code(base: .missingValue)
        /// A byte that the grammar does not allow at this position (not a `tchar`, a control
        /// character in a quoted-string, text after a value).
        public static let invalidCharacter = Code(base: .invalidCharacter)
        /// An `auth-param` appears before any auth-scheme.
        public static let parameterWithoutScheme = Code(base: .parameterWithoutScheme)
        /// The same parameter name (case-insensitively) appears twice in one challenge.
        public static let duplicateParameter = Code(base: .duplicateParameter)
        /// A challenge carries both a `token68` and parameters.
        public static let parameterAfterToken68 = Code(base: .parameterAfterToken68)
        public var description: String { base.rawValue }
    }

    public let code: Code
    /// Names the position and field; never a parameter value.
    public let reason: String

    /// Creates the error `code` with a `reason` that names the position and field, never a value.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { "ChallengeError.\(code): \(reason)" }
}
