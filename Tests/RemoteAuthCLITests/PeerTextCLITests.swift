import Foundation
import Testing

/// Issue 22, item 3: a hostile token endpoint's text reaches the terminal escaped, and the fresh
/// tokens of an almost-JSON response never reach it.
@Suite(.timeLimit(.minutes(5))) struct PeerTextCLITests {
    static func canned(_ server: EchoServer, _ status: Int, _ json: String) -> String {
        server.base + "/canned/\(status)/" + json.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    func clientCredentials(tokenURL: String) async throws -> CLIResult {
        try await CLI.run(
            [
                "authorize", "oauth2", "--client-credentials", "--profile", "hostile", "--client-id", "c",
                "--client-secret", "-", "--authorization-url", "http://127.0.0.1:9/authorize", "--token-url", tokenURL,
            ],
            environment: ["REMOTE_AUTH_HOME": OAuth2CLITests.home()],
            stdin: "s3cret\n"
        )
    }

    @Test func aServersErrorDescriptionCannotDriveTheTerminal() async throws {
        try await withEchoServer { server in
            let json =
                #"{"error":"invalid_client\u001b]0;owned\u0007","error_description":"bad\u001b[2J\r\nremote-auth: fake line","error_uri":"https://as.example/\u001b[31m"}"#
            let result = try await clientCredentials(tokenURL: Self.canned(server, 401, json))
            #expect(result.status != 0)
            #expect(!result.stderr.contains("\u{1B}"))
            #expect(!result.stderr.contains("\u{07}"))
            #expect(!result.stderr.contains("\r"))
            #expect(
                result.stderr
                    == #"remote-auth: sign-in failed: the server refused: invalid_client\u{1b}]0;owned\u{7} (bad\u{1b}[2J\u{d}\u{a}remote-auth: fake line) see https://as.example/\u{1b}[31m"#
                    + "\n"
            )
        }
    }

    @Test func anAlmostJSONTokenResponseIsNotEchoed() async throws {
        try await withEchoServer { server in
            let json =
                #"{"access_token":"FRESH-ACCESS","token_type":"Bearer","refresh_token":"FRESH-REFRESH"} trailing"#
            let result = try await clientCredentials(tokenURL: Self.canned(server, 200, json))
            #expect(result.status != 0)
            #expect(!result.stderr.contains("FRESH-"), "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    #"'{"access_token":"<redacted>","token_type":"Bearer","refresh_token":"<redacted>"} trailing'"#
                )
            )
        }
    }
}
