/// A trust configuration that cannot be used: a malformed pin, too few pins, a certificate or
/// key that does not parse, or a policy the transport cannot enforce. (A server that is not
/// trusted is a ``TrustRejection``.)
public struct TrustError: Error, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable code: compare it with `==` (the set is open).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case invalidPin, tooFewPins, invalidCertificate, invalidPrivateKey, unsupportedByTransport
        }
        private let base: Base
        /// Not `sha256//` and the Base64 of 32 bytes.
        public static let invalidPin = Code(base: .invalidPin)
        /// Fewer than two distinct pins: no backup for a key rotation (RFC 7469 §4.3).
        public static let tooFewPins = Code(base: .tooFewPins)
        /// A certificate or CA bundle that does not parse.
        public static let invalidCertificate = Code(base: .invalidCertificate)
        /// A client private key (or PKCS#12 bundle) that does not parse.
        public static let invalidPrivateKey = Code(base: .invalidPrivateKey)
        /// The transport cannot enforce this policy or identity, and refuses to connect rather
        /// than skip it.
        public static let unsupportedByTransport = Code(base: .unsupportedByTransport)
        public var description: String { base.rawValue }
    }

    public let code: Code
    /// Names what is wrong; never a key.
    public let reason: String

    /// Creates the error `code` with a `reason` that names no key.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { "TrustError.\(code): \(reason)" }
}
