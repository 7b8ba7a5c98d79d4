import ArgumentParser
import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthFileStore
import RemoteAuthNIO

/// `remote-auth request`'s helpers: the heads it prints, the data options in command-line order,
/// the transport it picks, and its messages for each kind of failure.
extension RequestCommand {
    /// The status line and fields as curl -i prints them, CRLF-terminated, and the empty line.
    static func head(of response: HTTPResponse) -> String {
        var text = "HTTP/1.1 \(response.status.code) \(response.status.reasonPhrase)\r\n"
        for field in response.headerFields { text += "\(field.name.rawName): \(field.value)\r\n" }
        return text + "\r\n"
    }

    static func ordinal(_ n: Int) -> String {
        switch n % 100 {
        case 11, 12, 13: return "\(n)th"
        default:
            switch n % 10 {
            case 1: return "\(n)st"
            case 2: return "\(n)nd"
            case 3: return "\(n)rd"
            default: return "\(n)th"
            }
        }
    }

    /// The data options in the order they were given on the command line, as curl joins them.
    /// ArgumentParser keeps each option's values in order but not the order between options, so
    /// that is read back from the arguments; if the two disagree (a spelling this reader does not
    /// know), the options are taken -d first, then --data-raw, --data-binary, --data-urlencode.
    func dataPieces() -> [RequestBody.Piece] {
        var queues: [RequestBody.Kind: [String]] = [
            .data: data, .raw: dataRaw, .binary: dataBinary, .urlencode: dataURLEncode,
        ]
        let order = Self.dataOptionOrder(ShortOptions.normalize(CommandLine.arguments))
        let counts = Dictionary(grouping: order, by: { $0 }).mapValues(\.count)
        var pieces: [RequestBody.Piece] = []
        if counts[.data, default: 0] == data.count, counts[.raw, default: 0] == dataRaw.count,
            counts[.binary, default: 0] == dataBinary.count, counts[.urlencode, default: 0] == dataURLEncode.count
        {
            for kind in order {
                pieces.append(RequestBody.Piece(kind: kind, value: queues[kind]!.removeFirst()))
            }
            return pieces
        }
        for kind in [RequestBody.Kind.data, .raw, .binary, .urlencode] {
            pieces += queues[kind]!.map { RequestBody.Piece(kind: kind, value: $0) }
        }
        return pieces
    }

