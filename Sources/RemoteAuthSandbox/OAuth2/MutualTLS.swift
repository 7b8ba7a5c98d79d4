import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOSSL
import RemoteAuth
import SwiftASN1
import X509

/// The certificate a client presented in the TLS handshake of the connection a request came
/// on: the credential of `tls_client_auth` and `self_signed_tls_client_auth`
/// ([RFC 8705 §2](https://www.rfc-editor.org/rfc/rfc8705#section-2)) and what certificate-bound
/// tokens are bound to ([RFC 8705 §3](https://www.rfc-editor.org/rfc/rfc8705#section-3)).
struct PeerCertificate: Sendable {
    let certificate: Certificate
    /// The DER encoding, as received.
    let der: [UInt8]

    /// `x5t#S256`: the base64url SHA-256 of the DER certificate, without padding
    /// ([RFC 8705 §3.1](https://www.rfc-editor.org/rfc/rfc8705#section-3.1)).
    var thumbprint: String { MutualTLS.thumbprint(der: der) }
}

extension SandboxRequestContext {
    /// The leaf certificate the client presented on this connection, read from the channel's
    /// `NIOSSLHandler`; `nil` over plain HTTP or when the client presented none.
    func peerCertificate() async -> PeerCertificate? {
        guard let channel,
            let presented = try? await channel.nioSSL_peerCertificate().get(),
            let der = try? presented.toDERBytes(),
            let certificate = try? Certificate(derEncoded: der)
        else { return nil }
        return PeerCertificate(certificate: certificate, der: der)
    }
}

/// RFC 8705 for the sandbox's authorization server and resources.
enum MutualTLS {
    static let tlsClientAuth = "tls_client_auth"
    static let selfSignedTLSClientAuth = "self_signed_tls_client_auth"

    /// `x5t#S256` of a DER certificate ([RFC 8705 §3.1](https://www.rfc-editor.org/rfc/rfc8705#section-3.1)).
    static func thumbprint(der: [UInt8]) -> String {
        OAuth2.CertificateBinding.thumbprint(certificateDER: der)
    }

    /// The client CAs of the sandbox's TLS material: the trust anchors of `tls_client_auth`.
    static func clientCAs(_ configuration: SandboxConfiguration) -> [Certificate] {
        guard let pem = configuration.tls?.clientCAPEM,
            let documents = try? PEMDocument.parseMultiple(pemString: pem)
        else { return [] }
        return documents.compactMap { try? Certificate(pemDocument: $0) }
    }

    /// Authenticates a client registered for `tls_client_auth` or `self_signed_tls_client_auth`
    /// with the certificate of the connection: no secret, no assertion
    /// ([RFC 8705 §2](https://www.rfc-editor.org/rfc/rfc8705#section-2)).
    ///
    /// - `tls_client_auth` ([§2.1](https://www.rfc-editor.org/rfc/rfc8705#section-2.1)): the
    ///   certificate chains to a client CA (PKIX, [RFC 5280](https://www.rfc-editor.org/rfc/rfc5280);
    ///   the leaf is issued by the CA itself: the handshake shows the sandbox the leaf only), and
    ///   its subject DN, in RFC 4514 form, is the registered `tls_client_auth_subject_dn`
    ///   ([§2.1.2](https://www.rfc-editor.org/rfc/rfc8705#section-2.1.2)).
    /// - `self_signed_tls_client_auth` ([§2.2](https://www.rfc-editor.org/rfc/rfc8705#section-2.2)):
    ///   the certificate is, byte for byte, one registered for the client (by PEM or by its
    ///   `x5t#S256`); no chain is built.
    static func authenticate(
        _ client: SandboxConfiguration.OAuth2Client,
        method: String,
        peer: PeerCertificate?,
        clientCAs: [Certificate]
    ) async throws(OAuth2Problem) {
        guard let peer else {
            throw OAuth2Problem(
                .invalidClient,
                "no TLS client certificate was presented (\(method), RFC 8705 §2)",
                status: .unauthorized
            )
        }
        switch method {
        case tlsClientAuth:
            guard let expected = client.tlsClientAuthSubjectDN else {
                throw OAuth2Problem(.invalidClient, "the client has no registered subject DN", status: .unauthorized)
            }
            guard await chainsToClientCA(peer.certificate, clientCAs: clientCAs) else {
                throw OAuth2Problem(
                    .invalidClient,
                    "the client certificate is not issued by a trusted client CA (RFC 8705 §2.1)",
                    status: .unauthorized
                )
            }
            guard String(describing: peer.certificate.subject) == expected else {
                throw OAuth2Problem(
                    .invalidClient,
                    "the certificate's subject DN is not the one registered for the client (RFC 8705 §2.1.2)",
                    status: .unauthorized
                )
            }
        default:
            let registered = client.selfSignedThumbprints
            guard !registered.isEmpty else {
                throw OAuth2Problem(.invalidClient, "the client has no registered certificate", status: .unauthorized)
            }
            let presented = peer.thumbprint
            guard registered.contains(where: { constantTimeEquals($0, presented) }) else {
                throw OAuth2Problem(
                    .invalidClient,
                    "the certificate is not the one registered for the client (RFC 8705 §2.2)",
                    status: .unauthorized
                )
            }
        }
    }

    /// Whether `leaf` validates (RFC 5280: signature, validity now, CA constraints) up to one of
    /// `clientCAs`.
    static func chainsToClientCA(_ leaf: Certificate, clientCAs: [Certificate]) async -> Bool {
        guard !clientCAs.isEmpty else { return false }
        var verifier = Verifier(rootCertificates: CertificateStore(clientCAs)) {
            RFC5280Policy()
        }
        if case .validCertificate = await verifier.validate(leaf: leaf, intermediates: CertificateStore()) {
            return true
        }
        return false
    }
}

extension SandboxConfiguration.OAuth2Client {
    /// The `x5t#S256` values of the certificates registered for `self_signed_tls_client_auth`:
    /// `tlsClientCertificateSHA256` and the thumbprints of `tlsClientCertificatePEM`.
    var selfSignedThumbprints: [String] {
        var values = tlsClientCertificateSHA256.map { [$0] } ?? []
        if let pem = tlsClientCertificatePEM, let documents = try? PEMDocument.parseMultiple(pemString: pem) {
            values += documents.map { MutualTLS.thumbprint(der: $0.derBytes) }
        }
        return values
    }
}
