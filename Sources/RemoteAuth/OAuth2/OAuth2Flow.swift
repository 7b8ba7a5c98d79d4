import HTTPTypes
public import Logging
import Tracing

extension OAuth2 {
    /// The OAuth 2 flows of one client at one authorization server, over an ``HTTPTransport``,
    /// with the clock injected: each method builds a request, sends it, and reads the answer
    /// with the pure values of this namespace.
    ///
    /// ```swift
    /// let flow = OAuth2.Flow(server: server, client: .public(id: "demo-app"), transport: transport, now: now)
    /// let request = try flow.authorizationRequest(redirectURI: "http://127.0.0.1:8123/callback",
    ///                                             scope: ["statuses:read"], random: .system)
    /// // open request.url, wait for the redirect, then:
    /// let tokens = try await flow.tokens(fromCallback: redirect, pending: request.pending)
    /// let renewed = try await flow.refresh(tokens)
    /// ```
    ///
    /// ``refresh(_:)`` has the shape of a token session's refresher:
    /// `{ try await flow.refresh($0) }`.
    public struct Flow: Sendable {
        /// The authorization server's endpoints the flows call.
        public let server: AuthorizationServer
        /// The client: its id and how it authenticates at the token endpoint.
        public let client: Client
        let transport: any HTTPTransport
        let now: @Sendable () -> Int64
        /// The OpenID Connect relying party: when set, every code exchange validates the ID
        /// token (required), and every refresh validates a new one
        /// ([OpenID Connect Core §3.1.3.7](https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation),
        /// [§12.2](https://openid.net/specs/openid-connect-core-1_0.html#RefreshTokenResponse)).
        public var openIDConnect: OpenIDConnect.RelyingParty?
        /// The thumbprint of the client's DPoP key, sent as `dpop_jkt` on every authorization
        /// request (and PAR request) this flow makes, so that the code is bound to the key and
        /// redeemed only with a proof of it ([RFC 9449 §10](https://www.rfc-editor.org/rfc/rfc9449#section-10)).
        /// Set by ``binding(to:)``; `nil` sends none.
        public var dpopJKT: String?
        /// The DPoP prover whose proofs go with every token and PAR request, set by
        /// ``binding(to:)`` ([RFC 9449 §5](https://www.rfc-editor.org/rfc/rfc9449#section-5)).
        public internal(set) var dpop: DPoP.Prover?
        /// Where token requests are logged at `debug` (the grant type, the endpoint, the status),
        /// never a code, a secret or a token.
        public var logger = Logger(label: "RemoteAuth.OAuth2.Flow")

        /// A client that authenticates with its TLS certificate (``ClientAuthentication/tlsClientAuth``,
        /// ``ClientAuthentication/selfSignedTLSClientAuth``) talks to the server's
        /// `mtls_endpoint_aliases` where it gives them
        /// ([RFC 8705 §5](https://www.rfc-editor.org/rfc/rfc8705#section-5)): ``server`` is then
        /// ``AuthorizationServer/usingMutualTLSAliases()``.
        ///
        /// - Parameter now: the clock, in seconds since 1970.
        /// - Parameter server: the authorization server's endpoints.
        /// - Parameter client: the client and how it authenticates.
        /// - Parameter transport: sends the flow's requests.
        public init(
            server: AuthorizationServer,
            client: Client,
            transport: any HTTPTransport,
            now: @escaping @Sendable () -> Int64 = UnixTime.now
        ) {
            self.server = client.authentication.usesMutualTLS ? server.usingMutualTLSAliases() : server
            self.client = client
            self.transport = transport
            self.now = now
        }

