import HTTPTypes

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

    /// One round trip through `chain`: authenticate, send, let each authenticator judge the
    /// response, and send again (from `request` as given) while one asks and retries are left.
    func authenticatedRoundTrip(
        _ request: HTTPRequest,
        body: [UInt8]?,
        chain: [ScopedAuthenticator]
    ) async throws -> (HTTPResponse, [UInt8]) {
        guard !chain.isEmpty else { return try await roundTrip(request, body: body) }
        let sensitive = chain.flatMap(\.authenticator.writtenFields)
        var attempt = AuthenticationAttempt(request: request, body: body)
        while true {
            for entry in chain { try await entry.authenticator.authenticate(&attempt) }
            let (response, responseBody) = try await roundTrip(attempt.request, body: attempt.body, sensitive: sensitive)
            var retry = false
            // Every authenticator sees every response, even after one asked for a retry.
            for entry in chain {
                if try await entry.authenticator.judge(response, to: &attempt) == .retry { retry = true }
            }
            guard retry else { return (response, responseBody) }
            guard attempt.number <= configuration.maximumAuthenticationRetries else {
                throw ClientError(
                    .authenticationFailed,
                    "\(response.status.code) after \(attempt.number) attempts: an authenticator still asked to retry",
                    challenge: AuthenticationChallenge.parseEachField(response.headerFields, name: .wwwAuthenticate)
                        .challenges.first,
                    response: response
                )
            }
            attempt = attempt.retry(request: request, body: body)
        }
    }
}

extension ScopedAuthenticator {
    /// The entries of `list` that run for `request`: those for its origin, none that would
    /// overwrite a field the caller set; the rule shared by ``AuthenticatingClient`` and the
    /// OpenAPI middleware.
    ///
    /// - Throws: ``ClientError/Code/plainHTTPRefused`` for an entry whose origin is plain `http`
    ///   on a host that is not loopback, without its opt-in.
    package static func active(_ list: [ScopedAuthenticator], for request: HTTPRequest) throws -> [ScopedAuthenticator] {
        let origin = try AuthScope(origin: request)
        return try list.filter { entry in
            guard entry.scope == origin,
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
