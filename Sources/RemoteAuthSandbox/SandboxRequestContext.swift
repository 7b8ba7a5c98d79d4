import Hummingbird
import Logging
import NIOCore

/// The request context of every sandbox route: Hummingbird's core storage, and what
/// ``OAuth1Authenticator`` verified for the routes behind it (as HummingbirdAuth keeps an
/// identity in its context).
struct SandboxRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The verified OAuth 1.0a request, set by ``OAuth1Authenticator``.
    var oauth1: OAuth1Verifier.Verified?
    /// The OAuth 2 access token ``BearerAuthenticator`` accepted.
    var bearer: OAuth2Store.AccessToken?
    /// The user of a verified AWS SigV4 request, set by ``BearerAuthenticator``.
    var sigV4User: String?
    /// The user of a request signed with HTTP Message Signatures (RFC 9421), set by ``BearerAuthenticator``.
    var messageSignatureUser: String?
    /// The user of a signed request (SigV4 or RFC 9421).
    var signedRequestUser: String? { sigV4User ?? messageSignatureUser }
    /// The connection the request came on: its `NIOSSLHandler` knows the client's certificate
    /// (``peerCertificate()``, RFC 8705).
    let channel: (any Channel)?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// A context with no connection behind it (``SandboxResponder``): no client certificate.
    init(logger: Logger) {
        coreContext = .init(source: LoggerSource(logger: logger))
        channel = nil
    }

    private struct LoggerSource: RequestContextSource {
        let logger: Logger
    }

    /// Whether the request came from this machine: over loopback or a Unix socket, or in
    /// process with no connection (``SandboxResponder``). Where the peer is not known, it is not
    /// local.
    var peerIsLocal: Bool {
        guard let channel else { return true }
        return channel.remoteAddress?.isLocal ?? false
    }

    /// The request ``OAuth1Authenticator`` verified; a route reached without it is a sandbox bug.
    func requireOAuth1() throws(ServerFailure) -> OAuth1Verifier.Verified {
        guard let oauth1 else { throw ServerFailure("the route is not behind the OAuth 1.0a authenticator") }
        return oauth1
    }
}

extension Request {
    /// The body as received, up to 1 MiB; empty when there is none or it is larger.
    func bodyBytes() async -> [UInt8] {
        guard let buffer = try? await body.collect(upTo: 1 << 20) else { return [] }
        return Array(buffer.readableBytesView)
    }

    /// The query's name/value pairs, decoded leniently (see ``FormFields``).
    var queryFields: FormFields {
        let path = head.path ?? "/"
        guard let mark = path.firstIndex(of: "?") else { return FormFields([]) }
        return FormFields(decoding: path[path.index(after: mark)...])
    }
}

extension SocketAddress {
    /// A loopback address (`127.0.0.0/8`, `::1`, or `127.0.0.0/8` mapped into IPv6,
    /// [RFC 6890](https://www.rfc-editor.org/rfc/rfc6890)) or a Unix domain socket.
    var isLocal: Bool {
        switch self {
        case .unixDomainSocket:
            return true
        case .v4:
            return ipAddress?.hasPrefix("127.") ?? false
        case .v6:
            // inet_ntop's text: "::1", or "::ffff:127.x.y.z" for a mapped IPv4 address.
            guard let text = ipAddress?.lowercased() else { return false }
            return text == "::1" || text.hasPrefix("::ffff:127.")
        }
    }
}
