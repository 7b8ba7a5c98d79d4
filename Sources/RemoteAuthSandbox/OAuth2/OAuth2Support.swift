import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import RemoteAuth

/// The authorization server's issuer identifier: the sandbox's base URL, known once it listens
/// (its port may be picked at start) ([RFC 8414 §2](https://www.rfc-editor.org/rfc/rfc8414#section-2)).
final class OAuth2Issuer: Sendable {
    private let value = Locked("")
    var url: String { value.withLock { $0 } }
    func set(_ url: String) { value.withLock { $0 = url } }
}

/// An OAuth 2 error answered as JSON ([RFC 6749 §5.2](https://www.rfc-editor.org/rfc/rfc6749#section-5.2)),
/// with `Cache-Control: no-store`; the request log shows `error=CODE`.
struct OAuth2Problem: SandboxRefusal {
    let status: HTTPResponse.Status
    let body: OAuth2.ErrorResponse
    var headers: HTTPFields = [:]

    init(_ code: OAuth2.ErrorCode, _ description: String, status: HTTPResponse.Status = .badRequest) {
        self.status = status
        body = OAuth2.ErrorResponse(code: code, errorDescription: description)
    }

    func response(from request: Request, context: some RequestContext) -> Response {
        OAuth2JSON.response(body, status: status, headers: headers)
    }

    var logOutcome: String { "error=\(body.code.rawValue)" }
}

/// An authorization error sent back to the client's redirect URI
/// ([RFC 6749 §4.1.2.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1)): thrown so
/// that the request log shows its `error`, answered as the `302` itself.
struct OAuth2RedirectError: SandboxRefusal {
    let location: String
    let code: OAuth2.ErrorCode

    var status: HTTPResponse.Status { .found }

    func response(from request: Request, context: some RequestContext) -> Response {
        SandboxResponse.redirect(to: location)
    }

    var logOutcome: String { "error=\(code.rawValue)" }
}

enum OAuth2JSON {
    /// Sorted compact JSON, `/` not escaped, never cached
    /// ([RFC 6749 §5.1](https://www.rfc-editor.org/rfc/rfc6749#section-5.1)).
    static func response(
        _ value: some Encodable,
        status: HTTPResponse.Status = .ok,
        headers: HTTPFields = [:]
    )
        -> Response
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        var fields = headers
        fields[.cacheControl] = "no-store"
        fields[HTTPField.Name("Pragma")!] = "no-cache"
        return SandboxResponse.text(
            status,
            String(decoding: data, as: UTF8.self),
            contentType: "application/json",
            headers: fields
        )
    }
}

/// What the client sent to an endpoint as a form: strictly decoded, each parameter at most
/// once, empty values treated as absent ([RFC 6749 §3.2](https://www.rfc-editor.org/rfc/rfc6749#section-3.2)),
/// except the ones defined to repeat: `resource` ([RFC 8707 §2](https://www.rfc-editor.org/rfc/rfc8707#section-2))
/// and `audience` ([RFC 8693 §2.1](https://www.rfc-editor.org/rfc/rfc8693#section-2.1)).
struct OAuth2Parameters: Sendable {
    /// The parameters that may be given more than once.
    static let repeatable: Set<String> = ["resource", "audience"]

    private(set) var values: [String: String]
    /// Every value of each ``repeatable`` parameter, in order.
    let repeated: [String: [String]]

    init(_ pairs: [(name: String, value: String)]) throws(OAuth2Problem) {
        var values: [String: String] = [:]
        var repeated: [String: [String]] = [:]
        for pair in pairs where !pair.value.isEmpty {
            if Self.repeatable.contains(pair.name) {
                repeated[pair.name, default: []].append(pair.value)
                if values[pair.name] == nil { values[pair.name] = pair.value }
                continue
            }
            guard values[pair.name] == nil else {
                throw OAuth2Problem(.invalidRequest, "the parameter '\(pair.name)' is repeated")
            }
            values[pair.name] = pair.value
        }
        self.values = values
        self.repeated = repeated
    }

