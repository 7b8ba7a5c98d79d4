import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthSandbox
import Testing

@Suite("Sandbox OAuth 2 authorization server")
struct SandboxOAuth2Tests {
    typealias W = OAuth2Wire
    static let service = (id: "demo-service", secret: "demo-service-secret")

    @Test("metadata: RFC 8414 and openid-configuration, issuer exactly the base URL")
    func metadata() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let response = try await Wire.get(base + "/.well-known/oauth-authorization-server")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            let json = W.json(response)
            #expect(json["issuer"] as? String == base)
            #expect(json["authorization_endpoint"] as? String == base + "/oauth2/authorize")
            #expect(json["token_endpoint"] as? String == base + "/oauth2/token")
            #expect(json["device_authorization_endpoint"] as? String == base + "/oauth2/device_authorization")
            #expect(json["revocation_endpoint"] as? String == base + "/oauth2/revoke")
            #expect(json["introspection_endpoint"] as? String == base + "/oauth2/introspect")
            #expect(json["code_challenge_methods_supported"] as? [String] == ["S256"])
            #expect(json["response_types_supported"] as? [String] == ["code"])
            #expect(
                json["grant_types_supported"] as? [String] == [
                    "authorization_code", "refresh_token", "client_credentials",
                    "urn:ietf:params:oauth:grant-type:device_code",
                ]
            )
            #expect(
                json["token_endpoint_auth_methods_supported"] as? [String] == [
                    "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt", "none",
                ]
            )
            // OpenID Connect Discovery 1.0 §3.
            #expect(json["jwks_uri"] as? String == base + "/oauth2/jwks")
            #expect(json["userinfo_endpoint"] as? String == base + "/oauth2/userinfo")
            #expect(json["id_token_signing_alg_values_supported"] as? [String] == ["RS256", "ES256"])
            #expect(json["subject_types_supported"] as? [String] == ["public"])
            #expect(json["authorization_response_iss_parameter_supported"] as? Bool == true)
            let openid = try await Wire.get(base + "/.well-known/openid-configuration")
            #expect(openid.status == 200)
            #expect(openid.body == response.body)
        }
    }

    @Test("code + PKCE: consent, redirect with code, state and iss on any loopback port, exact token JSON")
    func codeFlow() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let pkce = W.pkce()
            let answer = try await W.consent(W.authorizeURL(base, challenge: pkce.challenge))
            #expect(answer.status == 302)
            let location = try #require(answer.header("Location"))
            #expect(location.hasPrefix(W.loopbackRedirect + "?code="))
            let query = queryParameters(location)
            #expect(Set(query.keys) == ["code", "state", "iss"])
            #expect(query["state"] == "xyz")
            #expect(query["iss"] == base)
            let code = try #require(query["code"])
            let fields = [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", W.loopbackRedirect),
                ("client_id", "demo-app"), ("code_verifier", pkce.verifier),
            ]
            let response = try await W.token(base, fields)
            #expect(response.status == 200, "\(response.body)")
            #expect(response.header("Cache-Control") == "no-store")
            #expect(response.header("Pragma") == "no-cache")
            #expect(response.header("Content-Type") == "application/json")
            let json = W.json(response)
            #expect(Set(json.keys) == ["access_token", "token_type", "expires_in", "refresh_token", "scope"])
            #expect(json["token_type"] as? String == "Bearer")
            #expect(json["expires_in"] as? Int == 3600)
            #expect(json["scope"] as? String == "statuses:read statuses:write")
            let access = try #require(json["access_token"] as? String)
            let me = try await W.bearer(base + "/1.1/account/verify_credentials.json", access)
            #expect(me.status == 200)
            #expect(me.body.contains("\"screen_name\":\"alice\""))

            // The code is single-use; its replay revokes what it was exchanged for.
            let replay = try await W.token(base, fields)
            #expect(replay.status == 400)
            #expect(W.json(replay)["error"] as? String == "invalid_grant")
            #expect(try await W.bearer(base + "/1.1/account/verify_credentials.json", access).status == 401)
        }
    }

    @Test("RFC 8707: several resource indicators are accepted; another parameter repeated is not")
    func repeatedResourceIndicators() async throws {
        try await Sandbox.withSandbox { sandbox in
            let pkce = W.pkce()
            let url = W.authorizeURL(sandbox.baseURL, challenge: pkce.challenge)
            let two = try await Wire.get(
                url + "&resource=https%3A%2F%2Fapi.example%2F&resource=https%3A%2F%2Fphotos.example%2F"
            )
            #expect(two.status == 200, "\(two.body)")
            #expect(W.hidden("request", in: two.body) != nil)
            let repeated = try await Wire.get(url + "&state=again")
            #expect(repeated.status == 400)
        }
    }

    @Test("a wrong code_verifier, a missing one and another redirect_uri are refused")
    func verifierChecked() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            for (verifier, redirect, error) in [
                (String(repeating: "a", count: 43), W.loopbackRedirect, "invalid_grant"),
                ("", W.loopbackRedirect, "invalid_request"),
                (nil, "http://127.0.0.1:1/callback", "invalid_grant"),
            ] as [(String?, String, String)] {
                let pkce = W.pkce()
                let answer = try await W.consent(W.authorizeURL(base, challenge: pkce.challenge))
                let code = try #require(queryParameters(answer.header("Location") ?? "")["code"])
                let response = try await W.token(
                    base,
                    [
                        ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect),
                        ("client_id", "demo-app"), ("code_verifier", verifier ?? pkce.verifier),
                    ]
                )
                #expect(response.status == 400)
                #expect(W.json(response)["error"] as? String == error, "\(response.body)")
            }
        }
    }

    @Test("refresh rotates; reusing a rotated refresh token revokes the whole family")
    func refreshRotation() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let first = try await W.codeFlow(base)
            let refresh1 = try #require(first["refresh_token"] as? String)
            let rotated = try await W.token(
                base,
                [("grant_type", "refresh_token"), ("refresh_token", refresh1), ("client_id", "demo-app")]
            )
            #expect(rotated.status == 200, "\(rotated.body)")
            let second = W.json(rotated)
            let refresh2 = try #require(second["refresh_token"] as? String)
            let access2 = try #require(second["access_token"] as? String)
            #expect(refresh2 != refresh1)
            #expect(second["scope"] as? String == "statuses:read statuses:write")
            #expect(try await W.bearer(base + "/1.1/statuses/home_timeline.json", access2).status == 200)

            let reuse = try await W.token(
                base,
                [("grant_type", "refresh_token"), ("refresh_token", refresh1), ("client_id", "demo-app")]
            )
            #expect(reuse.status == 400)
            #expect(W.json(reuse)["error"] as? String == "invalid_grant")
            // The family is gone: the newest refresh token and its access token too.
            let after = try await W.token(
                base,
                [("grant_type", "refresh_token"), ("refresh_token", refresh2), ("client_id", "demo-app")]
            )
            #expect(W.json(after)["error"] as? String == "invalid_grant")
            #expect(try await W.bearer(base + "/1.1/statuses/home_timeline.json", access2).status == 401)
        }
    }

    @Test("client_credentials for a confidential client (Basic and post), not for a public one")
    func clientCredentials() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let basic = try await W.token(
                base,
                [("grant_type", "client_credentials"), ("scope", "statuses:read")],
                basic: Self.service
            )
            #expect(basic.status == 200, "\(basic.body)")
            let json = W.json(basic)
            #expect(Set(json.keys) == ["access_token", "token_type", "expires_in", "scope"])
            #expect(json["scope"] as? String == "statuses:read")
            let post = try await W.token(
                base,
                [
                    ("grant_type", "client_credentials"), ("client_id", "demo-service"),
                    ("client_secret", "demo-service-secret"),
                ]
            )
            #expect(post.status == 200)
            let publicClient = try await W.token(
                base,
                [("grant_type", "client_credentials"), ("client_id", "demo-app")]
            )
            #expect(publicClient.status == 400)
            #expect(W.json(publicClient)["error"] as? String == "unauthorized_client")
            let badScope = try await W.token(
                base,
                [("grant_type", "client_credentials"), ("scope", "admin")],
                basic: Self.service
            )
            #expect(W.json(badScope)["error"] as? String == "invalid_scope")
            let unknownGrant = try await W.token(base, [("grant_type", "password")], basic: Self.service)
            #expect(W.json(unknownGrant)["error"] as? String == "unsupported_grant_type")
        }
    }

    @Test("client authentication failures: invalid_client, 401 with a Basic challenge when Basic was used or a 401 is answered")
    func clientAuthentication() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let grant = [("grant_type", "client_credentials")]
            let wrong = try await W.token(base, grant, basic: (Self.service.id, "nope"))
            #expect(wrong.status == 401)
            #expect(wrong.header("WWW-Authenticate") == "Basic realm=\"RemoteAuth Sandbox\"")
            #expect(wrong.header("Cache-Control") == "no-store")
            #expect(W.json(wrong)["error"] as? String == "invalid_client")

            let posted = try await W.token(base, grant + [("client_id", "demo-service"), ("client_secret", "nope")])
            #expect(posted.status == 400)
            #expect(posted.header("WWW-Authenticate") == nil)
            #expect(W.json(posted)["error"] as? String == "invalid_client")

            let noSecret = try await W.token(base, grant + [("client_id", "demo-service")])
            #expect(W.json(noSecret)["error"] as? String == "invalid_client")
            let unknown = try await W.token(base, grant + [("client_id", "nobody")])
            #expect(W.json(unknown)["error"] as? String == "invalid_client")

            // A client assertion that does not verify: 401, and like every 401 with a challenge
            // (RFC 9110 §15.5.2), naming the scheme the endpoint takes (RFC 6749 §5.2). Found by
            // the sandbox_request fuzz target: it was a 401 without one.
            let assertion = try await W.token(
                base,
                grant + [
                    ("client_id", "demo-service"),
                    ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
                    ("client_assertion", "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJkZW1vLXNlcnZpY2UifQ.AAAA"),
                ]
            )
            #expect(assertion.status == 401)
            #expect(assertion.header("WWW-Authenticate") == "Basic realm=\"RemoteAuth Sandbox\"")
            #expect(W.json(assertion)["error"] as? String == "invalid_client")

            let twice = try await W.token(base, grant + [("client_secret", "demo-service-secret")], basic: Self.service)
            #expect(twice.status == 400)
            #expect(W.json(twice)["error"] as? String == "invalid_request")
        }
    }

    @Test("device flow: pending, slow_down, approve on /device, deny, expire")
    func deviceFlow() async throws {
        let clock = TestClock(1_800_000_000)
        var configuration = SandboxConfiguration.demo()
        configuration.now = { clock.now() }
        configuration.deviceCodeTTL = 30
        try await Sandbox.withSandbox(configuration) { sandbox in
            let base = sandbox.baseURL
            func start() async throws -> [String: Any] {
                let response = try await W.token(
                    base,
                    [("client_id", "demo-app"), ("scope", "statuses:read")],
                    endpoint: "/oauth2/device_authorization"
                )
                #expect(response.status == 200, "\(response.body)")
                return W.json(response)
            }
            func poll(_ deviceCode: String) async throws -> Exchange {
                try await W.token(
                    base,
                    [
                        ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode),
                        ("client_id", "demo-app"),
                    ]
                )
            }
            func answer(_ userCode: String, _ action: String) async throws -> Exchange {
                let page = try await Wire.get(base + "/device?user_code=" + userCode)
                #expect(page.status == 200)
                let csrf = try #require(W.hidden("authenticity_token", in: page.body))
                return try await Wire.postForm(
                    base + "/device",
                    [
                        ("authenticity_token", csrf), ("user_code", userCode.lowercased()), ("username", "alice"),
                        ("password", "wonderland"), ("action", action),
                    ]
                )
            }
            let started = try await start()
            #expect(
                Set(started.keys) == [
                    "device_code", "user_code", "verification_uri", "verification_uri_complete", "expires_in",
                    "interval",
                ]
            )
            #expect(started["verification_uri"] as? String == base + "/device")
            #expect(started["expires_in"] as? Int == 30)
            #expect(started["interval"] as? Int == 5)
            let userCode = try #require(started["user_code"] as? String)
            #expect(userCode.count == 9 && userCode.split(separator: "-").map(\.count) == [4, 4])
            #expect(started["verification_uri_complete"] as? String == base + "/device?user_code=" + userCode)
            let deviceCode = try #require(started["device_code"] as? String)

            #expect(W.json(try await poll(deviceCode))["error"] as? String == "authorization_pending")
            let fast = try await poll(deviceCode)
            #expect(fast.status == 400)
            #expect(W.json(fast)["error"] as? String == "slow_down")
            clock.advance(by: 10)
            #expect(W.json(try await poll(deviceCode))["error"] as? String == "authorization_pending")

            let approved = try await answer(userCode, "approve")
            #expect(approved.status == 200)
            #expect(approved.body.contains("Device approved"))
            clock.advance(by: 10)
            let tokens = try await poll(deviceCode)
            #expect(tokens.status == 200, "\(tokens.body)")
            #expect(W.json(tokens)["scope"] as? String == "statuses:read")
            #expect(W.json(tokens)["refresh_token"] is String)
            #expect(W.json(try await poll(deviceCode))["error"] as? String == "invalid_grant")

            let denied = try await start()
            #expect(try await answer(denied["user_code"] as? String ?? "", "deny").status == 200)
            #expect(
                W.json(try await poll(denied["device_code"] as? String ?? ""))["error"] as? String == "access_denied"
            )

            let expiring = try await start()
            clock.advance(by: 31)
            #expect(
                W.json(try await poll(expiring["device_code"] as? String ?? ""))["error"] as? String == "expired_token"
            )
        }
    }

    @Test("revocation: 200 for any token; a revoked access or refresh token stops working")
    func revoke() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let tokens = try await W.codeFlow(base)
            let access = try #require(tokens["access_token"] as? String)
            let refresh = try #require(tokens["refresh_token"] as? String)
            let unknown = try await W.token(
                base,
                [("token", "nonsense"), ("client_id", "demo-app")],
                endpoint: "/oauth2/revoke"
            )
            #expect(unknown.status == 200)
            #expect(unknown.body == "")
            let revoked = try await W.token(
                base,
                [("token", access), ("token_type_hint", "access_token"), ("client_id", "demo-app")],
                endpoint: "/oauth2/revoke"
            )
            #expect(revoked.status == 200)
            #expect(try await W.bearer(base + "/1.1/statuses/home_timeline.json", access).status == 401)
            let refreshRevoked = try await W.token(
                base,
                [("token", refresh), ("token_type_hint", "refresh_token"), ("client_id", "demo-app")],
                endpoint: "/oauth2/revoke"
            )
            #expect(refreshRevoked.status == 200)
            let after = try await W.token(
                base,
                [("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "demo-app")]
            )
            #expect(W.json(after)["error"] as? String == "invalid_grant")
        }
    }

    @Test("introspection: active token's members, {\"active\":false} otherwise, client authentication required")
    func introspect() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let tokens = try await W.codeFlow(base, scope: "statuses:read")
            let access = try #require(tokens["access_token"] as? String)
            let response = try await W.token(
                base,
                [("token", access)],
                basic: Self.service,
                endpoint: "/oauth2/introspect"
            )
            #expect(response.status == 200)
            let json = W.json(response)
            #expect(Set(json.keys) == ["active", "scope", "client_id", "username", "token_type", "exp", "iat"])
            #expect(json["active"] as? Bool == true)
            #expect(json["scope"] as? String == "statuses:read")
            #expect(json["client_id"] as? String == "demo-app")
            #expect(json["username"] as? String == "alice")
            #expect(json["token_type"] as? String == "Bearer")
            let exp = try #require(json["exp"] as? Int)
            let iat = try #require(json["iat"] as? Int)
            #expect(exp - iat == 3600)
            let inactive = try await W.token(
                base,
                [("token", "nonsense")],
                basic: Self.service,
                endpoint: "/oauth2/introspect"
            )
            #expect(inactive.body == "{\"active\":false}")
            let anonymous = try await W.token(base, [("token", access)], endpoint: "/oauth2/introspect")
            #expect(W.json(anonymous)["error"] as? String == "invalid_client")
        }
    }

    @Test("Bearer on the status API: 200, 401 invalid_token, 403 insufficient_scope with exact challenges")
    func bearerStatusAPI() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let readOnly = try #require(try await W.codeFlow(base, scope: "statuses:read")["access_token"] as? String)
            #expect(try await W.bearer(base + "/1.1/statuses/home_timeline.json", readOnly).status == 200)
            let forbidden = try await W.bearer(base + "/1.1/statuses/update.json", readOnly, post: "hi")
            #expect(forbidden.status == 403)
            #expect(
                forbidden.header("WWW-Authenticate")
                    == "Bearer realm=\"RemoteAuth Sandbox\", error=\"insufficient_scope\", scope=\"statuses:write\", resource_metadata=\"\(base)/.well-known/oauth-protected-resource/1.1\""
            )
            #expect(W.json(forbidden)["error"] as? String == "insufficient_scope")
            let bogus = try await W.bearer(base + "/1.1/statuses/home_timeline.json", "bogus")
            #expect(bogus.status == 401)
            #expect(
                bogus.header("WWW-Authenticate")
                    == "Bearer realm=\"RemoteAuth Sandbox\", error=\"invalid_token\", resource_metadata=\"\(base)/.well-known/oauth-protected-resource/1.1\""
            )
            let writer = try #require(try await W.codeFlow(base)["access_token"] as? String)
            let posted = try await W.bearer(base + "/1.1/statuses/update.json", writer, post: "hello from OAuth 2")
            #expect(posted.status == 200, "\(posted.body)")
            #expect(posted.body.contains("\"text\":\"hello from OAuth 2\""))
            #expect(posted.body.contains("\"screen_name\":\"alice\""))
            let timeline = try await W.bearer(base + "/1.1/statuses/home_timeline.json", writer)
            #expect(timeline.body.contains("hello from OAuth 2"))
        }
    }

    @Test("redirect_uri: a registered loopback one on any port; others shown, never redirected to")
    func redirectRules() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let challenge = W.pkce().challenge
            for port in ["1", "8080", "65000"] {
                let page = try await Wire.get(
                    W.authorizeURL(base, redirectURI: "http://127.0.0.1:\(port)/callback", challenge: challenge)
                )
                #expect(page.status == 200)
            }
            for redirect in [
                "http://127.0.0.1:8080/other", "https://127.0.0.1/callback", "http://evil.example/callback",
            ] {
                let page = try await Wire.get(W.authorizeURL(base, redirectURI: redirect, challenge: challenge))
                #expect(page.status == 400)
                #expect(page.header("Location") == nil)
                #expect(page.body.contains("Invalid redirect URI"))
            }
            let unknown = try await Wire.get(W.authorizeURL(base, clientID: "nobody", challenge: challenge))
            #expect(unknown.status == 400)
            #expect(unknown.header("Location") == nil)
            // With a good client and redirect, errors go back to the client, with state and iss.
            let noPKCE = try await Wire.get(W.authorizeURL(base, challenge: nil))
            #expect(noPKCE.status == 302)
            let query = queryParameters(noPKCE.header("Location") ?? "")
            #expect(query["error"] == "invalid_request")
            #expect(query["state"] == "xyz")
            #expect(query["iss"] == base)
            let badScope = try await Wire.get(W.authorizeURL(base, challenge: challenge, scope: "admin"))
            #expect(queryParameters(badScope.header("Location") ?? "")["error"] == "invalid_scope")
            let badType = try await Wire.get(W.authorizeURL(base, challenge: challenge, responseType: "token"))
            #expect(queryParameters(badType.header("Location") ?? "")["error"] == "unsupported_response_type")
            let denied = try await W.consent(W.authorizeURL(base, challenge: challenge), action: "deny")
            #expect(denied.status == 302)
            let deniedQuery = queryParameters(denied.header("Location") ?? "")
            #expect(deniedQuery["error"] == "access_denied")
            #expect(deniedQuery["state"] == "xyz")
            #expect(deniedQuery["iss"] == base)
            #expect(deniedQuery["code"] == nil)
        }
    }

    @Test("--auto-approve and --implicit: a code at once; the token in the fragment")
    func autoApproveAndImplicit() async throws {
        var configuration = SandboxConfiguration.demo()
        configuration.autoApprove = true
        configuration.implicitGrant = true
        configuration.accessTokenTTL = 120
        try await Sandbox.withSandbox(configuration) { sandbox in
            let base = sandbox.baseURL
            let code = try await Wire.get(W.authorizeURL(base, challenge: W.pkce().challenge))
            #expect(code.status == 302)
            #expect(queryParameters(code.header("Location") ?? "")["code"] != nil)
            let implicit = try await Wire.get(W.authorizeURL(base, challenge: nil, responseType: "token"))
            let location = try #require(implicit.header("Location"))
            #expect(location.hasPrefix(W.loopbackRedirect + "#access_token="))
            let fragment = queryParameters("?" + (location.split(separator: "#").last.map(String.init) ?? ""))
            #expect(fragment["token_type"] == "Bearer")
            #expect(fragment["expires_in"] == "120")
            #expect(fragment["state"] == "xyz")
            #expect(fragment["iss"] == base)
            #expect(
                try await W.bearer(base + "/1.1/statuses/home_timeline.json", fragment["access_token"] ?? "").status
                    == 200
            )
        }
    }

    @Test("the request log: one line per OAuth 2 request, the error code as outcome, no query")
    func requestLog() async throws {
        let lines = Locked<[String]>([])
        var configuration = SandboxConfiguration.demo()
        configuration.requestLog = { entry in lines.withLock { $0.append(entry.description) } }
        try await Sandbox.withSandbox(configuration) { sandbox in
            let base = sandbox.baseURL
            _ = try await W.token(
                base,
                [("grant_type", "authorization_code"), ("code", "x"), ("client_id", "demo-app")]
            )
            _ = try await Wire.get(W.authorizeURL(base, challenge: nil))
            _ = try await W.bearer(base + "/1.1/statuses/home_timeline.json", "bogus")
        }
        #expect(
            lines.withLock { $0 } == [
                "POST /oauth2/token 400 error=invalid_request",
                "GET /oauth2/authorize 302 error=invalid_request",
                "GET /1.1/statuses/home_timeline.json 401 error=invalid_token",
            ]
        )
    }
}

