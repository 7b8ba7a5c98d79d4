public import HTTPTypes
import Logging

/// An HTTP client that answers `Basic` and `Digest` challenges with scoped credentials, adds
/// token authorizations (``RequestAuthorizer``: Bearer, later DPoP), and follows redirects
/// safely, over any ``HTTPTransport``.
///
/// - **Challenge mode**: a `401` whose `WWW-Authenticate` (or a `407` from
///   ``Configuration/proxy`` whose `Proxy-Authenticate`) offers a scheme the store holds a
///   credential for (matched by origin and realm) is answered once; when that answer is refused
///   the client throws ``ClientError/Code/authenticationFailed`` carrying the challenge, and
///   never loops (URLSession's `previousFailureCount` rule). A `401` nothing can answer is
///   returned as is. Each challenge field is parsed on its own, so a malformed field does not
///   hide a good challenge in another (``AuthenticationChallenge/parseEachField(_:name:)``).
///   When every field is malformed there is nothing to answer: the response is returned as is
///   (the parse errors are logged at `debug`), or, when a credential had been sent and was
///   refused, ``ClientError/Code/authenticationFailed`` names the first parse error.
/// - **Preemptive mode** (``Configuration/preemptive`` or per request): `Basic` is sent on the
///   first request to an origin with a realm-less credential, saving the `401` round trip.
/// - **Authorizers** (``CredentialStore/authorizer(for:)``) are sent on every request to their
///   origin; a challenge to them is offered to the authorizer once (a token refresh), never more.
/// - **Digest** state is kept per protection space (``DigestProtectionSpaces``): the server's
///   nonce is reused with a growing `nc`, so N requests cost N+1 round trips; `stale=true` is
///   answered with the new nonce without counting as a failure; `nextnonce` is honoured;
///   `rspauth` is checked; `auth-int` hashes the body.
///   [RFC 7616 §3.3–§3.5](https://www.rfc-editor.org/rfc/rfc7616#section-3.3)
/// - **Redirects** (301, 302, 303, 307, 308) are followed here (``RedirectState``), up to
///   ``Configuration/maximumRedirects``; caller-set `Authorization`, `Proxy-Authorization` and
///   `Cookie` fields are dropped as soon as the scheme, host or port changes, and credentials
///   are only ever added for the origin the request started at, so `https` → `http` never
///   carries them. [RFC 9110 §15.4](https://www.rfc-editor.org/rfc/rfc9110#section-15.4)
/// - **Plain http**: a credential is sent over `http` only to loopback hosts or when its scope
///   opted in (``ScopedCredential/allowsPlainHTTP``); otherwise
///   ``ClientError/Code/plainHTTPRefused`` is thrown instead of sending the credential.
///
/// A request that already carries an `Authorization` field is sent as the caller built it:
/// the client neither adds its own nor answers challenges for it.
public struct AuthenticatingClient: Sendable {
    public let transport: any HTTPTransport
    public let credentials: any CredentialStore
    /// The authenticators run on every attempt, in order, each for its own origin
    /// (``RequestAuthenticator``).
    public let authenticators: [ScopedAuthenticator]
    public let configuration: Configuration
    /// Shared between copies of this client: the round-trip count and the Digest spaces.
    let state = ClientState()

    /// - Parameters:
    ///   - credentials: the credentials that answer `Basic` and `Digest` challenges, and the
    ///     token authorizers of ``CredentialStore/authorizer(for:)``.
    ///   - authenticators: run, in order, on every attempt at a request to their origin.
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
    }

    /// How many requests this client has put on the wire, retries and redirects included.
    public var roundTrips: Int {
        get async { await state.roundTrips }
    }

    /// Sends `request`, answering challenges and following redirects.
    ///
    /// - Parameter preemptive: overrides ``Configuration/preemptive`` for this request.
    /// - Returns: the final response and its body.
    /// - Throws: ``ClientError`` (authentication failed, too many or invalid redirects, plain
    ///   http refused, invalid URL), or what the transport throws.
    public func send(
        _ request: HTTPRequest,
        body: [UInt8]? = nil,
        preemptive: Bool? = nil
    ) async throws -> (HTTPResponse, [UInt8]) {
        var redirects = RedirectState(
            maximum: configuration.maximumRedirects,
            initialOrigin: try AuthScope(origin: request)
        )
        let preemptive = preemptive ?? configuration.preemptive
        var current = (request: request, body: body)
        while true {
            let (response, responseBody) = try await exchange(
                current.request,
                body: current.body,
                credentialsAllowed: redirects.allowsCredentials,
                preemptive: preemptive
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
