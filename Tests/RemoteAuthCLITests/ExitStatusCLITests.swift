import Foundation
import Testing

/// One table of exit statuses (curl's numbers), shown in every command's help.
@Suite(.timeLimit(.minutes(5))) struct ExitStatusCLITests {
    static let table =
        "Exit status (curl's numbers, so that scripts written for curl keep working): 0 success; 1 other failures, and with `request` an HTTP status of 400 or more or a refused credential (22 instead with --fail); 2 usage error or bad input, nothing sent; 6 host not found; 7 could not connect (refused, unreachable); 22 HTTP status 400 or more with --fail; 23 cannot write the -o file; 28 timed out (--connect-timeout, --max-time); 35 TLS handshake failed; 47 too many redirects; 56 connection closed early, not an HTTP answer, or the proxy refused the tunnel; 60 server certificate not trusted; 90 no --pin matched; 110 the response's RFC 9421 signature did not verify (--verify-response-key); 111 a sign-in from a resource URL found metadata it may not use (another resource, an unlisted server, an issuer mismatch, no PKCE S256, no way to identify the client, signed metadata that does not verify); 112 the server refused the dynamic registration."

    @Test(arguments: [
        [], ["request"], ["sign"], ["sign", "oauth1"], ["sign", "basic"], ["sign", "digest"], ["authorize"],
        ["authorize", "oauth1"], ["authorize", "reverse-auth"], ["profiles"], ["profiles", "list"],
        ["profiles", "show"], ["profiles", "remove"], ["profiles", "path"], ["demo"], ["sandbox"], ["registrations"],
        ["registrations", "delete"],
    ])
    func everyHelpShowsTheTable(_ command: [String]) async throws {
        let result = try await CLI.run(command + ["--help"])
        #expect(result.status == 0)
        let words = result.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        #expect(words.contains(Self.table), "\(command)")
    }

    @Test func usageErrorsExitTwo() async throws {
        for arguments in [["request"], ["request", "--nope", "http://x/"], ["nope"], ["sign", "basic"]] {
            let result = try await CLI.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stdout == "", "\(arguments)")
            #expect(result.stderr.hasPrefix("remote-auth: "), "\(arguments)")
        }
    }

    @Test func authorizeNamesTransportFailures() async throws {
        let result = try await CLI.run(
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

/// Issue 22: exit statuses that contradicted the documented table (2: bad input, nothing sent;
/// 56: the proxy refused the tunnel).
@Suite(.timeLimit(.minutes(5))) struct ExitStatusTableCLITests {
    @Test func aControlCharacterInTheUserIDIsBadInput() async throws {
        let result = try await CLI.run(["request", "--preemptive", "-u", "al\u{01}ice:pw", "http://127.0.0.1:9/"])
        #expect(result.status == 2)
        #expect(result.stderr == "remote-auth: invalid --user: user-id contains a control character at character 2\n")
    }

    @Test func anEmptySecretLineIsRefused() async throws {
        let result = try await CLI.run(
            [
                "authorize", "oauth2", "--client-credentials", "--profile", "svc", "--client-id", "c",
                "--client-secret", "-", "--token-url", "http://127.0.0.1:9/token", "--authorization-url",
                "http://127.0.0.1:9/authorize",
            ],
            environment: ["REMOTE_AUTH_HOME": OAuth2CLITests.home()],
            stdin: "\n"
        )
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr
                == "remote-auth: --client-secret -: the line read from standard input is empty; write the secret to it\n"
        )
    }

    /// A timeout in a command without --max-time (here authorize's discovery, at the transport's
    /// 30 s) names no option the command does not have.
    @Test func aTimeoutHintNamesOnlyOptionsTheCommandHas() async throws {
        try await withEchoServer(silent: true) { server in
            let result = try await CLI.run(
                ["authorize", "oauth2", "--profile", "p", "--issuer", server.base, "--client-id", "c", "--no-browser"],
                environment: ["REMOTE_AUTH_HOME": OAuth2CLITests.home()]
            )
            #expect(result.status == 28, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("remote-auth: sign-in failed: "), "\(result.stderr)")
            #expect(!result.stderr.contains("--max-time"), "\(result.stderr)")
            #expect(!result.stderr.contains("--connect-timeout"), "\(result.stderr)")
        }
    }

    @Test func aRelativeIssuerIsBadInput() async throws {
        let result = try await CLI.run(
            ["authorize", "oauth2", "--profile", "p", "--issuer", "/relative", "--client-id", "c", "--no-browser"],
            environment: ["REMOTE_AUTH_HOME": OAuth2CLITests.home()]
        )
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("'/relative' is not an absolute URL"), "\(result.stderr)")
    }

    @Test func anOverLongTokenToJWTVerifyIsBadInput() async throws {
        let key = FileManager.default.temporaryDirectory.appendingPathComponent("jwk-\(UUID().uuidString).json").path
        try JWTCLITests.publicJWK.write(toFile: key, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: key) }
        let token = String(repeating: "a", count: 100_000) + ".b.c"
        let result = try await CLI.run(["jwt", "verify", "--key", key, "--alg", "EdDSA", "-"], stdin: token)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("remote-auth: not verified: tooLarge: "), "\(result.stderr)")
    }

    @Test func aRefusedProxyTunnelIs56() async throws {
        try await withEchoServer(refusesTunnels: true) { proxy in
            let result = try await CLI.run(["request", "-x", proxy.base, "https://example.invalid/"])
            #expect(result.status == 56, "\(result.stderr)")
            #expect(
                result.stderr
                    == "remote-auth: request failed: the proxy refused the tunnel (its answer to CONNECT was not 2xx)\n"
            )
        }
    }

    /// A Bearer profile refused over plain http: bad input (nothing sent), as for --user.
    @Test func bearerOverPlainHTTPIsBadInput() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess([])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home]
        // A profile whose token is for a plain-http origin that is not loopback.
        let signedIn = try await CLI.run(
            [
                "authorize", "oauth2", "--client-credentials", "--profile", "svc", "--issuer", base,
                "--client-id", "demo-service", "--client-secret", "-", "--scope", "statuses:read",
                "--resource", "http://api.example.invalid/",
            ],
            environment: environment,
            stdin: "demo-service-secret\n"
        )
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        let result = try await CLI.run(
            ["request", "--profile", "svc", "http://api.example.invalid/x"],
            environment: environment
        )
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("over plain http"), "\(result.stderr)")
    }
}
