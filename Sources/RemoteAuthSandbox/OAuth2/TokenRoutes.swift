import HTTPTypes
import Hummingbird
import RemoteAuth

/// The authorization server's back channel under `/oauth2`: the token endpoint
/// ([RFC 6749 §3.2](https://www.rfc-editor.org/rfc/rfc6749#section-3.2)) with the
/// authorization code, refresh token, client credentials and device code grants, revocation
/// ([RFC 7009](https://www.rfc-editor.org/rfc/rfc7009)), introspection
/// ([RFC 7662](https://www.rfc-editor.org/rfc/rfc7662)) and device authorization
/// ([RFC 8628 §3.1](https://www.rfc-editor.org/rfc/rfc8628#section-3.1)).
struct TokenRoutes: Sendable {
    let configuration: SandboxConfiguration
    let store: OAuth2Store
    let issuer: OAuth2Issuer
    /// Signs ID tokens and verifies client assertions.
    let openID: OpenIDProvider

    var clients: OAuth2ClientAuthentication {
        OAuth2ClientAuthentication(configuration: configuration, clients: store.clients, openID: openID)
    }

    var collection: RouteCollection<SandboxRequestContext> {
        let routes = RouteCollection(context: SandboxRequestContext.self)
        routes.post("token") { request, context in try await token(request, peer: await context.peerCertificate()) }
        routes.post("revoke") { request, context in try await revoke(request, peer: await context.peerCertificate()) }
        routes.post("introspect") { request, context in
            try await introspect(request, peer: await context.peerCertificate())
        }
        routes.post("device_authorization") { request, context in
            try await deviceAuthorization(request, peer: await context.peerCertificate())
        }
        return routes
    }

