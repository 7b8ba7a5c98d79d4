import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthSandbox
import Testing

/// The OAuth 1.0a provider over real sockets on 127.0.0.1, signed by RemoteAuth's signer.
@Suite(.timeLimit(.minutes(5))) struct SandboxOAuthTests {
    @Test func threeLeggedFlowAndAPI() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let requestToken = try await obtainRequestToken(base)
            #expect(requestToken.token.hasPrefix("rt-"))

            // The consent page names the app and asks for the login.
            let page = try await Wire.get(base + "/oauth/authorize?oauth_token=" + requestToken.token)
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.body.contains("RemoteAuth Demo"))
            #expect(page.body.contains("id=\"username\""))
            #expect(page.body.contains("id=\"allow\""))

            let approved = try await consent(base, token: requestToken.token)
            #expect(approved.status == 302)
            let location = try #require(approved.header("Location"))
            #expect(
                location.hasPrefix(
                    "http://127.0.0.1:9/callback?app=1&oauth_token=\(requestToken.token)&oauth_verifier="
                )
            )
            #expect(approved.header("Set-Cookie")?.hasPrefix("remote_auth_session=") == true)
            let verifier = try #require(queryParameters(location)["oauth_verifier"])

            let exchange = try await OAuthClient(client: demoClient, token: requestToken).send(
                .post,
                base + "/oauth/access_token",
                options: .init(verifier: verifier)
            )
            #expect(exchange.status == 200)
            #expect(exchange.form["screen_name"] == "alice")
            #expect(exchange.form["user_id"] == "1001")
            let access = OAuth1.TokenCredentials(
                token: exchange.form["oauth_token"]!,
                secret: exchange.form["oauth_token_secret"]!
            )

            let api = OAuthClient(client: demoClient, token: access)
            let text = "Hello Ladies + Gentlemen, 100% & ünïcödé 😀"
            let posted = try await api.send(.post, base + "/1.1/statuses/update.json", form: [("status", text)])
            #expect(posted.status == 200, "\(posted.body)")
            let status = try JSONSerialization.jsonObject(with: Data(posted.body.utf8)) as! [String: Any]
            #expect(status["text"] as? String == text)

            let timeline = try await api.send(.get, base + "/1.1/statuses/home_timeline.json?count=5")
            let statuses = try JSONSerialization.jsonObject(with: Data(timeline.body.utf8)) as! [[String: Any]]
            #expect(statuses.first?["text"] as? String == text)

            let me = try await api.send(.get, base + "/1.1/account/verify_credentials.json")
            #expect(me.status == 200)
            #expect(me.body.contains("\"screen_name\":\"alice\""))

            // The verifier is single use.
            let again = try await OAuthClient(client: demoClient, token: requestToken).send(
                .post,
                base + "/oauth/access_token",
                options: .init(verifier: verifier)
            )
            #expect(again.status == 401)
            #expect(again.form["oauth_problem"] == "token_used")
        }
    }

    /// Each refusal answers with its `oauth_problem`, in the body and in `WWW-Authenticate`.
    @Test func problems() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let access = try await signIn(base)
            let url = base + "/1.1/account/verify_credentials.json"
            func expectProblem(
                _ response: Exchange,
                _ status: Int,
                _ problem: String,
                others: [String] = [],
                sourceLocation: SourceLocation = #_sourceLocation
            ) {
                #expect(response.status == status, "\(response.body)", sourceLocation: sourceLocation)
                #expect(response.form["oauth_problem"] == problem, "\(response.body)", sourceLocation: sourceLocation)
                // Every field line: a signed request that fails gets its OAuth challenge alone.
                #expect(
                    response.headers.filter { $0.0.lowercased() == "www-authenticate" }.map(\.1)
                        == ["OAuth realm=\"RemoteAuth Sandbox\", oauth_problem=\"\(problem)\""] + others,
                    sourceLocation: sourceLocation
                )
            }

            // Unsigned: no credentials at all, so every scheme the status API takes (RFC 9110 §11.6.1).
            let metadata = base + "/.well-known/oauth-protected-resource/1.1"
            expectProblem(
                try await Wire.get(url),
                401,
                "parameter_absent",
                others: [
                    "Bearer realm=\"RemoteAuth Sandbox\", resource_metadata=\"\(metadata)\"",
                    "DPoP algs=\"ES256 Ed25519 EdDSA PS256 RS256\", resource_metadata=\"\(metadata)\"",
                ]
            )
            // Wrong client secret; wrong token secret.
            var wrong = OAuthClient(client: .init(key: "demo-consumer", secret: "not-the-secret"), token: access)
            expectProblem(try await wrong.send(.get, url), 401, "signature_invalid")
            wrong = OAuthClient(client: demoClient, token: .init(token: access.token, secret: "not-the-secret"))
            expectProblem(try await wrong.send(.get, url), 401, "signature_invalid")
            // Unknown client, unknown token.
            expectProblem(
                try await OAuthClient(client: .init(key: "who", secret: "x"), token: access).send(.get, url),
                401,
                "consumer_key_unknown"
            )
            expectProblem(
                try await OAuthClient(client: demoClient, token: .init(token: "nope", secret: "x")).send(.get, url),
                401,
                "token_rejected"
            )
            // A replayed request: the same nonce and timestamp.
            let api = OAuthClient(client: demoClient, token: access)
            let signed = try api.sign(.get, url, nonce: "fixed-nonce-1")
            #expect(try await Wire.send(signed.request).status == 200)
            expectProblem(try await Wire.send(signed.request), 401, "nonce_used")
            // A timestamp an hour old.
            let old = String(Int64(Date().timeIntervalSince1970) - 3600)
            expectProblem(try await api.send(.get, url, timestamp: old), 401, "timestamp_refused")
            // Unsupported method and version; duplicated parameter.
            var request = try HTTPRequest(method: .get, absoluteURL: url)
            request.headerFields[.authorization] =
                "OAuth oauth_consumer_key=\"demo-consumer\", oauth_token=\"\(access.token)\", oauth_signature_method=\"HMAC-MD5\", oauth_signature=\"x\", oauth_timestamp=\"1\", oauth_nonce=\"n\""
            expectProblem(try await Wire.send(request), 400, "signature_method_rejected")
            var signedTwice = try api.sign(.get, url)
            signedTwice.request.path = (signedTwice.request.path ?? "/") + "?oauth_nonce=again"
            expectProblem(try await Wire.send(signedTwice.request), 400, "parameter_rejected")
            // oauth_callback is required on request_token.
            let noCallback = try await OAuthClient(client: demoClient).send(.post, base + "/oauth/request_token")
            expectProblem(noCallback, 400, "parameter_absent")
            #expect(noCallback.form["oauth_parameters_absent"] == "oauth_callback")
        }
    }

    @Test func wrongVerifierThenRightOne() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let requestToken = try await obtainRequestToken(base)
            let approved = try await consent(base, token: requestToken.token)
            let verifier = try #require(queryParameters(approved.header("Location") ?? "")["oauth_verifier"])
            let client = OAuthClient(client: demoClient, token: requestToken)
            let wrong = try await client.send(
                .post,
                base + "/oauth/access_token",
                options: .init(verifier: verifier + "x")
            )
            #expect(wrong.status == 401)
            #expect(wrong.form["oauth_problem"] == "verifier_invalid")
            // A wrong guess does not burn the token.
            let right = try await client.send(.post, base + "/oauth/access_token", options: .init(verifier: verifier))
            #expect(right.status == 200)
        }
    }

    @Test func deniedConsent() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let requestToken = try await obtainRequestToken(base)
            let denied = try await consent(base, token: requestToken.token, action: "deny")
            #expect(denied.status == 302)
            #expect(denied.header("Location") == "http://127.0.0.1:9/callback?app=1&denied=\(requestToken.token)")
            let exchange = try await OAuthClient(client: demoClient, token: requestToken).send(
                .post,
                base + "/oauth/access_token",
                options: .init(verifier: "anything")
            )
            #expect(exchange.status == 401)
            #expect(exchange.form["oauth_problem"] == "permission_denied")
        }
    }

    @Test func wrongPasswordShowsTheFormAgain() async throws {
        try await Sandbox.withSandbox { sandbox in
            let requestToken = try await obtainRequestToken(sandbox.baseURL)
            let response = try await consent(sandbox.baseURL, token: requestToken.token, password: "nope")
            #expect(response.status == 200)
            #expect(response.body.contains("id=\"error\""))
            #expect(!response.body.contains("nope"))
        }
    }

    @Test func pinFlow() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let requestToken = try await obtainRequestToken(base, callback: "oob")
            let page = try await consent(base, token: requestToken.token)
            #expect(page.status == 200)
            let marker = try #require(page.body.range(of: "<code id=\"pin\">"))
            let pin = String(page.body[marker.upperBound...].prefix(7))
            #expect(pin.count == 7 && pin.allSatisfy(\.isNumber))
            let exchange = try await OAuthClient(client: demoClient, token: requestToken).send(
                .post,
                base + "/oauth/access_token",
                options: .init(verifier: pin)
            )
            #expect(exchange.status == 200)
            #expect(exchange.form["screen_name"] == "alice")
        }
    }

    @Test func autoApprove() async throws {
        var configuration = SandboxConfiguration.demo()
        configuration.autoApprove = true
        try await Sandbox.withSandbox(configuration) { sandbox in
            let requestToken = try await obtainRequestToken(sandbox.baseURL)
            let response = try await Wire.get(sandbox.baseURL + "/oauth/authorize?oauth_token=" + requestToken.token)
            #expect(response.status == 302)
            #expect(queryParameters(response.header("Location") ?? "")["oauth_token"] == requestToken.token)
        }
    }

    /// Twitter's reverse auth: the special request token, then the device's signed call.
    @Test func reverseAuth() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let step1 = try await OAuthClient(client: demoClient).send(
                .post,
                base + "/oauth/request_token",
                form: [("x_auth_mode", "reverse_auth")]
            )
            #expect(step1.status == 200)
            #expect(step1.body.hasPrefix("OAuth oauth_consumer_key=\"demo-consumer\", oauth_nonce=\""))
            let device = OAuthClient(
                client: .init(key: "demo-device", secret: "demo-device-secret"),
                token: .init(token: "alice-device-token", secret: "alice-device-token-secret")
            )
            let form = [("x_reverse_auth_target", "demo-consumer"), ("x_reverse_auth_parameters", step1.body)]
            let step2 = try await device.send(.post, base + "/oauth/access_token", form: form)
            #expect(step2.status == 200, "\(step2.body)")
            #expect(step2.form["screen_name"] == "alice")
            // The token works for the target client.
            let access = OAuth1.TokenCredentials(
                token: step2.form["oauth_token"]!,
                secret: step2.form["oauth_token_secret"]!
            )
            let me = try await OAuthClient(client: demoClient, token: access).send(
                .get,
                base + "/1.1/account/verify_credentials.json"
            )
            #expect(me.status == 200)
            // The parameters are single use; tampered ones are refused.
            let reused = try await device.send(.post, base + "/oauth/access_token", form: form)
            #expect(reused.form["oauth_problem"] == "token_used")
            let tampered = step1.body.replacingOccurrences(of: "oauth_signature=\"", with: "oauth_signature=\"A")
            let forged = try await device.send(
                .post,
                base + "/oauth/access_token",
                form: [("x_reverse_auth_target", "demo-consumer"), ("x_reverse_auth_parameters", tampered)]
            )
            #expect(forged.status == 401)
        }
    }

    /// Query and body placement (RFC 5849 §3.5.2, §3.5.3), HMAC-SHA256 and PLAINTEXT.
    @Test(arguments: [
        (OAuth1.Placement.query, OAuth1.SignatureMethod.hmacSHA1), (.body, .hmacSHA1), (.header, .hmacSHA256),
        (.header, .plaintext),
    ])
    func placementsAndMethods(placement: OAuth1.Placement, method: OAuth1.SignatureMethod) async throws {
        try await Sandbox.withSandbox { sandbox in
            let access = try await signIn(sandbox.baseURL)
            var client = OAuthClient(client: demoClient, token: access)
            client.method = method
            let response = try await client.send(
                .post,
                sandbox.baseURL + "/1.1/statuses/update.json",
                form: [("status", "placed in \(placement)")],
                options: .init(placement: placement)
            )
            #expect(response.status == 200, "\(response.body)")
        }
    }

    /// An RSA-SHA1 client registered with its public key (the RFC 5849 test key).
    @Test func rsaClient() async throws {
        let vectors =
            try JSONSerialization.jsonObject(with: Data(contentsOf: try vectorsFile("oauth1_signing.json")))
            as! [[String: Any]]
        let rsa = vectors.first { $0["name"] as? String == "rfc5849_1.2_photos_rsa_sha1" }!
        var configuration = SandboxConfiguration.demo()
        configuration.consumers.append(
            .init(key: "rsa-app", name: "RSA App", rsaPublicKeyPEM: rsa["rsa_public_key_pem"] as? String)
        )
        let privateKeyPEM = rsa["rsa_private_key_pem"] as! String
        try await Sandbox.withSandbox(configuration) { sandbox in
            var client = OAuthClient(client: .init(key: "rsa-app", secret: ""))
            client.method = .rsaSHA1
            client.privateKey = try OAuth1.RSAPrivateKey(pemRepresentation: privateKeyPEM)
            let response = try await client.send(
                .post,
                sandbox.baseURL + "/oauth/request_token",
                options: .init(callback: "oob")
            )
            #expect(response.status == 200, "\(response.body)")
            // HMAC from an RSA client is refused.
            let hmac = try await OAuthClient(client: .init(key: "rsa-app", secret: "")).send(
                .post,
                sandbox.baseURL + "/oauth/request_token",
                options: .init(callback: "oob")
            )
            #expect(hmac.form["oauth_problem"] == "signature_method_rejected")
        }
    }

    /// Tokens survive a restart with `statePath`; the file is 0600.
    @Test func statePersistsAcrossRestarts() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sandbox-state-\(UUID().uuidString).json"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = SandboxConfiguration.demo()
        configuration.statePath = path
        let access = try await Sandbox.withSandbox(configuration) { sandbox in try await signIn(sandbox.baseURL) }
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        try await Sandbox.withSandbox(configuration) { sandbox in
            let me = try await OAuthClient(client: demoClient, token: access).send(
                .get,
                sandbox.baseURL + "/1.1/account/verify_credentials.json"
            )
            #expect(me.status == 200)
        }
    }
}

/// `Tests/Vectors/NAME` under the package root; throws when it is missing.
func vectorsFile(_ name: String, file: String = #filePath) throws -> URL {
    var dir = URL(fileURLWithPath: file).deletingLastPathComponent()
    while dir.path != "/" {
        if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
            let url = dir.appendingPathComponent("Tests/Vectors/\(name)")
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw SandboxError("vector file \(url.path) is missing")
            }
            return url
        }
        dir = dir.deletingLastPathComponent()
    }
    throw SandboxError("no Package.swift above \(file)")
}
