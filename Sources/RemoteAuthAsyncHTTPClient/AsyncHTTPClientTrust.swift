public import AsyncHTTPClient
import NIOSSL
public import RemoteAuth
import RemoteAuthNIOShared

extension AsyncHTTPClientTransport {
    /// An `HTTPClient.Configuration` whose TLS settings carry out `trust` and `clientIdentity`
    /// as far as AsyncHTTPClient can, and refuse the rest.
    ///
    /// AsyncHTTPClient 1.37.0 builds its TLS handler as `NIOSSLClientHandler(context:serverHostname:)`
    /// and takes no verification callback, so only what a `TLSConfiguration` says can be enforced:
    /// - `DefaultTrustPolicy`: the system's roots, or `trustRoots` set to the bundle
    ///   (so a given certificate can be the only root: the one pin AsyncHTTPClient can take);
    /// - `InsecureAcceptAnythingPolicy`: `certificateVerification = .none`.
    ///
    /// A `PublicKeyPinningPolicy` (SPKI hashes), a `CertificatePinningPolicy`
    /// (an exact leaf), a policy that differs per host, or a policy of your own throw `TrustError.Code.unsupportedByTransport`: use
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
                tls.trustRoots = .certificates(try roots.map(NIOSSLCertificate.init))
            }
        case is InsecureAcceptAnythingPolicy:
            tls.certificateVerification = .none
        default:
            throw TrustError(
                .unsupportedByTransport,
                "AsyncHTTPClient cannot evaluate \(trust.defaultPolicy): it takes no TLS verification callback; use NIOHTTP1Transport"
            )
        }
        if let clientIdentity { try tls.present(clientIdentity) }
        var configuration = base
        configuration.tlsConfiguration = tls
        return configuration
    }
}
