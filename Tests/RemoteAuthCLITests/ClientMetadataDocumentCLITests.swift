import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// Issue 26 in the tool: `authorize oauth2 --resource URL --client-metadata-url URL` against
/// `remote-auth sandbox --allow-loopback-client-metadata`, the document served on 127.0.0.1
/// (draft-ietf-oauth-client-id-metadata-document); without the flag the sandbox refuses the
/// http document on its authorization page.
@Suite(.timeLimit(.minutes(5))) struct ClientMetadataDocumentCLITests {
    /// A public client's document at `base + path`, its redirect a loopback one without a port
    /// (any port, RFC 8252 §7.3, as for the sandbox's other clients).
    static func document(_ base: String, _ path: String) -> String? {
        guard path == "/client.json" else { return nil }
        return
            #"{"client_id":"\#(base)/client.json","client_name":"CLI Document App","redirect_uris":["http://127.0.0.1/callback"],"token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"]}"#
    }

    @Test func signInWithAClientMetadataDocument() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        try await withEchoServer(documents: Self.document) { server in
            let sandbox = try SandboxProcess(["--auto-approve", "--allow-loopback-client-metadata"])
            let base = try await sandbox.baseURL()
            let environment = ["REMOTE_AUTH_HOME": home]
            let resource = base + "/1.1"
            let clientID = server.base + "/client.json"
            let authorize = try BackgroundCLI(
                [
                    "authorize", "oauth2", "--resource", resource, "--profile", "doc", "--client-metadata-url",
                    clientID,
                    "--no-browser", "--timeout", CLI.hangGuardSeconds,
                ],
                environment: environment
            )
            let url = try await ResourceSignInCLITests.approve(authorize, base: base)
            let signedIn = await authorize.finish()
            #expect(signedIn.status == 0, "\(signedIn.stderr)")
            #expect(ResourceSignInCLITests.query(url, "client_id") == clientID)
            #expect(
                signedIn.stderr.contains("\nIdentifying as the client ID metadata document's URL.\n"),
                "\(signedIn.stderr)"
            )
            #expect(signedIn.stdout.hasSuffix("Signed in; saved as profile 'doc'.\n"), "\(signedIn.stdout)")

            let call = try await CLI.run(
                ["request", "--profile", "doc", resource + "/account/verify_credentials.json"],
                environment: environment
            )
            #expect(call.status == 0, "\(call.stderr)")
            #expect(call.stdout == #"{"id":1001,"id_str":"1001","name":"alice","screen_name":"alice"}"#)
            let show = try await CLI.run(["profiles", "show", "doc"], environment: environment)
            #expect(show.stdout.contains("\nclient: \(clientID) (none)\n"), "\(show.stdout)")
        }
    }

    /// Without --allow-loopback-client-metadata: the sandbox still advertises documents (https
    /// ones), the tool sends the user to it, and the page says why the http one is refused.
    @Test func httpDocumentRefusedWithoutTheFlag() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        try await withEchoServer(documents: Self.document) { server in
            let sandbox = try SandboxProcess(["--auto-approve"])
            let base = try await sandbox.baseURL()
            let clientID = server.base + "/client.json"
            let authorize = try BackgroundCLI(
                [
                    "authorize", "oauth2", "--resource", base + "/1.1", "--profile", "doc", "--client-metadata-url",
                    clientID, "--no-browser", "--timeout", CLI.hangGuardSeconds,
                ],
                environment: ["REMOTE_AUTH_HOME": home]
            )
            try await authorize.waitForError("Waiting for the browser")
            let url = try #require(authorize.line(startingWith: base + "/oauth2/authorize?"), "\(authorize.errors)")
            let (status, page) = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: url))
            #expect(status == 400)
            #expect(
                page.contains(
                    "<p id=\"message\">invalid_client: the client_id &#39;\(clientID)&#39; is an http URL: client metadata documents are fetched over https only (draft-ietf-oauth-client-id-metadata-document §3); start the sandbox with --allow-loopback-client-metadata to fetch one from a loopback address</p>"
                ),
                "\(page)"
            )
            authorize.process.terminate()
            _ = await authorize.finish()
        }
    }
}
