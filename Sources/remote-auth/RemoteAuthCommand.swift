import ArgumentParser
import Foundation
import RemoteAuth

@main
struct RemoteAuthCommand: AsyncParsableCommand {
    /// The package's version: what `remote-auth --version` prints and what `User-Agent` carries
    /// (`remote-auth/VERSION`). Bumped with each release entry in CHANGELOG.md.
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "remote-auth",
        abstract:
            "Authenticate to remote HTTP services: OAuth 1.0a, OAuth 2, OpenID Connect, DPoP, mutual TLS, HTTP Basic and Digest.",
        discussion: ExitStatus.help,
        version: version,
        subcommands: [
            Sign.self, SandboxCommand.self, RequestCommand.self, AuthorizeCommand.self, ProfilesCommand.self,
            TokenCommand.self, RevokeCommand.self, LogoutCommand.self, RegistrationsCommand.self, JWTCommand.self,
            DemoCommand.self,
            StoreWriterCommand.self,
        ]
    )

    /// Every failure writes its message to stderr (first line names the problem) and exits with
    /// its ``ExitStatus``: 2 for a usage error found by the parser or bad input found by a
    /// command, curl's numbers for the network, TLS and HTTP; nothing is written to stdout.
    /// `--help` and `--version` still exit 0.
    static func main() async {
        // The arguments are copied first (CommandLine.arguments is made on first use), then
        // blanked in the process list before anything else runs.
        let arguments = ShortOptions.normalize(Array(CommandLine.arguments.dropFirst()))
        SecretInput.scrubArguments()
        // CommandLine.arguments replaced invalid UTF-8 with U+FFFD: a header value or URL sent
        // that way would not be the one given. Refused rather than altered.
        if let index = (1..<Int(CommandLine.argc)).first(where: { index in
            CommandLine.unsafeArgv[index].map { String(validatingCString: $0) == nil } ?? false
        }) {
            Terminal.writeError(
                "remote-auth: argument \(index) is not valid UTF-8: refusing it rather than sending U+FFFD in place of its bytes\n"
            )
            Self.exit(withError: ExitStatus.usage.exitCode)
        }
        do {
            try LogOutput.bootstrap(environment: ProcessInfo.processInfo.environment)
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CLIFailure {
            if !failure.message.isEmpty { Terminal.writeError("remote-auth: \(Terminal.safe(failure.message))\n") }
            Self.exit(withError: failure.status.exitCode)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)
            }
            let message = Suggestion.dropUnlikely(fullMessage(for: error))
            Terminal.writeError(message.isEmpty ? "remote-auth: failed\n" : "remote-auth: \(Terminal.safe(message))\n")
            Self.exit(withError: ExitStatus.usage.exitCode)
        }
    }
}

struct Sign: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print what a signed request would carry, for debugging and for comparing implementations.",
        discussion: ExitStatus.help,
        subcommands: [SignOAuth1.self, SignBasic.self, SignDigest.self, SignSigV4.self, SignHTTPSignature.self]
    )
}

/// A failure to report to the user: the message's first line names the problem. It must never
/// contain a secret.
struct CLIFailure: Error, CustomStringConvertible {
    let message: String
    /// The exit status; bad input (2) unless the failure says otherwise.
    let status: ExitStatus
    init(_ message: String, status: ExitStatus = .usage) {
        self.message = message
        self.status = status
    }
    var description: String { message }
}

enum Terminal {
    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// `text` for a terminal: every control character but the newline (which the tool's own
    /// multi-line messages use) written as `\u{…}`, so that what a peer put in a message (a
    /// server's `error_description`, a header) cannot move the cursor, set the window title or
    /// ring. Text from a peer is escaped where it enters a message (``PeerText``), newlines
    /// included; this is the last guard, on every failure the tool prints.
    static func safe(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var output = ""
            for scalar in line.unicodeScalars {
                if PeerText.isUnprintable(scalar) {
                    output += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
            return output
        }.joined(separator: "\n")
    }

    /// One line on stdout.
    static func writeLine(_ text: String) {
        // Unbuffered, so a script reading stdout sees each line as it is written.
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}

/// ArgumentParser suggests any option within an edit distance of 3 of an unknown one, which
/// turns `--json` into "did you mean '--user'?". A suggestion is kept only when it is close for
/// its length: a typo (one edit in four characters), not another word.
enum Suggestion {
    static func dropUnlikely(_ message: String) -> String {
        guard let mark = message.range(of: "'. Did you mean '"),
            let start = message[..<mark.lowerBound].range(of: "Unknown option '", options: .backwards),
            let end = message[mark.upperBound...].range(of: "'?")
        else { return message }
        let unknown = String(message[start.upperBound..<mark.lowerBound])
        let suggested = String(message[mark.upperBound..<end.lowerBound])
        let words = (unknown.drop(while: { $0 == "-" }), suggested.drop(while: { $0 == "-" }))
        guard distance(Array(words.0), Array(words.1)) > max(1, words.1.count / 4) else { return message }
        return String(message[..<mark.lowerBound]) + "'" + message[end.upperBound...]
    }

    /// The optimal-string-alignment distance: insertions, deletions, substitutions and swaps of
    /// two neighbours (`--jsno` is one edit from `--json`).
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = Swift.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = Swift.min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