    /// The `application/x-www-form-urlencoded` body of a POST.
    static func body(of request: Request) async throws(OAuth2Problem) -> OAuth2Parameters {
        guard FormURLEncoding.isFormEncoded(request.headers) else {
            throw OAuth2Problem(.invalidRequest, "the body must be application/x-www-form-urlencoded")
        }
        let pairs: [(name: String, value: String)]
        do {
            pairs = try FormURLEncoding.decode(bytes: await request.bodyBytes())
        } catch {
            throw OAuth2Problem(.invalidRequest, "the body is not valid form encoding")
        }
        return try OAuth2Parameters(pairs)
    }

    /// A parameter's value; setting one is for what the server derives itself (a pushed
    /// request's `dpop_jkt` from its proof, RFC 9449 §10.1).
    subscript(_ name: String) -> String? {
        get { values[name] }
        set { values[name] = newValue }
    }
}

/// Client authentication at the token, device, revocation and introspection endpoints
/// ([RFC 6749 §2.3](https://www.rfc-editor.org/rfc/rfc6749#section-2.3)): `client_secret_basic`,
/// `client_secret_post`, `client_secret_jwt`, `private_key_jwt`, `tls_client_auth`,
/// `self_signed_tls_client_auth` ([RFC 8705 §2](https://www.rfc-editor.org/rfc/rfc8705#section-2)),
/// or `none` for a public client; exactly one method per request.
struct OAuth2ClientAuthentication: Sendable {
    let configuration: SandboxConfiguration
    /// The configured and registered clients (RFC 7591).
    let clients: OAuth2ClientRegistry
    /// Verifies `client_assertion`s (`private_key_jwt`, `client_secret_jwt`).
    var openID: OpenIDProvider? = nil

    enum Method: String, Sendable {
        case clientSecretBasic = "client_secret_basic"
        case clientSecretPost = "client_secret_post"
        case clientSecretJWT = "client_secret_jwt"
        case privateKeyJWT = "private_key_jwt"
        case tlsClientAuth = "tls_client_auth"
        case selfSignedTLSClientAuth = "self_signed_tls_client_auth"
        case none
    }

    /// A `401 invalid_client` always carries a challenge: RFC 9110 §15.5.2 requires one in
    /// every `401`, and [RFC 6749 §5.2](https://www.rfc-editor.org/rfc/rfc6749#section-5.2)
    /// uses it to name the schemes the server supports. A client that did not use the
    /// Authorization header (a secret in the body, an assertion, a TLS certificate) is told
    /// Basic, the one HTTP scheme this token endpoint takes.
    ///
    /// - Parameter peer: the certificate of the request's TLS connection, if any.
    func authenticate(
        _ request: Request,
        _ parameters: OAuth2Parameters,
        peer: PeerCertificate?
    ) async throws(OAuth2Problem) -> (client: SandboxConfiguration.OAuth2Client, method: Method) {
        do throws(OAuth2Problem) {
            let result = try await authenticateAnyMethod(request, parameters, peer: peer)
            if let registered = result.client.tokenEndpointAuthMethod, registered != result.method.rawValue {
                throw OAuth2Problem(.invalidClient, "the client is registered for \(registered)", status: .unauthorized)
            }
            return result
        } catch {
            var problem = error
            if problem.status == .unauthorized, problem.headers[.wwwAuthenticate] == nil {
                problem.headers[.wwwAuthenticate] = basicChallenge
            }
            throw problem
        }
    }

