import HTTPTypes

extension OAuth2 {
    /// The answer of a pushed authorization request endpoint: where the request now lives and
    /// for how long ([RFC 9126 §2.2](https://www.rfc-editor.org/rfc/rfc9126#section-2.2)).
    public struct PushedAuthorizationResponse: Sendable, Hashable, CustomStringConvertible {
        /// `request_uri`: a one-time reference the authorization endpoint accepts in place of
        /// the request's parameters.
        public let requestURI: String
        /// `expires_in`, in seconds.
        public let expiresIn: Int64
        /// When the reference expires, by the clock of the flow that pushed it.
        public let expiresAt: Int64

        /// A response with the `request_uri`, its `expires_in` in seconds, and when it expires (seconds
        /// since 1970).
        public init(requestURI: String, expiresIn: Int64, expiresAt: Int64) {
            self.requestURI = requestURI
            self.expiresIn = expiresIn
            self.expiresAt = expiresAt
        }

        /// The push itself: the authorization request's parameters as a form, with the client's
        /// authentication, to the PAR endpoint ([RFC 9126 §2.1](https://www.rfc-editor.org/rfc/rfc9126#section-2.1)).
        public static func httpRequest(
            to endpoint: String, authorizationRequest: AuthorizationRequest, client: Client
        ) throws -> (HTTPRequest, [UInt8]) {
            // §2.1: "request_uri" is not allowed in the pushed parameters.
            try OAuth2.formPost(to: endpoint, parameters: authorizationRequest.parameters, client: client)
        }

        /// Reads the response: `201 Created` (RFC 9126 §2.2; `200` is read the same way) with a
        /// string `request_uri` and a positive integer `expires_in`, both required; an error
        /// response ([§2.3](https://www.rfc-editor.org/rfc/rfc9126#section-2.3)) is
        /// ``OAuth2/Error/Code/serverRefused``.
        ///
        /// - Throws: ``OAuth2/Error/Code/serverRefused``, ``OAuth2/Error/Code/malformedResponse``.
        public static func parse(status: Int, body: [UInt8], now: Int64, redacting secrets: [Secret] = []) throws
            -> Self
        {
            var object = try JSONObject.parse(status: status, body: body, redacting: secrets)
            let requestURI = try object.requiredString("request_uri")
            guard let expiresIn = try object.integer("expires_in") else {
                throw object.malformed("'expires_in' is missing (RFC 9126 §2.2)")
            }
            guard expiresIn > 0, !requestURI.isEmpty else {
                throw object.malformed("an empty 'request_uri' or an 'expires_in' that is not positive")
            }
            return Self(requestURI: requestURI, expiresIn: expiresIn, expiresAt: now.addingSaturating(expiresIn))
        }

        public var description: String {
            "OAuth2.PushedAuthorizationResponse(requestURI: \(requestURI), expiresAt: \(expiresAt))"
        }
    }
}

extension OAuth2.Flow {
    /// Pushes `request` to the server's PAR endpoint and returns it with the `request_uri`
    /// the server gave, so that its ``OAuth2/AuthorizationRequest/url`` carries only
    /// `client_id` and `request_uri` ([RFC 9126 §4](https://www.rfc-editor.org/rfc/rfc9126#section-4)).
    /// The parameters never pass through the browser: they cannot be read or altered there, and
    /// the client authenticates when it pushes them.
    ///
    /// - Throws: ``OAuth2/Error/Code/invalidConfiguration`` without a PAR endpoint,
    ///   ``OAuth2/Error/Code/serverRefused``, ``OAuth2/Error/Code/malformedResponse``; the
    ///   transport's errors.
    public func push(_ request: OAuth2.AuthorizationRequest) async throws -> OAuth2.AuthorizationRequest {
        let endpoint = try server.endpoint(server.pushedAuthorizationRequestEndpoint, "pushed authorization request endpoint")
        let (head, body) = try OAuth2.PushedAuthorizationResponse.httpRequest(
            to: endpoint, authorizationRequest: request, client: client)
        let (response, responseBody) = try await sendProving(head, body: body)
        var pushed = request
        pushed.pushedRequest = try OAuth2.PushedAuthorizationResponse.parse(
            status: response.status.code, body: responseBody, now: now(),
            redacting: [request.pending.state] + client.secrets)
        return pushed
    }

    /// The authorization request, pushed first when `push` is `true` or the server requires it
    /// (`require_pushed_authorization_requests`, [RFC 9126 §5](https://www.rfc-editor.org/rfc/rfc9126#section-5)).
    /// The asynchronous counterpart of
    /// ``authorizationRequest(redirectURI:scope:resources:additionalParameters:maxAge:random:)``,
    /// for clients that want PAR whenever the server offers or requires it. `maxAge` is OpenID
    /// Connect's `max_age` (a step-up's, [RFC 9470 §4](https://www.rfc-editor.org/rfc/rfc9470#section-4)).
    public func startAuthorization(
        redirectURI: String,
        scope: [String] = [],
        resources: [String] = [],
        additionalParameters: [(name: String, value: String)] = [],
        maxAge: Int64? = nil,
        push: Bool = false,
        random: RandomSource
    ) async throws -> OAuth2.AuthorizationRequest {
        let request = try OAuth2.AuthorizationRequest(
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
        guard push || server.requiresPushedAuthorizationRequests else { return request }
        return try await self.push(request)
    }
}
