import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthLoopback

/// The OAuth 2 steps of `remote-auth demo`, against the sandbox's authorization server.
extension DemoCommand {
    /// The demo sandbox's access tokens live this long, so that the refresh step can wait one out.
    static let oauth2AccessTokenTTL: Int64 = 2

    static let oauth2Scope = ["statuses:read", "statuses:write"]

    static let oauth2Steps: [Step] = [
        Step(name: "OAuth 2, code + PKCE") { context in
            let (_, tokens) = try await context.oauth2SignIn()
            try expect(tokens.refreshToken != nil, "no refresh token")
            return
                "signed in through the consent form and a loopback callback, S256, iss checked; scope \((tokens.scope ?? []).joined(separator: " "))"
        },
        Step(name: "OAuth 2, Bearer call") { context in
            let (flow, tokens) = try await context.oauth2SignIn()
            let (_, client) = try await context.bearerClient(flow, tokens)
            let (response, _) = try await client.send(
                try HTTPRequest(method: .get, absoluteURL: context.base + "/1.1/statuses/home_timeline.json")
            )
            try expect(response.status == .ok, "home_timeline answered \(response.status.code)")
            return "home_timeline 200 with Authorization: Bearer, through the authenticating client"
        },
        Step(name: "OAuth 2, refresh after expiry") { context in
            let (flow, tokens) = try await context.oauth2SignIn()
            let (session, client) = try await context.bearerClient(flow, tokens)
            try await Task.sleep(for: .seconds(oauth2AccessTokenTTL + 1))
            var expired = try HTTPRequest(
                method: .get,
                absoluteURL: context.base + "/1.1/statuses/home_timeline.json"
            )
            expired.headerFields[.authorization] = "Bearer " + tokens.accessToken.reveal()
            let (refused, _) = try await context.transport.send(expired, body: nil)
            try expect(refused.status == .unauthorized, "the expired token was answered \(refused.status.code)")
            let (response, _) = try await client.send(
                try HTTPRequest(method: .get, absoluteURL: context.base + "/1.1/statuses/home_timeline.json")
            )
            try expect(response.status == .ok, "home_timeline answered \(response.status.code) after the refresh")
            let refreshes = await session.refreshCount
            try expect(refreshes == 1, "\(refreshes) refreshes, not 1")
            let renewed = try await session.validTokens()
            try expect(renewed.refreshToken != tokens.refreshToken, "the refresh token was not rotated")
            return "the expired token got 401; one refresh (rotated), then 200"
        },
        Step(name: "OAuth 2, device flow") { context in
            let flow = try await context.publicFlow()
            let authorization = try await flow.deviceAuthorization(scope: ["statuses:read"])
            // The user's part, on another device: the verification page, signed in as alice.
            let (page, html) = try await context.get(authorization.verificationURI)
            try expect(page.status == .ok, "the verification page answered \(page.status.code)")
            let csrf = try requireValue(
                between(html, "name=\"authenticity_token\" value=\"", "\""),
                "no authenticity_token on the verification page"
            )
            let (approved, _) = try await context.postForm(
                context.base + "/device",
                [
                    ("authenticity_token", csrf), ("user_code", authorization.userCode), ("username", "alice"),
                    ("password", "wonderland"), ("action", "approve"),
                ]
            )
            try expect(approved.status == .ok, "the approval answered \(approved.status.code)")
            let response = try await flow.pollDeviceToken(
                authorization,
                sleep: { seconds in try await Task.sleep(for: .seconds(seconds)) }
            )
            try expect(response.tokens.isBearer, "not a Bearer token")
            return "user code \(authorization.userCode) approved over HTTP, then the poll got the tokens"
        },
        Step(name: "OAuth 2, client credentials") { context in
            let flow = OAuth2.Flow(
                server: try await context.oauth2Server(),
                client: OAuth2.Client(id: "demo-service", authentication: .clientSecretBasic("demo-service-secret")),
                transport: context.transport,
                now: unixNow
            )
            let tokens = try await flow.clientCredentials(scope: ["statuses:read"]).tokens
            try expect(tokens.refreshToken == nil, "client credentials came with a refresh token")
            var request = try HTTPRequest(
                method: .get,
                absoluteURL: context.base + "/1.1/statuses/home_timeline.json"
            )
            request.headerFields[.authorization] = "Bearer " + tokens.accessToken.reveal()
            let (response, _) = try await context.transport.send(request, body: nil)
            try expect(response.status == .ok, "home_timeline answered \(response.status.code)")
            return "demo-service got a token with client_secret_basic; home_timeline 200"
        },
        Step(name: "OAuth 2, revocation") { context in
            let (flow, tokens) = try await context.oauth2SignIn()
            let refreshToken = try requireValue(tokens.refreshToken, "no refresh token")
            try await flow.revoke(refreshToken, hint: .refreshToken)
            let introspection = try await OAuth2.Flow(
                server: flow.server,
                client: OAuth2.Client(id: "demo-service", authentication: .clientSecretBasic("demo-service-secret")),
                transport: context.transport,
                now: unixNow
            ).introspect(refreshToken, hint: .refreshToken)
            try expect(!introspection.active, "the revoked refresh token is still active")
            do {
                _ = try await flow.refresh(tokens)
                throw StepFailure(description: "the revoked refresh token still refreshes")
            } catch let error as OAuth2.Error where error.serverError?.code == .invalidGrant {
                return "revoked the refresh token (RFC 7009): introspection says inactive, refresh says invalid_grant"
            }
        },
    ]
}

