import ArgumentParser
import RemoteAuth

/// The exit statuses of every `remote-auth` command: one table, curl's numbers.
///
/// curl's rather than httpie's because `request` takes curl's options, and a script written for
/// `curl -f` keeps working when `curl` becomes `remote-auth request`: the same status means the
/// same failure. httpie's 3/4/5 (the class of the HTTP status) read well but say nothing about
/// the network, TLS or usage, which is where most failures of an authenticating client are.
enum ExitStatus: Int32, CaseIterable {
    /// Success.
    case success = 0
    /// A failure none of the codes below names; and `request` without `--fail` when the final
    /// status is 400 or more, or the server refused the credential (as before, unlike curl's 0).
    case failure = 1
    /// A usage error or bad input (an unknown option, a malformed value, a missing file): curl's
    /// 2, "failed to initialize". Nothing was sent.
    case usage = 2
    /// The host name does not resolve (curl's 6, `CURLE_COULDNT_RESOLVE_HOST`).
    case hostNotFound = 6
    /// No connection: refused, or unreachable (curl's 7, `CURLE_COULDNT_CONNECT`).
    case connectFailed = 7
    /// `request --fail` and the final status is 400 or more (curl's 22, `CURLE_HTTP_RETURNED_ERROR`).
    case httpError = 22
    /// The output file of `-o` cannot be written (curl's 23, `CURLE_WRITE_ERROR`).
    case writeError = 23
    /// `--connect-timeout` or `--max-time` passed (curl's 28, `CURLE_OPERATION_TIMEDOUT`).
    case timedOut = 28
    /// The TLS handshake failed for a reason other than trust: a protocol mismatch, or the
    /// server refused the client certificate (curl's 35, `CURLE_SSL_CONNECT_ERROR`).
    case tlsHandshakeFailed = 35
    /// Too many redirects (curl's 47, `CURLE_TOO_MANY_REDIRECTS`).
    case tooManyRedirects = 47
    /// The connection closed early, the answer is not HTTP, or the proxy refused the tunnel
    /// (curl's 56, `CURLE_RECV_ERROR`).
    case receiveFailed = 56
    /// The server's certificate is not trusted (curl's 60, `CURLE_PEER_FAILED_VERIFICATION`).
    case untrusted = 60
    /// The chain is trusted but carries none of the `--pin` keys (curl's 90,
    /// `CURLE_SSL_PINNEDPUBKEYNOTMATCH`).
    case pinMismatch = 90
    /// `request --verify-response-key`: the response carries no RFC 9421 signature that verifies
    /// with the key, covers what `Accept-Signature` asked for and is fresh; nothing is printed.
    /// curl has no such failure, and its table ends at 101 (`CURLE_ECH_REQUIRED`): 110 is past
    /// it, so a script written for curl never reads it as one of curl's.
    case responseSignatureFailed = 110
    /// A sign-in from a resource URL (`authorize oauth2 --resource`, `request --sign-in`) found
    /// metadata it may not use: a document about another resource (RFC 9728 §3.3), an
    /// authorization server the resource does not list or whose issuer does not match, one
    /// without PKCE S256, or one that offers this client no way to identify itself. Nothing is
    /// saved.
    case resourceMetadataRefused = 111
    /// The authorization server refused the dynamic registration (RFC 7591 §3.2.2:
    /// `invalid_redirect_uri`, `invalid_client_metadata`, ...). Nothing is saved.
    case registrationRefused = 112

    var exitCode: ExitCode { ExitCode(rawValue) }

    /// The table as `--help` shows it, appended to every command's discussion.
    static let help = """
        Exit status (curl's numbers, so that scripts written for curl keep working): 0 success; \
        1 other failures, and with `request` an HTTP status of 400 or more or a refused credential \
        (22 instead with --fail); 2 usage error or bad input, nothing sent; 6 host not found; \
        7 could not connect (refused, unreachable); 22 HTTP status 400 or more with --fail; \
        23 cannot write the -o file; 28 timed out (--connect-timeout, --max-time); 35 TLS handshake \
        failed; 47 too many redirects; 56 connection closed early, not an HTTP answer, or the proxy refused the tunnel; \
        60 server certificate not trusted; 90 no --pin matched; 110 the response's RFC 9421 signature \
        did not verify (--verify-response-key); 111 a sign-in from a resource URL found metadata it \
        may not use (another resource, an unlisted server, an issuer mismatch, no PKCE S256, no way \
        to identify the client, signed metadata that does not verify); 112 the server refused the dynamic registration.
        """

    /// The discussion of a command: `text`, then the exit status table.
    static func discussion(_ text: String = "") -> String {
        text.isEmpty ? help : text + "\n\n" + help
    }

    /// The status for a failure below HTTP or in trust, by its code.
    init(for error: any Error) {
        switch error {
        case let failure as CLIFailure: self = failure.status
        case is ResponseSignatureRejection: self = .responseSignatureFailed
        // A request that cannot be signed as asked (a covered field it does not have): bad input.
        case is HTTPMessageSignatures.Error: self = .usage
        case let error as TransportError: self.init(transport: error)
        case let error as TrustRejection: self = error.code == .pinMismatch ? .pinMismatch : .untrusted
        case let error as ClientError:
            switch error.code {
            case .tooManyRedirects: self = .tooManyRedirects
            // Refused before anything was sent: bad input.
            case .plainHTTPRefused, .invalidURL, .invalidCredential: self = .usage
            default: self = .failure
            }
        // A configuration the library refuses before sending (an http endpoint to another host,
        // a relative URL): bad input.
        case let error as OAuth2.Error where error.code == .insecureEndpoint || error.code == .invalidConfiguration:
            self = .usage
        case is BasicError: self = .usage
        // A request that cannot be signed as asked (body placement on a GET, a body that is not
        // form-encoded): bad input, and nothing was sent.
        case is OAuth1Error: self = .usage
        default: self = .failure
        }
    }

    init(transport error: TransportError) {
        if ProxyChoice.isProxyAuthenticationRequired(error) || ProxyChoice.isTunnelRefused(error) {
            self = .receiveFailed
            return
        }
        switch error.code {
        case .hostNotFound: self = .hostNotFound
        case .connectionRefused, .connectFailed: self = .connectFailed
        case .timedOut: self = .timedOut
        case .tlsHandshakeFailed: self = TLSFailure.isUntrustedCertificate(error) ? .untrusted : .tlsHandshakeFailed
        case .connectionClosed, .closedBeforeWriting, .malformedResponse, .responseTooLarge: self = .receiveFailed
        default: self = .failure
        }
    }
}

/// Telling an untrusted certificate from other TLS failures when the transport (AsyncHTTPClient
/// with the system's roots) reports both as a failed handshake.
enum TLSFailure {
    /// NIOSSL keeps BoringSSL's error codes private; its text names the verification failure.
    static func isUntrustedCertificate(_ error: TransportError) -> Bool {
        guard error.code == .tlsHandshakeFailed, let underlying = error.underlying else { return false }
        return "\(underlying)".contains("CERTIFICATE_VERIFY_FAILED")
    }
}
