public import X509

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Decides whether a server's certificate chain may be trusted for a host name, before any
/// request byte is sent to it. Transports that own their TLS handshake call it from inside the
/// handshake (the NIO transport does, from NIOSSL's verification callback).
///
/// The conformers: ``DefaultTrustPolicy`` (the system's roots or a CA bundle),
/// ``PublicKeyPinningPolicy`` (SPKI pins on any certificate of the validated chain),
/// ``CertificatePinningPolicy`` (exactly these leaf certificates) and
/// ``InsecureAcceptAnythingPolicy`` (local development only).
public protocol TrustPolicy: Sendable, CustomStringConvertible {
    /// Evaluates `chain` (the certificates as the server presented them, leaf first) for `host`.
    /// Expected negatives are returned, not thrown.
    func evaluate(chain: [Certificate], host: String, context: TrustContext) async -> TrustEvaluation
}

/// What a ``TrustPolicy`` needs from outside the core, which reads no files.
public struct TrustContext: Sendable {
    /// The roots ``TrustRoots/system`` stands for; on Linux the adapter passes swift-certificates'
    /// `CertificateStore.systemTrustRoots` (`/etc/ssl/certs/ca-certificates.crt`).
    public var systemRoots: CertificateStore
    /// A fixed time to check the certificates' validity against, for tests and replays; `nil`
    /// (what a transport passes) checks against the time of the check, as swift-certificates'
    /// `RFC5280Policy()` reads it. Only a fixed time goes through swift-certificates' SPI
    /// `FixedExpiryValidationTime`.
    public var fixedValidationTime: Date?

    /// A context with the system's roots and, for tests and replays, a fixed validation time
    /// (`nil`: the time of the check).
    public init(systemRoots: CertificateStore, fixedValidationTime: Date? = nil) {
        self.systemRoots = systemRoots
        self.fixedValidationTime = fixedValidationTime
    }

    /// Checks validity against the fixed time `validationTime` (see ``fixedValidationTime``).
    public init(validationTime: Date, systemRoots: CertificateStore) {
        self.init(systemRoots: systemRoots, fixedValidationTime: validationTime)
    }
}

/// The outcome of ``TrustPolicy/evaluate(chain:host:context:)``.
public enum TrustEvaluation: Sendable, Hashable {
    /// Trusted; the validated chain, leaf first (just the leaf for ``InsecureAcceptAnythingPolicy``).
    case trusted(validatedChain: [Certificate])
    /// Not trusted; the rejection says why.
    case rejected(TrustRejection)
}
