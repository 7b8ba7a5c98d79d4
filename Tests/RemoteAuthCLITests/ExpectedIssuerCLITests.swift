import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// `authorize oauth2` with explicit endpoints against a server that sends RFC 9207's `iss`:
/// without an issuer to compare with, the redirect is refused (§2.4); `--expected-issuer` names
/// it, and only that one is accepted.
@Suite(.timeLimit(.minutes(5))) struct ExpectedIssuerCLITests {
    /// The sign-in with explicit endpoints (and `extra` options), the browser's part played by
    /// following the sandbox's redirect to the listener.
    static func signIn(_ base: String, home: String, _ extra: [String]) async throws -> BackgroundCLI {
        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--profile", "p", "--authorization-url", base + "/oauth2/authorize",
                "--token-url", base + "/oauth2/token", "--client-id", "demo-app", "--no-browser", "--timeout", CLI.hangGuardSeconds,
            ] + extra,
            environment: ["REMOTE_AUTH_HOME": home]
        )
        try await authorize.waitForError("Waiting for the browser")
        let url = try #require(authorize.line(startingWith: base + "/oauth2/authorize?"), "\(authorize.errors)")
        _ = try? await httpExchange(try HTTPRequest(method: .get, absoluteURL: try await httpGetLocation(url)))
        return authorize
    }

    /// The listener's line for a redirect it refused and waits on (RFC 8252 §8.9); the tool is
    /// then stopped, not left to its timeout.
    static func refusal(_ authorize: BackgroundCLI) async throws -> String {
        try await authorize.waitForError("Ignored a request")
        return try #require(
            authorize.errors.split(separator: "\n").first { $0.hasPrefix("Ignored a request") }.map(String.init)
        )
    }

    @Test func explicitEndpointsNameTheIssuer() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve"])
        let base = try await sandbox.baseURL()

        let unnamed = try await Self.refusal(try await Self.signIn(base, home: home, []))
        #expect(unnamed.contains("carries iss '\(base)' but no issuer is configured to check it against"), "\(unnamed)")

        let other = try await Self.refusal(
            try await Self.signIn(base, home: home, ["--expected-issuer", "https://other.example"])
        )
        #expect(other.contains("'\(base)'") && other.contains("https://other.example"), "\(other)")

        let named = await (try await Self.signIn(base, home: home, ["--expected-issuer", base])).finish()
        #expect(named.status == 0, "\(named.stderr)")

        let both = try await CLI.run(
            ["authorize", "oauth2", "--profile", "p", "--issuer", base, "--expected-issuer", base, "--client-id", "c"],
            environment: ["REMOTE_AUTH_HOME": home]
        )
        #expect(both.status == 2)
        #expect(both.stderr.contains("--expected-issuer goes with explicit endpoints"), "\(both.stderr)")
    }
}