        /// Fetches `issuer`'s metadata and checks its `issuer`
        /// ([RFC 8414 §3](https://www.rfc-editor.org/rfc/rfc8414#section-3)). A failure names
        /// the URL it fetched.
        ///
        /// - Parameter fallingBackToOpenIDConfiguration: when the RFC 8414 document is absent
        ///   (404), fetch the OpenID Connect one instead, whose members are the same (RFC 8414
        ///   §1 and §5: a provider may serve only that one); the issuer is checked the same way.
        /// - Parameter issuer: the issuer identifier; the document's `issuer` must equal it.
        /// - Parameter document: which well-known document to fetch.
        /// - Parameter transport: fetches it.
        /// - Throws: ``OAuth2/Error`` `.issuerMismatch`, `.malformedResponse`, `.serverRefused`,
        ///   `.insecureEndpoint`, `.invalidConfiguration`; the transport's errors.
        public static func discover(
            issuer: String,
            document: ServerMetadata.Document = .oauthAuthorizationServer,
            transport: any HTTPTransport,
            fallingBackToOpenIDConfiguration: Bool = false
        ) async throws -> ServerMetadata {
            let url = try ServerMetadata.discoveryURL(issuer: issuer, document: document)
            var fields = HTTPFields()
            fields[.accept] = "application/json"
            let (response, body) = try await transport.send(
                HTTPRequest(method: .get, absoluteURL: url, headerFields: fields),
                body: nil
            )
            if fallingBackToOpenIDConfiguration, document == .oauthAuthorizationServer, response.status == .notFound {
                return try await discover(issuer: issuer, document: .openIDConfiguration, transport: transport)
            }
            do {
                return try ServerMetadata.parse(status: response.status.code, body: body, expectedIssuer: issuer)
            } catch let error as OAuth2.Error {
                throw OAuth2.Error(
                    error.code,
                    "GET \(url): \(error.reason)",
                    serverError: error.serverError,
                    status: error.status
                )
            }
        }

        /// The authorization request, with fresh `state` and PKCE from `random`, and the
        /// server's issuer and `iss` promise ([RFC 6749 §4.1.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.1));
        /// with a `nonce` when `scope` holds `openid`
        /// ([OpenID Connect Core §3.1.2.1](https://openid.net/specs/openid-connect-core-1_0.html#AuthRequest)).
        public func authorizationRequest(
            redirectURI: String,
            scope: [String] = [],
            resources: [String] = [],
            additionalParameters: [(name: String, value: String)] = [],
            maxAge: Int64? = nil,
            random: RandomSource
        ) throws -> AuthorizationRequest {
            // RFC 9126 §5: such a server refuses a request that was not pushed; say so here,
            // not after the browser opened.
            guard !server.requiresPushedAuthorizationRequests else {
                throw OAuth2.Error(
                    .invalidConfiguration,
                    "the server requires pushed authorization requests (RFC 9126): use startAuthorization or push"
                )
            }
            return try AuthorizationRequest(
                authorizationEndpoint: server.endpoint(server.authorizationEndpoint, "authorization endpoint"),
                clientID: client.id,
                redirectURI: redirectURI,
                scope: scope,
                resources: resources,
                additionalParameters: additionalParameters,
                issuer: server.issuer,
                requiresIssuer: server.requiresIssuerParameter,
                maxAge: maxAge,
                dpopJKT: dpopJKT,
                random: random
            )
        }

        /// Checks the redirect (``PendingAuthorization/parseCallback(_:)``) and redeems its
        /// code. Tokens in the redirect are refused (``OAuth2/Error/Code/unexpectedTokens``):
        /// this is the code flow.
        public func tokens(
            fromCallback url: String,
            pending: PendingAuthorization,
            resources: [String] = []
        ) async throws
            -> Tokens
        {
            let response = try pending.parseCallback(url)
            return try await exchange(code: response.code, pending: pending, resources: resources).tokens
        }

        /// The legacy implicit grant's request, `response_type=token`
        /// ([RFC 6749 §4.2.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.2.1)), for a
        /// provider that answers no other way; see ``ImplicitAuthorizationRequest``.
        ///
        /// - Throws: ``OAuth2/Error/Code/invalidConfiguration`` when this flow validates ID
        ///   tokens (``openIDConnect``: a nonce needs the code flow), binds tokens to a DPoP key
        ///   (``dpopJKT``: an implicit token cannot be bound, RFC 9449 §10), or the server
        ///   requires pushed requests; the request's own errors.
        public func implicitAuthorizationRequest(
            redirectURI: String,
            scope: [String] = [],
            additionalParameters: [(name: String, value: String)] = [],
            random: RandomSource
        ) throws -> ImplicitAuthorizationRequest {
            try checkImplicitAllowed()
            return try ImplicitAuthorizationRequest(
                authorizationEndpoint: server.endpoint(server.authorizationEndpoint, "authorization endpoint"),
                clientID: client.id,
                redirectURI: redirectURI,
                scope: scope,
                additionalParameters: additionalParameters,
                issuer: server.issuer,
                requiresIssuer: server.requiresIssuerParameter,
                random: random
            )
        }

