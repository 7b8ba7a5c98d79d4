import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// `authorize oauth2 --dpop` against `remote-auth sandbox --dpop-nonce`, then `request`,
/// `profiles show`, `token` and `revoke` with the DPoP-bound profile.
@Suite(.timeLimit(.minutes(5))) struct DPoPCLITests {
    /// The code flow with `--dpop`: the authorization URL carries `dpop_jkt`, the thumbprint of
    /// the key the tokens are then bound to and the profile keeps (RFC 9449 §10).
    @Test func codeFlowSendsDPoPJKT() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve"])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home]
        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--dpop", "--profile", "code", "--issuer", base, "--client-id", "demo-app",
                "--no-browser", "--timeout", CLI.hangGuardSeconds,
            ],
            environment: environment
        )
        try await authorize.waitForError("Waiting for the browser")
        let url = try #require(authorize.line(startingWith: base + "/oauth2/authorize?"), "\(authorize.errors)")
        let jkt = try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "dpop_jkt" }?.value)
        #expect(jkt.count == 43)
        let redirect = try await httpGetLocation(url)
        _ = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: redirect))
        let signedIn = await authorize.finish()
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        #expect(signedIn.stderr.contains("DPoP: the tokens are bound to key \(jkt).\n"), "\(signedIn.stderr)")
        let show = try await CLI.run(["profiles", "show", "code"], environment: environment)
        #expect(show.stdout.hasSuffix("\ndpop key: jkt \(jkt)\n"), "\(show.stdout)")
    }

    @Test func dpopProfileSignsInRequestsAndRevokes() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--dpop-nonce"])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home]
        let signedIn = try await CLI.run(
            [
                "authorize", "oauth2", "--client-credentials", "--dpop", "--profile", "bound", "--issuer", base,
                "--client-id", "demo-service", "--client-secret", "-", "--scope", "statuses:read",
            ],
            environment: environment,
            stdin: "demo-service-secret\n"
        )
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        #expect(signedIn.stdout == "Signed in; saved as profile 'bound'.\n")
        #expect(signedIn.stderr.hasPrefix("DPoP: the tokens are bound to key "), "\(signedIn.stderr)")
        let jkt = String(signedIn.stderr.dropFirst("DPoP: the tokens are bound to key ".count).dropLast(2))
        #expect(jkt.count == 43)

        // The key is kept with the profile, in the 0600 token file.
        let file = home + "/tokens.json"
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains("\"dpopKey\""))
        let show = try await CLI.run(["profiles", "show", "bound"], environment: environment)
        #expect(show.stdout.hasSuffix("\ndpop key: jkt \(jkt)\n"), "\(show.stdout)")
        #expect(show.stdout.contains("tokenType: DPoP"))

        // request --profile: DPoP token and proof, with the resource server's nonce retry.
        let verbose = try await CLI.run(
            ["request", "-v", "--profile", "bound", base + "/1.1/statuses/home_timeline.json"],
            environment: environment
        )
        #expect(verbose.status == 0, "\(verbose.stderr)")
        #expect(verbose.stderr.contains("> Authorization: DPoP <redacted>\n"), "\(verbose.stderr)")
        #expect(verbose.stderr.contains("use_dpop_nonce"), "\(verbose.stderr)")
        #expect(verbose.stderr.contains("\n* DPoP: nonce adopted (use_dpop_nonce)\n"), "\(verbose.stderr)")
        #expect(!verbose.stderr.contains("eyJ"), "a proof was logged")

        // token prints the access token; as Bearer it is refused (it is bound to the key).
        let token = try await CLI.run(["token", "--profile", "bound"], environment: environment)
        #expect(token.status == 0, "\(token.stderr)")
        var bearer = try HTTPRequest(method: .get, absoluteURL: base + "/1.1/statuses/home_timeline.json")
        bearer.headerFields[.authorization] = "Bearer " + token.stdout.trimmingCharacters(in: .newlines)
        #expect(try await httpExchange(bearer).0 == 401)

        let revoked = try await CLI.run(["revoke", "--profile", "bound"], environment: environment)
        #expect(revoked.status == 0, "\(revoked.stderr)")
    }
}
