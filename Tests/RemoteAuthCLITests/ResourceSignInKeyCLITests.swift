import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// `authorize oauth2 --resource URL --client-key PEM`: from the resource's URL alone to a client
/// registered with `private_key_jwt` (RFC 7591 §2 `jwks`, RFC 7523 §2.2), the key's path kept
/// with the profile and used again by each refresh.
@Suite(.timeLimit(.minutes(5))) struct ResourceSignInKeyCLITests {
    @Test func registersTheKeyAndRefreshesWithIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("resource-key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = JOSE.SigningKey.generateP256()
        let keyPath = directory.appendingPathComponent("client.pem").path
        try key.pemRepresentation!.write(toFile: keyPath, atomically: true, encoding: .utf8)
        let sandbox = try SandboxProcess(["--auto-approve", "--access-token-ttl", "30"])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": directory.appendingPathComponent("home").path]
        let resource = base + "/1.1"

        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--resource", resource, "--profile", "k", "--client-key", keyPath,
                "--no-browser", "--timeout", CLI.hangGuardSeconds,
            ],
            environment: environment
        )
        let url = try await ResourceSignInCLITests.approve(authorize, base: base)
        let signedIn = await authorize.finish()
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        let clientID = try #require(ResourceSignInCLITests.query(url, "client_id"))
        #expect(
            signedIn.stderr.contains(
                "Registered as client \(clientID) at \(base) (RFC 7591, private_key_jwt with the key's public JWK).\n"
            ),
            "\(signedIn.stderr)"
        )
        let show = try await CLI.run(["profiles", "show", "k"], environment: environment)
        #expect(show.stdout.contains("\nclient: \(clientID) (private_key_jwt)\n"), "\(show.stdout)")
        #expect(show.stdout.contains("client key: \(URL(fileURLWithPath: keyPath).standardizedFileURL.path)\n"))
        #expect(!show.stdout.contains("BEGIN"))

        // The server holds the public key as registered (RFC 7592 read), never the private one.
        let read = try await CLI.run(["registrations", "show", "k"], environment: environment)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.contains("\ntoken_endpoint_auth_method: private_key_jwt\n"), "\(read.stdout)")
        let x = try #require(key.publicJWK?.x)
        #expect(read.stdout.contains(x), "\(read.stdout)")
        #expect(!read.stdout.contains("\"d\""))

        let call = try await CLI.run(
            ["request", "--profile", "k", resource + "/account/verify_credentials.json"],
            environment: environment
        )
        #expect(call.status == 0, "\(call.stderr)")
        #expect(call.stdout == #"{"id":1001,"id_str":"1001","name":"alice","screen_name":"alice"}"#)

        // The token lives 30 s, within the refresh margin: each `token` refreshes with an
        // assertion signed by the key; without the key file it cannot.
        let before = try await CLI.run(["token", "--profile", "k"], environment: environment)
        #expect(before.status == 0, "\(before.stderr)")
        let again = try await CLI.run(["token", "--profile", "k"], environment: environment)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout != before.stdout)
        try FileManager.default.removeItem(atPath: keyPath)
        let missing = try await CLI.run(["token", "--profile", "k"], environment: environment)
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("cannot read the client key '\(URL(fileURLWithPath: keyPath).standardizedFileURL.path)'"), "\(missing.stderr)")
    }

    @Test func otherClientAuthenticationIsRefusedWithAResource() async throws {
        let refused = try await CLI.run([
            "authorize", "oauth2", "--resource", "http://127.0.0.1:9/1.1", "--profile", "k",
            "--client-auth", "client-secret-post",
        ])
        #expect(refused.status == 2)
        #expect(
            refused.stderr.contains(
                "a sign-in from --resource alone takes --client-key PEMFILE for private-key-jwt (the method is then implied), no other --client-auth"
            ),
            "\(refused.stderr)"
        )
    }
}
