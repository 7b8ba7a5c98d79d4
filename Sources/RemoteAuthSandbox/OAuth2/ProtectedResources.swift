import HTTPTypes
import Hummingbird
import RemoteAuth

/// One of the sandbox's protected resources
/// ([RFC 9728 §2](https://www.rfc-editor.org/rfc/rfc9728#section-2)): the status API and a
/// second resource on the same origin, `/files`, so that tokens bound to one resource
/// ([RFC 8707](https://www.rfc-editor.org/rfc/rfc8707)) can be seen refused by the other.
///
/// **Identifiers.** The status API's identifier is the sandbox's base URL plus `/1.1`, not the
/// origin. The origin also serves the authorization server, Basic, Digest and OAuth 1.0a's
/// endpoints, which take none of these tokens, and a second resource with its own audience
/// lives beside it; an origin-wide identifier would name them all. RFC 9728 §3.3 asks that
/// the document's `resource` be identical to the identifier its well-known URL was derived
/// from (§3.1, path-inserted: `BASE/.well-known/oauth-protected-resource/1.1`) and, when the
/// document was found through a challenge's `resource_metadata`, to the URL the client
/// requested: a client that starts from the identifier itself requests `BASE/1.1`, which
/// answers `401` with the challenges (``StatusAPIRoutes``), so both checks hold exactly. The
/// origin has no document of its own (`/.well-known/oauth-protected-resource` is `404`),
/// since it is not a resource that accepts tokens.
struct ProtectedResource: Sendable, Hashable {
    /// The identifier's path below the base URL: `/1.1`, `/files`.
    let path: String
    /// `resource_name`.
    let name: String
    /// Whether a token issued without `resource` (no audience) is accepted. Only the status
    /// API takes one, as it did before tokens had audiences, so that every existing flow, the
    /// demo and the interop scripts keep working; `/files` takes only tokens bound to it.
    let acceptsTokensWithoutAudience: Bool

    static let statusAPI = ProtectedResource(
        path: "/1.1",
        name: "RemoteAuth Sandbox status API",
        acceptsTokensWithoutAudience: true
    )
    static let files = ProtectedResource(
        path: "/files",
        name: "RemoteAuth Sandbox files",
        acceptsTokensWithoutAudience: false
    )
    static let all = [statusAPI, files]

    /// The resource identifier: `base` and ``path``.
    func identifier(base: String) -> String { base + path }

    /// The document's URL: `/.well-known/oauth-protected-resource` inserted between the origin
    /// and the path ([RFC 9728 §3.1](https://www.rfc-editor.org/rfc/rfc9728#section-3.1)).
    func metadataURL(base: String) -> String { base + "/.well-known/oauth-protected-resource" + path }

    /// Whether a token whose audience (`resource` at issue) is `audience` may be used here:
    /// each resource takes only tokens issued for it ([RFC 8707 §2](https://www.rfc-editor.org/rfc/rfc8707#section-2)).
    func accepts(audience: [String]?, base: String) -> Bool {
        guard let audience else { return acceptsTokensWithoutAudience }
        return audience.contains(identifier(base: base))
    }

    /// The metadata document ([RFC 9728 §2](https://www.rfc-editor.org/rfc/rfc9728#section-2)).
    /// With ``SandboxConfiguration/resourceMetadataSigningKey``, the same members again in
    /// `signed_metadata`, a JWT whose `iss` is the sandbox ([§2.2](https://www.rfc-editor.org/rfc/rfc9728#section-2.2)).
    func metadata(base: String, configuration: SandboxConfiguration, algorithms: [String]) -> [String: JSONValue] {
        var members = plainMetadata(base: base, configuration: configuration, algorithms: algorithms)
        // RFC 9728 §2: absent means false.
        if configuration.requireDPoP { members["dpop_bound_access_tokens_required"] = .bool(true) }
        if let key = configuration.resourceMetadataSigningKey {
            var claims = members
            claims["iss"] = .string(base)
            members["signed_metadata"] = (try? JOSE.JWS.sign(claims: claims, with: key, header: ["typ": "JWT"])).map(JSONValue.string)
        }
        return members
    }