        /// The tokens of an implicit-grant redirect
        /// (``PendingImplicitAuthorization/parseCallback(_:now:)``), read at the clock's time.
        public func tokens(fromImplicitCallback url: String, pending: PendingImplicitAuthorization) throws -> Tokens {
            try checkImplicitAllowed()
            return try pending.parseCallback(url, now: now())
        }

        private func checkImplicitAllowed() throws {
            if openIDConnect != nil {
                throw OAuth2.Error(
                    .invalidConfiguration,
                    "this flow validates OpenID Connect ID tokens: the implicit grant cannot (its tokens carry no nonce check here)"
                )
            }
            if dpopJKT != nil {
                throw OAuth2.Error(
                    .invalidConfiguration,
                    "this flow binds tokens to a DPoP key: the implicit grant's tokens cannot be bound (RFC 9449 §10)"
                )
            }
            if server.requiresPushedAuthorizationRequests {
                throw OAuth2.Error(
                    .invalidConfiguration,
                    "the server requires pushed authorization requests (RFC 9126), which the implicit grant here does not make"
                )
            }
        }

        /// Redeems an authorization code ([RFC 6749 §4.1.3](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.3)).
        public func exchange(
            code: Secret,
            pending: PendingAuthorization,
            resources: [String] = []
        ) async throws
            -> TokenResponse
        {
            let response = try await requestToken(.authorizationCode(code, pending: pending, resources: resources))
            try await checkIDToken(of: response, pending: pending, code: code)
            return response
        }

        /// Renews `tokens` with their refresh token ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)):
        /// a response without `refresh_token` keeps the old one.
        ///
        /// - Throws: ``OAuth2/Error/Code/reauthorizationRequired`` when `tokens` have no refresh
        ///   token; ``OAuth2/Error/Code/serverRefused`` (`invalid_grant` when the refresh token
        ///   is no longer valid); the transport's errors, unchanged (transient).
        public func refresh(_ tokens: Tokens) async throws -> Tokens {
            try await refresh(tokens, scope: nil).tokens
        }

        /// ``refresh(_:)`` with a narrower `scope`, returning the whole response.
        public func refresh(_ tokens: Tokens, scope: [String]?) async throws -> TokenResponse {
            guard let refreshToken = tokens.refreshToken else {
                throw OAuth2.Error(.reauthorizationRequired, "the tokens have no refresh token")
            }
            let response = try await requestToken(.refreshToken(refreshToken, scope: scope), previous: tokens)
            try await checkRefreshedIDToken(of: response, previous: tokens)
            return response
        }

        /// The client credentials grant ([RFC 6749 §4.4](https://www.rfc-editor.org/rfc/rfc6749#section-4.4)).
        public func clientCredentials(scope: [String] = [], resources: [String] = []) async throws -> TokenResponse {
            try await requestToken(.clientCredentials(scope: scope, resources: resources))
        }

        /// Sends any token request ([RFC 6749 §3.2](https://www.rfc-editor.org/rfc/rfc6749#section-3.2))
        /// and reads the response at the clock's time of its arrival.
        public func requestToken(_ request: TokenRequest, previous: Tokens? = nil) async throws -> TokenResponse {
            let endpoint = try server.endpoint(server.tokenEndpoint, "token endpoint")
            let (head, body) = try request.httpRequest(to: endpoint, client: client)
            // A span with the grant type and the status ([RFC 6749 §3.2](https://www.rfc-editor.org/rfc/rfc6749#section-3.2));
            // the body, which holds the grant's secrets, is in neither the span nor the log.
            return try await withSpan("RemoteAuth.OAuth2.tokenRequest", ofKind: .client) { span in
                span.attributes["oauth2.grant_type"] = request.grantType.rawValue
                span.attributes["url.full"] = Redaction.redactedURL(endpoint)
                let (response, responseBody) = try await sendProving(head, body: body)
                span.attributes["http.response.status_code"] = Int(response.status.code)
                logger.debug(
                    "token request",
                    metadata: [
                        "grant_type": "\(request.grantType)", "endpoint": "\(Redaction.redactedURL(endpoint))",
                        "status": "\(response.status.code)",
                    ]
                )
                do {
                    return try TokenResponse.parse(
                        status: response.status.code,
                        body: responseBody,
                        now: now(),
                        previous: previous,
                        redacting: request.secrets + client.secrets
                    )
                } catch let error as OAuth2.Error {
                    if let code = error.serverError?.code { span.attributes["oauth2.error"] = code.rawValue }
                    span.setStatus(SpanStatus(code: .error, message: "\(error.code)"))
                    throw error
                }
            }
        }

