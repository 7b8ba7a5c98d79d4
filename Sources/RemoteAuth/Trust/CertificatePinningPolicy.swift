public import X509

/// Certificate pinning: the server's leaf must be exactly one of these certificates (byte for
/// byte), valid now and for the host name. The certificates are the only trust anchors, so a
/// self-signed certificate can be pinned; give two during a rotation.
public struct CertificatePinningPolicy: TrustPolicy, Hashable {
    /// The pinned certificates: the leaf must equal one of them, and they are the only trust anchors.
    public let certificates: [Certificate]

    /// Pins `certificates` (two during a rotation).
    /// - Throws: `TrustError` `.invalidCertificate` for an empty list.
    public init(certificates: [Certificate]) throws {
        guard !certificates.isEmpty else {
            throw TrustError(.invalidCertificate, "certificate pinning needs at least one certificate")
        }
        self.certificates = certificates
    }

    public func evaluate(chain: [Certificate], host: String, context: TrustContext) async -> TrustEvaluation {
        guard let leaf = chain.first else {
            return .rejected(TrustRejection(.noCertificate, host: host, seenPins: [], reason: "no certificate"))
        }
        guard certificates.contains(leaf) else {
            return .rejected(
                TrustRejection(
                    .certificateMismatch,
                    host: host,
                    seenPins: chain.map(SPKIPin.init(certificate:)),
                    reason: "the leaf certificate (subject \(leaf.subject)) is not a pinned certificate"
                )
            )
        }
        switch await TrustRoots.certificates(certificates).validate(chain: [leaf], host: host, context: context) {
        case .success(let validated): return .trusted(validatedChain: validated)
        case .failure(let rejection): return .rejected(rejection)
        }
    }

    public var description: String { "CertificatePinningPolicy(\(certificates.count) certificates)" }
}
