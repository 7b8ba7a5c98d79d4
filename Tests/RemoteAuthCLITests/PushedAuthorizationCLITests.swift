import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// `remote-auth authorize oauth2` against `remote-auth sandbox --require-par`: the request is
/// pushed because the metadata says so (RFC 9126 §5), and the printed URL carries only
/// `client_id` and `request_uri`.
@Suite(.timeLimit(.minutes(5))) struct PushedAuthorizationCLITests {
    @Test func requiredByTheMetadata() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve", "--require-par"])
        let base = try await sandbox.baseURL()
        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--profile", "pushed", "--issuer", base, "--client-id", "demo-app",
                "--scope", "statuses:read", "--no-browser", "--timeout", CLI.hangGuardSeconds,
            ],
            environment: ["REMOTE_AUTH_HOME": home]
        )
        try await authorize.waitForError("Waiting for the browser")
        let url = try #require(authorize.line(startingWith: base + "/oauth2/authorize?"), "\(authorize.errors)")
        let query = try #require(URLComponents(string: url)?.queryItems)
        #expect(query.map(\.name) == ["client_id", "request_uri"])
        #expect(query.first?.value == "demo-app")
        #expect(query.last?.value?.hasPrefix("urn:ietf:params:oauth:request_uri:") == true)
        _ = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: try await httpGetLocation(url)))
        let result = await authorize.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == url + "\nSigned in; saved as profile 'pushed'.\n")
        let timeline = try await CLI.run(
            ["request", "--profile", "pushed", base + "/1.1/statuses/home_timeline.json"],
            environment: ["REMOTE_AUTH_HOME": home]
        )
        #expect(timeline.status == 0, "\(timeline.stderr)")
    }

    /// `--par` against a server that does not require it still pushes; without a PAR endpoint it
    /// is refused before anything is sent.
    @Test func askedFor() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve"])
        let base = try await sandbox.baseURL()
        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--profile", "p", "--issuer", base, "--client-id", "demo-app", "--par",
                "--no-browser", "--timeout", CLI.hangGuardSeconds,
            ],
            environment: ["REMOTE_AUTH_HOME": home]
        )
        try await authorize.waitForError("Waiting for the browser")
        let url = try #require(authorize.line(startingWith: base + "/oauth2/authorize?"), "\(authorize.errors)")
        #expect(url.hasPrefix(base + "/oauth2/authorize?client_id=demo-app&request_uri=urn"))
        _ = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: try await httpGetLocation(url)))
        #expect(await authorize.finish().status == 0)

        let refused = try await CLI.run(
            [
                "authorize", "oauth2", "--profile", "p", "--authorization-url", base + "/oauth2/authorize",
                "--token-url", base + "/oauth2/token", "--client-id", "demo-app", "--par",
            ],
            environment: ["REMOTE_AUTH_HOME": home]
        )
        #expect(refused.status == 2)
        #expect(refused.stderr.hasPrefix("remote-auth: Error: --par needs --issuer or --par-url"), "\(refused.stderr)")
    }
}
