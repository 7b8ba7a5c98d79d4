public import RemoteAuth

extension LoopbackCallbackListener {
    /// The OAuth 2 code flow's end: waits for the redirect that answers `pending`, redeems its
    /// code with `flow` ([RFC 6749 §4.1.3](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.3);
    /// the ID token validated when `flow` is an OpenID Connect relying party) and only then tells
    /// the browser it is signed in.
    ///
    /// A request that is not this sign-in's answer (another or no `state`, a wrong `iss`, tokens
    /// in the redirect, no code: every `OAuth2.Error` of
    /// `OAuth2.PendingAuthorization.parseCallback(_:)` but the server's own refusal) is shown
    /// an error page, passed to `onIgnored` with its reason, and the wait goes on
    /// ([RFC 8252 §8.9](https://www.rfc-editor.org/rfc/rfc8252#section-8.9)). The server's
    /// refusal (`error`, with the right `state` and `iss`) and a failed exchange end the wait:
    /// they are thrown, and the browser is told.
    ///
    /// - Throws: ``ListenerError`` at the timeout; `OAuth2.Error` `.serverRefused`; the
    ///   exchange's errors.
    public func tokens(
        for pending: OAuth2.PendingAuthorization,
        flow: OAuth2.Flow,
        resources: [String] = [],
        timeout: Duration,
        isolation: isolated (any Actor)? = #isolation,
        onIgnored: (String) -> Void = { _ in }
    ) async throws -> OAuth2.Tokens {
        try await callback(timeout: timeout, isolation: isolation) { url in
            let response: OAuth2.AuthorizationResponse
            do {
                response = try pending.parseCallback(url)
            } catch let error as OAuth2.Error where error.code != .serverRefused {
                onIgnored(error.reason)
                return .ignore(reason: error.reason)
            }
            return .accept(try await flow.exchange(code: response.code, pending: pending, resources: resources).tokens)
        }
    }

    /// OAuth 1.0a's end: waits for the callback that carries `requestToken` and a verifier
    /// ([RFC 5849 §2.2](https://www.rfc-editor.org/rfc/rfc5849#section-2.2)), exchanges it for
    /// token credentials, and only then tells the browser it is signed in. A callback for another
    /// request token, or without a verifier, is shown an error page, passed to `onIgnored`, and
    /// the wait goes on; the user's refusal (`denied` naming this request token) ends it.
    ///
    /// - Throws: ``ListenerError`` at the timeout; `OAuth1.FlowError` `.consentDenied`; the
    ///   exchange's errors.
    public func accessToken(
        for requestToken: OAuth1.RequestToken,
        flow: OAuth1.Flow,
        timeout: Duration,
        isolation: isolated (any Actor)? = #isolation,
        onIgnored: (String) -> Void = { _ in }
    ) async throws -> OAuth1.AccessToken {
        try await callback(timeout: timeout, isolation: isolation) { url in
            let verifier: String
            do {
                verifier = try flow.verifier(fromCallback: url, for: requestToken)
            } catch let error as OAuth1.FlowError where error.code != .consentDenied {
                onIgnored(error.reason)
                return .ignore(reason: error.reason)
            }
            return .accept(try await flow.accessToken(for: requestToken, verifier: verifier))
        }
    }
}
