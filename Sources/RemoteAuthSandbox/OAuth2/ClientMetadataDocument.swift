import Foundation
import HTTPTypes
import RemoteAuth

/// The rules of a client ID metadata document, with no I/O: which `client_id`s name one, the
/// request that fetches it, and the client its bytes describe
/// ([draft-ietf-oauth-client-id-metadata-document](https://datatracker.ietf.org/doc/draft-ietf-oauth-client-id-metadata-document/),
/// as the MCP authorization specification adopts it). ``ClientMetadataDocuments`` fetches and
/// caches; this checks.
enum ClientMetadataDocument {
    /// Why a `client_id` URL or its document is refused: the OAuth 2 error code and a
    /// description naming the rule, shown on the authorization endpoint's error page and sent
    /// in the other endpoints' JSON errors. It never holds a secret (the document may not have
    /// one, and a `client_secret` member is named, never echoed).
    struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        let code: OAuth2.ErrorCode
        let reason: String

        init(_ code: OAuth2.ErrorCode, _ reason: String) {
            self.code = code
            self.reason = reason
        }

        var description: String { "\(code.rawValue): \(reason)" }
    }

    /// The draft, for the descriptions.
    static let draft = "draft-ietf-oauth-client-id-metadata-document"

    /// Loopback hosts whose `http` documents ``SandboxConfiguration/allowLoopbackClientMetadata``
    /// lets the sandbox fetch (as [RFC 8252 §7.3](https://www.rfc-editor.org/rfc/rfc8252#section-7.3)
    /// names them for redirects).
    static let loopbackHosts: Set<String> = ["127.0.0.1", "::1", "[::1]", "localhost"]

    /// Whether `id` is meant as a document URL (`https://…`, or `http://…` to be refused or
    /// allowed by ``request(for:allowLoopbackHTTP:)``): any other `client_id` is an ordinary one.
    static func names(_ id: String) -> Bool {
        let lowered = id.lowercased()
        return lowered.hasPrefix("https://") || lowered.hasPrefix("http://")
    }

    /// The `GET` of the document at `url`, `Accept: application/json`, after the client
    /// identifier rules ([draft §3](https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document#section-3)):
    /// an `https` URL with a path, no fragment, no userinfo, no `.` or `..` segment (a path of
    /// `/` and a query are only NOT RECOMMENDED, so taken). An `http` URL is taken only for a
    /// loopback host and only with `allowLoopbackHTTP`.
    static func request(for url: String, allowLoopbackHTTP: Bool) throws(Failure) -> HTTPRequest {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else {
            throw Failure(.invalidClient, "the client_id '\(url)' is not a URL (\(draft) §3)")
        }
        switch scheme {
        case "https":
            break
        case "http" where loopbackHosts.contains(host.lowercased()):
            guard allowLoopbackHTTP else {
                throw Failure(
                    .invalidClient,
                    "the client_id '\(url)' is an http URL: client metadata documents are fetched over https only (\(draft) §3); start the sandbox with --allow-loopback-client-metadata to fetch one from a loopback address"
                )
            }
        default:
            throw Failure(.invalidClient, "the client_id '\(url)' is not an https URL (\(draft) §3)")
        }
        guard components.fragment == nil, !url.contains("#") else {
            throw Failure(.invalidClient, "the client_id '\(url)' has a fragment (\(draft) §3)")
        }
        guard components.user == nil, components.password == nil else {
            throw Failure(.invalidClient, "the client_id '\(url)' has a username or password (\(draft) §3)")
        }
        let path = components.percentEncodedPath
        guard !path.isEmpty else {
            throw Failure(.invalidClient, "the client_id '\(url)' has no path (\(draft) §3)")
        }
        let dotSegment = path.split(separator: "/", omittingEmptySubsequences: false).contains { segment in
            let decoded = segment.lowercased().replacingOccurrences(of: "%2e", with: ".")
            return decoded == "." || decoded == ".."
        }
        guard !dotSegment else {
            throw Failure(.invalidClient, "the client_id '\(url)' has a '.' or '..' path segment (\(draft) §3)")
        }
        // The authority and the path as written: the URL is compared byte for byte with the
        // document's client_id, so it is fetched exactly as given.
        let afterScheme = url.dropFirst(scheme.count + 3)
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" }
        let pathAndQuery = afterScheme.dropFirst(authority.count)
        var request = HTTPRequest(
            method: .get,
            scheme: scheme,
            authority: String(authority),
            path: String(pathAndQuery)
        )
        request.headerFields[.accept] = "application/json"
        return request
    }

    /// What a fetched document says, once checked: the client and the `grant_types` it
    /// restricts itself to (all of a public client's when absent).
    struct Resolved: Sendable {
        var client: SandboxConfiguration.OAuth2Client
        var grantTypes: [String]?
    }

    /// The shared-secret methods a document cannot use: there is no way to agree on a secret
    /// ([draft §4.1](https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document#section-4.1)).
    static let sharedSecretMethods: Set<String> = ["client_secret_basic", "client_secret_post", "client_secret_jwt"]

    /// The client a response describes
    /// ([draft §4](https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document#section-4),
    /// [§5](https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document#section-5)):
    /// `200 OK` (a redirect is an error, never followed), `application/json` or a
    /// `+json` type, a JSON object whose `client_id` is `url` exactly (simple string
    /// comparison, RFC 3986 §6.2.1), no `client_secret` or `client_secret_expires_at`, and a
    /// `token_endpoint_auth_method` that needs no shared secret: `none` (also when the member
    /// is absent, RFC 7591's `client_secret_basic` default being impossible here) or
    /// `private_key_jwt` with its keys in `jwks` (the sandbox fetches no `jwks_uri`).
    static func client(from response: HTTPResponse, body: [UInt8], url: String) throws(Failure) -> Resolved {
        guard response.status == .ok else {
            let redirect = response.status.kind == .redirection ? " (redirects are not followed)" : ""
            throw Failure(
                .invalidClient,
                "the client metadata document at '\(url)' answered \(response.status.code), not 200\(redirect) (\(draft) §5)"
            )
        }
        let type =
            response.headerFields[.contentType]?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json")) else {
            throw Failure(
                .invalidClient,
                "the client metadata document at '\(url)' is served as '\(type)', not application/json (\(draft) §4)"
            )
        }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(body)),
            let members = value.objectValue
        else {
            throw Failure(.invalidClient, "the client metadata document at '\(url)' is not a JSON object (\(draft) §4)")
        }
        return try client(from: members, url: url)
    }

    /// The checks on the document's members (see ``client(from:body:url:)``).
    static func client(from members: [String: JSONValue], url: String) throws(Failure) -> Resolved {
        guard let id = members["client_id"]?.stringValue else {
            throw Failure(.invalidClient, "the client metadata document at '\(url)' has no client_id (\(draft) §4)")
        }
        guard id == url else {
            throw Failure(
                .invalidClient,
                "the client_id in the document, '\(id)', is not the document's URL '\(url)' (\(draft) §4)"
            )
        }
        for secret in ["client_secret", "client_secret_expires_at"] where members[secret] != nil {
            throw Failure(
                .invalidClient,
                "the client metadata document has \(secret): a document cannot hold a shared secret (\(draft) §4.1)"
            )
        }
        let method = members["token_endpoint_auth_method"]?.stringValue ?? "none"
        if sharedSecretMethods.contains(method) {
            throw Failure(
                .invalidClient,
                "the client metadata document's token_endpoint_auth_method is \(method), which uses a shared secret (\(draft) §4.1)"
            )
        }
        let jwks = members["jwks"]
        switch method {
        case "none":
            break
        case "private_key_jwt":
            guard jwks?.objectValue?["keys"]?.arrayValue != nil else {
                throw Failure(
                    .invalidClient,
                    "the client metadata document uses private_key_jwt without jwks (the sandbox does not fetch jwks_uri)"
                )
            }
        default:
            throw Failure(
                .invalidClient,
                "the client metadata document's token_endpoint_auth_method is \(method): the sandbox takes none or private_key_jwt"
            )
        }
        func strings(_ name: String) throws(Failure) -> [String]? {
            guard let member = members[name] else { return nil }
            guard let array = member.arrayValue, case let values = array.compactMap(\.stringValue),
                values.count == array.count
            else {
                throw Failure(.invalidClient, "the client metadata document's \(name) is not an array of strings")
            }
            return values
        }
        let client = SandboxConfiguration.OAuth2Client(
            id: url,
            name: members["client_name"]?.stringValue,
            redirectURIs: try strings("redirect_uris") ?? [],
            jwks: method == "private_key_jwt" ? jwks : nil,
            tokenEndpointAuthMethod: method
        )
        return Resolved(client: client, grantTypes: try strings("grant_types"))
    }
}