    /// A successful token response ([RFC 6749 §5.1](https://www.rfc-editor.org/rfc/rfc6749#section-5.1)).
    struct TokenJSON: Encodable {
        let accessToken: String
        var tokenType = "Bearer"
        let expiresIn: Int64
        let refreshToken: String?
        let scope: String
        /// OpenID Connect `id_token` ([Core §3.1.3.3](https://openid.net/specs/openid-connect-core-1_0.html#TokenResponse)).
        var idToken: String? = nil

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case tokenType = "token_type"
            case expiresIn = "expires_in"
            case refreshToken = "refresh_token"
            case scope
            case idToken = "id_token"
        }
    }

    // MARK: Token endpoint

    /// `POST /oauth2/token`.
    ///
    /// Tokens issued to a connection with a client certificate are bound to it, whatever the
    /// client authentication: `cnf` `x5t#S256` ([RFC 8705 §3](https://www.rfc-editor.org/rfc/rfc8705#section-3)).
    func token(_ request: Request, peer: PeerCertificate?) async throws -> Response {
        let parameters = try await OAuth2Parameters.body(of: request)
        let (client, _) = try await clients.authenticate(request, parameters, peer: peer)
        let now = configuration.now()
        // RFC 9449 §5: a proof binds the tokens to its key.
        let jkt = try await dpopBinding(request, client: client)
        var response = try await token(parameters, client: client, now: now, jkt: jkt, x5t: peer?.thumbprint)
        response.headers.append(contentsOf: await dpopResponseHeaders())
        return response
    }

    func token(
        _ parameters: OAuth2Parameters,
        client: SandboxConfiguration.OAuth2Client,
        now: Int64,
        jkt: String?,
        x5t: String? = nil
    ) async throws -> Response {
        // RFC 7591 §2: a registered client uses the grant types it registered, nothing else.
        if let grant = parameters["grant_type"], let registered = store.clients.grantTypes(of: client.id),
            !registered.contains(grant)
        {
            throw OAuth2Problem(
                .unauthorizedClient,
                "this client did not register the grant type \(grant) (RFC 7591 §2)"
            )
        }
        switch parameters["grant_type"] {
        case nil:
            throw OAuth2Problem(.invalidRequest, "grant_type is missing")
        case "authorization_code":
            return try await authorizationCode(parameters, client: client, now: now, jkt: jkt, x5t: x5t)
        case "refresh_token":
            return try await refresh(parameters, client: client, now: now, jkt: jkt, x5t: x5t)
        case "client_credentials":
            guard client.isConfidential else {
                throw OAuth2Problem(.unauthorizedClient, "client_credentials is for confidential clients")
            }
            guard let scope = OAuth2Rules.scope(parameters["scope"], allowed: configuration.oauth2Scopes) else {
                throw OAuth2Problem(.invalidScope, "scope names a scope this server does not grant")
            }
            let issued = try await store.issueTokens(
                clientID: client.id,
                user: nil,
                scope: scope,
                refresh: false,
                now: now,
                lifetime: configuration.accessTokenTTL,
                jkt: jkt,
                x5t: x5t,
                resources: try OAuth2Rules.resources(parameters, base: issuer.url, granted: nil)
            )
            return tokenResponse(issued.access, refresh: nil, scope: scope, jkt: jkt)
        case MetadataRoutes.deviceCodeGrant:
            guard let deviceCode = parameters["device_code"] else {
                throw OAuth2Problem(.invalidRequest, "device_code is missing")
            }
            switch await store.poll(deviceCode, clientID: client.id, now: now) {
            case .error(let code, let description):
                throw OAuth2Problem(code, description)
            case .approved(let record, let user):
                let issued = try await store.issueTokens(
                    clientID: client.id,
                    user: user,
                    scope: record.scope,
                    refresh: true,
                    now: now,
                    lifetime: configuration.accessTokenTTL,
                    jkt: jkt,
                    x5t: x5t,
                    refreshX5t: Self.refreshBinding(x5t, client: client),
                    resources: try OAuth2Rules.resources(parameters, base: issuer.url, granted: nil)
                )
                return tokenResponse(issued.access, refresh: issued.refresh, scope: record.scope, jkt: jkt)
            }
        case let other?:
            throw OAuth2Problem(.unsupportedGrantType, "grant_type '\(other)' is not supported")
        }
    }

    /// The authorization code grant ([RFC 6749 §4.1.3](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.3))
    /// with the PKCE verifier ([RFC 7636 §4.6](https://www.rfc-editor.org/rfc/rfc7636#section-4.6)).
    func authorizationCode(
        _ parameters: OAuth2Parameters,
        client: SandboxConfiguration.OAuth2Client,
        now: Int64,
        jkt: String? = nil,
        x5t: String? = nil
    ) async throws -> Response {
        guard let code = parameters["code"] else { throw OAuth2Problem(.invalidRequest, "code is missing") }
        guard let verifier = parameters["code_verifier"] else {
            throw OAuth2Problem(.invalidRequest, "code_verifier is missing (PKCE is required)")
        }
        let record: OAuth2Store.AuthorizationCode
        switch try await store.redeemCode(code, clientID: client.id, now: now) {
        case .invalid(let description): throw OAuth2Problem(.invalidGrant, description)
        case .valid(let valid): record = valid
        }
        if record.request.redirectURIGiven || parameters["redirect_uri"] != nil {
            guard parameters["redirect_uri"] == record.request.redirectURI else {
                throw OAuth2Problem(.invalidGrant, "redirect_uri differs from the authorization request's")
            }
        }
        guard OAuth2Rules.isValidVerifier(verifier), let challenge = record.request.codeChallenge,
            constantTimeEquals(OAuth2Rules.s256(verifier), challenge)
        else {
            throw OAuth2Problem(.invalidGrant, "code_verifier does not match the code_challenge")
        }
        try Self.checkCodeBinding(record.request.dpopJKT, proof: jkt)
        let resources = try OAuth2Rules.resources(parameters, base: issuer.url, granted: record.request.resources)
        // auth_time: when the user approved, which is when the code was issued.
        let signedIn = OAuth2Store.UserAuthentication(
            acr: record.request.acr ?? StepUpPolicy.baselineACR,
            authTime: record.expiresAt - configuration.authorizationCodeTTL
        )
        let issued = try await store.issueTokens(
            clientID: client.id,
            user: record.user,
            scope: record.request.scope,
            refresh: true,
            now: now,
            lifetime: configuration.accessTokenTTL,
            jkt: jkt,
            x5t: x5t,
            refreshX5t: Self.refreshBinding(x5t, client: client),
            resources: resources,
            grantResources: record.request.resources,
            authentication: signedIn
        )
        try await store.bindCode(code, family: issued.family)
        var idToken: String?
        if record.request.scope.contains("openid") {
            let authentication = OpenIDProvider.Authentication(
                user: record.user,
                authTime: signedIn.authTime,
                sid: await store.token(),
                acr: signedIn.acr
            )
            openID.remember(family: issued.family, authentication)
            idToken = openID.idToken(
                client: client,
                user: record.user,
                scope: record.request.scope,
                nonce: record.request.nonce,
                authTime: authentication.authTime,
                accessToken: issued.access,
                now: now,
                sid: authentication.sid,
                acr: authentication.acr
            )
        }
        return tokenResponse(issued.access, refresh: issued.refresh, scope: record.request.scope, jkt: jkt, idToken: idToken)
    }

    /// The refresh token grant ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)):
    /// a narrower `scope` may be asked for; every refresh rotates the refresh token.
    func refresh(
        _ parameters: OAuth2Parameters,
        client: SandboxConfiguration.OAuth2Client,
        now: Int64,
        jkt: String? = nil,
        x5t: String? = nil
    ) async throws -> Response {
        guard let value = parameters["refresh_token"] else {
            throw OAuth2Problem(.invalidRequest, "refresh_token is missing")
        }
        if let current = await store.refreshToken(value), current.clientID == client.id {
            try Self.checkRefreshBinding(current.jkt, proof: jkt)
            // RFC 8707 §2.2: checked before the rotation, so a refused resource costs no token.
            _ = try OAuth2Rules.resources(parameters, base: issuer.url, granted: current.resources)
            // RFC 8705 §4: a refresh token issued over mutual TLS is refreshed with the same certificate.
            if let bound = current.x5t, !(x5t.map { constantTimeEquals($0, bound) } ?? false) {
                throw OAuth2Problem(
                    .invalidGrant,
                    "the refresh token is bound to another TLS client certificate (RFC 8705 §4)"
                )
            }
        }
        if let asked = parameters["scope"], let current = await store.refreshToken(value),
            current.clientID == client.id, OAuth2Rules.scope(asked, allowed: current.scope) == nil
        {
            throw OAuth2Problem(.invalidScope, "scope exceeds what the refresh token was granted")
        }
        switch try await store.rotate(value, clientID: client.id) {
        case .invalid(let description):
            throw OAuth2Problem(.invalidGrant, description)
        case .valid(let record):
            let scope = OAuth2Rules.scope(parameters["scope"], allowed: record.scope) ?? record.scope
            let resources = try OAuth2Rules.resources(parameters, base: issuer.url, granted: record.resources)
            let issued = try await store.issueTokens(
                clientID: client.id,
                user: record.user,
                scope: scope,
                refresh: true,
                family: record.family,
                now: now,
                lifetime: configuration.accessTokenTTL,
                jkt: record.jkt ?? jkt,
                // §3.1: the new access token is bound to this connection's certificate; §4: a
                // public client's refresh token stays bound to the one it was issued to.
                x5t: x5t,
                refreshX5t: record.x5t,
                resources: resources,
                grantResources: record.resources,
                authentication: record.authentication
            )
            var idToken: String?
            // OpenID Connect Core §12.2: a new ID token, same iss, sub, aud and auth_time, no nonce.
            if scope.contains("openid"), let authentication = openID.authentication(family: record.family) {
                idToken = openID.idToken(
                    client: client,
                    user: authentication.user,
                    scope: scope,
                    nonce: nil,
                    authTime: authentication.authTime,
                    accessToken: issued.access,
                    now: now,
                    sid: authentication.sid,
                    acr: authentication.acr,
                    subject: configuration.refreshedIDTokenSubject
                )
            }
            return tokenResponse(issued.access, refresh: issued.refresh, scope: scope, jkt: record.jkt ?? jkt, idToken: idToken)
        }
    }

    func tokenResponse(
        _ access: String, refresh: String?, scope: [String], jkt: String? = nil, idToken: String? = nil
    ) -> Response {
        OAuth2JSON.response(
            TokenJSON(
                accessToken: access,
                tokenType: jkt == nil ? "Bearer" : OAuth2.DPoP.tokenType,
                expiresIn: configuration.accessTokenTTL,
                refreshToken: refresh,
                scope: scope.joined(separator: " "),
                idToken: idToken
            )
        )
    }

    // MARK: Revocation and introspection

    /// `POST /oauth2/revoke`: `200` whether or not the token was known
    /// ([RFC 7009 §2.2](https://www.rfc-editor.org/rfc/rfc7009#section-2.2)).
    func revoke(_ request: Request, peer: PeerCertificate?) async throws -> Response {
        let parameters = try await OAuth2Parameters.body(of: request)
        let (client, _) = try await clients.authenticate(request, parameters, peer: peer)
        guard let token = parameters["token"] else { throw OAuth2Problem(.invalidRequest, "token is missing") }
        try await store.revoke(token, clientID: client.id, refreshFirst: parameters["token_type_hint"] == "refresh_token")
        return Response(status: .ok, headers: [.cacheControl: "no-store"])
    }

    /// [RFC 7662 §2.2](https://www.rfc-editor.org/rfc/rfc7662#section-2.2).
    struct IntrospectionJSON: Encodable {
        let active: Bool
        var scope: String? = nil
        var clientID: String? = nil
        var username: String? = nil
        var tokenType: String? = nil
        var exp: Int64? = nil
        var iat: Int64? = nil
        /// `cnf.jkt` of a DPoP-bound token ([RFC 9449 §6.2](https://www.rfc-editor.org/rfc/rfc9449#section-6.2)),
        /// `cnf` `x5t#S256` of a certificate-bound one ([RFC 8705 §3.2](https://www.rfc-editor.org/rfc/rfc8705#section-3.2)).
        var cnf: [String: String]? = nil
        /// `aud`: the resources the token was issued for (RFC 8707), when it names any.
        var aud: [String]? = nil

        enum CodingKeys: String, CodingKey {
            case active, scope, username, exp, iat, cnf, aud
            case clientID = "client_id"
            case tokenType = "token_type"
        }
    }

    /// `POST /oauth2/introspect`: a confidential client, authenticated, may ask about any token;
    /// an unknown, expired or revoked token is `{"active":false}`. "The protected resource
    /// MUST also be authorized to call the introspection endpoint"
    /// ([RFC 7662 §2.1](https://www.rfc-editor.org/rfc/rfc7662#section-2.1)): a public client
    /// presents no credentials, so it is refused with `401 invalid_client` (otherwise anyone
    /// could scan for live tokens, §4).
    func introspect(_ request: Request, peer: PeerCertificate?) async throws -> Response {
        let parameters = try await OAuth2Parameters.body(of: request)
        let (client, method) = try await introspectionCaller(request, parameters, peer: peer)
        guard client.isConfidential, method != .none else {
            throw clients.basicFailure(
                "introspection needs an authenticated confidential client; a public client cannot call it (RFC 7662 §2.1)"
            )
        }
        guard let token = parameters["token"] else { throw OAuth2Problem(.invalidRequest, "token is missing") }
        let now = configuration.now()
        if let access = await store.accessToken(token, now: now) {
            return OAuth2JSON.response(
                IntrospectionJSON(
                    active: true,
                    scope: access.scope.joined(separator: " "),
                    clientID: access.clientID,
                    username: access.user,
                    tokenType: access.jkt == nil ? "Bearer" : OAuth2.DPoP.tokenType,
                    exp: access.expiresAt,
                    iat: access.issuedAt,
                    cnf: Self.confirmation(jkt: access.jkt, x5t: access.x5t),
                    aud: access.resources
                )
            )
        }
        if let refresh = await store.refreshToken(token) {
            return OAuth2JSON.response(
                IntrospectionJSON(
                    active: true,
                    scope: refresh.scope.joined(separator: " "),
                    clientID: refresh.clientID,
                    username: refresh.user,
                    iat: refresh.issuedAt,
                    cnf: Self.confirmation(jkt: refresh.jkt, x5t: refresh.x5t)
                )
            )
        }
        return OAuth2JSON.response(IntrospectionJSON(active: false))
    }

    /// The client calling introspection; a refusal of its authentication is always `401`, no
    /// credentials at all included: a caller that is not authorized (RFC 7662 §2.1).
    func introspectionCaller(
        _ request: Request,
        _ parameters: OAuth2Parameters,
        peer: PeerCertificate?
    ) async throws(OAuth2Problem) -> (SandboxConfiguration.OAuth2Client, OAuth2ClientAuthentication.Method) {
        do {
            return try await clients.authenticate(request, parameters, peer: peer)
        } catch {
            guard error.body.code == .invalidClient, error.status != .unauthorized else { throw error }
            throw clients.basicFailure(error.body.errorDescription ?? "client authentication failed")
        }
    }

    /// The certificate a refresh token is bound to ([RFC 8705 §4](https://www.rfc-editor.org/rfc/rfc8705#section-4)):
    /// a public client's is the one it was issued over; a confidential client's refresh token is
    /// bound to the client's authentication instead, so that it survives a new certificate.
    static func refreshBinding(_ x5t: String?, client: SandboxConfiguration.OAuth2Client) -> String? {
        client.isConfidential ? nil : x5t
    }

    /// The `cnf` member: `jkt` (RFC 9449 §6) and `x5t#S256` (RFC 8705 §3.1), or `nil`.
    static func confirmation(jkt: String?, x5t: String?) -> [String: String]? {
        var cnf: [String: String] = [:]
        if let jkt { cnf["jkt"] = jkt }
        if let x5t { cnf[OAuth2.CertificateBinding.confirmationMember] = x5t }
        return cnf.isEmpty ? nil : cnf
    }
}