    private func authenticateAnyMethod(
        _ request: Request,
        _ parameters: OAuth2Parameters,
        peer: PeerCertificate?
    ) async throws(OAuth2Problem) -> (client: SandboxConfiguration.OAuth2Client, method: Method) {
        if let assertion = parameters["client_assertion"] {
            // A metadata document's client is fetched (or found fresh) before its assertion is
            // checked against its jwks.
            if let id = parameters["client_id"] { _ = try await client(id) }
            guard request.headers[.authorization] == nil, parameters["client_secret"] == nil, let openID else {
                throw OAuth2Problem(
                    .invalidRequest,
                    "the client authenticated twice, or assertions are not accepted here"
                )
            }
            return try openID.authenticate(
                assertion: assertion,
                type: parameters["client_assertion_type"],
                clientID: parameters["client_id"],
                endpoint: openID.issuer.url + request.uri.path
            )
        }
        let authorization = request.headers[.authorization]
        if let authorization {
            guard let credentials = try? BasicCredentials(authorization: authorization) else {
                throw basicFailure("the Authorization header is not valid client_secret_basic credentials")
            }
            if parameters["client_secret"] != nil {
                throw OAuth2Problem(.invalidRequest, "the client authenticated twice (Basic and client_secret)")
            }
            // RFC 6749 §2.3.1: id and secret are form-encoded before they go into Basic.
            guard let id = try? FormURLEncoding.decode("\(credentials.user)=").first?.name,
                let secret = try? FormURLEncoding.decode("s=\(credentials.password.reveal())").first?.value
            else {
                throw basicFailure("the client id or secret is not form-encoded (RFC 6749 §2.3.1)")
            }
            if let bodyID = parameters["client_id"], bodyID != id {
                throw OAuth2Problem(.invalidRequest, "client_id differs from the Basic credentials")
            }
            guard let client = try await client(id), let expected = client.secret,
                constantTimeEquals(expected, secret)
            else {
                throw basicFailure("client authentication failed")
            }
            return (client, .clientSecretBasic)
        }
        guard let id = parameters["client_id"] else {
            throw OAuth2Problem(.invalidClient, "no client authentication and no client_id")
        }
        guard let client = try await client(id) else {
            throw OAuth2Problem(.invalidClient, "client authentication failed")
        }
        if client.usesMutualTLS, let method = client.tokenEndpointAuthMethod, parameters["client_secret"] == nil {
            // RFC 8705 §2: `client_id` in the body, the certificate of the connection as the credential.
            try await MutualTLS.authenticate(
                client,
                method: method,
                peer: peer,
                clientCAs: MutualTLS.clientCAs(configuration)
            )
            return (client, method == MutualTLS.tlsClientAuth ? .tlsClientAuth : .selfSignedTLSClientAuth)
        }
        if let presented = parameters["client_secret"] {
            guard let expected = client.secret, constantTimeEquals(expected, presented) else {
                throw OAuth2Problem(.invalidClient, "client authentication failed")
            }
            return (client, .clientSecretPost)
        }
        guard !client.isConfidential else {
            throw OAuth2Problem(.invalidClient, "a confidential client must authenticate")
        }
        return (client, .none)
    }

    /// The client named `id`, its metadata document fetched if it is a URL; a refused
    /// document is `invalid_client` with the rule it broke.
    func client(_ id: String) async throws(OAuth2Problem) -> SandboxConfiguration.OAuth2Client? {
        do {
            return try await clients.resolve(id)
        } catch {
            throw OAuth2Problem(error.code, error.reason)
        }
    }

    /// `401` with a Basic challenge, as RFC 6749 §5.2 requires when the client used the
    /// Authorization header.
    func basicFailure(_ description: String) -> OAuth2Problem {
        var problem = OAuth2Problem(.invalidClient, description, status: .unauthorized)
        problem.headers[.wwwAuthenticate] = basicChallenge
        return problem
    }

    private var basicChallenge: String { "Basic realm=\"\(configuration.realm.replacingQuotes())\"" }
}

