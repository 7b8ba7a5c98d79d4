import HTTPTypes
import Logging
import Tracing

/// The authenticator chain of ``AuthenticatingClient``: each ``RequestAuthenticator`` for the
/// request's origin authenticates every attempt and judges every response; a retry they ask for
/// is sent at most ``AuthenticatingClient/Configuration/maximumAuthenticationRetries`` times.
extension AuthenticatingClient {
    /// The authenticators that run for `request`: those for its origin, unless a redirect has
    /// left the origin the request started at, and none that would overwrite a field the caller
    /// set itself (a request that carries its own `Authorization` is sent as built).
    ///
    /// - Throws: ``ClientError/Code/plainHTTPRefused`` for an authenticator whose origin is plain
    ///   `http` on a host that is not loopback, without its opt-in.
    func authenticators(for request: HTTPRequest, credentialsAllowed: Bool) throws -> [ScopedAuthenticator] {
        guard credentialsAllowed, !authenticators.isEmpty else { return [] }
        return try ScopedAuthenticator.active(authenticators, for: request)
    }

    /// One round trip through the authenticators: authenticate, send, let each judge the
    /// response, and send again (from `request` as given) while one asks. The caller's `chain`
    /// may ask for at most ``AuthenticatingClient/Configuration/maximumAuthenticationRetries``;
    /// the `builtIn` challenge answers bound themselves (one answer, one `stale` renewal each).
    func authenticatedRoundTrip<Body: Sendable>(
        _ request: HTTPRequest,
        body: RequestBody?,
        builtIn: [any RequestAuthenticator],
        chain: [ScopedAuthenticator],
        preemptive: Bool?,
        send: (HTTPRequest, RequestBody?, [HTTPField.Name]) async throws -> (HTTPResponse, Body),
        inMemory: (Body) -> [UInt8]?
    ) async throws -> (HTTPResponse, Body) {
        let all = builtIn + chain.map(\.authenticator)
        guard !all.isEmpty else { return try await send(request, body, []) }
        let sensitive = chain.flatMap(\.authenticator.writtenFields)
        var attempt = AuthenticationAttempt(request: request, requestBody: body)
        if let preemptive { attempt[CredentialStoreAuthenticator.preemptiveOverride] = preemptive }
        var chainRetries = 0
        var logged = 0
        while true {
            // One span per attempt: its method, redacted URL, status, and the authenticators'
            // decisions as events (none carries a credential).
            let (response, responseBody, retry, chainAsked) = try await withSpan(
                "RemoteAuth.attempt",
                ofKind: .client
            ) { span in
                span.attributes["http.request.method"] = attempt.request.method.rawValue
                span.attributes["url.full"] = Redaction.redactedURL(attempt.request.absoluteURL)
                span.attributes["remote_auth.attempt"] = attempt.number
                // What was decided before the send is logged before it; what the response
                // brought, after it (and on a throw, whatever is left).
                defer {
                    logDecisions(of: attempt, from: logged, on: span)
                    logged = attempt.decisions.count
                }
                for authenticator in all { try await authenticator.authenticate(&attempt) }
                logDecisions(of: attempt, from: logged, on: span)
                logged = attempt.decisions.count
                let (response, responseBody) = try await send(attempt.request, attempt.sentBody, sensitive)
                span.attributes["http.response.status_code"] = Int(response.status.code)
                attempt.responseBody = inMemory(responseBody)
                var retry = false
                var chainAsked = false
                // Every authenticator sees every response, even after one asked for a retry.
                for (index, authenticator) in all.enumerated()
                where try await authenticator.judge(response, to: &attempt) == .retry {
                    retry = true
                    if index >= builtIn.count { chainAsked = true }
                }
                span.attributes["remote_auth.retry"] = retry
                return (response, responseBody, retry, chainAsked)
            }
            guard retry else { return (response, responseBody) }
            if chainAsked { chainRetries += 1 }
            // The built-in answers stop by themselves; the second bound is a backstop.
            guard chainRetries <= configuration.maximumAuthenticationRetries,
                attempt.number <= configuration.maximumAuthenticationRetries + 2 * builtIn.count
            else {
                throw ClientError(
                    .authenticationFailed,
                    "\(response.status.code) after \(attempt.number) attempts: an authenticator still asked to retry",
                    challenge: AuthenticationChallenge.parseEachField(response.headerFields, name: .wwwAuthenticate)
                        .challenges.first,
                    response: response
                )
            }
            attempt = attempt.retry(request: request, requestBody: body)
        }
    }

    /// The decisions made since `start`: each logged at `debug` and added to `span` as an event.
    private func logDecisions(of attempt: AuthenticationAttempt, from start: Int, on span: any Span) {
        guard start < attempt.decisions.count else { return }
        for decision in attempt.decisions[start...] {
            configuration.logger.debug(
                "authentication",
                metadata: [
                    "decision": "\(decision)", "attempt": "\(attempt.number)",
                    "url": "\(Redaction.redactedURL(attempt.request.absoluteURL))",
                ]
            )
            var attributes: SpanAttributes = [:]
            attributes["remote_auth.scheme"] = decision.scheme
            attributes["remote_auth.action"] = decision.action.rawValue
            if let reason = decision.reason { attributes["remote_auth.reason"] = reason }
            span.addEvent(SpanEvent(name: "RemoteAuth.decision", attributes: attributes))
        }
    }
}

extension ScopedAuthenticator {
    /// The entries of `list` that run for `request`: those for its origin (and path, for an
    /// entry limited to one), none that would
    /// overwrite a field the caller set; the rule shared by ``AuthenticatingClient`` and the
    /// OpenAPI middleware.
    ///
    /// - Throws: ``ClientError/Code/plainHTTPRefused`` for an entry whose origin is plain `http`
    ///   on a host that is not loopback, without its opt-in.
    package static func active(_ list: [ScopedAuthenticator], for request: HTTPRequest) throws -> [ScopedAuthenticator]
    {
        let origin = try AuthScope(origin: request)
        let path = String(request.target.path)
        return try list.filter { entry in
            guard entry.scope == origin, entry.covers(path: path),
                !entry.authenticator.writtenFields.contains(where: { request.headerFields[$0] != nil })
            else { return false }
            if origin.scheme == "http", !origin.isLoopback, !entry.allowsPlainHTTP {
                throw ClientError(
                    .plainHTTPRefused,
                    "refusing to authenticate a request to \(origin) over plain http, where anyone on the path can read it;"
                        + " use https, or opt in to plain http for this authenticator"
                )
            }
            return true
        }
    }
}
