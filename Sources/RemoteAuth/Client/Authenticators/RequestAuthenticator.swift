public import HTTPTypes

/// The one seam for authenticating a request: anything that must add to a request before it is
/// sent (header fields, the URL's query, the body) and judge the response (accept it, send the
/// request again, or fail with a typed error). ``AuthenticatingClient`` runs an ordered chain of
/// them (``ScopedAuthenticator``) on every attempt, each only for its own origin.
///
/// - ``authenticate(_:)`` is called before every send of a request, the retries included, with
///   the request as the caller built it (and after the client's own challenge answers): the
///   authenticator writes what it needs into the ``AuthenticationAttempt`` and keeps what it
///   must remember in the attempt's context (the token it sent, the nonce its proof carried).
/// - ``judge(_:to:)`` sees **every** response to an attempt it authenticated, a `200` too (a
///   DPoP server sends nonces with any response,
///   [RFC 9449 §8.2](https://www.rfc-editor.org/rfc/rfc9449#section-8.2)), and returns
///   ``AuthenticationVerdict/accept`` or ``AuthenticationVerdict/retry``, or throws to fail the
///   request. Retries are bounded by the client
///   (``AuthenticatingClient/Configuration/maximumAuthenticationRetries``): an authenticator that
///   keeps asking makes the request fail with ``ClientError/Code/authenticationFailed``, never a
///   loop.
/// - State that must outlive one request (a refreshed token, a server's nonce) belongs in the
///   authenticator itself (an actor or a locked class), so that a client rebuilt for each call
///   (an OpenAPI middleware handed a new `next`) keeps it when it keeps the authenticator.
/// - ``writtenFields`` names the fields it writes, so that logs redact them
///   (``Redaction/redacted(_:also:)``).
///
/// Conformers in the library: ``BearerToken``, ``OAuth2/TokenSession`` (Bearer, and DPoP with its
/// nonce retry), ``OAuth1/RequestSigner`` (header, query or body placement).
public protocol RequestAuthenticator: Sendable {
    /// The fields this authenticator writes, whose values are credentials.
    var writtenFields: [HTTPField.Name] { get }

    /// Adds this authenticator's part to `attempt`.
    func authenticate(_ attempt: inout AuthenticationAttempt) async throws

    /// The response to an attempt this authenticator authenticated; it may note in the
    /// attempt's context what the next attempt must know (that a refresh was already tried).
    func judge(_ response: HTTPResponse, to attempt: inout AuthenticationAttempt) async throws
        -> AuthenticationVerdict
}

extension RequestAuthenticator {
    /// Accepts every response.
    public func judge(_ response: HTTPResponse, to attempt: inout AuthenticationAttempt) async throws
        -> AuthenticationVerdict
    { .accept }
}

/// What an authenticator decides about a response.
public enum AuthenticationVerdict: Sendable, Hashable {
    /// The response goes on (to the next authenticator's judgement, then to the caller).
    case accept
    /// Send the request again: every authenticator authenticates it afresh (a refreshed token, a
    /// proof with the server's nonce).
    case retry
}

/// One send of a request, as the authenticators of ``AuthenticatingClient`` build it: the
/// request (method, URL with its query, header fields), its body, and a context that lives as
/// long as the request (across its retries), where each authenticator keeps what it needs to
/// judge the response. `description` shows the method and the redacted URL only.
public struct AuthenticationAttempt: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The request as it will be sent; authenticators may change any part of it.
    public var request: HTTPRequest
    /// The body as it will be sent when it is in memory (`nil`: none, or streamed); an
    /// authenticator that signs it (OAuth 1.0a body placement, a digest) may replace it.
    public var body: [UInt8]?
    /// The body when it is streamed (``body`` is then `nil`): an authenticator that covers the
    /// body hashes it with ``RequestBody/sha256()`` (another pass), or throws
    /// ``ClientError/Code/invalidBody`` when it needs the bytes in memory. An authenticator that
    /// frames the body (SigV4's `aws-chunked` upload) may replace it with another stream.
    public var streamedBody: RequestBody?
    /// 1 for the first send, 2 for the first retry, …
    public let number: Int
    /// The body of the response being judged, once the whole of it has arrived (`nil` in
    /// ``RequestAuthenticator/authenticate(_:)``): what a digest or a server's proof covers.
    public package(set) var responseBody: [UInt8]?
    /// What the authenticators decided on this request so far, its earlier attempts included,
    /// oldest first (``record(_:)``): the client logs each at `debug` and adds it to the
    /// attempt's trace span as an event.
    public private(set) var decisions: [AuthenticationDecision] = []
    private var values: [String: any Sendable]

    /// An attempt at sending `request`; the context starts empty.
    public init(request: HTTPRequest, body: [UInt8]?, number: Int = 1) {
        self.request = request
        self.body = body
        self.streamedBody = nil
        self.number = number
        self.values = [:]
    }

    /// An attempt with a body that may be streamed: in memory it is ``body``, else
    /// ``streamedBody``.
    public init(request: HTTPRequest, requestBody body: RequestBody?, number: Int = 1) {
        self.request = request
        self.body = body?.bytes
        self.streamedBody = body?.bytes == nil ? body : nil
        self.number = number
        self.values = [:]
    }

    /// What goes on the wire: ``body`` (as an authenticator left it), else the stream.
    package var sentBody: RequestBody? { body.map(RequestBody.bytes) ?? streamedBody }

    /// The next attempt at the same request: the request as the caller built it again, the
    /// context kept.
    package func retry(request: HTTPRequest, body: [UInt8]?) -> AuthenticationAttempt {
        var next = AuthenticationAttempt(request: request, body: body, number: number + 1)
        next.values = values
        next.decisions = decisions
        return next
    }

    package func retry(request: HTTPRequest, requestBody body: RequestBody?) -> AuthenticationAttempt {
        var next = AuthenticationAttempt(request: request, requestBody: body, number: number + 1)
        next.values = values
        next.decisions = decisions
        return next
    }

    /// Notes what this authenticator decided (a challenge answered, a token refreshed, a nonce
    /// adopted), for logs, traces and `-v`. A decision carries no credential.
    public mutating func record(_ decision: AuthenticationDecision) { decisions.append(decision) }

    /// A value kept in the attempt's context under `key`.
    public subscript<Value: Sendable>(key: AuthenticationAttempt.Key<Value>) -> Value? {
        get { values[key.name] as? Value }
        set { values[key.name] = newValue }
    }

    /// A typed key of the context; give each its own name (`"com.example.signer.sent"`).
    public struct Key<Value: Sendable>: Sendable, Hashable {
        /// The name the value is stored under in the attempt's context.
        public let name: String
        /// A key named `name`; keys with the same name and value type read the same value.
        public init(_ name: String) { self.name = name }
    }

    public var description: String {
        "AuthenticationAttempt(#\(number) \(request.method) \(Redaction.redactedURL(request.absoluteURL)))"
    }

    public var debugDescription: String { description }

    /// `dump` and debuggers show neither the fields (credentials) nor the context (tokens).
    public var customMirror: Mirror { Mirror(self, children: ["number": number], displayStyle: .struct) }
}

