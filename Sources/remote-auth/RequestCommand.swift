import ArgumentParser
import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthFileStore
import RemoteAuthNIO

/// `remote-auth request`: sends one request, answers Basic and Digest challenges, follows
/// redirects safely, and prints the response body. Its options are curl's, with curl's meaning.
struct RequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract:
            "Send an HTTP request with a profile's token, or answering Basic and Digest challenges; print the response body.",
        discussion: ExitStatus.discussion(
            """
            The options are curl's and mean what they mean in curl: -d, --data-raw, --data-binary and \
            --data-urlencode pieces are joined with '&' in the order given and sent as an \
            application/x-www-form-urlencoded POST (-d 'a=b&c=d' is two fields; -d @FILE reads FILE without \
            its CR and LF, --data-binary @FILE keeps them, @- reads standard input); --json sends JSON with \
            Content-Type and Accept application/json. A User-Agent of remote-auth/VERSION is sent unless -H \
            or -A sets one.

            Redirects are followed only with -L, as in curl (at most --max-redirs, 50 by default); \
            without it a 3xx answer is printed as it is. Credentials are sent only to the URL's origin, \
            never across a change of scheme, host or port; the body (for 307 and 308) and the other -H \
            headers do follow a redirect to another origin, as in curl. Over plain http credentials are \
            sent only to loopback hosts unless --allow-http is given. With -v, \
            each request and response head goes to stderr, credentials and cookies redacted.

            Secrets stay off the command line: --user USER reads the password from REMOTE_AUTH_PASSWORD, \
            else asks for it on the terminal without echo; a secret given as an argument is blanked in \
            the process list.
            """
        )
    )

    @Option(name: [.customShort("X"), .customLong("request")], help: "The method (default: GET, or POST with data).")
    var method: String?

    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: ArgumentHelp("A header field, 'Name: value' (repeatable).", valueName: "header")
    )
    var headers: [String] = []

    @Option(
        name: [.customShort("d"), .customLong("data")],
        help: ArgumentHelp(
            "Form data, sent as given ('a=b&c=d' is two fields); @FILE or @- (stdin) reads it, CR and LF removed (repeatable, joined with '&').",
            valueName: "data"
        )
    )
    var data: [String] = []

    @Option(
        name: .customLong("data-raw"),
        help: ArgumentHelp("As -d, but a leading @ is sent as it is.", valueName: "data")
    )
    var dataRaw: [String] = []

    @Option(
        name: .customLong("data-binary"),
        help: ArgumentHelp("As -d, but @FILE is sent byte for byte, CR and LF kept.", valueName: "data")
    )
    var dataBinary: [String] = []

    @Option(
        name: .customLong("data-urlencode"),
        help: ArgumentHelp(
            "Form data percent-encoded, in curl's forms: content, =content, name=content, @file, name@file.",
            valueName: "data"
        )
    )
    var dataURLEncode: [String] = []

    @Option(
        name: .customLong("json"),
        help: ArgumentHelp(
            "A JSON body (@FILE or @- reads it), with Content-Type and Accept application/json; repeated pieces are concatenated.",
            valueName: "data"
        )
    )
    var json: [String] = []

    @Option(
        name: [.customShort("u"), .customLong("user")],
        parsing: .unconditional,
        help: ArgumentHelp(
            "USER:PASSWORD for Basic or Digest; with USER alone the password comes from REMOTE_AUTH_PASSWORD, else from a prompt on the terminal. A password on the command line is blanked at start, but other local users can read it in ps until then: prefer USER alone.",
            valueName: "user:password"
        )
    )
    var user: String?

    @Option(
        name: [.customShort("A"), .customLong("user-agent")],
        help: ArgumentHelp("The User-Agent (default: remote-auth/VERSION).", valueName: "name")
    )
    var userAgent: String?

    @Flag(
        name: [.customShort("i"), .customLong("include")],
        help: "Print the response's status line and header fields before its body."
    )
    var include = false

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp("Write the output to FILE instead of stdout.", valueName: "file")
    )
    var output: String?

    @Flag(name: [.customShort("s"), .customLong("silent")], help: "Write nothing to stderr, errors included (see -S).")
    var silent = false

    @Flag(name: [.customShort("S"), .customLong("show-error")], help: "With -s, still write errors to stderr.")
    var showError = false

    @Flag(
        name: [.customShort("f"), .customLong("fail")],
        help: "With a final status of 400 or more, write no body and exit 22."
    )
    var fail = false

    @Flag(
        name: [.customShort("L"), .customLong("location")],
        help: "Follow redirects (301, 302, 303, 307, 308); credentials stay with their origin."
    )
    var location = false

    @Option(name: .customLong("max-redirs"), help: "With -L, the most redirects to follow (default 50, as curl).")
    var maxRedirs = 50

    @Option(
        name: [.customShort("x"), .customLong("proxy")],
        help: ArgumentHelp(
            "An http proxy, [http://]HOST[:PORT] (default port 1080); '' for none. Else https_proxy, HTTPS_PROXY or http_proxy, as curl.",
            valueName: "url"
        )
    )
    var proxy: String?

    @Option(
        name: [.customShort("U"), .customLong("proxy-user")],
        parsing: .unconditional,
        help: ArgumentHelp(
            "USER:PASSWORD for the proxy, sent as Basic with the CONNECT that opens the tunnel; USER alone takes REMOTE_AUTH_PROXY_PASSWORD (a password in the arguments is readable in ps for a moment).",
            valueName: "user:password"
        )
    )
    var proxyUser: String?

    @Option(
        name: .customLong("noproxy"),
        help: ArgumentHelp(
            "Hosts reached without the proxy, comma-separated (else no_proxy, NO_PROXY); '*' for all.",
            valueName: "hosts"
        )
    )
    var noProxy: String?

    @Option(
        help: """
            Authenticate with the tokens kept under this profile (see 'remote-auth authorize'): an OAuth 1.0a \
            signature, or an OAuth 2 Bearer or DPoP token, refreshed when needed.
            """
    )
    var profile: String?

    @Option(
        name: .customLong("expiry-skew"),
        help: ArgumentHelp(
            "With an OAuth 2 --profile, refresh the access token when it expires within this many seconds (default 60).",
            valueName: "seconds"
        )
    )
    var expirySkew: Int64?

    /// Sends the request this many times at once through one client and one token session, for
    /// the tests of refreshes shared across processes; the first failure decides the exit.
    @Option(help: .hidden)
    var parallel: Int = 1

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

    @OptionGroup(title: "Uploads and AWS Signature Version 4")
    var upload: UploadOptions

    @OptionGroup(title: "TLS")
    var tlsOptions: TLSOptions

    @OptionGroup(title: "HTTP Message Signatures (RFC 9421)")
    var httpSignature: HTTPSignatureOptions

    @OptionGroup(title: "Profiles") var storeOptions: StoreOptions
    @OptionGroup(title: "Signing in from the URL (RFC 9728, RFC 7591)")
    var signInOptions: RequestSignInOptions

    @Argument(help: "The absolute http or https URL.")
    var url: String

    func run() async throws {
        do {
            let store = profile == nil ? nil : try await storeOptions.open()
            try await signInFirstIfAsked(store: store)
            do {
                try await send(store: store)
            } catch let needed as StepUpNeeded {
                // One step-up per request (RFC 6750 §3.1, RFC 9470): the second refusal is printed.
                try await stepUp(needed, store: store)
                try await send(store: store, steppedUp: true)
            }
        } catch let failure as CLIFailure where silent && !showError {
            throw CLIFailure("", status: failure.status)
        }
    }

    func send(store profiles: ProfileStore?, steppedUp: Bool = false) async throws {
        guard (0...1000).contains(maxRedirs) else {
            throw CLIFailure("--max-redirs must be between 0 and 1000, not \(maxRedirs)")
        }
        let payload = try RequestBody(
            pieces: dataPieces(),
            json: json.isEmpty ? nil : json
        )
        let upload = try self.upload.body(hasData: payload != nil, user: user)  // -T: streamed
        let method = HTTPRequest.Method(self.method ?? (upload != nil ? "PUT" : payload == nil ? "GET" : "POST"))
        guard let method else { throw CLIFailure("invalid method '\(self.method ?? "")'") }
        var request: HTTPRequest
        do {
            request = try HTTPRequest(method: method, absoluteURL: self.upload.target(url))
        } catch let error as RequestURLError {
            throw CLIFailure("invalid URL: \(error.reason)")
        }
        let origin: AuthScope
        do {
            origin = try AuthScope(origin: request)
        } catch let error as ClientError {
            throw CLIFailure("invalid URL: \(error.reason)")
        }
        for (index, header) in headers.enumerated() {
            // The value is not echoed: it is often a token.
            guard let colon = header.firstIndex(of: ":"), let name = HTTPField.Name(String(header[..<colon])) else {
                throw CLIFailure(
                    "invalid -H (the \(Self.ordinal(index + 1)) one): expected 'Name: value' (not shown: it may hold a credential)"
                )
            }
            // RFC 9110 §5.5: the whitespace around a value is not part of it (curl 7.88 sends it).
            let value = header[header.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            guard HTTPField.isValidValue(value) else {
                throw CLIFailure("invalid -H \(name): its value holds a control character (not shown: it may hold a credential)")
            }
            request.headerFields.append(HTTPField(name: name, value: value))
        }
        // curl's defaults in curl's order unless -H gave them: User-Agent, Accept, -H, Content-Type.
        var fields = HTTPFields()
        if let userAgent {
            request.headerFields[.userAgent] = nil
            fields[.userAgent] = userAgent
        } else if request.headerFields[.userAgent] == nil {
            fields[.userAgent] = "remote-auth/\(RemoteAuthCommand.version)"
        }
        if request.headerFields[.accept] == nil {
            fields[.accept] = payload?.isJSON == true ? "application/json" : "*/*"
        }
        fields.append(contentsOf: request.headerFields)
        var body: [UInt8]?
        if let payload {
            body = payload.bytes
            if fields[.contentType] == nil { fields[.contentType] = payload.contentType }
        }
        request.headerFields = fields
        let messageSignature = try httpSignature.authenticator(for: &request, hasBody: body != nil || upload != nil)
        let store = InMemoryCredentialStore()
        // With --aws-sigv4, --user is the access key (KEY:SECRET), as curl reads it.
        let sigV4 = try self.upload.sigV4(user: user, headers: headers)
        if sigV4 == nil, let credential = try userCredential(for: origin) {
            await store.add(credential, for: origin, allowingPlainHTTP: allowHTTP)
        }

        guard parallel >= 1, upload == nil || parallel == 1 else {
            throw CLIFailure("--parallel must be at least 1, not \(parallel), and 1 with -T")
        }
        if let expirySkew, expirySkew < 0 {
            throw CLIFailure("--expiry-skew must be 0 or more seconds, not \(expirySkew)")
        }
        if self.placement != nil, profile == nil {
            throw CLIFailure("--placement needs --profile: it says where the OAuth 1.0a parameters go")
        }
        var session: OAuth1.Session? = nil
        var loadedOAuth2: OAuth2Profile? = nil
        if let profile, let profiles { loadedOAuth2 = try await OAuth2Profile.load(profile, from: profiles) }
        if let oauth2Profile = loadedOAuth2 {
            if self.placement != nil {
                throw CLIFailure(
                    "--placement is for OAuth 1.0a profiles; an OAuth 2 token goes in the Authorization field"
                )
            }
            try oauth2Profile.check(origin: origin, path: String(request.target.path))
        } else if expirySkew != nil {
            throw CLIFailure("--expiry-skew needs an OAuth 2 --profile")
        }
        if loadedOAuth2 == nil, let profile, let profiles {
            guard let key = try await profiles.keys().first(where: { $0.service == profile }),
                let found = try await profiles.session(service: key.service, account: key.account)?.oauth1
            else { throw CLIFailure("unknown profile: '\(profile)' (see 'remote-auth profiles list')") }
            let providerOrigin = try AuthScope(url: found.provider.requestTokenURL).origin
            guard providerOrigin == origin.origin else {
                throw CLIFailure(
                    "profile '\(profile)' signs requests to \(providerOrigin) only, not to \(origin.origin)"
                )
            }
            session = found
            // OAuth 1.0a signs the form body's parameters (RFC 5849 §3.4.1.3.1): they must decode.
            if let body, FormURLEncoding.isFormEncoded(request.headerFields) {
                do {
                    _ = try FormURLEncoding.decode(bytes: body)
                } catch let error as FormURLEncodingError {
                    throw CLIFailure(
                        "the form body cannot be signed: \(error.reason); -d sends its text as it is, --data-urlencode NAME=TEXT percent-encodes TEXT"
                    )
                }
            }
        }

        let verbose = self.verbose
        let preemptive = self.preemptive
        let oauth = session
        let oauth2Profile = loadedOAuth2
        let plainHTTP = allowHTTP
        let placement = self.placement?.placement ?? .header
        let policy = OAuth2.RefreshPolicy(expirySkew: expirySkew ?? OAuth2.RefreshPolicy().expirySkew)
        let copies = parallel
        let connectTimeout = try Self.timeAmount(self.connectTimeout, option: "--connect-timeout")
        let timeout = try Self.timeAmount(maxTime, option: "--max-time")
        let proxy = try ProxyChoice.select(
            option: self.proxy,
            proxyUser: proxyUser,
            noProxy: noProxy,
            scheme: origin.scheme,
            host: origin.host,
            environment: ProcessInfo.processInfo.environment
        )
        if proxyUser != nil, proxy == nil {
            throw CLIFailure("--proxy-user needs a proxy: --proxy, or https_proxy/http_proxy for this URL")
        }
        var clientConfiguration = HTTPClient.Configuration()
        // An OAuth 2 profile signed in with a TLS client certificate presents it again: its token
        // may be bound to it (RFC 8705 §3), and refreshes authenticate with it (§2).
        let tlsOptions = self.tlsOptions.presenting(loadedOAuth2?.session.clientCertificate)
        if let proxy {
            guard tlsOptions.isEmpty else {
                throw CLIFailure(
                    "the proxy \(proxy.url) does not go with --cacert, --pin, --cert or -k: the transport that checks them inside the TLS handshake does not speak to proxies; use --noproxy HOST (or NO_PROXY) to go direct"
                )
            }
            clientConfiguration = try proxy.configuration()
            if verbose { Terminal.writeError("* Using proxy \(proxy.url)\n") }
        }
        let nioTransport = try tlsOptions.transport(connectTimeout: connectTimeout, timeout: timeout, quiet: silent)
        let outcome: Result<(HTTPResponse, [UInt8]), any Error> = try await Self.withTransport(
            nioTransport,
            configuration: clientConfiguration,
            connectTimeout: connectTimeout,
            timeout: timeout
        ) {
            transport in
            var configuration = AuthenticatingClient.Configuration()
            configuration.preemptive = preemptive
            configuration.followsRedirects = location
            configuration.maximumRedirects = maxRedirs
            // -v: the authenticators' decisions, as curl shows its own (`* ` lines).
            configuration.logger = LogOutput.logger("RemoteAuth.AuthenticatingClient", verbose: verbose)
            let wire: any HTTPTransport = verbose ? PrintingTransport(inner: transport) : transport
            // Every scheme through the client's authenticator chain, each for its origin only.
            var authenticators: [ScopedAuthenticator] = []
            if let oauth2Profile {
                // Bearer (or DPoP) on the profile's resource origins; renewed at its token endpoint.
                do {
                    let log = LogOutput.logger("RemoteAuth.OAuth2.TokenSession", verbose: verbose)
                    let session = try await oauth2Profile.tokenSession(over: transport, policy: policy, logger: log)
                    authenticators += session.authenticators(allowingPlainHTTP: plainHTTP)
                } catch {
                    return .failure(error)
                }
            }
            if let oauth {
                // OAuth 1.0a on the provider's origin, in the chosen placement (RFC 5849 §3.5).
                authenticators.append(
                    try oauth.authenticator(now: unixNow, placement: placement, allowingPlainHTTP: plainHTTP)
                )
            }
            if let sigV4 {
                authenticators.append(
                    ScopedAuthenticator(
                        sigV4,
                        for: origin,
                        allowingPlainHTTP: plainHTTP
                    )
                )
            }
            if let messageSignature {
                authenticators.append(ScopedAuthenticator(messageSignature, for: origin, allowingPlainHTTP: plainHTTP))
            }
            let client = AuthenticatingClient(
                transport: wire,
                credentials: store,
                authenticators: authenticators,
                configuration: configuration
            )
            guard copies > 1 else {
                do {
                    if let upload {
                        let (response, streamed) = try await client.stream(request, body: upload)
                        return .success((response, try await streamed.collect(upTo: Int.max)))
                    }
                    return .success(try await client.send(request, body: body))
                } catch {
                    return .failure(error)
                }
            }
            return await Self.sendCopies(of: request, body: body, copies: copies, through: client)
        }
        let response: HTTPResponse
        let responseBody: [UInt8]
        var authenticationFailed = false
        switch outcome {
        case .success(let (final, bytes)):
            response = final
            responseBody = bytes
        case .failure(let error as ClientError):
            guard error.code == .authenticationFailed, let final = error.response else {
                throw CLIFailure(Self.message(for: error), status: ExitStatus(for: error))
            }
            note("remote-auth: authentication failed: \(error.reason)\n")
            authenticationFailed = true
            response = final
            responseBody = []
        case .failure(let error as TransportError) where error.code == .timedOut:
            // The limits in force, named with their values: a script can tell --max-time's from
            // the defaults'.
            let limits =
                "--connect-timeout \(Self.seconds(self.connectTimeout ?? 10)) and --max-time \(Self.seconds(maxTime ?? 30))"
            throw CLIFailure("request failed: \(error.reason); \(limits) set the limits", status: .timedOut)
        case .failure(let error):
            throw Self.failure(error, profile: profile)
        }
        if let oauth2Profile { try checkStepUp(response, profile: oauth2Profile, steppedUp: steppedUp) }
        let failed = response.status.code >= 400
        if !(fail && failed) {
            var bytes: [UInt8] = []
            if include { bytes += Array(Self.head(of: response).utf8) }
            bytes += responseBody
            try write(bytes)
        }
        if failed || authenticationFailed {
            note("remote-auth: HTTP \(response.status.code) \(response.status.reasonPhrase)\n")
            throw CLIFailure("", status: fail ? .httpError : .failure)
        }
    }
}
