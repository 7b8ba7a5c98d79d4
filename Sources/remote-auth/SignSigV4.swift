import ArgumentParser
import Foundation
import RemoteAuth

/// `remote-auth sign sigv4`: what AWS Signature Version 4 adds to a request, for debugging and
/// for comparing with other implementations (botocore, curl's `--aws-sigv4`).
struct SignSigV4: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sigv4",
        abstract: "Print the AWS Signature Version 4 Authorization value, or a presigned URL.",
        discussion: ExitStatus.discussion(
            """
            --aws-sigv4 takes curl's form, aws:amz:REGION:SERVICE. The key comes from --user \
            KEY:SECRET (curl's), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; a session token \
            from --security-token or AWS_SESSION_TOKEN. --print headers writes every field the \
            signature adds, one per line; --presign SECONDS prints the presigned URL.
            """
        )
    )

    enum PrintChoice: String, ExpressibleByArgument, CaseIterable {
        case authorization, headers, url
        case canonicalRequest = "canonical-request"
        case stringToSign = "string-to-sign"
    }

    @Argument(help: "The HTTP method, such as GET or PUT.")
    var method: String

    @Argument(help: "The absolute URL, with its query.")
    var url: String

    @Option(name: .customLong("aws-sigv4"), help: ArgumentHelp("aws:amz:REGION:SERVICE (curl's form).", valueName: "provider"))
    var provider: String

    @Option(
        name: [.customShort("u"), .customLong("user")],
        parsing: .unconditional,
        help: ArgumentHelp("The access key id and secret, KEY:SECRET; '-' reads them from stdin.", valueName: "key:secret")
    )
    var user: String?

    @Option(parsing: .unconditional, help: "The session token of temporary credentials (or AWS_SESSION_TOKEN).")
    var securityToken: String?

    @Option(name: .customShort("H"), help: ArgumentHelp("A header field, 'Name: value' (repeatable).", valueName: "header"))
    var headers: [String] = []

    @Option(name: .customLong("data-binary"), help: ArgumentHelp("The body, as is.", valueName: "body"))
    var body: String?

    @Option(help: "X-Amz-Date, yyyyMMddTHHmmssZ (default: now).")
    var date: String?

    @Option(help: "Print a presigned URL valid for this many seconds (1 to 604800).")
    var presign: Int?

    @Flag(help: "Sign UNSIGNED-PAYLOAD instead of the body's SHA-256.")
    var unsignedPayload = false

    @Option(name: .customLong("print"), help: "authorization, headers, url, canonical-request or string-to-sign.")
    var printChoice: PrintChoice?

    func validate() throws {
        if let date, date.utf8.count != 16 || !date.hasSuffix("Z") || date.dropFirst(8).first != "T" {
            throw ValidationError("--date must be yyyyMMddTHHmmssZ, not '\(date)'")
        }
    }

    func run() throws {
        let signer = try Self.signer(provider: provider, user: user, securityToken: securityToken)
        guard let httpMethod = HTTPRequest.Method(method.uppercased()) else {
            throw CLIFailure("invalid method: '\(method)' is not an HTTP method token")
        }
        var request: HTTPRequest
        do {
            request = try HTTPRequest(method: httpMethod, absoluteURL: url)
        } catch let error as RequestURLError {
            throw CLIFailure("invalid URL: \(error.reason)")
        }
        for header in headers {
            guard let colon = header.firstIndex(of: ":"), let name = HTTPField.Name(String(header[..<colon])) else {
                throw CLIFailure("invalid header: '\(header)' is not 'Name: value'")
            }
            request.headerFields.append(HTTPField(name: name, value: String(header[header.index(after: colon)...])))
        }
        let bytes = body.map { Array($0.utf8) }
        do {
            let signed =
                try presign.map { try signer.presign(request, body: bytes, expires: $0, date: date) }
                ?? signer.sign(request, body: bytes, payloadHash: unsignedPayload ? "UNSIGNED-PAYLOAD" : nil, date: date)
            switch printChoice ?? (presign == nil ? .authorization : .url) {
            case .authorization: Terminal.writeLine(signed.request.headerFields[.authorization] ?? "")
            case .url: Terminal.writeLine(signed.request.absoluteURL)
            case .canonicalRequest: Terminal.writeLine(signed.canonicalRequest)
            case .stringToSign: Terminal.writeLine(signed.stringToSign)
            case .headers:
                for field in signed.request.headerFields where !request.headerFields.contains(field) {
                    Terminal.writeLine("\(field.name.rawName): \(field.value)")
                }
            }
        } catch let error as AWS.SigV4Error {
            throw CLIFailure(error.reason)
        }
    }

    /// The signer of `--aws-sigv4 aws:amz:REGION:SERVICE` (curl's form) with the credentials of
    /// ``credentials(user:securityToken:)``.
    static func signer(provider: String, user: String?, securityToken: String?) throws -> AWS.SigV4Signer {
        let parts = provider.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, parts[0].lowercased() == "aws", parts[1].lowercased() == "amz",
            !parts[2].isEmpty, !parts[3].isEmpty
        else {
            throw CLIFailure("--aws-sigv4 must be aws:amz:REGION:SERVICE, not '\(provider)'")
        }
        return AWS.SigV4Signer(
            credentials: try credentials(user: user, securityToken: securityToken),
            region: parts[2],
            service: parts[3]
        )
    }

    /// `--user KEY:SECRET` (or `-`, one line of stdin), else the environment's.
    static func credentials(user: String?, securityToken: String?) throws -> AWS.Credentials {
        let environment = ProcessInfo.processInfo.environment
        let token = try SecretInput.resolve(securityToken, environment: "AWS_SESSION_TOKEN", option: "--security-token")
            .flatMap { $0.isEmpty ? nil : Secret($0) }
        if let pair = try SecretInput.resolve(user, environment: nil, option: "--user") {
            guard let colon = pair.firstIndex(of: ":"), colon != pair.startIndex else {
                throw CLIFailure("--user must be KEY:SECRET")
            }
            return AWS.Credentials(
                accessKeyID: String(pair[..<colon]),
                secretAccessKey: Secret(String(pair[pair.index(after: colon)...])),
                sessionToken: token
            )
        }
        guard var credentials = try AWS.Credentials.fromEnvironment(environment) ?? sharedCredentials(environment)
        else {
            throw CLIFailure(
                "missing credentials: --user KEY:SECRET, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile in ~/.aws/credentials (AWS_PROFILE, AWS_SHARED_CREDENTIALS_FILE)"
            )
        }
        if token != nil { credentials.sessionToken = token }
        return credentials
    }

    /// The profile `AWS_PROFILE` (else `default`) of the shared credentials file
    /// (`AWS_SHARED_CREDENTIALS_FILE`, else `~/.aws/credentials`), as the AWS CLI reads it after
    /// the environment's keys; `nil` when there is no such file and neither variable names one.
    static func sharedCredentials(_ environment: [String: String]) throws -> AWS.Credentials? {
        let named = environment["AWS_SHARED_CREDENTIALS_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        let profile = environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 }
        let home = environment["HOME"] ?? NSHomeDirectory()
        let path = named ?? home + "/.aws/credentials"
        guard let data = FileManager.default.contents(atPath: path) else {
            guard named == nil, profile == nil else {
                throw CLIFailure("cannot read the shared credentials file '\(path)'")
            }
            return nil
        }
        do {
            return try AWS.Credentials.fromSharedCredentialsFile(
                String(decoding: data, as: UTF8.self),
                profile: profile ?? "default",
                source: "'\(path)'"
            )
        } catch let error as AWS.SigV4Error {
            throw CLIFailure("missing credentials: \(error.reason)")
        }
    }
}
