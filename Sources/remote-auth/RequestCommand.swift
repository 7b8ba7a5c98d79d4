import ArgumentParser
import Foundation
import HTTPTypes
import NIOCore
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthFileStore
import RemoteAuthNIO

/// `remote-auth request`: sends one request, answers Basic and Digest challenges, follows
/// redirects safely, and prints the response body.
struct RequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Send an HTTP request, answering Basic and Digest challenges; print the response body.",
        discussion: """
            Redirects are followed; credentials are sent only to the URL's origin, never across a \
            change of scheme, host or port. Over plain http they are sent only to loopback hosts \
            unless --allow-http is given. With -v, each request and response head goes to stderr, \
            Authorization and cookies redacted. The exit status is 1 when the final status is 400 or \
            more (its status line on stderr), 2 for bad input.
            """
    )

    @Option(name: .customShort("X"), help: "The method (default: GET, or POST with -d).")
    var method: String?

    @Option(
        name: .customShort("H"),
        help: ArgumentHelp("A header field, 'Name: value' (repeatable).", valueName: "header")
    )
    var headers: [String] = []

    @Option(
        name: .customShort("d"),
        help: ArgumentHelp(
            "A form-body parameter, NAME=VALUE, value taken literally (repeatable).",
            valueName: "name=value"
        )
    )
    var data: [String] = []

    @Option(
        help: ArgumentHelp(
            "USER:PASSWORD for Basic or Digest; with USER alone the password is read from REMOTE_AUTH_PASSWORD.",
            valueName: "user:password"
        )
    )
    var user: String?

    @Option(help: "Sign with the OAuth 1.0a token kept under this profile (see 'remote-auth authorize').")
    var profile: String?

    @Option(
        help: ArgumentHelp(
            "With --profile, where the OAuth 1.0a parameters go: header (default), query or body.",
            valueName: "placement"
        )
    )
    var placement: SignOAuth1.PlacementChoice?

    @Flag(help: "Send Basic credentials with the first request instead of waiting for a challenge.")
    var preemptive = false

    @Flag(name: .customLong("allow-http"), help: "Allow the credential over plain http to a host that is not loopback.")
    var allowHTTP = false

    @Flag(name: .shortAndLong, help: "Print request and response heads to stderr, credentials redacted.")
    var verbose = false

    @Option(
        name: .customLong("connect-timeout"),
        help: ArgumentHelp(
            "Seconds to wait for a connection, TLS handshake included (default 10), as curl's.",
            valueName: "seconds"
        )
    )
    var connectTimeout: Double?

    @Option(
        name: .customLong("max-time"),
        help: ArgumentHelp(
            "Seconds each request on the wire may take, from connecting to the last byte (default 30).",
            valueName: "seconds"
        )
    )
    var maxTime: Double?

    @OptionGroup(title: "TLS")
    var tlsOptions: TLSOptions

    @Argument(help: "The absolute http or https URL.")
    var url: String

    func run() async throws {
        let method = HTTPRequest.Method(self.method ?? (data.isEmpty ? "GET" : "POST"))
        guard let method else { throw CLIFailure("invalid method '\(self.method ?? "")'") }
        var request: HTTPRequest
        do {
            request = try HTTPRequest(method: method, absoluteURL: url)
        } catch let error as RequestURLError {
            throw CLIFailure("invalid URL: \(error.reason)")
        }
        let origin: AuthScope
        do {
            origin = try AuthScope(origin: request)
        } catch let error as ClientError {
            throw CLIFailure("invalid URL: \(error.reason)")
        }
        for header in headers {
            guard let colon = header.firstIndex(of: ":"), let name = HTTPField.Name(String(header[..<colon])) else {
                throw CLIFailure("invalid header '\(header)': expected 'Name: value'")
            }
            let value = header[header.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" })
            request.headerFields.append(HTTPField(name: name, value: String(value)))
        }
        var body: [UInt8]?
        if !data.isEmpty {
            var pairs: [(name: String, value: String)] = []
            for parameter in data {
                guard let equals = parameter.firstIndex(of: "=") else {
                    throw CLIFailure("invalid -d '\(parameter)': expected NAME=VALUE")
                }
                pairs.append((String(parameter[..<equals]), String(parameter[parameter.index(after: equals)...])))
            }
            body = Array(FormURLEncoding.encode(pairs).utf8)
            if request.headerFields[.contentType] == nil {
                request.headerFields[.contentType] = "application/x-www-form-urlencoded"
            }
        }
        let store = InMemoryCredentialStore()
        if let user {
            let name: String
            let password: String
            if let colon = user.firstIndex(of: ":") {
                name = String(user[..<colon])
                password = String(user[user.index(after: colon)...])
            } else if let fromEnvironment = ProcessInfo.processInfo.environment["REMOTE_AUTH_PASSWORD"] {
                name = user
                password = fromEnvironment
            } else {
                throw CLIFailure("--user needs USER:PASSWORD, or USER with REMOTE_AUTH_PASSWORD set")
            }
            if origin.scheme == "http", !origin.isLoopback, !allowHTTP {
                throw CLIFailure(
                    "refusing to send the credential for \(origin) over plain http, where anyone on the path can read it;"
                        + " use https, or pass --allow-http to allow it for this origin"
                )
            }
            await store.add(Credential(user: name, password: password), for: origin, allowingPlainHTTP: allowHTTP)
        }

        if self.placement != nil, profile == nil {
            throw CLIFailure("--placement needs --profile: it says where the OAuth 1.0a parameters go")
        }
        var session: OAuth1.Session? = nil
        if let profile {
            let store = try FileTokenStore()
            guard let key = await store.keys().first(where: { $0.service == profile }),
                let found = await store.session(service: key.service, account: key.account)?.oauth1
            else { throw CLIFailure("unknown profile: '\(profile)' (see 'remote-auth profiles list')") }
            let providerOrigin = try AuthScope(url: found.provider.requestTokenURL).origin
            guard providerOrigin == origin.origin else {
                throw CLIFailure(
                    "profile '\(profile)' signs requests to \(providerOrigin) only, not to \(origin.origin)"
                )
            }
            session = found
        }

        let verbose = self.verbose
        let preemptive = self.preemptive
        let oauth = session
        let placement = self.placement?.placement ?? .header
        let connectTimeout = try Self.timeAmount(self.connectTimeout, option: "--connect-timeout")
        let timeout = try Self.timeAmount(maxTime, option: "--max-time")
        let nioTransport = try tlsOptions.transport(connectTimeout: connectTimeout, timeout: timeout)
        let outcome: Result<(HTTPResponse, [UInt8]), any Error> = try await Self.withTransport(
            nioTransport,
            connectTimeout: connectTimeout,
            timeout: timeout
        ) {
            transport in
            var configuration = AuthenticatingClient.Configuration()
            configuration.preemptive = preemptive
            var wire: any HTTPTransport = verbose ? PrintingTransport(inner: transport) : transport
            if let oauth {
                // Signed closest to the wire, so that -v shows the Authorization field (redacted).
                wire = try oauth.signingTransport(
                    over: verbose ? PrintingTransport(inner: transport) : transport,
                    now: unixNow,
                    placement: placement
                )
            }
            let client = AuthenticatingClient(
                transport: wire,
                credentials: store,
                configuration: configuration
            )
            do {
                return .success(try await client.send(request, body: body))
            } catch {
                return .failure(error)
            }
        }
        let response: HTTPResponse
        switch outcome {
        case .success(let (final, responseBody)):
            FileHandle.standardOutput.write(Data(responseBody))
            response = final
        case .failure(let error as ClientError):
            guard error.code == .authenticationFailed, let final = error.response else {
                throw CLIFailure(Self.message(for: error))
            }
            Terminal.writeError("remote-auth: authentication failed: \(error.reason)\n")
            response = final
        case .failure(let error as TrustRejection):
            throw CLIFailure(error.description + "; nothing was sent")
        case .failure(let error as TransportError):
            throw CLIFailure("request failed: \(Self.message(for: error))")
        case .failure(let error):
            throw CLIFailure("request failed: \(error)")
        }
        if response.status.code >= 400 {
            Terminal.writeError("remote-auth: HTTP \(response.status.code) \(response.status.reasonPhrase)\n")
            Foundation.exit(1)
        }
    }

    /// Runs `body` with the NIO transport when TLS options were given (it owns the handshake, so
    /// pins are checked before the request is written), else with AsyncHTTPClient.
    static func withTransport<T: Sendable>(
        _ nio: NIOHTTP1Transport?,
        connectTimeout: TimeAmount?,
        timeout: TimeAmount?,
        _ body: (any HTTPTransport) async throws -> T
    ) async throws -> T {
        if let nio { return try await body(nio) }
        return try await AsyncHTTPClientTransport.withTransport(
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

    /// What happened below HTTP, by the error's code, and what to do about it.
    static func message(for error: TransportError) -> String {
        switch error.code {
        case .connectionRefused: "\(error.reason): is the server running, and is the port right?"
        case .hostNotFound: "\(error.reason): check the host name"
        case .timedOut: "\(error.reason); --connect-timeout and --max-time set the limits"
        default: error.reason
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

/// Writes each request and response head to stderr, `>` and `<` prefixed, credentials redacted.
struct PrintingTransport: HTTPTransport {
    let inner: any HTTPTransport

    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        var text = "> \(request.method.rawValue) \(Redaction.redactedURL(request.absoluteURL))\n"
        for line in Redaction.redacted(request.headerFields) { text += "> \(line)\n" }
        Terminal.writeError(text)
        let (response, responseBody) = try await inner.send(request, body: body)
        text = "< \(response.status.code) \(response.status.reasonPhrase)\n"
        for line in Redaction.redacted(response.headerFields) { text += "< \(line)\n" }
        Terminal.writeError(text)
        return (response, responseBody)
    }
}
