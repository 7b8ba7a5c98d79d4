import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// Issue 22, item 1 (RFC 9700 §4.5): a local process that knows `state` sends an access token
/// to the loopback callback before the browser arrives. The code flow refuses it with a typed
/// error, the listener shows an error page and keeps waiting, and the real sign-in then stores
/// the real token, never the attacker's. With `--paste`, the injected redirect fails the sign-in.
@Suite(.timeLimit(.minutes(5))) struct TokenInjectionCLITests {
    static let attacker = "ATTACKER-TOKEN"

    @Test(arguments: [[String](), ["--oidc"], ["--dpop"]])
    func anInjectedTokenIsRefusedAndTheRealSignInGoesOn(_ extra: [String]) async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve"])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home]
        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--profile", "victim", "--issuer", base, "--client-id", "demo-app",
                "--scope", "statuses:read", "--no-browser", "--timeout", CLI.hangGuardSeconds,
            ] + extra,
            environment: environment
        )
        try await authorize.waitForError("Waiting for the browser")
        let url = try #require(authorize.line(startingWith: base + "/oauth2/authorize?"), "\(authorize.errors)")
        let query = try #require(URLComponents(string: url)?.queryItems)
        let state = try #require(query.first { $0.name == "state" }?.value)
        let callback = try #require(query.first { $0.name == "redirect_uri" }?.value)
        let issuer = try #require(base.addingPercentEncoding(withAllowedCharacters: .alphanumerics))

        // The attacker's request, with the right state and iss.
        let injected =
            callback + "?access_token=\(Self.attacker)&token_type=Bearer&expires_in=3600&state=\(state)&iss=\(issuer)"
        let refused = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: injected))
        #expect(refused.0 == 400)
        #expect(refused.1.contains("the redirect carries an access_token, but the request asked for a code"))
        #expect(!refused.1.contains("signed in"))
        try await authorize.waitForError("Ignored a request to")
        #expect(
            authorize.errors.contains(
                "Ignored a request to \(callback): the redirect carries an access_token, but the request asked for a code (response_type=code): tokens in a code flow's redirect are refused (RFC 6749 §4.1.2, RFC 9700 §4.5); still waiting.\n"
            )
        )

        // The real browser, after it.
        let redirect = try await httpGetLocation(url)
        #expect(redirect.hasPrefix(callback + "?code="))
        let landing = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: redirect))
        #expect(landing.0 == 200)
        #expect(landing.1.contains("You are signed in."))
        let signedIn = await authorize.finish()
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        #expect(signedIn.stdout.contains("Signed in; saved as profile 'victim'."))

        let token = try await CLI.run(["token", "--profile", "victim"], environment: environment)
        #expect(token.status == 0, "\(token.stderr)")
        #expect(!token.stdout.isEmpty)
        #expect(!token.stdout.contains(Self.attacker))
    }

    @Test func aPastedRedirectWithTokensFailsTheSignIn() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve"])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home]
        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--profile", "pasted", "--issuer", base, "--client-id", "demo-app",
                "--scope", "statuses:read", "--paste", "--redirect-uri", "http://127.0.0.1:9/callback",
            ],
            environment: environment
        )
        try await authorize.waitForError("paste the address")
        var url: String? = nil
        for _ in 0..<50 where url == nil {
            url = authorize.line(startingWith: base + "/oauth2/authorize?")
            if url == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let authorizationURL = try #require(url)
        let state = try #require(
            URLComponents(string: authorizationURL)?.queryItems?.first { $0.name == "state" }?.value
        )
        let issuer = try #require(base.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let pasted =
            "http://127.0.0.1:9/callback#access_token=\(Self.attacker)&token_type=Bearer&state=\(state)&iss=\(issuer)"
        authorize.input.fileHandleForWriting.write(Data((pasted + "\n").utf8))
        let result = await authorize.finish()
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.hasSuffix(
                "remote-auth: sign-in failed: the redirect carries an access_token, but the request asked for a code (response_type=code): tokens in a code flow's redirect are refused (RFC 6749 §4.1.2, RFC 9700 §4.5)\n"
            )
        )
        #expect(!result.stdout.contains("Signed in"))
        let token = try await CLI.run(["token", "--profile", "pasted"], environment: environment)
        #expect(token.status != 0)
        #expect(!token.stdout.contains(Self.attacker))
    }

    /// What the listener cannot serve is refused, not rewritten; a fixed port is honoured.
    @Test func theRedirectURIIsHonouredOrRefused() async throws {
        for (uri, message) in [
            (
                "https://127.0.0.1/callback",
                "--redirect-uri must be http://127.0.0.1[:PORT]/PATH for the loopback listener (RFC 8252 §7.3), not https"
            ),
            (
                "http://client.example/callback",
                "--redirect-uri must name 127.0.0.1 (or localhost), where the listener runs, not 'client.example'"
            ),
        ] {
            let result = try await CLI.run(
                [
                    "authorize", "oauth2", "--profile", "p", "--authorization-url", "https://as.example/a",
                    "--token-url", "https://as.example/t", "--client-id", "c", "--redirect-uri", uri, "--no-browser",
                ],
                environment: ["REMOTE_AUTH_HOME": OAuth2CLITests.home()]
            )
            #expect(result.status == 2)
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
        // A fixed port: the listener is there, and the authorization URL names it exactly.
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve"])
        let base = try await sandbox.baseURL()
        let port = Int.random(in: 40000..<60000)
        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--profile", "fixed", "--issuer", base, "--client-id", "demo-app",
                "--redirect-uri", "http://127.0.0.1:\(port)/callback", "--no-browser", "--timeout", CLI.hangGuardSeconds,
            ],
            environment: ["REMOTE_AUTH_HOME": home]
        )
        try await authorize.waitForError("Waiting for the browser")
        if authorize.errors.contains("is in use") { return }  // the random port was taken: nothing to check
        let url = try #require(authorize.line(startingWith: base + "/oauth2/authorize?"), "\(authorize.errors)")
        #expect(url.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A\(port)%2Fcallback&"))
        let redirect = try await httpGetLocation(url)
        #expect(redirect.hasPrefix("http://127.0.0.1:\(port)/callback?code="))
        _ = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: redirect))
        let result = await authorize.finish()
        #expect(result.status == 0, "\(result.stderr)")
    }
}
