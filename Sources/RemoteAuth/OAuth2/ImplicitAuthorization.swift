extension OAuth2 {
    /// The legacy implicit grant's front-channel request, `response_type=token`
    /// ([RFC 6749 §4.2.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.2.1)): an explicit
    /// opt-in for providers that answer no other way (Facebook-style mobile sign-in in the
    /// seed material).
    ///
    /// Prefer ``AuthorizationRequest`` (code with PKCE) wherever the provider allows it:
    /// [RFC 9700 §2.1.2](https://www.rfc-editor.org/rfc/rfc9700#section-2.1.2) says clients
    /// should not use the implicit grant, since a token in a redirect can be leaked or injected,
    /// and nothing binds it to this client. So this request is kept apart: it sends no PKCE
    /// challenge, no OpenID Connect nonce and no DPoP key (their guarantees need a code), and its
    /// ``PendingImplicitAuthorization`` is the only reader that returns tokens from a redirect.
    /// A code flow's ``PendingAuthorization`` refuses them.
    public struct ImplicitAuthorizationRequest: Sendable, CustomStringConvertible {
        /// The names this value writes itself; ``additionalParameters`` may not repeat them,
        /// nor carry what would need a code (`code_challenge`, `nonce`, `dpop_jkt`, …).
        public static let reservedParameters: Set<String> = AuthorizationRequest.reservedParameters

        /// `authorization_endpoint`, which may hold a query of its own
        /// ([RFC 6749 §3.1](https://www.rfc-editor.org/rfc/rfc6749#section-3.1)).
        public let authorizationEndpoint: String
        /// `client_id` ([RFC 6749 §2.2](https://www.rfc-editor.org/rfc/rfc6749#section-2.2)).
        public let clientID: String
        /// `scope` ([RFC 6749 §3.3](https://www.rfc-editor.org/rfc/rfc6749#section-3.3)), joined with spaces.
        public let scope: [String]
        /// Further query parameters, in order; none of the reserved names.
        public let additionalParameters: [(name: String, value: String)]
        /// What the redirect is checked against; keep it until the callback arrives.
        public let pending: PendingImplicitAuthorization

        /// - Parameters:
        ///   - random: the source of `state` (32 octets).
        ///   - authorizationEndpoint: the server's authorization endpoint.
        ///   - clientID: the client's `client_id`.
        ///   - redirectURI: where the server sends the answer.
        ///   - scope: the scopes asked for.
        ///   - additionalParameters: more request parameters, appended as given.
        ///   - issuer: the server's issuer, to check `iss` in the answer.
        ///   - requiresIssuer: refuse an answer without `iss`.
        /// - Throws: ``OAuth2/Error/Code/insecureEndpoint`` for an endpoint over plain http to a
        ///   non-loopback host; ``OAuth2/Error/Code/invalidConfiguration`` for an empty client id
        ///   or redirect URI, a redirect URI with a fragment, the scope `openid` (an ID token
        ///   needs a nonce and the code flow here), or an additional parameter that repeats a
        ///   ``reservedParameters`` name.
        public init(
            authorizationEndpoint: String,
            clientID: String,
            redirectURI: String,
            scope: [String] = [],
            additionalParameters: [(name: String, value: String)] = [],
            issuer: String? = nil,
            requiresIssuer: Bool = false,
            random: RandomSource
        ) throws {
            try OAuth2.checkEndpoint(authorizationEndpoint)
            try AuthorizationRequest.checkClient(clientID, redirectURI: redirectURI)
            guard !scope.contains("openid") else {
                throw OAuth2.Error(
                    .invalidConfiguration,
                    "the implicit grant here does not sign in with OpenID Connect: an ID token needs the code flow "
                        + "with its nonce (use AuthorizationRequest)"
                )
            }
            if let clash = additionalParameters.first(where: { Self.reservedParameters.contains($0.name) }) {
                throw OAuth2.Error(
                    .invalidConfiguration,
                    "the additional parameter '\(clash.name)' is one the request writes itself or one the implicit grant cannot honour"
                )
            }
            if requiresIssuer, issuer == nil {
                throw OAuth2.Error(.invalidConfiguration, "requiresIssuer needs the issuer to compare 'iss' with")
            }
            self.authorizationEndpoint = authorizationEndpoint
            self.clientID = clientID
            self.scope = scope
            self.additionalParameters = additionalParameters
            self.pending = PendingImplicitAuthorization(
                state: Secret(OAuth2.base64URL(random.bytes(32))),
                redirectURI: redirectURI,
                issuer: issuer,
                requiresIssuer: requiresIssuer
            )
        }

        /// `response_type=token`, `client_id`, `redirect_uri`, `scope`, `state`, then the
        /// additional ones ([RFC 6749 §4.2.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.2.1)).
        public var parameters: [(name: String, value: String)] {
            var parameters: [(name: String, value: String)] = [
                ("response_type", "token"),
                ("client_id", clientID),
                ("redirect_uri", pending.redirectURI),
            ]
            if !scope.isEmpty { parameters.append(("scope", scope.joined(separator: " "))) }
            parameters.append(("state", pending.state.reveal()))
            parameters.append(contentsOf: additionalParameters)
            return parameters
        }

        /// The URL to send the user agent to; it holds the `state`: open it, do not log it.
        public var url: String {
            let separator =
                authorizationEndpoint.contains("?")
                ? (authorizationEndpoint.hasSuffix("?") || authorizationEndpoint.hasSuffix("&") ? "" : "&")
                : "?"
            return authorizationEndpoint + separator + FormURLEncoding.encode(parameters)
        }

        public var description: String {
            "OAuth2.ImplicitAuthorizationRequest(\(authorizationEndpoint), client: \(clientID), scope: \(scope.joined(separator: " ")), state: <redacted>)"
        }
    }

    /// What an implicit-grant client keeps until the redirect comes back: the `state` and the
    /// issuer to check it against.
    public struct PendingImplicitAuthorization: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The `state` sent ([RFC 6749 §4.2.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.2.1)),
        /// which the redirect must carry back.
        public let state: Secret
        /// The `redirect_uri` sent: where the user agent brings the answer back.
        public let redirectURI: String
        /// The issuer an `iss` parameter must equal
        /// ([RFC 9207 §2.4](https://www.rfc-editor.org/rfc/rfc9207#section-2.4)).
        public let issuer: String?
        /// The server said `authorization_response_iss_parameter_supported`: `iss` must be present.
        public let requiresIssuer: Bool

        /// What to keep until the redirect: the `state` and `redirectURI` sent, and the issuer `iss`
        /// must equal (required when `requiresIssuer`).
        public init(state: Secret, redirectURI: String, issuer: String?, requiresIssuer: Bool) {
            self.state = state
            self.redirectURI = redirectURI
            self.issuer = issuer
            self.requiresIssuer = requiresIssuer
        }

        /// Reads the tokens of an implicit-grant redirect
        /// ([RFC 6749 §4.2.2](https://www.rfc-editor.org/rfc/rfc6749#section-4.2.2)).
        ///
        /// The parameters come from the fragment only: the server puts them there, and a query
        /// that carries `access_token` is someone else's doing (a link anyone can craft, which
        /// also reaches server logs). `state`, `iss` and `error` are checked as in
        /// ``PendingAuthorization/parseCallback(_:)`` (an error also comes in the fragment,
        /// [§4.2.2.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.2.2.1)); a `code` is
        /// refused (it was not asked for); `token_type` defaults to `Bearer`; `expires_in` is
        /// added to `now`.
        ///
        /// - Throws: ``OAuth2/Error`` `.stateMismatch`, `.issuerMismatch`, `.serverRefused`,
        ///   `.unexpectedTokens` (a `code` or an `id_token`, not asked for), or
        ///   `.malformedResponse` (parameters in the query, no fragment, no or an empty
        ///   `access_token`, an `expires_in` that is not a number of seconds, a repeated
        ///   parameter).
        public func parseCallback(_ url: String, now: Int64) throws -> Tokens {
            let redirect = try Redirect(url)
            guard redirect.component == .fragment, !redirect.hasQuery else {
                throw OAuth2.Error(
                    .malformedResponse,
                    redirect.component == .fragment
                        ? "the implicit grant's redirect carries a query beside its fragment: refused (RFC 6749 §4.2.2)"
                        : "the implicit grant's answer comes in the redirect's fragment, and this one has none (RFC 6749 §4.2.2)"
                )
            }
            try redirect.check(state: state, issuer: issuer, requiresIssuer: requiresIssuer)
            for name in ["code", "id_token"] where try redirect.value(name) != nil {
                throw OAuth2.Error(
                    .unexpectedTokens,
                    "the redirect carries a \(name), but the request asked for response_type=token (RFC 6749 §4.2.2)"
                )
            }
            guard let accessToken = try redirect.value("access_token") else {
                throw OAuth2.Error(.malformedResponse, "the redirect has neither access_token nor error")
            }
            guard !accessToken.isEmpty else {
                throw OAuth2.Error(.malformedResponse, "the redirect's access_token is empty")
            }
            var expiresAt: Int64?
            if let expiresIn = try redirect.value("expires_in") {
                guard let seconds = Int64(expiresIn), seconds >= 0 else {
                    throw OAuth2.Error(.malformedResponse, "the redirect's expires_in is not a number of seconds")
                }
                expiresAt = now.addingSaturating(seconds)
            }
            return Tokens(
                accessToken: Secret(accessToken),
                tokenType: try redirect.value("token_type") ?? "Bearer",
                expiresAt: expiresAt,
                scope: try redirect.value("scope").map(OAuth2.splitScope)
            )
        }

        public var description: String {
            "OAuth2.PendingImplicitAuthorization(redirectURI: \(redirectURI), issuer: \(issuer ?? "none"), state: <redacted>)"
        }
    }
}
