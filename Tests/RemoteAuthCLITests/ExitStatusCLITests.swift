import Foundation
import Testing

/// One table of exit statuses (curl's numbers), shown in every command's help.
@Suite(.timeLimit(.minutes(5))) struct ExitStatusCLITests {
    static let table =
        "Exit status (curl's numbers, so that scripts written for curl keep working): 0 success; 1 other failures, and with `request` an HTTP status of 400 or more or a refused credential (22 instead with --fail); 2 usage error or bad input, nothing sent; 6 host not found; 7 could not connect (refused, unreachable); 22 HTTP status 400 or more with --fail; 23 cannot write the -o file; 28 timed out (--connect-timeout, --max-time); 35 TLS handshake failed; 47 too many redirects; 56 connection closed early, not an HTTP answer, or the proxy refused the tunnel; 60 server certificate not trusted; 90 no --pin matched."

    @Test(arguments: [
        [], ["request"], ["sign"], ["sign", "oauth1"], ["sign", "basic"], ["sign", "digest"], ["authorize"],
        ["authorize", "oauth1"], ["authorize", "reverse-auth"], ["profiles"], ["profiles", "list"],
        ["profiles", "show"], ["profiles", "remove"], ["profiles", "path"], ["demo"], ["sandbox"],
    ])
    func everyHelpShowsTheTable(_ command: [String]) throws {
        let result = try CLI.run(command + ["--help"])
        #expect(result.status == 0)
        let words = result.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        #expect(words.contains(Self.table), "\(command)")
    }

    @Test func usageErrorsExitTwo() throws {
        for arguments in [["request"], ["request", "--nope", "http://x/"], ["nope"], ["sign", "basic"]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stdout == "", "\(arguments)")
            #expect(result.stderr.hasPrefix("remote-auth: "), "\(arguments)")
        }
    }

    @Test func authorizeNamesTransportFailures() throws {
        let result = try CLI.run(
            [
                "authorize", "oauth1", "--profile", "p", "--consumer-key", "k", "--consumer-secret", "s",
                "--request-token-url", "http://127.0.0.1:1/rt", "--authorize-url", "http://127.0.0.1:1/a",
                "--access-token-url", "http://127.0.0.1:1/at", "--no-browser",
            ],
            environment: [
                "REMOTE_AUTH_HOME": FileManager.default.temporaryDirectory.appendingPathComponent("ra-\(UUID())").path
            ]
        )
        #expect(result.status == 7)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "remote-auth: sign-in failed: http://127.0.0.1:1 refused the connection: is the server running, and is the port right?\n"
        )
    }
}
