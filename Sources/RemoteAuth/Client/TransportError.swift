/// A failure below HTTP, the same for every ``HTTPTransport`` (NIO, AsyncHTTPClient, URLSession):
/// a stable ``code`` to branch on, a ``reason`` in plain words that never holds a secret, and the
/// transport library's own error, kept as ``underlying`` for logs and debugging.
///
/// A server whose certificate is not trusted is a ``TrustRejection``, not a transport error:
/// nothing failed on the wire, a policy said no.
public struct TransportError: Error, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable code: compare it with `==` (the set is open).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case connectFailed, connectionRefused, hostNotFound, timedOut, tlsHandshakeFailed
            case responseTooLarge, malformedResponse, closedBeforeWriting, connectionClosed, invalidRequest
        }
        private let base: Base
        /// No connection could be made, for a reason none of the codes below names (network
        /// unreachable, no route to host…).
        public static let connectFailed = Code(base: .connectFailed)
        /// The host answered the connection attempt with a refusal (nothing listens on that port).
        public static let connectionRefused = Code(base: .connectionRefused)
        /// The host name does not resolve.
        public static let hostNotFound = Code(base: .hostNotFound)
        /// The connect timeout or the request's deadline passed, in whatever phase (connecting,
        /// the TLS handshake, writing, waiting for the head, reading the body).
        public static let timedOut = Code(base: .timedOut)
        /// The TLS handshake failed for a reason other than the trust policy (a protocol or
        /// cipher mismatch, an alert from the server, such as a refused client certificate).
        public static let tlsHandshakeFailed = Code(base: .tlsHandshakeFailed)
        /// The response body is larger than the transport's limit.
        public static let responseTooLarge = Code(base: .responseTooLarge)
        /// The bytes that came back are not an HTTP response (or have an invalid field).
        public static let malformedResponse = Code(base: .malformedResponse)
        /// The connection closed before any byte of the request was written: the request can be
        /// sent again on a new connection without being sent twice.
        public static let closedBeforeWriting = Code(base: .closedBeforeWriting)
        /// The connection closed after the request was (partly) written and before the response
        /// was complete.
        public static let connectionClosed = Code(base: .connectionClosed)
        /// The transport cannot put this request on the wire (a URL its library does not take).
        public static let invalidRequest = Code(base: .invalidRequest)
        public var description: String { base.rawValue }
    }

    public let code: Code
    /// Names what failed and where (the origin); never a secret.
    public let reason: String
    /// The transport library's error (`IOError`, `NIOSSLError`, `HTTPClientError`, `URLError`…),
    /// when there was one.
    public let underlying: (any Error)?

    /// Creates the error `code` with a `reason` that holds no secret and the transport library's
    /// `underlying` error, if any.
    public init(_ code: Code, _ reason: String, underlying: (any Error)? = nil) {
        self.code = code
        self.reason = reason
        self.underlying = underlying
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { "TransportError.\(code): \(reason)" }
}