extension DemoCommand.Context {
    func oauth2Server() async throws -> OAuth2.AuthorizationServer {
        OAuth2.AuthorizationServer(metadata: try await OAuth2.Flow.discover(issuer: base, transport: transport))
    }

    /// The code grant with PKCE as a browser user does it: the consent form, signed in as alice,
    /// then the redirect to the loopback listener.
    /// A flow for the public client `demo-app`, on `server` (discovered when `nil`), over
    /// `transport` (the context's when `nil`).
    func publicFlow(
        server: OAuth2.AuthorizationServer? = nil,
        transport: (any HTTPTransport)? = nil
    ) async throws -> OAuth2.Flow {
        let resolved: OAuth2.AuthorizationServer
        if let server { resolved = server } else { resolved = try await oauth2Server() }
        return OAuth2.Flow(
            server: resolved,
            client: .public(id: "demo-app"),
            transport: transport ?? self.transport,
            now: unixNow
        )
    }

    func oauth2SignIn() async throws -> (OAuth2.Flow, OAuth2.Tokens) {
        let flow = try await publicFlow()
        return (flow, try await signIn(flow, scope: DemoCommand.oauth2Scope).tokens)
    }

    /// Signs in with `flow` as alice through the consent form and the loopback listener, the
    /// request pushed first with `push` (RFC 9126); returns the tokens and the URL the browser
    /// was sent to.
    func signIn(_ flow: OAuth2.Flow, scope: [String], push: Bool = false) async throws -> (
        tokens: OAuth2.Tokens, url: String
    ) {
        try await LoopbackCallbackListener.withListener { callbackURL, listener in
            let request = try await flow.startAuthorization(
                redirectURI: callbackURL,
                scope: scope,
                push: push,
                random: .system
            )
            let location = try await oauth2Consent(request.url)
            // The browser lands on the loopback listener, which answers once the code is redeemed.
            async let landing = get(location)
            let tokens = try await listener.tokens(for: request.pending, flow: flow, timeout: maxTime)
            let (landed, _) = try await landing
            try expect(landed.status == .ok, "the loopback listener answered \(landed.status.code)")
            return (tokens, request.url)
        }
    }

    /// What a browser does on the OAuth 2 consent page at `authorizationURL`: load it, sign in
    /// as alice, press Authorize; returns where the server redirects the browser (the redirect
    /// URI, with the code).
    func oauth2Consent(_ authorizationURL: String) async throws -> String {
        let (page, html) = try await get(authorizationURL)
        try expect(page.status == .ok, "the consent page answered \(page.status.code)")
        let id = try requireValue(between(html, "name=\"request\" value=\"", "\""), "no request id on the page")
        let csrf = try requireValue(
            between(html, "name=\"authenticity_token\" value=\"", "\""),
            "no authenticity_token on the page"
        )
        let (approved, _) = try await postForm(
            base + "/oauth2/authorize",
            [
                ("request", id), ("authenticity_token", csrf), ("username", "alice"), ("password", "wonderland"),
                ("action", "authorize"),
            ]
        )
        return try requireValue(approved.headerFields[.location], "the consent form did not redirect")
    }

    /// A token session over `tokens` (refreshed only once expired) registered for the sandbox.
    func bearerClient(
        _ flow: OAuth2.Flow,
        _ tokens: OAuth2.Tokens
    ) async throws -> (OAuth2.TokenSession, AuthenticatingClient) {
        let session = OAuth2.Session(
            server: flow.server,
            registration: OAuth2.ClientRegistration(flow.client),
            tokens: tokens,
            scope: tokens.scope,
            resourceOrigins: [base]
        )
        let tokenSession = try OAuth2.TokenSession(
            session: session,
            store: InMemoryTokenStore(),
            service: "demo",
            account: "alice",
            policy: OAuth2.RefreshPolicy(expirySkew: 0),
            now: unixNow,
            refresher: { try await flow.refresh($0) }
        )
        return (tokenSession, AuthenticatingClient(transport: transport, session: tokenSession))
    }
}