enum OAuth2Rules {
    /// The audience a request's `resource` values ask for ([RFC 8707 §2](https://www.rfc-editor.org/rfc/rfc8707#section-2)):
    /// the identifiers of this server's protected resources they name (``ProtectedResource``,
    /// a trailing `/` ignored). A value that names none of them (another server, the origin,
    /// a path below a resource) asks for no specific resource, which §2 lets a server process
    /// as it did without one: such tokens keep the status API's behaviour from before tokens
    /// had audiences, so clients that send their own origin as `resource` keep working. When
    /// the grant named resources, a token or refresh request may narrow them, never widen
    /// them (§2.2); with no value given, the grant's audience stays.
    ///
    /// - Throws: ``OAuth2Problem`` `invalid_target` for a value that is not an absolute URI, has
    ///   a fragment (§2), or names a resource the grant was not for.
    static func resources(
        _ parameters: OAuth2Parameters,
        base: String,
        granted: [String]?
    ) throws(OAuth2Problem) -> [String]? {
        guard let requested = parameters.repeated["resource"] else { return granted }
        let known = ProtectedResource.all.map { $0.identifier(base: base) }
        var audience: [String] = []
        for value in requested {
            guard !value.contains("#"), let scheme = URLComponents(string: value)?.scheme, !scheme.isEmpty else {
                throw OAuth2Problem(
                    .invalidTarget,
                    "resource must be an absolute URI without a fragment (RFC 8707 §2)"
                )
            }
            let trimmed = value.hasSuffix("/") ? String(value.dropLast()) : value
            guard known.contains(trimmed), !audience.contains(trimmed) else { continue }
            if let granted, !granted.contains(trimmed) {
                throw OAuth2Problem(
                    .invalidTarget,
                    "'\(trimmed)' was not asked for in the authorization request (RFC 8707 §2.2)"
                )
            }
            audience.append(trimmed)
        }
        return audience.isEmpty ? granted : audience
    }

    /// Whether `presented` is one of `registered`: exactly, or for a registered loopback
    /// redirect without a port, with any port
    /// ([RFC 8252 §7.3](https://www.rfc-editor.org/rfc/rfc8252#section-7.3)).
    static func redirectURIMatches(_ presented: String, registered: [String]) -> Bool {
        if registered.contains(presented) { return true }
        guard let given = URLComponents(string: presented), given.fragment == nil else { return false }
        for candidate in registered {
            guard let expected = URLComponents(string: candidate), expected.scheme == "http", expected.port == nil,
                ["127.0.0.1", "[::1]", "::1", "localhost"].contains(expected.host ?? "")
            else { continue }
            if given.scheme == "http", given.host == expected.host,
                given.percentEncodedPath == expected.percentEncodedPath,
                given.percentEncodedQuery == expected.percentEncodedQuery, given.user == nil
            {
                return true
            }
        }
        return false
    }

    /// `scope` split on spaces, checked against the server's scopes; all of them when absent
    /// ([RFC 6749 §3.3](https://www.rfc-editor.org/rfc/rfc6749#section-3.3)).
    static func scope(_ requested: String?, allowed: [String]) -> [String]? {
        guard let requested else { return allowed }
        let scopes = requested.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard !scopes.isEmpty, scopes.allSatisfy(allowed.contains) else { return nil }
        var unique: [String] = []
        for scope in scopes where !unique.contains(scope) { unique.append(scope) }
        return unique
    }

    /// `BASE64URL(SHA256(ASCII(code_verifier)))` ([RFC 7636 §4.2](https://www.rfc-editor.org/rfc/rfc7636#section-4.2)).
    static func s256(_ verifier: String) -> String {
        base64URL(Array(SHA256.hash(data: Array(verifier.utf8))))
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// 43 to 128 unreserved characters ([RFC 7636 §4.1](https://www.rfc-editor.org/rfc/rfc7636#section-4.1)).
    static func isValidVerifier(_ value: String) -> Bool {
        (43...128).contains(value.utf8.count) && value.utf8.allSatisfy(FormURLEncoding.isUnreserved)
    }
}