    func plainMetadata(base: String, configuration: SandboxConfiguration, algorithms: [String]) -> [String: JSONValue] {
        [
            "resource": .string(identifier(base: base)),
            "authorization_servers": .array([.string(base)]),
            "scopes_supported": .array(scopes(configuration).map(JSONValue.string)),
            "bearer_methods_supported": .array([.string("header")]),
            "resource_name": .string(name),
            "dpop_signing_alg_values_supported": .array(algorithms.map(JSONValue.string)),
            // RFC 8705 §3: certificate-bound tokens are taken where there is TLS.
            "tls_client_certificate_bound_access_tokens": .bool(configuration.tls != nil),
        ]
    }

    /// The scopes a token for this resource is asked with: the status API's, or `statuses:read`
    /// for `/files` (a read).
    func scopes(_ configuration: SandboxConfiguration) -> [String] {
        self == .statusAPI ? configuration.oauth2Scopes : ["statuses:read"]
    }
}

/// The `WWW-Authenticate` challenges of the protected resources
/// ([RFC 6750 §3](https://www.rfc-editor.org/rfc/rfc6750#section-3),
/// [RFC 9449 §7.1](https://www.rfc-editor.org/rfc/rfc9449#section-7.1)), each with
/// `resource_metadata` ([RFC 9728 §5.1](https://www.rfc-editor.org/rfc/rfc9728#section-5.1)).
struct ResourceChallenges: Sendable {
    let realm: String
    /// The DPoP algorithms, sorted, as `algs` lists them.
    let algorithms: [String]
    /// The resource's metadata URL, or `nil` outside a protected resource (UserInfo).
    let metadataURL: String?

    /// `Bearer realm="…"[, error="…"][, scope="…"][, acr_values="…"][, max_age=N], resource_metadata="…"`
    /// (`acr_values` and `max_age`: [RFC 9470 §3](https://www.rfc-editor.org/rfc/rfc9470#section-3)).
    func bearer(
        error: OAuth2.ErrorCode? = nil,
        scope: String? = nil,
        acrValues: String? = nil,
        maxAge: Int64? = nil
    ) -> String {
        var value = "Bearer realm=\"\(realm.replacingQuotes())\""
        if let error { value += ", error=\"\(error.rawValue)\"" }
        if let scope { value += ", scope=\"\(scope)\"" }
        if let acrValues { value += ", acr_values=\"\(acrValues.replacingQuotes())\"" }
        if let maxAge { value += ", max_age=\(maxAge)" }
        if let metadataURL { value += ", resource_metadata=\"\(metadataURL.replacingQuotes())\"" }
        return value
    }

    /// `DPoP algs="…"[, error="…"], resource_metadata="…"`.
    func dpop(error: OAuth2.ErrorCode? = nil) -> String {
        var value = "DPoP algs=\"\(algorithms.joined(separator: " "))\""
        if let error { value += ", error=\"\(error.rawValue)\"" }
        if let metadataURL { value += ", resource_metadata=\"\(metadataURL.replacingQuotes())\"" }
        return value
    }
}

/// `401` for a request to a protected resource with no credentials: one challenge per scheme
/// the resource accepts, each its own field line
/// ([RFC 9110 §11.6.1](https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1)), and no
/// `error`, as [RFC 6750 §3.1](https://www.rfc-editor.org/rfc/rfc6750#section-3.1) asks when
/// the request carried no authentication at all.
struct ResourceChallengeRefusal: SandboxRefusal {
    let challenges: [String]

    var status: HTTPResponse.Status { .unauthorized }

    func response(from request: Request, context: some RequestContext) -> Response {
        var headers = HTTPFields()
        for challenge in challenges { headers.append(HTTPField(name: .wwwAuthenticate, value: challenge)) }
        return SandboxResponse.json(
            SandboxResponse.ErrorBody(error: "this resource needs an access token (Bearer or DPoP)"),
            status: .unauthorized,
            headers: headers
        )
    }

    var logOutcome: String { "no credentials" }
}

/// `GET /files`: a second protected resource on the sandbox's origin, its own identifier
/// (`BASE/files`) and metadata, taking only tokens bound to it (RFC 8707). Answers
/// `{"files":["NAME.txt"],"user":"NAME"}` for the token's user.
struct FilesRoutes: Sendable {
    let authenticator: BearerAuthenticator

    var collection: RouteCollection<SandboxRequestContext> {
        let routes = RouteCollection(context: SandboxRequestContext.self)
        routes.add(middleware: authenticator)
        routes.get("") { _, context in
            let user = context.bearer?.name ?? ""
            return SandboxResponse.json(FilesJSON(files: [user + ".txt"], user: user))
        }
        return routes
    }

    struct FilesJSON: Encodable {
        let files: [String]
        let user: String
    }
}