/// A ``RequestAuthenticator`` with the origin it may authenticate: the client runs it only for
/// requests to that origin (never after a redirect has left the origin the request started at),
/// and never over plain `http` except to loopback hosts or with the caller's opt-in.
public struct ScopedAuthenticator: Sendable, CustomStringConvertible {
    /// The origin (scheme, host and port) the authenticator may authenticate requests to.
    public let scope: AuthScope
    /// The path the authenticator is limited to on ``scope``, on a segment boundary (`/v1`
    /// covers `/v1` and `/v1/users`, not `/v10`); `nil` for the whole origin. An OAuth 2 token
    /// for a resource narrower than its origin
    /// ([RFC 8707 §2](https://www.rfc-editor.org/rfc/rfc8707#section-2), [RFC 9728 §1.2](https://www.rfc-editor.org/rfc/rfc9728#section-1.2))
    /// goes to that resource only.
    public let pathPrefix: String?
    /// The authenticator run for requests within `scope`.
    public let authenticator: any RequestAuthenticator
    /// The caller's opt-in to run the authenticator over plain `http` to a host that is not
    /// loopback. Off by default.
    public let allowsPlainHTTP: Bool

    /// Limits `authenticator` to the origin of `scope` and, when given, to `pathPrefix` (trailing
    /// slashes dropped); plain `http` to a host that is not loopback only with `allowingPlainHTTP`.
    public init(
        _ authenticator: any RequestAuthenticator,
        for scope: AuthScope,
        pathPrefix: String? = nil,
        allowingPlainHTTP: Bool = false
    ) {
        self.scope = scope.origin
        var prefix = Substring(pathPrefix ?? "")
        while prefix.hasSuffix("/") { prefix = prefix.dropLast() }
        self.pathPrefix = prefix.isEmpty ? nil : String(prefix)
        self.authenticator = authenticator
        self.allowsPlainHTTP = allowingPlainHTTP
    }

    /// Whether `path` (a request's path, without its query) is under ``pathPrefix``, after its
    /// dot segments are removed ([RFC 3986 §5.2.4](https://www.rfc-editor.org/rfc/rfc3986#section-5.2.4)):
    /// `/v1/../files` is not under `/v1`. A path with a percent-encoded dot or slash, which a
    /// server may decode into a segment outside the prefix, is never covered.
    public func covers(path: String) -> Bool { Self.path(path, isUnder: pathPrefix) }

    /// `path` is under `pathPrefix` (a trailing `/` ignored) as ``covers(path:)`` judges it;
    /// every path is under `nil`.
    public static func path(_ path: String, isUnder pathPrefix: String?) -> Bool {
        var trimmed = Substring(pathPrefix ?? "")
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard !trimmed.isEmpty else { return true }
        let pathPrefix = String(trimmed)
        let lowered = path.lowercased()
        guard !lowered.contains("%2e"), !lowered.contains("%2f"), !lowered.contains("%5c"), !path.contains("\\") else {
            return false
        }
        let normalized = URIReference.removeDotSegments(path)
        return normalized == pathPrefix || normalized.hasPrefix(pathPrefix + "/")
    }

    public var description: String {
        "\(type(of: authenticator)) for \(scope)\(pathPrefix ?? "")" + (allowsPlainHTTP ? " (plain http allowed)" : "")
    }
}
