import Foundation
import HTTPTypes
import RemoteAuth
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `authorize` killed with SIGKILL while it waits for the browser: the profiles on disk are the
/// ones from before, nothing is left beside them, the port is free again, and the next sign-in
/// on the same redirect URI works.
@Suite(.timeLimit(.minutes(5))) struct KilledAuthorizeCLITests {
    @Test func killedWhileWaitingLeavesTheStoreAndPortAsTheyWere() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve"])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home, "REMOTE_AUTH_CLIENT_SECRET": "demo-service-secret"]
        let kept = try await CLI.run(
            [
                "authorize", "oauth2", "--client-credentials", "--profile", "keep", "--issuer", base,
                "--client-id", "demo-service",
            ],
            environment: environment
        )
        #expect(kept.status == 0, "\(kept.stderr)")
        let before = try String(contentsOfFile: home + "/tokens.json", encoding: .utf8)

        let waiting = try BackgroundCLI(
            [
                "authorize", "oauth2", "--profile", "keep", "--issuer", base, "--client-id", "demo-app",
                "--scope", "statuses:read", "--no-browser", "--timeout", CLI.hangGuardSeconds,
            ],
            environment: ["REMOTE_AUTH_HOME": home]
        )
        try await waiting.waitForError("Waiting for the browser")
        let url = try #require(waiting.line(startingWith: base + "/oauth2/authorize?"), "\(waiting.errors)")
        let redirectURI = try #require(
            URLComponents(string: url)?.queryItems?.first { $0.name == "redirect_uri" }?.value
        )
        kill(waiting.process.processIdentifier, SIGKILL)
        await CLI.exited(waiting.process)
        #expect(waiting.process.terminationReason == .uncaughtSignal)

        // The store is byte for byte what it was, with nothing left beside it.
        #expect(try String(contentsOfFile: home + "/tokens.json", encoding: .utf8) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: home).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)

        // The same redirect URI (its port) serves the next sign-in, which replaces the profile.
        let again = try BackgroundCLI(
            [
                "authorize", "oauth2", "--profile", "keep", "--issuer", base, "--client-id", "demo-app",
                "--scope", "statuses:read", "--no-browser", "--timeout", CLI.hangGuardSeconds, "--redirect-uri", redirectURI,
            ],
            environment: ["REMOTE_AUTH_HOME": home]
        )
        try await again.waitForError("Waiting for the browser")
        let second = try #require(again.line(startingWith: base + "/oauth2/authorize?"), "\(again.errors)")
        let landing = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: try await httpGetLocation(second)))
        #expect(landing.0 == 200)
        let signedIn = await again.finish()
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        let show = try await CLI.run(["profiles", "show", "keep"], environment: ["REMOTE_AUTH_HOME": home])
        #expect(show.stdout.contains("client: demo-app (none)\n"), "\(show.stdout)")
    }
}
