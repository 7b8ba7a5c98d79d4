import ArgumentParser
import Foundation

@main
struct RemoteAuthCommand: AsyncParsableCommand {
    /// The package's version: what `remote-auth --version` prints and what `User-Agent` carries
    /// (`remote-auth/VERSION`). Bumped with each release entry in CHANGELOG.md.
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "remote-auth",
        abstract: "Authenticate to remote HTTP services: OAuth 1.0a, HTTP Basic and Digest.",
        version: version,
        subcommands: [
            Sign.self, SandboxCommand.self, RequestCommand.self, AuthorizeCommand.self, ProfilesCommand.self,
            DemoCommand.self,
        ]
    )

    /// Every failure, whether a usage error found by the parser or bad input found by a command,
    /// writes its message to stderr (first line names the problem) and exits with status 2;
    /// nothing is written to stdout. `--help` and `--version` still exit 0.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CLIFailure {
            Terminal.writeError("remote-auth: \(failure.message)\n")
            Self.exit(withError: ExitCode(2))
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)
            }
            let message = fullMessage(for: error)
            Terminal.writeError(message.isEmpty ? "remote-auth: failed\n" : "remote-auth: \(message)\n")
            Self.exit(withError: ExitCode(2))
        }
    }
}

struct Sign: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print what a signed request would carry, for debugging and for comparing implementations.",
        subcommands: [SignOAuth1.self, SignBasic.self, SignDigest.self]
    )
}

/// A failure to report to the user: the message's first line names the problem. It must never
/// contain a secret.
struct CLIFailure: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

enum Terminal {
    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// One line on stdout.
    static func writeLine(_ text: String) {
        // Unbuffered, so a script reading stdout sees each line as it is written.
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
