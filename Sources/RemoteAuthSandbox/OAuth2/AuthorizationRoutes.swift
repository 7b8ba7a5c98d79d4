import Crypto
import HTTPTypes
import Hummingbird
import RemoteAuth

/// The authorization endpoint under `/oauth2` ([RFC 6749 §3.1](https://www.rfc-editor.org/rfc/rfc6749#section-3.1)):
/// the consent page of the authorization code grant, PKCE required with `S256`
/// ([RFC 7636 §4.3](https://www.rfc-editor.org/rfc/rfc7636#section-4.3)), and `iss` in every
/// response sent back to the client ([RFC 9207 §2](https://www.rfc-editor.org/rfc/rfc9207#section-2)).
/// A bad `client_id` or `redirect_uri` is shown, never redirected to
/// ([RFC 6749 §4.1.2.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1)).
struct AuthorizationRoutes: Sendable {
    let configuration: SandboxConfiguration
    let store: OAuth2Store
    let issuer: OAuth2Issuer
    /// The OAuth 1.0a consent step: its sign-in session and its form key.
    let consent: ConsentRoutes

    var collection: RouteCollection<SandboxRequestContext> {
        let routes = RouteCollection(context: SandboxRequestContext.self)
        routes.get("authorize") { request, _ in try await authorizePage(request) }
        routes.post("authorize") { request, _ in try await authorizeForm(request) }
        return routes
    }

