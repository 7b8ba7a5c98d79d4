public import HTTPTypes
import Logging

/// An HTTP client that runs a chain of ``RequestAuthenticator``s over any ``HTTPTransport`` and
/// follows redirects safely.
///
/// - **The chain**, on every attempt at a request: a ``CredentialStoreAuthenticator`` over
///   `credentials` for the request's origin (`Basic` and `Digest` challenges answered once,
///   Digest nonces reused, preemptive Basic with ``Configuration/preemptive`` or per request),
///   one for ``Configuration/proxy`` (`407`, `Proxy-Authorization`), then the caller's
///   `authenticators` (``ScopedAuthenticator``: Bearer, OAuth 2 token sessions with DPoP, OAuth
///   1.0a, AWS Signature V4, your own), each only for its own origin. Each authenticator judges
///   every response and may ask for one more send; the caller's may ask at most
///   ``Configuration/maximumAuthenticationRetries`` times, the challenge answers stop by
///   themselves, and a refusal is ``ClientError/Code/authenticationFailed``, never a loop.
/// - **Redirects** (301, 302, 303, 307, 308) are followed here (`RedirectState`), up to
///   ``Configuration/maximumRedirects``; caller-set `Authorization`, `Proxy-Authorization` and
///   `Cookie` fields are dropped as soon as the scheme, host or port changes, and credentials
///   are only ever added for the origin the request started at, so `https` → `http` never
///   carries them. [RFC 9110 §15.4](https://www.rfc-editor.org/rfc/rfc9110#section-15.4)
/// - **Plain http**: a credential is sent over `http` only to loopback hosts or when its scope
///   opted in (``ScopedCredential/allowsPlainHTTP``, ``ScopedAuthenticator/allowsPlainHTTP``);
///   otherwise ``ClientError/Code/plainHTTPRefused`` is thrown instead of sending it.
///
/// A request that already carries a field an authenticator writes (`Authorization`) is sent as
/// the caller built it: that authenticator does not run for it.
public struct AuthenticatingClient: Sendable {
    /// The transport every round trip goes through; it must not follow redirects itself.
    public let transport: any HTTPTransport
    /// Where the `Basic` and `Digest` credentials that answer the origin's and the proxy's
    /// challenges come from.
    public let credentials: any CredentialStore
    /// The authenticators run on every attempt, in order, each for its own origin
    /// (``RequestAuthenticator``).
    public let authenticators: [ScopedAuthenticator]
    /// How the client answers challenges, follows redirects, reaches a proxy and logs.
    public let configuration: Configuration
    /// Shared between copies of this client: the round-trip count.
    let state = ClientState()
    /// The store's answers to the origin's and the proxy's challenges; their Digest spaces are
    /// shared between copies of this client.
    let originAnswers: CredentialStoreAuthenticator
    let proxyAnswers: CredentialStoreAuthenticator?

    /// - Parameters:
    ///   - credentials: the credentials that answer `Basic` and `Digest` challenges
    ///     (``CredentialStoreAuthenticator``).
    ///   - authenticators: run, in order, on every attempt at a request to their origin.
    ///   - transport: sends each request.
    ///   - configuration: redirects, retries, preemptive Basic, the proxy and the logger.
    public init(
        transport: any HTTPTransport,
        credentials: any CredentialStore = InMemoryCredentialStore(),
        authenticators: [ScopedAuthenticator] = [],
        configuration: Configuration = .init()
    ) {
        self.transport = transport
        self.credentials = credentials
        self.authenticators = authenticators
        self.configuration = configuration
        originAnswers = CredentialStoreAuthenticator(
            credentials: credentials,
            party: .origin,
            preemptive: configuration.preemptive,
            cnonceGenerator: configuration.cnonceGenerator,
            qop: configuration.digestQOP,
            logger: configuration.logger,
            followsPreemptiveOverride: true
        )
        proxyAnswers = configuration.proxy.map {
            CredentialStoreAuthenticator(
                credentials: credentials,
                party: .proxy($0),
                preemptive: configuration.preemptive,
                cnonceGenerator: configuration.cnonceGenerator,
                qop: configuration.digestQOP,
                logger: configuration.logger,
                followsPreemptiveOverride: true
            )
        }
    }

