import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import RemoteAuth
import RemoteAuthFileStore
import Testing

/// The `Location` of a GET answered with a redirect.
func httpGetLocation(_ url: String) async throws -> String {
    let client = CLI.httpClient()
    do {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: CLI.hangGuardAmount)
        _ = try await response.body.collect(upTo: 1 << 20)
        try await client.shutdown()
        return response.headers["Location"].first ?? ""
    } catch {
        try? await client.shutdown()
        throw error
    }
}

/// `remote-auth authorize oauth2` against a `remote-auth sandbox` process, then `request`,
/// `token`, `profiles show` and `revoke` with the profile.
@Suite(.timeLimit(.minutes(5))) struct OAuth2CLITests {
    static func home() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("remote-auth-home-\(UUID().uuidString)").path
    }

    @Test func codeWithPKCEThroughTheLoopbackThenRequestTokenShowRevoke() async throws {
        let home = Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve"])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home]

        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--profile", "o2", "--issuer", base, "--client-id", "demo-app",
                "--scope", "statuses:read statuses:write", "--no-browser", "--timeout", CLI.hangGuardSeconds,
            ],
            environment: environment
        )
        try await authorize.waitForError("Waiting for the browser")
        let url = try #require(authorize.line(startingWith: base + "/oauth2/authorize?"), "\(authorize.errors)")
        #expect(url.contains("code_challenge_method=S256"))
        #expect(url.contains("client_id=demo-app"))
        // The browser's part: the sandbox approves at once and redirects to the listener.
        let redirect = try await httpGetLocation(url)
        #expect(redirect.hasPrefix("http://127.0.0.1:"))
        #expect(redirect.contains("/callback?"))
        let landing = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: redirect))
        #expect(landing.0 == 200)
        let signedIn = await authorize.finish()
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        #expect(signedIn.stdout == url + "\nSigned in; saved as profile 'o2'.\n")
        #expect(
            signedIn.stderr.hasPrefix(
                "Open this URL in a browser:\nWaiting for the browser to come back to http://127.0.0.1:"
            )
        )

        let posted = try await CLI.run(
            [
                "request", "--profile", "o2", "--data-urlencode", "status=Bearer from the tool",
                base + "/1.1/statuses/update.json",
            ],
            environment: environment
        )
        #expect(posted.status == 0, "\(posted.stderr)")
        #expect(posted.stdout.contains("\"text\":\"Bearer from the tool\""))
        let verbose = try await CLI.run(
            ["request", "-v", "--profile", "o2", base + "/1.1/statuses/home_timeline.json"],
            environment: environment
        )
        #expect(verbose.status == 0, "\(verbose.stderr)")
        #expect(verbose.stdout.contains("Bearer from the tool"))
        #expect(verbose.stderr.contains("> Authorization: Bearer <redacted>\n"), "\(verbose.stderr)")

        let token = try await CLI.run(["token", "--profile", "o2"], environment: environment)
        #expect(token.status == 0, "\(token.stderr)")
        #expect(token.stderr == "")
        let accessToken = token.stdout.trimmingCharacters(in: .newlines)
        #expect(token.stdout == accessToken + "\n")
        #expect(!accessToken.isEmpty && !accessToken.contains(" "))
        // The token works as a curl user would use it.
        var bearer = try HTTPRequest(method: .get, absoluteURL: base + "/1.1/statuses/home_timeline.json")
        bearer.headerFields[.authorization] = "Bearer " + accessToken
        #expect(try await httpExchange(bearer).0 == 200)

        let elsewhere = try await CLI.run(
            ["request", "--profile", "o2", "http://127.0.0.1:1/x"],
            environment: environment
        )
        #expect(elsewhere.status == 2)
        #expect(elsewhere.stdout == "")
        #expect(
            elsewhere.stderr
                == "remote-auth: profile 'o2' sends its token to \(authScope(base)) only, not to http://127.0.0.1:1\n"
        )

        let list = try await CLI.run(["profiles", "list"], environment: environment)
        #expect(list.stdout == "o2 demo-app demo-app file\n")
        let show = try await CLI.run(["profiles", "show", "o2"], environment: environment)
        #expect(show.status == 0)
        #expect(!show.stdout.contains(accessToken))
        let lines = show.stdout.split(separator: "\n").map(String.init)
        #expect(
            Array(lines.prefix(13)) == [
                "profile: o2", "account: demo-app", "store: file", "type: OAuth 2", "issuer: \(base)",
                "token endpoint: \(base)/oauth2/token", "revocation endpoint: \(base)/oauth2/revoke",
                "introspection endpoint: \(base)/oauth2/introspect",
                // Every endpoint the discovered metadata named is kept with the profile.
                "authorization endpoint: \(base)/oauth2/authorize", "par endpoint: \(base)/oauth2/par",
                "device endpoint: \(base)/oauth2/device_authorization",
                "metadata: as discovered from \(base) (iss in redirects)", "client: demo-app (none)",
            ]
        )
        #expect(lines.contains("scope: statuses:read statuses:write"))
        #expect(lines.contains("resources: \(authScope(base))"))
        #expect(lines.last?.hasPrefix("tokens: ") == true)

        let revoked = try await CLI.run(["revoke", "--profile", "o2"], environment: environment)
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(revoked.stdout == "Revoked and removed profile 'o2'.\n")
        #expect(try await httpExchange(bearer).0 == 401)
        let gone = try await CLI.run(["token", "--profile", "o2"], environment: environment)
        #expect(gone.status == 2)
        #expect(gone.stdout == "")
        #expect(gone.stderr == "remote-auth: unknown profile: 'o2' (see 'remote-auth profiles list')\n")
    }

    @Test func pasteTheRedirect() async throws {
        let home = Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve"])
        let base = try await sandbox.baseURL()
        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--profile", "pasted", "--issuer", base, "--client-id", "demo-app",
                "--scope", "statuses:read",
                "--paste", "--redirect-uri", "http://127.0.0.1:9/callback",
            ],
            environment: ["REMOTE_AUTH_HOME": home]
        )
        try await authorize.waitForError("paste the address")
        var url: String? = nil
        for _ in 0..<50 where url == nil {
            url = authorize.line(startingWith: base + "/oauth2/authorize?")
            if url == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let redirect = try await httpGetLocation(try #require(url))
        #expect(redirect.hasPrefix("http://127.0.0.1:9/callback?code="))
        authorize.input.fileHandleForWriting.write(Data((redirect + "\n").utf8))
        let result = await authorize.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("\nSigned in; saved as profile 'pasted'.\n"))
        #expect(result.stderr == "Open this URL in a browser, authorize, then paste the address it was sent to:\n")
        let timeline = try await CLI.run(
            ["request", "--profile", "pasted", base + "/1.1/statuses/home_timeline.json"],
            environment: ["REMOTE_AUTH_HOME": home]
        )
        #expect(timeline.status == 0, "\(timeline.stderr)")
    }

    @Test func clientCredentials() async throws {
        let home = Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess([])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home]
        let signedIn = try await CLI.run(
            [
                "authorize", "oauth2", "--client-credentials", "--profile", "svc", "--issuer", base,
                "--client-id", "demo-service", "--client-secret", "-", "--scope", "statuses:read",
                "--resource", base + "/1.1/",
            ],
            environment: environment,
            stdin: "demo-service-secret\n"
        )
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        #expect(signedIn.stdout == "Signed in; saved as profile 'svc'.\n")
        #expect(signedIn.stderr == "")
        let show = try await CLI.run(["profiles", "show", "svc"], environment: environment)
        #expect(
            show.stdout.contains(
                "client: demo-service (client_secret_basic)\nclient secret: <redacted>\ngrant: client_credentials\n"
            )
        )
        #expect(!show.stdout.contains("demo-service-secret"))
        #expect(show.stdout.contains("\nresources: \(base)\n"), "\(show.stdout)")
        let timeline = try await CLI.run(
            ["request", "--profile", "svc", base + "/1.1/statuses/home_timeline.json"],
            environment: environment
        )
        #expect(timeline.status == 0, "\(timeline.stderr)")

        let wrong = try await CLI.run(
            [
                "authorize", "oauth2", "--client-credentials", "--profile", "svc2", "--token-url",
                base + "/oauth2/token", "--client-id", "demo-service",
            ],
            environment: environment.merging(["REMOTE_AUTH_CLIENT_SECRET": "not-the-secret"]) { $1 }
        )
        #expect(wrong.status == 1)
        #expect(wrong.stdout == "")
        #expect(
            wrong.stderr.hasPrefix("remote-auth: sign-in failed: the server refused: invalid_client"),
            "\(wrong.stderr)"
        )
        #expect(!wrong.stderr.contains("not-the-secret"))

        let missing = try await CLI.run(
            [
                "authorize", "oauth2", "--client-credentials", "--profile", "svc2", "--token-url",
                base + "/oauth2/token", "--client-id", "demo-service",
            ],
            environment: environment
        )
        #expect(missing.status == 2)
        #expect(
            missing.stderr
                == "remote-auth: missing secret: --client-credentials needs --client-secret (or REMOTE_AUTH_CLIENT_SECRET)\n"
        )
    }

    @Test func deviceFlowApprovedOverHTTP() async throws {
        let home = Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess([])
        let base = try await sandbox.baseURL()
        let device = try BackgroundCLI(
            [
                "authorize", "oauth2", "--device", "--profile", "tv", "--issuer", base, "--client-id", "demo-app",
                "--scope", "statuses:read",
            ],
            environment: ["REMOTE_AUTH_HOME": home]
        )
        try await device.waitForError("Waiting for the approval")
        #expect(device.line(startingWith: "Open: ") == "Open: \(base)/device")
        let code = String(try #require(device.line(startingWith: "Code: ")).dropFirst("Code: ".count))
        let complete = try #require(device.line(startingWith: "Or open: "))
        #expect(complete.hasPrefix("Or open: \(base)/device?user_code="))
        // The user's part: the verification page's form, signed in as alice.
        let page = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: base + "/device"))
        let csrfStart = try #require(page.1.range(of: "name=\"authenticity_token\" value=\""))
        let csrf = String(page.1[csrfStart.upperBound...].prefix { $0 != "\"" })
        var form = try HTTPRequest(method: .post, absoluteURL: base + "/device")
        form.headerFields[.contentType] = "application/x-www-form-urlencoded"
        let body = "authenticity_token=\(csrf)&user_code=\(code)&username=alice&password=wonderland&action=approve"
        let answer = try await httpExchange(form, body: Array(body.utf8))
        #expect(answer.0 == 200)
        #expect(answer.1.contains("Device approved"))
        let result = await device.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("\nSigned in; saved as profile 'tv'.\n"))
        let timeline = try await CLI.run(
            ["request", "--profile", "tv", base + "/1.1/statuses/home_timeline.json"],
            environment: ["REMOTE_AUTH_HOME": home]
        )
        #expect(timeline.status == 0, "\(timeline.stderr)")
    }

    /// Signs in with code + PKCE against an auto-approving sandbox, the browser played over HTTP.
    static func signIn(profile: String, base: String, home: String) async throws {
        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--profile", profile, "--issuer", base, "--client-id", "demo-app",
                "--scope", "statuses:read", "--no-browser", "--timeout", CLI.hangGuardSeconds,
            ],
            environment: ["REMOTE_AUTH_HOME": home]
        )
        try await authorize.waitForError("Waiting for the browser")
        let url = try #require(authorize.line(startingWith: base + "/oauth2/authorize?"), "\(authorize.errors)")
        _ = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: try await httpGetLocation(url)))
        let result = await authorize.finish()
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// Tokens that expire within the refresh skew are refreshed by `token` and `request`, and
    /// the rotated refresh token is kept: a second refresh with the first one would fail.
    @Test func tokenAndRequestRefreshAndKeepTheRotation() async throws {
        let home = Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve", "--access-token-ttl", "30"])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home]
        try await Self.signIn(profile: "short", base: base, home: home)
        let first = try await CLI.run(["token", "--profile", "short"], environment: environment)
        let second = try await CLI.run(["token", "--profile", "short"], environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(first.stdout != second.stdout)
        let timeline = try await CLI.run(
            ["request", "--profile", "short", base + "/1.1/statuses/home_timeline.json"],
            environment: environment
        )
        #expect(timeline.status == 0, "\(timeline.stderr)")
        var bearer = try HTTPRequest(method: .get, absoluteURL: base + "/1.1/statuses/home_timeline.json")
        bearer.headerFields[.authorization] = "Bearer " + second.stdout.trimmingCharacters(in: .newlines)
        #expect(try await httpExchange(bearer).0 == 200)
    }

    /// A client credentials profile renews itself (RFC 6749 §4.4): once its access token has
    /// expired, `token` and `request` get a new one with a new client credentials grant (the
    /// stored secret, or `REMOTE_AUTH_CLIENT_SECRET`), one token request each, and nobody is told
    /// to sign in again.
    ///
    /// The tool takes a token that expires within a minute as expired (it renews it first), so
    /// tokens living 20 s are expired to it at every command, and a renewed one still lives when
    /// the request reaches the sandbox on a loaded machine: one token request per command, never
    /// a second renewal after a 401.
    @Test func clientCredentialsProfileRenewsItself() async throws {
        let home = Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--access-token-ttl", "20"])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home, "REMOTE_AUTH_CLIENT_SECRET": "demo-service-secret"]
        let signedIn = try await CLI.run(
            [
                "authorize", "oauth2", "--client-credentials", "--profile", "svc", "--issuer", base,
                "--client-id", "demo-service",
            ],
            environment: environment
        )
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        let first = try await CLI.run(["token", "--profile", "svc"], environment: environment)
        let before = try sandbox.tokenRequests()
        // The stored secret alone renews it: the environment no longer has one.
        let token = try await CLI.run(["token", "--profile", "svc"], environment: ["REMOTE_AUTH_HOME": home])
        #expect(token.status == 0, "\(token.stderr)")
        #expect(token.stderr == "")
        #expect(!token.stdout.isEmpty && token.stdout != first.stdout)
        #expect(try sandbox.tokenRequests() == before + 1)
        let request = try await CLI.run(
            ["request", "--profile", "svc", base + "/1.1/statuses/home_timeline.json"],
            environment: environment
        )
        #expect(request.status == 0, "\(request.stderr)")
        #expect(request.stdout.hasPrefix("["), "\(request.stdout)")
        #expect(!request.stderr.contains("sign in again"))
        #expect(try sandbox.tokenRequests() == before + 2)
    }

    /// A code-flow profile without a refresh token still ends at expiry: the tool says how to
    /// sign in again, and shows no secret.
    @Test func reauthorizationRequired() async throws {
        let home = Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--access-token-ttl", "1"])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home]
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let store = try FileTokenStore(path: home + "/tokens.json")
        try await store.save(
            OAuth2.Session(
                tokens: OAuth2.Tokens(accessToken: "expired-token", tokenType: "Bearer", expiresAt: 1),
                tokenEndpoint: base + "/oauth2/token",
                clientID: "demo-service",
                clientAuthentication: .clientSecretBasic,
                clientSecret: "demo-service-secret",
                resourceOrigins: [base]
            ),
            service: "svc",
            account: "demo-service"
        )
        let token = try await CLI.run(["token", "--profile", "svc"], environment: environment)
        #expect(token.status == 1)
        #expect(token.stdout == "")
        #expect(
            token.stderr.hasSuffix("; sign in again: remote-auth authorize oauth2 --profile svc …\n"),
            "\(token.stderr)"
        )
        let request = try await CLI.run(
            ["request", "--profile", "svc", base + "/1.1/statuses/home_timeline.json"],
            environment: environment
        )
        #expect(request.status == 1)
        #expect(request.stdout == "")
        #expect(request.stderr.hasSuffix("; sign in again: remote-auth authorize oauth2 --profile svc …\n"))
        #expect(!request.stderr.contains("demo-service-secret"))
    }

    /// The consent form over HTTP, as a browser user: Cancel sends `error=access_denied` to
    /// the listener, and the tool prints the server's error and description.
    @Test func deniedOnTheConsentForm() async throws {
        let home = Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess([])
        let base = try await sandbox.baseURL()
        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--profile", "no", "--issuer", base, "--client-id", "demo-app",
                "--no-browser",
            ],
            environment: ["REMOTE_AUTH_HOME": home]
        )
        try await authorize.waitForError("Waiting for the browser")
        let url = try #require(authorize.line(startingWith: base + "/oauth2/authorize?"), "\(authorize.errors)")
        let page = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: url))
        #expect(page.0 == 200)
        let idStart = try #require(page.1.range(of: "name=\"request\" value=\""))
        let id = String(page.1[idStart.upperBound...].prefix { $0 != "\"" })
        let csrfStart = try #require(page.1.range(of: "name=\"authenticity_token\" value=\""))
        let csrf = String(page.1[csrfStart.upperBound...].prefix { $0 != "\"" })
        var form = try HTTPRequest(method: .post, absoluteURL: base + "/oauth2/authorize")
        form.headerFields[.contentType] = "application/x-www-form-urlencoded"
        let body = "request=\(id)&authenticity_token=\(csrf)&username=alice&password=wonderland&action=deny"
        let redirect = try await httpRedirect(form, body: Array(body.utf8))
        #expect(redirect.hasPrefix("http://127.0.0.1:"))
        #expect(redirect.contains("/callback?error=access_denied"), "\(redirect)")
        _ = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: redirect))
        let result = await authorize.finish()
        #expect(result.status == 1)
        #expect(result.stdout == url + "\n")
        let last = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("remote-auth: sign-in failed: the server refused: access_denied"), "\(result.stderr)")
        let list = try await CLI.run(["profiles", "list"], environment: ["REMOTE_AUTH_HOME": home])
        #expect(list.stdout == "")
    }

    @Test func badOptions() async throws {
        let none = try await CLI.run(["authorize", "oauth2", "--profile", "x", "--client-id", "c"])
        #expect(none.status == 2)
        #expect(none.stderr.hasPrefix("remote-auth: Error: --issuer, or --token-url, is required"), "\(none.stderr)")
        let both = try await CLI.run(
            [
                "authorize", "oauth2", "--profile", "x", "--client-id", "c", "--issuer", "https://a", "--device",
                "--client-credentials",
            ]
        )
        #expect(both.status == 2)
        #expect(
            both.stderr.hasPrefix("remote-auth: Error: --device and --client-credentials are two grants: choose one")
        )
        for command in [["authorize", "oauth2"], ["token"], ["revoke"]] {
            let help = try await CLI.run(command + ["--help"])
            #expect(help.status == 0)
            #expect(help.stdout.contains("Exit status (curl's numbers"), "\(command)")
        }
    }

    func authScope(_ base: String) -> String {
        // The sandbox listens on 127.0.0.1 with an explicit port: the origin is the base URL.
        base
    }
}
