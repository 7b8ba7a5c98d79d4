public import X509

/// Why a server was not trusted: a ``Code``, the host, the pins of the certificates it presented
/// (leaf first), a reason in our own words and, when swift-certificates' `Verifier` refused the
/// chain, its failures as it reported them (``policyFailures``). It names no secret: pins and
/// certificates are public.
public struct TrustRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the server was not trusted, as a stable code: compare it with `==` (the set is open).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case noCertificate, untrustedChain, pinMismatch, certificateMismatch
        }
        private let base: Base
        /// The server presented no certificate.
        public static let noCertificate = Code(base: .noCertificate)
        /// No chain from the leaf to a trusted root meets RFC 5280 and the host name
        /// (expired, another host's certificate, an unknown issuer…).
        public static let untrustedChain = Code(base: .untrustedChain)
        /// The chain is valid, but no certificate in it carries one of the pinned keys.
        public static let pinMismatch = Code(base: .pinMismatch)
        /// The leaf is not one of the pinned certificates.
        public static let certificateMismatch = Code(base: .certificateMismatch)
        public var description: String { base.rawValue }
    }

    /// Why the server was not trusted, as a stable code.
    public let code: Code
    /// The host name or IP address the chain was evaluated for.
    public let host: String
    /// The pins of the certificates the server presented, leaf first.
    public let seenPins: [SPKIPin]
    /// What was wrong, in plain words (the leaf's subject, its dates, the name asked for).
    public let reason: String
    /// swift-certificates' `Verifier` failures, one per candidate chain it tried, as it reported
    /// them (empty when the rejection did not come from the verifier, such as a pin mismatch).
    public let policyFailures: [CertificateValidationResult.PolicyFailure]

    /// Creates a rejection for `host` with the pins of the presented certificates (leaf first), a
    /// plain reason and, when the verifier refused the chain, its failures.
    public init(
        _ code: Code,
        host: String,
        seenPins: [SPKIPin],
        reason: String,
        policyFailures: [CertificateValidationResult.PolicyFailure] = []
    ) {
        self.code = code
        self.host = host
        self.seenPins = seenPins
        self.reason = reason
        self.policyFailures = policyFailures
    }

    public var description: String {
        var text = "the server \(host) is not trusted (\(code)): \(reason)"
        if !seenPins.isEmpty {
            text += "; it presented the keys " + seenPins.map(\.description).joined(separator: ", ")
        }
        return text
    }
}