    /// The kinds of the data options among `arguments`, in order.
    static func dataOptionOrder(_ arguments: [String]) -> [RequestBody.Kind] {
        let long: [String: RequestBody.Kind] = [
            "--data": .data, "--data-raw": .raw, "--data-binary": .binary,
            "--data-urlencode": .urlencode,
        ]
        var kinds: [RequestBody.Kind] = []
        var index = arguments.firstIndex(of: "request").map { $0 + 1 } ?? arguments.endIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--" { break }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if let kind = long[name] {
                kinds.append(kind)
                index += argument.contains("=") ? 1 : 2
                continue
            }
            if argument.hasPrefix("-d"), !argument.hasPrefix("--") {
                kinds.append(.data)
                index += argument == "-d" ? 2 : 1
                continue
            }
            // Skip the value of an option that takes one, so that it is not read as an option.
            if SecretInput.secretOptions.contains(argument)
                || [
                    "-H", "--header", "-X", "--request", "--json", "-A", "--user-agent", "-o", "--output", "-x",
                    "--proxy", "--noproxy",
                ]
                .contains(argument)
            {
                index += 2
                continue
            }
            index += 1
        }
        return kinds
    }

    /// Runs `body` with the NIO transport when TLS options were given (it owns the handshake, so
    /// pins are checked before the request is written), else with AsyncHTTPClient.
    static func withTransport<T: Sendable>(
        _ nio: NIOHTTP1Transport?,
        configuration: HTTPClient.Configuration = .init(),
        connectTimeout: TimeAmount?,
        timeout: TimeAmount?,
        _ body: (any HTTPTransport) async throws -> T
    ) async throws -> T {
        if let nio { return try await body(nio) }
        return try await AsyncHTTPClientTransport.withTransport(
            configuration: configuration,
            connectTimeout: connectTimeout,
            timeout: timeout ?? .seconds(30)
        ) { try await body($0) }
    }

    /// `seconds` (fractions allowed) as a `TimeAmount`; more than zero.
    static func timeAmount(_ seconds: Double?, option: String) throws -> TimeAmount? {
        guard let seconds else { return nil }
        guard seconds.isFinite, seconds > 0, seconds <= 86400 * 365 else {
            throw CLIFailure("\(option) needs a number of seconds greater than 0")
        }
        return .nanoseconds(Int64(seconds * 1_000_000_000))
    }

    /// The failure to print for an error of the exchange other than a refused credential.
    static func failure(_ error: any Error, profile: String?) -> CLIFailure {
        switch error {
        case let error as TrustRejection:
            CLIFailure(message(for: error), status: ExitStatus(for: error))
        case let error as TransportError:
            CLIFailure("request failed: \(message(for: error))", status: ExitStatus(for: error))
        case let error as ClientError:
            CLIFailure(message(for: error), status: ExitStatus(for: error))
        case let error as OAuth2.Error:
            CLIFailure(describeOAuth2(error, profile: profile ?? ""), status: ExitStatus(for: error))
        case let error as OAuth1Error:
            // Nothing was sent: the request cannot be signed as asked.
            CLIFailure("cannot sign the request: \(error.reason)", status: ExitStatus(for: error))
        case let error as BasicError:
            // Nothing was sent: the credential cannot be encoded (RFC 7617 §2).
            CLIFailure("invalid --user: \(error.reason)", status: .usage)
        case let error as DigestError:
            CLIFailure("cannot answer the Digest challenge: \(error.reason)", status: ExitStatus(for: error))
        case let error as ResponseSignatureRejection:
            CLIFailure(error.description, status: .responseSignatureFailed)
        case let error as HTTPMessageSignatures.Error:
            // Nothing was sent: the request cannot be signed as asked (RFC 9421 §2.5).
            CLIFailure("cannot sign the request: \(error.reason)", status: .usage)
        default:
            CLIFailure("request failed: \(error)", status: .failure)
        }
    }

    /// `1 s`, `2.5 s`: a time option's value as the user would write it.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? "\(Int(value)) s" : "\(value) s"
    }

    /// What happened below HTTP, by the error's code, and what to do about it.
    /// - Parameter timeoutOptions: the options of the running command that set its time limits,
    ///   named after a timeout; `nil` for a command that has none.
    static func message(
        for error: TransportError,
        timeoutOptions: String? = "--connect-timeout and --max-time"
    ) -> String {
        switch error.code {
        case .connectionRefused: "\(error.reason): is the server running, and is the port right?"
        case .hostNotFound: "\(error.reason): check the host name"
        case .timedOut:
            timeoutOptions.map { "\(error.reason); \($0) set the limits" } ?? error.reason
        case _ where ProxyChoice.isProxyAuthenticationRequired(error):
            "the proxy refused the tunnel without a credential (407): pass --proxy-user USER:PASSWORD"
        case _ where ProxyChoice.isTunnelRefused(error):
            "the proxy refused the tunnel (its answer to CONNECT was not 2xx)"
        case .tlsHandshakeFailed where TLSFailure.isUntrustedCertificate(error):
            "certificate not trusted: \(error.reason); pass --cacert FILE, or -k for local testing"
        default: error.reason
        }
    }

    /// A certificate or pin the trust policy refused, and what to pass instead.
    static func message(for error: TrustRejection) -> String {
        switch error.code {
        case .pinMismatch, .certificateMismatch:
            "\(error); nothing was sent: check the --pin values against the keys it presented"
        default:
            "certificate not trusted: \(error); nothing was sent: pass --cacert FILE, or -k for local testing"
        }
    }

    static func message(for error: ClientError) -> String {
        switch error.code {
        case .tooManyRedirects: "too many redirects: \(error.reason)"
        case .invalidRedirect: "invalid redirect: \(error.reason)"
        case .plainHTTPRefused: error.reason
        case .invalidServerProof: "the server failed to prove it knows the credential: \(error.reason)"
        default: error.reason
        }
    }
}

/// Writes each request and response head to stderr as curl -v does (`>` and `<` prefixed, the
/// request line with its protocol version, `Host` and `Content-Length`), credentials redacted.
struct PrintingTransport: HTTPTransport {
    let inner: any HTTPTransport

    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        var text = "> \(request.method.rawValue) \(VerboseRedaction.target(request.path ?? "/")) HTTP/1.1\n"
        if let authority = request.authority { text += "> Host: \(authority)\n" }
        for field in request.headerFields { text += "> \(field.name.rawName): \(VerboseRedaction.value(field))\n" }
        if let body, request.headerFields[.contentLength] == nil { text += "> Content-Length: \(body.count)\n" }
        Terminal.writeError(text)
        let (response, responseBody) = try await inner.send(request, body: body)
        text = "< HTTP/1.1 \(response.status.code) \(response.status.reasonPhrase)\n"
        for line in Redaction.redacted(response.headerFields) { text += "< \(line)\n" }
        Terminal.writeError(text)
        return (response, responseBody)
    }
}

