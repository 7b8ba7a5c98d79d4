import ArgumentParser
import RemoteAuth

/// `remote-auth sign basic`: prints the `Authorization` value for HTTP Basic.
/// [RFC 7617 §2](https://www.rfc-editor.org/rfc/rfc7617#section-2)
struct SignBasic: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "basic",
        abstract: "Print the Authorization value for HTTP Basic (RFC 7617).",
        discussion: ExitStatus.help
    )

    @Option(help: "The user-id; must not contain a colon.")
    var username: String

    @Option(
        parsing: .unconditional,
        help: "The password, '-' to read it from stdin, or REMOTE_AUTH_PASSWORD."
    )
    var password: String?

    /// `--password`, stdin or `REMOTE_AUTH_PASSWORD`.
    func resolvedPassword() throws -> String {
        guard
            let password = try SecretInput.resolve(password, environment: "REMOTE_AUTH_PASSWORD", option: "--password")
        else { throw CLIFailure("missing secret: --password (or REMOTE_AUTH_PASSWORD) is required") }
        return password
    }

    @Flag(help: "Encode as ISO-8859-1 instead of UTF-8 (legacy servers).")
    var latin1 = false

    func run() throws {
        let credentials: BasicCredentials
        do {
            credentials = try BasicCredentials(
                user: username,
                password: try resolvedPassword(),
                encoding: latin1 ? .isoLatin1 : .utf8
            )
        } catch let error as BasicError {
            throw CLIFailure(Self.message(for: error))
        }
        Terminal.writeLine(credentials.authorization)
    }

    /// First line names the problem; the reason never holds the password.
    static func message(for error: BasicError) -> String {
        switch error.code {
        case .invalidUserID: return "invalid user-id: \(error.reason)"
        case .invalidPassword: return "invalid password: \(error.reason)"
        case .unencodableCharacter: return "cannot encode credentials: \(error.reason)"
        default: return "invalid credentials: \(error.reason)"
        }
    }
}