    /// How many requests this client has put on the wire, retries and redirects included.
    public var roundTrips: Int {
        get async { await state.roundTrips }
    }

    /// Sends `request`, answering challenges and following redirects.
    ///
    /// - Parameter preemptive: overrides ``Configuration/preemptive`` for this request.
    /// - Parameter request: the request, with an absolute URL.
    /// - Parameter body: the request's body.
    /// - Returns: the final response and its body.
    /// - Throws: ``ClientError`` (authentication failed, too many or invalid redirects, plain
    ///   http refused, invalid URL), or what the transport throws.
    public func send(
        _ request: HTTPRequest,
        body: [UInt8]? = nil,
        preemptive: Bool? = nil
    ) async throws -> (HTTPResponse, [UInt8]) {
        try await follow(request, body: body.map(RequestBody.bytes), preemptive: preemptive) {
            request,
            body,
            sensitive in
            try await roundTrip(request, body: body?.bytes, sensitive: sensitive)
        } inMemory: {
            $0
        }
    }

    /// Sends `request` with a body that may be streamed, and returns the response body as it
    /// arrives (bounded by the transport's limit), through the same chain and redirects as
    /// ``send(_:body:preemptive:)``. The body is sent again for a retry or a `307`/`308`
    /// (``RequestBody`` makes a new pass); a challenge's body (`400`, `401`, `407`) is read (up
    /// to 64 KiB) before the authenticators judge it. A transport that does not stream
    /// (``HTTPTransport/stream(_:body:)``'s default) buffers both bodies.
    ///
    /// - Throws: as ``send(_:body:preemptive:)``; ``ClientError/Code/invalidBody`` for a streamed
    ///   body an authenticator needs in memory (Digest `auth-int`, an OAuth 1.0a form body) or
    ///   whose length is not the one given.
    public func stream(
        _ request: HTTPRequest,
        body: RequestBody? = nil,
        preemptive: Bool? = nil
    ) async throws -> (HTTPResponse, ResponseBody) {
        try await follow(request, body: body, preemptive: preemptive) { request, body, sensitive in
            try await streamRoundTrip(request, body: body, sensitive: sensitive)
        } inMemory: {
            $0.bytes
        }
    }

    /// The redirect loop over ``exchange(_:body:credentialsAllowed:preemptive:send:inMemory:)``.
    func follow<Body: Sendable>(
        _ request: HTTPRequest,
        body: RequestBody?,
        preemptive: Bool?,
        send: (HTTPRequest, RequestBody?, [HTTPField.Name]) async throws -> (HTTPResponse, Body),
        inMemory: (Body) -> [UInt8]?
    ) async throws -> (HTTPResponse, Body) {
        var redirects = RedirectState(
            maximum: configuration.maximumRedirects,
            initialOrigin: try AuthScope(origin: request)
        )
        var current = (request: request, body: body)
        while true {
            let (response, responseBody) = try await exchange(
                current.request,
                body: current.body,
                credentialsAllowed: redirects.allowsCredentials,
                preemptive: preemptive,
                send: send,
                inMemory: inMemory
            )
            guard configuration.followsRedirects,
                let hop = try redirects.next(after: response, to: current.request, body: current.body)
            else { return (response, responseBody) }
            configuration.logger.debug(
                "redirect",
                metadata: [
                    "status": "\(response.status.code)", "to": "\(Redaction.redactedURL(hop.request.absoluteURL))",
                    "crossOrigin": "\(hop.crossesOrigin)",
                ]
            )
            current = (hop.request, hop.body)
        }
    }
}