/// What `-v` hides: the library's ``Redaction``, except that the OAuth 1.0a protocol parameters
/// that identify rather than prove (the consumer key, the signature method, the timestamp, the
/// nonce…) are shown, as they are needed to debug a signature; `oauth_signature`, `oauth_token`
/// and `oauth_verifier` stay hidden.
enum VerboseRedaction {
    /// [RFC 5849 §3.1](https://www.rfc-editor.org/rfc/rfc5849#section-3.1) parameters that are
    /// not credentials.
    static let publicOAuthParameters: Set<String> = [
        "realm", "oauth_consumer_key", "oauth_signature_method", "oauth_timestamp", "oauth_nonce",
        "oauth_version", "oauth_callback", "oauth_body_hash",
    ]

    /// A field value for `-v`: an OAuth `Authorization` shows its public parameters
    /// ([RFC 5849 §3.5.1](https://www.rfc-editor.org/rfc/rfc5849#section-3.5.1)).
    static func value(_ field: HTTPField) -> String {
        guard field.name == .authorization, field.value.hasPrefix("OAuth ") else {
            return Redaction.redactedValue(field)
        }
        let parameters = field.value.dropFirst("OAuth ".count).split(separator: ",").map { part -> String in
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard let equals = trimmed.firstIndex(of: "=") else { return "<redacted>" }
            let name = String(trimmed[..<equals])
            return publicOAuthParameters.contains(name) ? trimmed : name + "=\"<redacted>\""
        }
        return "OAuth " + parameters.joined(separator: ", ")
    }

    /// The request target, the values of secret-looking query parameters hidden, the public
    /// OAuth 1.0a parameters shown.
    static func target(_ target: String) -> String {
        guard let mark = target.firstIndex(of: "?") else { return target }
        let parts = target[target.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: false)
            .map { part -> String in
                let name = String(part.prefix(while: { $0 != "=" }))
                if publicOAuthParameters.contains(name) { return String(part) }
                return String(Redaction.redactedURL("?" + part).dropFirst())
            }
        return String(target[...mark]) + parts.joined(separator: "&")
    }
}

extension RequestCommand {
    /// The Basic/Digest credential of `--user`: `USER:PASSWORD`, or `USER` with
    /// REMOTE_AUTH_PASSWORD or a prompt on the terminal; `nil` without `--user`.
    ///
    /// - Throws: ``CLIFailure`` for a user without a password and no terminal, or an origin over
    ///   plain http without `--allow-http`.
    func userCredential(for origin: AuthScope) throws -> Credential? {
        guard let user else { return nil }
        let name: String
        let password: String
        if let colon = user.firstIndex(of: ":") {
            name = String(user[..<colon])
            password = String(user[user.index(after: colon)...])
        } else if let fromEnvironment = ProcessInfo.processInfo.environment["REMOTE_AUTH_PASSWORD"] {
            name = user
            password = fromEnvironment
        } else if let typed = SecretInput.prompt("Enter host password for user '\(user)': ") {
            name = user
            password = typed
        } else {
            throw CLIFailure(
                "--user \(user) has no password, and standard input is not a terminal to ask for it: set REMOTE_AUTH_PASSWORD, or pass --user USER:PASSWORD"
            )
        }
        if origin.scheme == "http", !origin.isLoopback, !allowHTTP {
            throw CLIFailure(
                "refusing to send the credential for \(origin) over plain http, where anyone on the path can read it;"
                    + " use https, or pass --allow-http to allow it for this origin"
            )
        }
        return Credential(user: name, password: password)
    }
}

extension RequestCommand {
    /// `--parallel`: the request sent `copies` times at once through one client; the first
    /// failure, else the first refusal (HTTP 400 or more), else a success.
    static func sendCopies(
        of request: HTTPRequest,
        body: [UInt8]?,
        copies: Int,
        through client: AuthenticatingClient
    ) async -> Result<(HTTPResponse, [UInt8]), any Error> {
        let sent = (request: request, body: body)
        return await withTaskGroup(of: Result<(HTTPResponse, [UInt8]), any Error>.self) { group in
            for _ in 0..<copies {
                group.addTask {
                    do {
                        return .success(try await client.send(sent.request, body: sent.body))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            var worst: Result<(HTTPResponse, [UInt8]), any Error>? = nil
            for await outcome in group {
                switch (worst, outcome) {
                case (.failure, _): break
                case (_, .failure): worst = outcome
                case (.success(let kept), .success(let new)) where kept.0.status.code < 400:
                    if new.0.status.code >= 400 { worst = outcome }
                case (.none, _): worst = outcome
                default: break
                }
            }
            return worst!
        }
    }
}
