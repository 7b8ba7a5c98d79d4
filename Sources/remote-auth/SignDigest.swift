import ArgumentParser
import Foundation
import HTTPTypes
import RemoteAuth

/// `remote-auth sign digest`: answers a `WWW-Authenticate: Digest` challenge and prints the
/// `Authorization` value. [RFC 7616 §3.4](https://www.rfc-editor.org/rfc/rfc7616#section-3.4)
struct SignDigest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "digest",
        abstract: "Print the Authorization value answering an HTTP Digest challenge (RFC 7616, RFC 2617).",
        discussion: ExitStatus.help
    )

    enum QOP: String, ExpressibleByArgument, CaseIterable {
        case auth
        case authInt = "auth-int"
    }

    @Option(help: "The username.")
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

    @Option(help: "The request method.")
    var method: String = "GET"

    @Option(help: "The request-target exactly as on the request line, e.g. /dir/index.html?x=1.")
    var uri: String

    @Option(help: "The WWW-Authenticate value, e.g. 'Digest realm=\"r\", nonce=\"n\", qop=\"auth\"'.")
    var challenge: String

    @Option(help: "The client nonce (default: 128 random bits, hex).")
    var cnonce: String?

    @Option(help: "The nonce count: 8 hex digits as sent (00000001) or a decimal number.")
    var nc: String = "00000001"

    @Option(help: "A file holding the request body (needed for qop=auth-int).")
    var bodyFile: String?

    @Option(help: "The preferred qop: auth or auth-int.")
    var qop: QOP?

    func run() throws {
        let digestChallenge: DigestChallenge
        do {
            digestChallenge = try DigestChallenge(headerValue: challenge)
        } catch let error as DigestError {
            if error.code == .unsupportedAlgorithm {
                throw CLIFailure("unsupported algorithm: \(error.reason)")
            }
            throw CLIFailure("malformed challenge: \(error.reason)")
        }
        guard let requestMethod = HTTPRequest.Method(method) else {
            throw CLIFailure("invalid method: not an HTTP token")
        }
        guard let nonceCount = Self.parseNonceCount(nc) else {
            throw CLIFailure("invalid nonce count: expected 8 hex digits or a decimal number from 1")
        }
        var body: [UInt8]?
        if let bodyFile {
            guard let data = FileManager.default.contents(atPath: bodyFile) else {
                throw CLIFailure("unreadable body file: \(bodyFile)")
            }
            body = Array(data)
        }
        let credentials = DigestCredentials(username: username, password: try resolvedPassword())
        let response: DigestResponse
        do {
            response = try DigestResponse(
                challenge: digestChallenge,
                credentials: credentials,
                method: requestMethod,
                uri: uri,
                body: body,
                nonceCount: nonceCount,
                cnonce: cnonce ?? DigestCnonceGenerator.system.next(),
                qop: qop.map { DigestQOP(rawValue: $0.rawValue) }
            )
        } catch let error as DigestError {
            switch error.code {
            case .bodyRequired: throw CLIFailure("body required: \(error.reason); pass --body-file")
            case .unsupportedQOP: throw CLIFailure("unsupported qop: \(error.reason)")
            case .invalidParameter: throw CLIFailure("invalid parameter: \(error.reason)")
            default: throw CLIFailure("cannot answer challenge: \(error.reason)")
            }
        }
        Terminal.writeLine(response.authorization)
    }

    /// `00000001` (8 hex digits, as on the wire) or a decimal count.
    static func parseNonceCount(_ text: String) -> UInt32? {
        let isHex8 = text.utf8.count == 8 && text.allSatisfy(\.isHexDigit)
        let value = isHex8 ? UInt32(text, radix: 16) : UInt32(text, radix: 10)
        guard let value, value > 0 else { return nil }
        return value
    }
}
