import HTTPTypes
import RemoteAuth
import Testing

@Suite struct OAuth2FlowTests {
    let state = "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE"

    func flow(
        _ answers: [ScriptedTransport.Answer],
        client: OAuth2.Client = .public(id: "demo-app"),
        now: Int64 = 1000
    )
        -> (OAuth2.Flow, ScriptedTransport)
    {
        let transport = ScriptedTransport(answers)
        var server = oauth2Server
        server.requiresIssuerParameter = true
        return (OAuth2.Flow(server: server, client: client, transport: transport, now: { now }), transport)
    }

    @Test func authorizationCodeEndToEnd() async throws {
        let (flow, transport) = flow([
            OAuth2Script.json(
                200,
                #"{"access_token":"at","token_type":"Bearer","expires_in":60,"refresh_token":"rt","scope":"read"}"#
            )
        ])
        let request = try flow.authorizationRequest(
            redirectURI: "http://127.0.0.1:49152/callback",
            scope: ["read"],
            random: .repeating([0x01])
        )
        #expect(request.url.hasPrefix("https://as.example/authorize?response_type=code&client_id=demo-app&"))
        let callback =
            "http://127.0.0.1:49152/callback?code=SplxlOBeZQQYbYS6WxSbIA&state=\(state)&iss=https%3A%2F%2Fas.example"
        let tokens = try await flow.tokens(fromCallback: callback, pending: request.pending)
        #expect(
            tokens
                == OAuth2.Tokens(
                    accessToken: "at",
                    tokenType: "Bearer",
                    expiresAt: 1060,
                    refreshToken: "rt",
                    scope: ["read"]
                )
        )
        let sent = try #require(transport.sent.first)
        #expect(sent.request.absoluteURL == "https://as.example/token")
        #expect(
            try OAuth2Script.form(sent.body) == [
                Pair(name: "grant_type", value: "authorization_code"),
                Pair(name: "code", value: "SplxlOBeZQQYbYS6WxSbIA"),
                Pair(name: "redirect_uri", value: "http://127.0.0.1:49152/callback"),
                Pair(name: "code_verifier", value: "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE"),
                Pair(name: "client_id", value: "demo-app"),
            ]
        )
        // The metadata promised iss: a redirect without it never reaches the token endpoint.
        await #expect(throws: OAuth2.Error(.issuerMismatch, "")) {
            try await flow.tokens(
                fromCallback: "http://127.0.0.1:49152/callback?code=x&state=\(state)",
                pending: request.pending
            )
        }
        // The user said no.
        let denied = await #expect(throws: OAuth2.Error.self) {
            try await flow.tokens(
                fromCallback:
                    "http://127.0.0.1:49152/callback?error=access_denied&state=\(state)&iss=https%3A%2F%2Fas.example",
                pending: request.pending
            )
        }
        #expect(denied?.serverError?.code == .accessDenied)
        #expect(transport.sent.count == 1)
    }

    /// RFC 9700 §4.5: the code flow never returns tokens from a redirect, in the fragment
    /// or the query, even with the right state and iss; nothing is sent.
    @Test func codeFlowRefusesTokensInTheRedirect() async throws {
        let (flow, transport) = flow([], now: 2000)
        let request = try flow.authorizationRequest(redirectURI: "fb123://authorize/", random: .repeating([0x01]))
        for url in [
            "fb123://authorize/#access_token=EAAB&expires_in=5183999&state=\(state)&iss=https%3A%2F%2Fas.example",
            "fb123://authorize/?access_token=EAAB&token_type=Bearer&state=\(state)&iss=https%3A%2F%2Fas.example",
        ] {
            let thrown = await #expect(throws: OAuth2.Error.self) {
                try await flow.tokens(fromCallback: url, pending: request.pending)
            }
            #expect(thrown?.code == .unexpectedTokens)
        }
        #expect(transport.sent.isEmpty)
    }

    /// The implicit opt-in: `response_type=token`, tokens from the fragment, no token request.
    @Test func implicitOptInNeedsNoTokenRequest() async throws {
        let (flow, transport) = flow([], now: 2000)
        let request = try flow.implicitAuthorizationRequest(redirectURI: "fb123://authorize/", random: .repeating([0x01]))
        #expect(request.parameters.first! == ("response_type", "token"))
        #expect(!request.parameters.contains { ["code_challenge", "nonce", "dpop_jkt"].contains($0.name) })
        let tokens = try flow.tokens(
            fromImplicitCallback: "fb123://authorize/#access_token=EAAB&expires_in=5183999&state=\(state)"
                + "&iss=https%3A%2F%2Fas.example",
            pending: request.pending
        )
        #expect(tokens == OAuth2.Tokens(accessToken: "EAAB", tokenType: "Bearer", expiresAt: 2000 + 5_183_999))
        #expect(transport.sent.isEmpty)
    }

    @Test func refreshFitsTheSessionsRefresher() async throws {
        let (flow, transport) = flow(
            [
                OAuth2Script.json(200, #"{"access_token":"at2","token_type":"Bearer","expires_in":60}"#),
                OAuth2Script.json(400, #"{"error":"invalid_grant","error_description":"rotated"}"#),
            ],
            client: OAuth2.Client(id: "demo-service", authentication: .clientSecretBasic("demo-service-secret"))
        )
        let refresher: @Sendable (OAuth2.Tokens) async throws -> OAuth2.Tokens = { try await flow.refresh($0) }
        let old = OAuth2.Tokens(
            accessToken: "at1",
            tokenType: "Bearer",
            expiresAt: 900,
            refreshToken: "rt1",
            scope: ["a"]
        )
        let renewed = try await refresher(old)
        #expect(
            renewed
                == OAuth2.Tokens(
                    accessToken: "at2",
                    tokenType: "Bearer",
                    expiresAt: 1060,
                    refreshToken: "rt1",
                    scope: ["a"]
                )
        )
        let sent = try #require(transport.sent.first)
        #expect(
            try OAuth2Script.form(sent.body) == [
                Pair(name: "grant_type", value: "refresh_token"), Pair(name: "refresh_token", value: "rt1"),
            ]
        )
        #expect(sent.request.headerFields[.authorization] == "Basic ZGVtby1zZXJ2aWNlOmRlbW8tc2VydmljZS1zZWNyZXQ=")
        let refused = await #expect(throws: OAuth2.Error.self) { try await refresher(old) }
        #expect(refused?.code == .serverRefused)
        #expect(refused?.serverError?.code == .invalidGrant)
        #expect(refused?.status == 400)
        await #expect(throws: OAuth2.Error(.reauthorizationRequired, "")) {
            try await refresher(OAuth2.Tokens(accessToken: "a", tokenType: "Bearer"))
        }
        #expect(transport.sent.count == 2)
    }

    @Test func clientCredentialsRevokeIntrospect() async throws {
        let (flow, transport) = flow(
            [
                OAuth2Script.json(200, #"{"access_token":"at","token_type":"Bearer","expires_in":3600}"#),
                { _, _ in (HTTPResponse(status: .ok), []) },
                OAuth2Script.json(
                    200,
                    #"{"active":true,"scope":"statuses:read","client_id":"demo-service","exp":4600}"#
                ),
            ],
            client: OAuth2.Client(id: "demo-service", authentication: .clientSecretPost("demo-service-secret"))
        )
        let response = try await flow.clientCredentials(scope: ["statuses:read"])
        #expect(response.tokens.expiresAt == 4600)
        try await flow.revoke("at", hint: .accessToken)
        let introspection = try await flow.introspect("at")
        #expect(introspection.active)
        #expect(introspection.scope == ["statuses:read"])
        #expect(introspection.expiresAt == 4600)
        #expect(
            transport.sent.map { $0.request.absoluteURL } == [
                "https://as.example/token", "https://as.example/revoke", "https://as.example/introspect",
            ]
        )
        #expect(
            try OAuth2Script.form(transport.sent[1].body) == [
                Pair(name: "token", value: "at"), Pair(name: "token_type_hint", value: "access_token"),
                Pair(name: "client_id", value: "demo-service"),
                Pair(name: "client_secret", value: "demo-service-secret"),
            ]
        )
    }

    @Test func deviceAuthorizationOverTheTransport() async throws {
        let v = try #require(try OAuth2ResponseVector.all("device_authorization_response").first)
        let (flow, transport) = flow([OAuth2Script.json(200, try #require(v.body))])
        let authorization = try await flow.deviceAuthorization(scope: ["statuses:read"])
        #expect(authorization.userCode == "WDJB-MJHT")
        #expect(authorization.expiresAt == 1000 + 1800)
        #expect(transport.sent.first?.request.absoluteURL == "https://as.example/device_authorization")
    }

    @Test func missingAndInsecureEndpoints() async throws {
        let transport = ScriptedTransport([])
        let bare = OAuth2.Flow(
            server: OAuth2.AuthorizationServer(tokenEndpoint: "http://as.example/token"),
            client: .public(id: "c"),
            transport: transport,
            now: { 0 }
        )
        await #expect(throws: OAuth2.Error(.insecureEndpoint, "")) { try await bare.clientCredentials() }
        await #expect(throws: OAuth2.Error(.invalidConfiguration, "")) { try await bare.revoke("t") }
        await #expect(throws: OAuth2.Error(.invalidConfiguration, "")) { try await bare.introspect("t") }
        await #expect(throws: OAuth2.Error(.invalidConfiguration, "")) { try await bare.deviceAuthorization() }
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) {
            try bare.authorizationRequest(redirectURI: "http://127.0.0.1/cb", random: .seeded(1))
        }
        #expect(transport.sent.isEmpty)
    }

    @Test func transportErrorsPassThrough() async throws {
        let (flow, _) = flow([])
        await #expect(throws: ScriptedTransport.ScriptEnded.self) { try await flow.clientCredentials() }
    }
}