@Suite("Sandbox OAuth 2 configuration")
struct SandboxOAuth2ConfigurationTests {
    @Test("the banner names a client without a secret by its authentication method, 'public' only when it has none")
    func bannerNamesAuthenticationMethods() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("oauth2-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: path) }
        try Data(
            """
            {"oauth2Clients":[{"id":"jwt-client","tokenEndpointAuthMethod":"private_key_jwt","jwks":{"keys":[]}},
                              {"id":"mtls","tokenEndpointAuthMethod":"self_signed_tls_client_auth",
                               "tlsClientCertificateSHA256":"A4DtL2JmUMhAsvJj5tKyn64SqzmuXbMrJa0n761y5v0"},
                              {"id":"spa"}]}
            """.utf8
        ).write(to: path)
        var configuration = SandboxConfiguration.demo()
        try configuration.load(configFile: path.path)
        let lines = SandboxBanner.identities(configuration).split(separator: "\n").filter {
            $0.contains("oauth2 client")
        }
        #expect(
            lines == [
                "  oauth2 client demo-app (public)  redirect http://127.0.0.1/callback",
                "  oauth2 client demo-service / demo-service-secret  redirect http://127.0.0.1/callback",
                "  oauth2 client jwt-client (private_key_jwt)",
                "  oauth2 client mtls (self_signed_tls_client_auth)",
                "  oauth2 client spa (public)",
            ]
        )
        let endpoints = SandboxBanner.endpoints(base: "http://127.0.0.1:8080")
        for path in ["/oauth2/par", "/oauth2/jwks", "/oauth2/userinfo", "/oauth2/logout"] {
            #expect(endpoints.contains("http://127.0.0.1:8080\(path) "), "\(path)")
        }
    }

    @Test("--config adds OAuth 2 clients: a confidential one with an exact redirect, a service without one")
    func configFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("oauth2-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: path) }
        try Data(
            """
            {"oauth2Clients":[{"id":"web","secret":"web-secret","name":"Web","redirectURIs":["https://app.example/cb"]},
                              {"id":"batch","secret":"batch-secret"}]}
            """.utf8
        ).write(to: path)
        var configuration = SandboxConfiguration.demo()
        try configuration.load(configFile: path.path)
        #expect(configuration.oauth2Clients.map(\.id) == ["demo-app", "demo-service", "web", "batch"])
        #expect(configuration.oauth2Clients.last?.redirectURIs == [])
        #expect("\(configuration.oauth2Clients[2])" == "OAuth2Client(id: web, secret: <redacted>)")
        try await Sandbox.withSandbox(configuration) { sandbox in
            let base = sandbox.baseURL
            let pkce = OAuth2Wire.pkce()
            let url = OAuth2Wire.authorizeURL(
                base,
                clientID: "web",
                redirectURI: "https://app.example/cb",
                challenge: pkce.challenge
            )
            let answer = try await OAuth2Wire.consent(url)
            let location = try #require(answer.header("Location"))
            #expect(location.hasPrefix("https://app.example/cb?code="))
            let code = try #require(queryParameters(location)["code"])
            let response = try await OAuth2Wire.token(
                base,
                [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", "https://app.example/cb"),
                    ("code_verifier", pkce.verifier),
                ],
                basic: ("web", "web-secret")
            )
            #expect(response.status == 200, "\(response.body)")
            let otherPort = try await Wire.get(
                OAuth2Wire.authorizeURL(
                    base,
                    clientID: "web",
                    redirectURI: "https://app.example:8443/cb",
                    challenge: pkce.challenge
                )
            )
            #expect(otherPort.status == 400)
            let batch = try await OAuth2Wire.token(
                base,
                [("grant_type", "client_credentials")],
                basic: ("batch", "batch-secret")
            )
            #expect(batch.status == 200)
        }
    }
}