    /// `GET /oauth2/authorize?response_type=code&client_id=…&redirect_uri=…&code_challenge=…`.
    func authorizePage(_ request: Request) async throws -> Response {
        var query: OAuth2Parameters
        do {
            query = try OAuth2Parameters(request.queryFields.pairs)
        } catch {
            throw ConsentPage.Refusal(.badRequest, "Invalid request", "A parameter is repeated.")
        }
        // RFC 9126 §4: a pushed request is named by its request_uri; the parameters are the
        // pushed ones, and the client_id in the URL must be the one that pushed it.
        if let requestURI = query["request_uri"] {
            guard let pushed = await store.takePushed(requestURI, now: configuration.now()),
                pushed.clientID == query["client_id"]
            else {
                throw ConsentPage.Refusal(
                    .badRequest,
                    "Invalid request_uri",
                    "The request_uri is unknown, expired, already used, or was pushed by another client."
                )
            }
            query = pushed.parameters
        } else if configuration.requirePushedAuthorizationRequests {
            throw ConsentPage.Refusal(
                .badRequest,
                "Pushed request required",
                "This server accepts authorization requests only through its PAR endpoint (RFC 9126)."
            )
        }
        let client: SandboxConfiguration.OAuth2Client
        do {
            guard let clientID = query["client_id"], let known = try await store.clients.resolve(clientID) else {
                throw ConsentPage.Refusal(.badRequest, "Unknown client", "The link names no registered client_id.")
            }
            client = known
        } catch let failure as ClientMetadataDocument.Failure {
            throw ConsentPage.Refusal(.badRequest, "Invalid client metadata document", failure.description)
        }
        let redirectURI: String
        if let given = query["redirect_uri"] {
            guard OAuth2Rules.redirectURIMatches(given, registered: client.redirectURIs) else {
                // The draft's §4.2: a document's redirect_uris are its registered ones.
                let fromDocument = store.clients.documents?.cached(client.id) != nil
                throw ConsentPage.Refusal(
                    .badRequest,
                    "Invalid redirect URI",
                    fromDocument
                        ? "invalid_request: the redirect_uri is not one of the redirect_uris of the client's metadata document (\(ClientMetadataDocument.draft) §4.2)"
                        : "The redirect_uri is not registered for this client."
                )
            }
            redirectURI = given
        } else {
            // RFC 6749 §3.1.2.3: may be left out only when exactly one is registered.
            guard client.redirectURIs.count == 1, let only = client.redirectURIs.first else {
                throw ConsentPage.Refusal(.badRequest, "Missing redirect URI", "The link has no redirect_uri.")
            }
            redirectURI = only
        }
        let implicit = query["response_type"] == "token" && configuration.implicitGrant
        var pending = OAuth2Store.PendingRequest(
            id: "",
            clientID: client.id,
            redirectURI: redirectURI,
            redirectURIGiven: query["redirect_uri"] != nil,
            scope: [],
            state: query["state"],
            codeChallenge: nil,
            implicit: implicit
        )
        func refuse(_ code: OAuth2.ErrorCode, _ description: String) -> OAuth2RedirectError {
            OAuth2RedirectError(
                location: respond(pending, [("error", code.rawValue), ("error_description", description)]),
                code: code
            )
        }
        switch query["response_type"] {
        case nil: throw refuse(.invalidRequest, "response_type is missing")
        case "code": break
        case "token" where implicit: break
        default: throw refuse(.unsupportedResponseType, "response_type must be code")
        }
        if !implicit {
            guard let challenge = query["code_challenge"] else {
                throw refuse(.invalidRequest, "code_challenge is required (PKCE, RFC 7636)")
            }
            guard query["code_challenge_method"] == "S256" else {
                throw refuse(.invalidRequest, "code_challenge_method must be S256")
            }
            guard challenge.utf8.count == 43, challenge.utf8.allSatisfy(FormURLEncoding.isUnreserved) else {
                throw refuse(.invalidRequest, "code_challenge is not a BASE64URL SHA-256 digest")
            }
            pending.codeChallenge = challenge
        }
        pending.nonce = query["nonce"]
        pending.acr = OpenIDProvider.performedACR(asked: query["acr_values"], policy: configuration.stepUp)
        // RFC 9449 §10: the code is bound to this key thumbprint.
        if let jkt = query["dpop_jkt"] {
            guard OAuth2.DPoP.isThumbprint(jkt) else {
                throw refuse(.invalidRequest, "dpop_jkt is not a SHA-256 JWK thumbprint (RFC 9449 §10)")
            }
            pending.dpopJKT = jkt
        }
        // No scope: the configured ones (RFC 6749 §3.3); OpenID Connect's only when asked for.
        guard
            let scope = query["scope"] == nil
                ? configuration.oauth2Scopes
                : OAuth2Rules.scope(query["scope"], allowed: configuration.oauth2Scopes + OpenIDProvider.scopes)
        else {
            throw refuse(.invalidScope, "scope names a scope this server does not grant")
        }
        pending.scope = scope
        // RFC 8707 §2.1: the resources the grant is for; the token request may narrow them.
        do {
            pending.resources = try OAuth2Rules.resources(query, base: issuer.url, granted: nil)
        } catch {
            throw refuse(error.body.code, error.body.errorDescription ?? "resource is not accepted")
        }
        pending.id = await store.token()
        if configuration.autoApprove, let alice = configuration.users.first {
            return try await approve(pending, user: alice.name, newSession: nil)
        }
        await store.addPending(pending)
        return page(pending, client: client, signedInUser: await consent.sessionUser(request), error: nil)
    }

    /// `POST /oauth2/authorize`: the consent form.
    func authorizeForm(_ request: Request) async throws -> Response {
        let fields = FormFields(decoding: String(decoding: await request.bodyBytes(), as: UTF8.self))
        guard let id = fields["request"], let pending = await store.pendingRequest(id) else {
            throw ConsentPage.Refusal(
                .notFound,
                "Unknown request",
                "This authorization request is unknown or was already answered."
            )
        }
        guard let presented = fields["authenticity_token"], constantTimeEquals(presented, authenticityToken(for: id))
        else {
            throw ConsentPage.Refusal(.forbidden, "Form expired", "Reload the page and try again.")
        }
        if fields["action"] == "deny" {
            guard await store.removePending(id) != nil else { throw ConsentPage.Refusal.alreadyAnswered }
            throw OAuth2RedirectError(
                location: respond(
                    pending,
                    [("error", "access_denied"), ("error_description", "the resource owner denied the request")]
                ),
                code: .accessDenied
            )
        }
        guard fields["action"] == "authorize" else {
            throw ConsentPage.Refusal(.badRequest, "Unknown action", "Choose Authorize or Cancel.")
        }
        var signedIn = await consent.sessionUser(request)
        var newSession: String? = nil
        if signedIn == nil {
            guard let name = fields["username"], let password = fields["password"],
                let account = configuration.user(named: name), constantTimeEquals(account.password, password)
            else {
                let client = store.clients.client(pending.clientID)
                return page(
                    pending,
                    client: client,
                    signedInUser: nil,
                    error: "The username and password do not match."
                )
            }
            signedIn = account.name
            newSession = await consent.store.startSession(user: account.name)
        }
        guard await store.removePending(id) != nil, let user = signedIn else {
            throw ConsentPage.Refusal.alreadyAnswered
        }
        return try await approve(pending, user: user, newSession: newSession)
    }

