/// Why a Digest challenge, response or `Authorization` value could not be used. The
/// ``reason`` names the parameter and never contains the password or HA1.
/// [RFC 7616 §3](https://www.rfc-editor.org/rfc/rfc7616#section-3)
public struct DigestError: Error, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable code: compare it with `==` (the set is open).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case malformedChallenge, unsupportedAlgorithm, unsupportedQOP, bodyRequired
            case malformedAuthorization, missingParameter, malformedAuthenticationInfo, invalidParameter
        }
        private let base: Base
        /// The challenge is not `Digest`, lacks `realm` or `nonce`, or is unparsable.
        public static let malformedChallenge = Code(base: .malformedChallenge)
        /// `algorithm` names a function this package does not implement.
        public static let unsupportedAlgorithm = Code(base: .unsupportedAlgorithm)
        /// The challenge offers `qop` values, none of which this package implements.
        public static let unsupportedQOP = Code(base: .unsupportedQOP)
        /// `qop=auth-int` is the only choice (or is being verified) and no body was given.
        public static let bodyRequired = Code(base: .bodyRequired)
        /// A received `Authorization` value is not `Digest` or is unparsable.
        public static let malformedAuthorization = Code(base: .malformedAuthorization)
        /// A required parameter is absent (`username`, `nonce`, `nc` with `qop`, …).
        public static let missingParameter = Code(base: .missingParameter)
        /// A received `Authentication-Info` value is unparsable.
        public static let malformedAuthenticationInfo = Code(base: .malformedAuthenticationInfo)
        /// A parameter value is not valid for its parameter (bad `nc`, `username*`, a control
        /// character in a value to send).
        public static let invalidParameter = Code(base: .invalidParameter)
        public var description: String { base.rawValue }
    }

    public let code: Code
    /// Names the parameter; never a secret.
    public let reason: String

    /// Creates the error `code` with a `reason` that names the parameter, never a secret.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { "DigestError.\(code): \(reason)" }
}
