import Foundation
import Testing

/// Option values the tool used to accept and misuse: each is refused before anything runs, with
/// exit status 2, nothing on stdout, a first stderr line naming the option and the rule, and the
/// usage hint last. (The usage line between them lists every option of the subcommand, so it is
/// compared only for the option the test is about.)
@Suite(.timeLimit(.minutes(5))) struct OptionValidationCLITests {
    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let firstLine: String
        let lastLine: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let sign = [
        "sign", "oauth1", "GET", "https://example.com/", "--consumer-key", "k", "--consumer-secret", "s",
    ]
    static let authorize = [
        "authorize", "oauth1", "--profile", "p", "--consumer-key", "k", "--consumer-secret", "s",
        "--request-token-url", "http://127.0.0.1:9/rt", "--access-token-url", "http://127.0.0.1:9/at",
    ]

    static let cases: [Case] = [
        // It used to listen on 70000 mod 65536 = 4464.
        Case(
            arguments: ["sandbox", "--port", "70000"],
            firstLine: "remote-auth: Error: --port must be 0 to 65535 (0 picks a free one), not 70000",
            lastLine: "  See 'remote-auth sandbox --help' for more information."
        ),
        // RFC 7591 §3: the initial access token goes out as a Bearer token.
        Case(
            arguments: ["sandbox", "--registration-token", "two words"],
            firstLine: "remote-auth: Error: --registration-token must be a non-empty token of visible ASCII characters",
            lastLine: "  See 'remote-auth sandbox --help' for more information."
        ),
        Case(
            arguments: sign + ["--timestamp", "abc"],
            firstLine: "remote-auth: Error: --timestamp must be whole seconds since 1970 (digits only), not 'abc'",
            lastLine: "  See 'remote-auth sign oauth1 --help' for more information."
        ),
        Case(
            arguments: sign + ["--timestamp=-5"],
            firstLine: "remote-auth: Error: --timestamp must be whole seconds since 1970 (digits only), not '-5'",
            lastLine: "  See 'remote-auth sign oauth1 --help' for more information."
        ),
        // It used to be ignored silently.
        Case(
            arguments: sign + ["--private-key", "/nonexistent/key.pem"],
            firstLine: "remote-auth: Error: --private-key is used only by RSA-SHA1; HMAC-SHA1 signs with the secrets",
            lastLine: "  See 'remote-auth sign oauth1 --help' for more information."
        ),
        Case(
            arguments: sign + ["--signature-method", "plaintext", "--private-key", "/nonexistent/key.pem"],
            firstLine: "remote-auth: Error: --private-key is used only by RSA-SHA1; PLAINTEXT signs with the secrets",
            lastLine: "  See 'remote-auth sign oauth1 --help' for more information."
        ),
        Case(
            arguments: authorize + ["--authorize-url", "http://127.0.0.1:9/a", "--timeout", "0"],
            firstLine: "remote-auth: Error: --timeout must be a whole number of seconds, at least 1, not 0",
            lastLine: "  See 'remote-auth authorize oauth1 --help' for more information."
        ),
        Case(
            arguments: authorize,
            firstLine: "remote-auth: Error: Missing expected argument '--authorize-url <authorize-url>'",
            lastLine: "  See 'remote-auth authorize oauth1 --help' for more information."
        ),
    ]

    @Test(arguments: cases)
    func refused(_ c: Case) async throws {
        let result = try await CLI.run(c.arguments)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == c.firstLine)
        #expect(lines.dropLast().last == c.lastLine)  // the text ends with a newline
        #expect(result.stderr.hasSuffix("\n"))
    }

    /// The bounds themselves are accepted: --timestamp 0 signs, and `authorize oauth1 --help`
    /// shows --authorize-url as required (no brackets) while reverse-auth keeps it optional.
    @Test func boundsAndHelp() async throws {
        let zero = try await CLI.run(Self.sign + ["--nonce", "n", "--timestamp", "0", "--print", "signature"])
        #expect(zero.status == 0)
        #expect(zero.stderr == "")
        let help = try await CLI.run(["authorize", "oauth1", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains(" --authorize-url <authorize-url> "))
        #expect(!help.stdout.contains("[--authorize-url <authorize-url>]"))
        let reverse = try await CLI.run(["authorize", "reverse-auth", "--help"])
        #expect(reverse.stdout.contains("[--authorize-url <authorize-url>]"))
    }
}

/// Issue 22: profile names are restricted to a documented set, so they cannot forge rows in
/// `profiles list` or carry escape sequences.
@Suite struct ProfileNameCLITests {
    @Test(arguments: [
        "", "two\nrows", "esc\u{1B}[2J", "-dash", ".dot", "with space", String(repeating: "a", count: 65),
    ])
    func aBadProfileNameIsRefused(_ name: String) async throws {
        // A name that starts with '-' is given attached, as it must be to be read as a value.
        let option = name.hasPrefix("-") ? ["--profile=" + name] : ["--profile", name]
        for command in [
            ["authorize", "oauth2"] + option + [
                "--client-id", "c", "--authorization-url", "https://as.example/a",
                "--token-url", "https://as.example/t", "--no-browser",
            ],
            ["authorize", "oauth1"] + option + [
                "--consumer-key", "k", "--consumer-secret", "s",
                "--request-token-url", "https://p.example/r", "--authorize-url", "https://p.example/a",
                "--access-token-url", "https://p.example/t", "--no-browser",
            ],
        ] {
            let result = try await CLI.run(command, environment: ["REMOTE_AUTH_HOME": OAuth2CLITests.home()])
            #expect(result.status == 2, "\(result.stderr)")
            #expect(
                result.stderr.hasPrefix(
                    "remote-auth: Error: --profile must be 1 to 64 letters, digits, '.', '_' or '-'"
                ),
                "\(result.stderr)"
            )
            #expect(!result.stderr.contains("\u{1B}"))
            #expect(result.stderr.split(separator: "\n").count <= 3, "\(result.stderr)")
        }
    }
}
