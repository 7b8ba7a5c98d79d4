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
