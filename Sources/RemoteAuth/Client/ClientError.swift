public import HTTPTypes

/// Why ``AuthenticatingClient`` stopped: a stable ``code`` and a ``reason`` that never holds a
/// secret. An authentication failure carries the challenge that the credential failed to
/// answer, and the response.
public struct ClientError: Error, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable code: compare it with `==` (the set is open).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case authenticationFailed, tooManyRedirects, invalidRedirect, plainHTTPRefused, invalidURL
            case invalidServerProof, invalidCredential, invalidBody
        }
        private let base: Base
        /// The server refused the answer to its challenge (once: the client never loops), or
        /// refused a credential sent up front and asks for nothing this client can answer.
        public static let authenticationFailed = Code(base: .authenticationFailed)
        /// More redirects than ``AuthenticatingClient/Configuration/maximumRedirects``.
        public static let tooManyRedirects = Code(base: .tooManyRedirects)
        /// A redirect without a usable `Location`, or to a scheme other than `http`/`https`.
        public static let invalidRedirect = Code(base: .invalidRedirect)
        /// A credential would have crossed plain `http` to a host that is not loopback, and
        /// its scope did not opt in.
        public static let plainHTTPRefused = Code(base: .plainHTTPRefused)
        /// A URL that is not absolute `http`/`https`, or has a bad host or port.
        public static let invalidURL = Code(base: .invalidURL)
        /// The server's Digest `rspauth` did not prove that it knows the credential.
        public static let invalidServerProof = Code(base: .invalidServerProof)
        /// A credential that cannot be written in its field, such as a bearer token that is
        /// not a `b64token`.
        public static let invalidCredential = Code(base: .invalidCredential)
        /// A request body that cannot be sent as it is: a stream whose length is not the one
        /// given, larger than a limit, or streamed where an authenticator needs it in memory
        /// (Digest `auth-int`, an OAuth 1.0a form body).
        public static let invalidBody = Code(base: .invalidBody)
        public var description: String { base.rawValue }
    }

    public let code: Code
    /// Names what failed; never a secret.
    public let reason: String
    /// For ``Code/authenticationFailed``: the challenge that was answered and refused, as the
    /// server sent it (its latest form), when there was one.
    public let challenge: AuthenticationChallenge?
    /// The response that ended the exchange, when there was one.
    public let response: HTTPResponse?

    /// Creates the error `code` with a `reason` that holds no secret and, when there were any, the
    /// refused challenge and the response that ended the exchange.
    public init(
        _ code: Code,
        _ reason: String,
        challenge: AuthenticationChallenge? = nil,
        response: HTTPResponse? = nil
    ) {
        self.code = code
        self.reason = reason
        self.challenge = challenge
        self.response = response
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { "ClientError.\(code): \(reason)" }
}