    /// Sends the user back with a code ([RFC 6749 §4.1.2](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2)),
    /// or with the access token in the fragment for the implicit grant
    /// ([RFC 6749 §4.2.2](https://www.rfc-editor.org/rfc/rfc6749#section-4.2.2)).
    func approve(_ pending: OAuth2Store.PendingRequest, user: String, newSession: String?) async throws -> Response {
        let now = configuration.now()
        let location: String
        if pending.implicit {
            let issued = try await store.issueTokens(
                clientID: pending.clientID,
                user: user,
                scope: pending.scope,
                refresh: false,
                now: now,
                lifetime: configuration.accessTokenTTL
            )
            location = respond(
                pending,
                [
                    ("access_token", issued.access), ("token_type", "Bearer"),
                    ("expires_in", String(configuration.accessTokenTTL)),
                    ("scope", pending.scope.joined(separator: " ")),
                ]
            )
        } else {
            let code = try await store.issueCode(
                for: pending,
                user: user,
                expiresAt: now + configuration.authorizationCodeTTL
            )
            location = respond(pending, [("code", code)])
        }
        var response = SandboxResponse.redirect(to: location)
        if let newSession {
            response.headers.append(
                HTTPField(name: .setCookie, value: "remote_auth_session=\(newSession); Path=/; HttpOnly; SameSite=Lax")
            )
        }
        return response
    }

    /// The redirect URI with `pairs`, `state` and `iss`: in the query, or in the fragment for
    /// the implicit grant.
    func respond(_ pending: OAuth2Store.PendingRequest, _ pairs: [(name: String, value: String)]) -> String {
        var all = pairs
        if let state = pending.state { all.append(("state", state)) }
        all.append(("iss", issuer.url))
        if pending.implicit {
            let base = pending.redirectURI.split(separator: "#", maxSplits: 1).first.map(String.init) ?? ""
            return base + "#" + FormURLEncoding.encode(all)
        }
        return ConsentRoutes.appending(all, to: pending.redirectURI)
    }

    /// The form's CSRF token: an HMAC of the pending request's id under the consent form key.
    func authenticityToken(for id: String) -> String {
        Hex.encode(Array(HMAC<SHA256>.authenticationCode(for: Array(("oauth2:" + id).utf8), using: consent.formKey)))
    }

    func page(
        _ pending: OAuth2Store.PendingRequest,
        client: SandboxConfiguration.OAuth2Client?,
        signedInUser: String?,
        error: String?
    ) -> Response {
        let app = client?.name ?? pending.clientID
        var body = """
            <h1>Authorize <span class="app">\(app.htmlEscaped)</span> to use your account?</h1>
            <p>This application asks for:</p>
            <ul>\(pending.scope.map { "<li><code>\($0.htmlEscaped)</code></li>" }.joined())</ul>
            """
        if let error { body += "<p id=\"error\">\(error.htmlEscaped)</p>" }
        body += """
            <form id="consent" method="post" action="/oauth2/authorize">
            <input type="hidden" name="request" value="\(pending.id.htmlEscaped)">
            <input type="hidden" name="authenticity_token" value="\(authenticityToken(for: pending.id))">
            """
        body += ConsentPage.signIn(signedInUser)
        body += """
            <div class="buttons"><button id="allow" type="submit" name="action" value="authorize">Authorize app</button>
            <button id="deny" type="submit" name="action" value="deny">Cancel</button></div></form>
            """
        return ConsentPage.page(status: .ok, title: "Authorize \(app)", body: body)
    }
}
