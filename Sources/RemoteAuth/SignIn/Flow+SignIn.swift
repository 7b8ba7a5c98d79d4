import Logging
import Tracing

extension OAuth2.Flow {
    /// The authorization code flow through `agent`
    /// ([RFC 6749 §4.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.1), PKCE, `state`, the
    /// `iss` check, pushed when the server requires it or `push` is set): the agent shows the
    /// authorization URL and brings back the redirect; a redirect that is not this sign-in's
    /// answer (another `state`, a wrong `iss`, tokens in it) is ignored and the agent keeps
    /// waiting; the server's refusal and a failed exchange end the sign-in. The ID token is
    /// validated when the flow is an OpenID Connect relying party.
    ///
    /// - Throws: ``OAuth2/Error`` (`.serverRefused` for the server's `error`), the agent's errors.
    public func signIn(
        with agent: some SignInUserAgent,
        redirectURI: String? = nil,
        scope: [String] = [],
        resources: [String] = [],
        push: Bool = false,
        random: RandomSource = .system
    ) async throws -> OAuth2.Tokens {
        let pending = Locked<OAuth2.PendingAuthorization?>(nil)
        let logger = self.logger
        return try await withSpan("RemoteAuth.OAuth2.signIn", ofKind: .client) { span in
            span.attributes["remote_auth.protocol"] = "oauth2"
            span.attributes["remote_auth.pushed"] = push || server.requiresPushedAuthorizationRequests
            return try await agent.signIn(
                redirectURI: redirectURI,
                authorizationURL: { redirectURI in
                    let request = try await self.startAuthorization(
                        redirectURI: redirectURI,
                        scope: scope,
                        resources: resources,
                        push: push,
                        random: random
                    )
                    pending.withLock { $0 = request.pending }
                    return request.url
                },
                callback: { url in
                    guard let request = pending.withLock({ $0 }) else {
                        return .ignore(reason: "no authorization request is pending")
                    }
                    let response: OAuth2.AuthorizationResponse
                    do {
                        response = try request.parseCallback(url)
                    } catch let error as OAuth2.Error where error.code != .serverRefused {
                        logger.debug("redirect ignored", metadata: ["code": "\(error.code)"])
                        return .ignore(reason: error.reason)
                    }
                    return .accept(
                        try await self.exchange(code: response.code, pending: request, resources: resources).tokens
                    )
                }
            )
        }
    }
}

extension OAuth1.Flow {
    /// The three-legged flow through `agent` ([RFC 5849 §2](https://www.rfc-editor.org/rfc/rfc5849#section-2)):
    /// a request token for the agent's redirect URI, the user's consent at the authorize URL,
    /// the verifier checked against the request token, the token credentials. A callback for
    /// another request token, or without a verifier, is ignored and the agent keeps waiting; the
    /// user's refusal ends the sign-in.
    ///
    /// - Throws: ``OAuth1/FlowError`` (`.consentDenied`), the agent's errors.
    public func signIn(with agent: some SignInUserAgent, callbackURL: String? = nil) async throws -> OAuth1.AccessToken
    {
        let pending = Locked<OAuth1.RequestToken?>(nil)
        return try await withSpan("RemoteAuth.OAuth1.signIn", ofKind: .client) { span in
            span.attributes["remote_auth.protocol"] = "oauth1"
            return try await agent.signIn(
                redirectURI: callbackURL,
                authorizationURL: { callback in
                    let requestToken = try await self.requestToken(callback: callback)
                    pending.withLock { $0 = requestToken }
                    return self.authorizeURL(for: requestToken)
                },
                callback: { url in
                    guard let requestToken = pending.withLock({ $0 }) else {
                        return .ignore(reason: "no request token is pending")
                    }
                    let verifier: String
                    do {
                        verifier = try self.verifier(fromCallback: url, for: requestToken)
                    } catch let error as OAuth1.FlowError where error.code != .consentDenied {
                        return .ignore(reason: error.reason)
                    }
                    return .accept(try await self.accessToken(for: requestToken, verifier: verifier))
                }
            )
        }
    }
}
