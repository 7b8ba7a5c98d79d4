public import Foundation
public import HTTPTypes
public import OpenAPIRuntime
public import RemoteAuth

/// RemoteAuth's authenticator chain inside any client swift-openapi-generator made: a
/// `ClientMiddleware` that runs each `ScopedAuthenticator` for the operation's
/// origin (the server URL and the operation's path make the absolute URL its authenticators
/// sign), sends through `next`, lets each judge the response, and sends again when one asks
/// (a refreshed token, a DPoP nonce), at most ``maximumRetries`` times.
///
/// ```swift
/// let client = Client(serverURL: api, transport: AsyncHTTPClientTransport(),
///                     middlewares: [AuthenticationMiddleware(session: session)])
/// ```
///
/// - Credentials go only to their authenticator's origin, never over plain `http` except to
///   loopback hosts or with the authenticator's opt-in (`ClientError.Code.plainHTTPRefused`),
///   and never in place of a field the caller set.
/// - Bodies: a body of known length up to ``replayableBodyLimit`` is read once, shown to the
///   authenticators (an OAuth 1.0a form body is signed) and sent again on a retry; a longer or
///   streamed body is sent once, and a retry asked for it is ``AuthenticationMiddlewareError/Code/bodyNotReplayable``,
///   never a silent second send of a consumed stream.
/// - State that outlives one call (a token session's tokens, DPoP nonces) lives in the
///   authenticators, so one middleware serves every call of a client.
public struct AuthenticationMiddleware: ClientMiddleware {
    /// The authenticators tried for each call, each applying only within its scope.
    public let authenticators: [ScopedAuthenticator]
    /// The most times one call is sent again because an authenticator asked.
    public var maximumRetries = 2
    /// The largest body read into memory so that it can be signed and replayed (1 MiB).
    public var replayableBodyLimit = 1 << 20

    /// Creates a middleware that authenticates calls with `authenticators`.
    public init(authenticators: [ScopedAuthenticator]) {
        self.authenticators = authenticators
    }

    /// A middleware that sends `session`'s token to the session's resource origins only,
    /// renewing it as needed.
    public init(session: OAuth2.TokenSession, allowingPlainHTTP: Bool = false) {
        self.init(authenticators: session.authenticators(allowingPlainHTTP: allowingPlainHTTP))
    }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let target = try OperationTarget(request, baseURL: baseURL)
        let chain = try ScopedAuthenticator.active(authenticators, for: target.absolute)
        guard !chain.isEmpty else { return try await next(request, body, baseURL) }
        var bytes: [UInt8]? = nil
        var replayable = true
        if let body {
            if case .known(let length) = body.length, length <= replayableBodyLimit {
                bytes = Array(try await ArraySlice(collecting: body, upTo: replayableBodyLimit))
            } else {
                replayable = body.iterationBehavior == .multiple
            }
        }
        var attempt = AuthenticationAttempt(request: target.absolute, body: bytes)
        while true {
            for entry in chain { try await entry.authenticator.authenticate(&attempt) }
            let outgoing = try target.relative(attempt.request)
            let sentBody = attempt.body.map { HTTPBody($0) } ?? body
            let (response, responseBody) = try await next(outgoing, sentBody, baseURL)
            var retry = false
            for entry in chain {
                if try await entry.authenticator.judge(response, to: &attempt) == .retry { retry = true }
            }
            guard retry else { return (response, responseBody) }
            guard replayable || bytes != nil || body == nil else {
                throw AuthenticationMiddlewareError(
                    .bodyNotReplayable,
                    "\(operationID): an authenticator asked to send the request again (\(response.status.code)), but its streamed body was already sent",
                    response: response
                )
            }
            guard attempt.number <= maximumRetries else {
                throw RemoteAuth.ClientError(
                    .authenticationFailed,
                    "\(operationID): \(response.status.code) after \(attempt.number) attempts: an authenticator still asked to retry",
                    response: response
                )
            }
            attempt = attempt.retry(request: target.absolute, body: bytes)
        }
    }
}

/// An operation's request as an absolute request (what authenticators sign) and back.
struct OperationTarget {
    let absolute: HTTPRequest
    let origin: AuthScope
    /// The server URL's path, without a trailing `/`, which prefixes every operation path.
    let basePath: String

    init(_ request: HTTPRequest, baseURL: URL) throws {
        guard let scheme = baseURL.scheme?.lowercased(), let host = baseURL.host, !host.isEmpty else {
            throw RemoteAuth.ClientError(.invalidURL, "the server URL \(baseURL.absoluteString) is not an absolute http(s) URL")
        }
        var path = baseURL.path
        while path.hasSuffix("/") { path.removeLast() }
        basePath = path
        let authority = host.contains(":") ? "[\(host)]" : host
        var absolute = request
        absolute.scheme = scheme
        absolute.authority = authority + (baseURL.port.map { ":\($0)" } ?? "")
        absolute.path = path + (request.path ?? "/")
        self.absolute = absolute
        origin = try AuthScope(origin: absolute)
    }

    /// `authenticated` as the operation's request again: its path without the server's, its
    /// fields; an authenticator may not move it to another origin.
    func relative(_ authenticated: HTTPRequest) throws -> HTTPRequest {
        guard try AuthScope(origin: authenticated) == origin, let path = authenticated.path, path.hasPrefix(basePath)
        else {
            throw RemoteAuth.ClientError(.invalidURL, "an authenticator moved the request away from \(origin)\(basePath)")
        }
        var request = authenticated
        request.scheme = nil
        request.authority = nil
        request.path = String(path.dropFirst(basePath.count))
        return request
    }
}

/// A failure of ``AuthenticationMiddleware`` that is not an authenticator's own.
public struct AuthenticationMiddlewareError: CodedError {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
        /// A retry was asked for a call whose streamed body could not be sent again.
        public static let bodyNotReplayable = Code(rawValue: "bodyNotReplayable")
    }

    public let code: Code
    public let reason: String
    /// The response that asked for the retry.
    public let response: HTTPResponse?

    init(_ code: Code, _ reason: String, response: HTTPResponse? = nil) {
        self.code = code
        self.reason = reason
        self.response = response
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code && lhs.reason == rhs.reason }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { "AuthenticationMiddlewareError.\(code): \(reason)" }
}
