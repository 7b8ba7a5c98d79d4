import SwiftASN1
public import X509

/// The roots a chain must lead to.
public enum TrustRoots: Sendable, Hashable {
    /// The system's trust store (see ``TrustContext/systemRoots``).
    case system
    /// Only these certificates (a private CA bundle), not the system's.
    case certificates([Certificate])

    /// The certificates of a PEM bundle (`-----BEGIN CERTIFICATE-----` blocks), as curl's `--cacert` reads it.
    public static func pemBundle(_ pem: String) throws -> TrustRoots {
        .certificates(try Certificate.pemBundle(pem))
    }

    /// The chain validated to these roots (a leaf among them is its own anchor).
    func validate(
        chain: [Certificate],
        host: String,
        context: TrustContext
    ) async -> Result<
        [Certificate], TrustRejection
    > {
        switch self {
        case .system:
            await TrustValidation.validate(
                chain: chain,
                host: host,
                roots: context.systemRoots,
                anchors: [],
                context: context
            )
        case .certificates(let certificates):
            await TrustValidation.validate(
                chain: chain,
                host: host,
                roots: CertificateStore(certificates),
                anchors: certificates,
                context: context
            )
        }
    }
}

extension Certificate {
    /// Every `CERTIFICATE` block of a PEM text, in order.
    static func pemBundle(_ pem: String) throws -> [Certificate] {
        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: pem)
        } catch {
            throw TrustError(.invalidCertificate, "not a PEM certificate bundle: \(error)")
        }
        let certificates = try documents.filter { $0.discriminator == "CERTIFICATE" }.map {
            do { return try Certificate(pemDocument: $0) } catch {
                throw TrustError(.invalidCertificate, "a CERTIFICATE block does not parse: \(error)")
            }
        }
        guard !certificates.isEmpty else {
            throw TrustError(.invalidCertificate, "no -----BEGIN CERTIFICATE----- block")
        }
        return certificates
    }
}
