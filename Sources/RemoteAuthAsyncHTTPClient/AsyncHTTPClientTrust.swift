public import AsyncHTTPClient
import NIOSSL
public import RemoteAuth
import SwiftASN1
import X509

extension AsyncHTTPClientTransport {
    /// An `HTTPClient.Configuration` whose TLS settings carry out `trust` and `clientIdentity`
    /// as far as AsyncHTTPClient can, and refuse the rest.
    ///
    /// AsyncHTTPClient 1.37.0 builds its TLS handler as `NIOSSLClientHandler(context:serverHostname:)`
    /// and takes no verification callback, so only what a `TLSConfiguration` says can be enforced:
    /// - ``RemoteAuth/DefaultTrustPolicy``: the system's roots, or `trustRoots` set to the bundle
    ///   (so a given certificate can be the only root: the one pin AsyncHTTPClient can take);
    /// - ``RemoteAuth/InsecureAcceptAnythingPolicy``: `certificateVerification = .none`.
    ///
    /// A ``RemoteAuth/PublicKeyPinningPolicy`` (SPKI hashes), a ``RemoteAuth/CertificatePinningPolicy``
    /// (an exact leaf), a policy that differs per host, or a policy of your own throw ``RemoteAuth/TrustError/Code/unsupportedByTransport``: use
    /// `RemoteAuthNIO`'s `NIOHTTP1Transport`, which checks them inside the handshake.
    public static func configuration(
        trust: ServerTrust,
        clientIdentity: ClientIdentity? = nil,
        base: HTTPClient.Configuration = .init()
    ) throws -> HTTPClient.Configuration {
        guard trust.hasOnePolicy else {
            throw TrustError(
                .unsupportedByTransport,
                "AsyncHTTPClient takes one TLS configuration for every host; \(trust) differs per host: use NIOHTTP1Transport"
            )
        }
        var tls = base.tlsConfiguration ?? .makeClientConfiguration()
        switch trust.defaultPolicy {
        case let policy as DefaultTrustPolicy:
            if case .certificates(let roots) = policy.roots {
                tls.trustRoots = .certificates(try roots.map(nioCertificate))
            }
        case is InsecureAcceptAnythingPolicy:
            tls.certificateVerification = .none
        default:
            throw TrustError(
                .unsupportedByTransport,
                "AsyncHTTPClient cannot evaluate \(trust.defaultPolicy): it takes no TLS verification callback; use NIOHTTP1Transport"
            )
        }
        if let clientIdentity {
            switch clientIdentity.material {
            case .pem(let chainPEM, let keyPEM):
                do {
                    tls.certificateChain = try NIOSSLCertificate.fromPEMBytes(Array(chainPEM.utf8)).map {
                        .certificate($0)
                    }
                } catch {
                    throw TrustError(.invalidCertificate, "the client certificate is not PEM: \(error)")
                }
                do {
                    tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem))
                } catch {
                    throw TrustError(.invalidPrivateKey, "the client private key is not a PEM key: \(error)")
                }
            case .pkcs12(let bytes, let passphrase):
                do {
                    let bundle = try NIOSSLPKCS12Bundle(buffer: bytes, passphrase: passphrase.map { Array($0.utf8) })
                    tls.certificateChain = bundle.certificateChain.map { .certificate($0) }
                    tls.privateKey = .privateKey(bundle.privateKey)
                } catch {
                    throw TrustError(
                        .invalidPrivateKey,
                        "the PKCS#12 bundle does not open (wrong passphrase?): \(error)"
                    )
                }
            }
        }
        var configuration = base
        configuration.tlsConfiguration = tls
        return configuration
    }

    private static func nioCertificate(_ certificate: Certificate) throws -> NIOSSLCertificate {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return try NIOSSLCertificate(bytes: serializer.serializedBytes, format: .der)
    }
}