        /// Starts the device grant ([RFC 8628 §3.1](https://www.rfc-editor.org/rfc/rfc8628#section-3.1)).
        public func deviceAuthorization(
            scope: [String] = [],
            additionalParameters: [(name: String, value: String)] = []
        ) async throws -> DeviceAuthorizationResponse {
            let endpoint = try server.endpoint(server.deviceAuthorizationEndpoint, "device authorization endpoint")
            let (head, body) = try DeviceAuthorizationResponse.httpRequest(
                to: endpoint,
                client: client,
                scope: scope,
                additionalParameters: additionalParameters
            )
            let (response, responseBody) = try await transport.send(head, body: body)
            return try DeviceAuthorizationResponse.parse(status: response.status.code, body: responseBody, now: now())
        }

        /// Polls until the user approves, refuses, or the device code expires, as
        /// ``DevicePolling`` decides ([RFC 8628 §3.4–3.5](https://www.rfc-editor.org/rfc/rfc8628#section-3.4)).
        ///
        /// - Parameters:
        ///   - sleep: waits the given number of seconds (`Task.sleep` in production, a fake
        ///     clock's advance in tests).
        ///   - onWait: called before each wait with the polling state (for a progress line).
        ///   - authorization: the device authorization response to poll for.
        /// - Throws: ``OAuth2/Error`` `.serverRefused` (`access_denied`, `expired_token`, …) or
        ///   `.deviceCodeExpired`; the transport's and `sleep`'s errors, unchanged.
        public func pollDeviceToken(
            _ authorization: DeviceAuthorizationResponse,
            sleep: @Sendable (Int64) async throws -> Void,
            onWait: (DevicePolling) -> Void = { _ in }
        ) async throws -> TokenResponse {
            var polling = DevicePolling(authorization)
            var action = polling.handle(.start(now: now()))
            var last: TokenResponse?
            while true {
                switch action {
                case .wait(let seconds):
                    onWait(polling)
                    try await sleep(seconds)
                    action = polling.handle(.waited(now: now()))
                case .poll:
                    do {
                        let response = try await requestToken(.deviceCode(authorization.deviceCode))
                        last = response
                        action = polling.handle(.tokens(response.tokens))
                    } catch let error as OAuth2.Error where error.code == .serverRefused {
                        action = polling.handle(.refused(error, now: now()))
                    }
                case .done:
                    guard let last else {
                        throw OAuth2.Error(.malformedResponse, "device polling ended without a response")
                    }
                    return last
                case .fail(let error):
                    throw error
                }
            }
        }

        /// Revokes `token` ([RFC 7009 §2](https://www.rfc-editor.org/rfc/rfc7009#section-2)).
        public func revoke(_ token: Secret, hint: TokenTypeHint? = nil) async throws {
            let endpoint = try server.endpoint(server.revocationEndpoint, "revocation endpoint")
            let (head, body) = try Revocation.httpRequest(to: endpoint, client: client, token: token, hint: hint)
            let (response, responseBody) = try await transport.send(head, body: body)
            try Revocation.check(status: response.status.code, body: responseBody, redacting: [token] + client.secrets)
        }

        /// Asks whether `token` is active ([RFC 7662 §2](https://www.rfc-editor.org/rfc/rfc7662#section-2)).
        public func introspect(_ token: Secret, hint: TokenTypeHint? = nil) async throws -> IntrospectionResponse {
            let endpoint = try server.endpoint(server.introspectionEndpoint, "introspection endpoint")
            let (head, body) = try IntrospectionResponse.httpRequest(
                to: endpoint,
                client: client,
                token: token,
                hint: hint
            )
            let (response, responseBody) = try await transport.send(head, body: body)
            return try IntrospectionResponse.parse(
                status: response.status.code,
                body: responseBody,
                redacting: [token] + client.secrets
            )
        }
    }
}
