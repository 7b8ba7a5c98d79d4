import Foundation
import HTTPTypes
import Hummingbird
import RemoteAuth

/// HTTP authentication: `GET /basic/` ([RFC 7617](https://www.rfc-editor.org/rfc/rfc7617)) and
/// `/digest/{algorithm}/{qop}/` ([RFC 7616](https://www.rfc-editor.org/rfc/rfc7616)), each
/// answering `401` with its challenge until the credentials of a configured user arrive.
struct HTTPAuthRoutes: Sendable {
    let configuration: SandboxConfiguration
    let store: SandboxStore
    /// The Digest `opaque`, new on every start.
    let digestOpaque: String

    init(configuration: SandboxConfiguration, store: SandboxStore) {
        self.configuration = configuration
        self.store = store
        digestOpaque = configuration.random.alphanumeric(bytes: 16)
    }

    static let digestAlgorithms: [DigestAlgorithm] = [
        .md5, .md5Sess, .sha256, .sha256Sess, .sha512_256, .sha512_256Sess,
    ]

    var collection: RouteCollection<SandboxRequestContext> {
        let routes = RouteCollection(context: SandboxRequestContext.self)
        routes.get("basic/") { request, _ in try basic(request) }
        for method in [HTTPRequest.Method.get, .post, .put] {
            routes.on("digest/:algorithm/:qop/", method: method) { request, context in
                try await digest(
                    request,
                    body: await request.bodyBytes(),
                    algorithmName: context.parameters.get("algorithm") ?? "",
                    qopName: context.parameters.get("qop") ?? ""
                )
            }
        }
        return routes
    }

    /// `GET /basic/`: HTTP Basic (RFC 7617).
    func basic(_ request: Request) throws(HTTPAuthChallenge) -> Response {
        var reason = "no credentials"
        for field in request.head.headerFields where field.name == .authorization {
            guard let credentials = try? BasicCredentials(authorization: field.value) else {
                reason = "no valid Basic credentials"
                continue
            }
            guard let account = configuration.user(named: credentials.user) else {
                reason = "unknown user"
                continue
            }
            if credentials.hasPassword(account.password) {
                return Self.authenticated(account.name)
            }
            reason = "wrong password for \(account.name)"
        }
        let challenge = AuthenticationChallenge(
            scheme: "Basic",
            parameters: [.init(name: "realm", value: configuration.realm), .init(name: "charset", value: "UTF-8")]
        )
        throw HTTPAuthChallenge(scheme: "Basic", headerValue: challenge.quotedHeaderValue, reason: reason)
    }

    /// `/digest/{algorithm}/{qop}/`: HTTP Digest (RFC 7616) with that algorithm and qop.
    /// Nonces expire after ``SandboxConfiguration/digestNonceLifetime`` (answered `stale=true`
    /// when the response was otherwise right); `nc` must grow; a nonce past half its life
    /// gets a `nextnonce` in `Authentication-Info`.
    func digest(_ request: Request, body: [UInt8], algorithmName: String, qopName: String) async throws -> Response {
        guard let algorithm = Self.digestAlgorithms.first(where: { $0 == DigestAlgorithm(rawValue: algorithmName) }),
            qopName == "auth" || qopName == "auth-int"
        else {
            throw JSONError(
                .notFound,
                "use /digest/{MD5|MD5-sess|SHA-256|SHA-256-sess|SHA-512-256|SHA-512-256-sess}/{auth|auth-int}/"
            )
        }
        let qop = DigestQOP(rawValue: qopName)
        let now = configuration.now()
        let space = algorithm.rawValue + "/" + qop.rawValue

        /// A new nonce for this space, in a challenge ([RFC 7616 §3.3](https://www.rfc-editor.org/rfc/rfc7616#section-3.3)).
        func challenge(stale: Bool = false, _ reason: String) async -> HTTPAuthChallenge {
            let nonce = await store.issueDigestNonce(space: space, now: now)
            let challenge = try? DigestChallenge(
                realm: configuration.realm,
                nonce: nonce,
                opaque: digestOpaque,
                stale: stale,
                algorithm: algorithm,
                qop: [qop]
            )
            return HTTPAuthChallenge(
                scheme: "Digest",
                headerValue: challenge?.headerValue ?? "Digest",
                reason: stale ? reason + ", stale=true" : reason
            )
        }

        guard
            let header = request.head.headerFields[values: .authorization].first(where: {
                $0.lowercased().hasPrefix("digest ")
            })
        else { throw await challenge("no credentials") }
        guard let authorization = try? DigestAuthorization(headerValue: header) else {
            throw await challenge("no valid Digest credentials")
        }
        let account = configuration.users.first { candidate in
            authorization.userhash
                ? authorization.matchesUserhash(of: candidate.name) : authorization.username == candidate.name
        }
        guard let account else { throw await challenge("unknown user") }
        guard
            let issued = try? DigestChallenge(
                realm: configuration.realm,
                nonce: authorization.nonce,
                opaque: digestOpaque,
                algorithm: algorithm,
                qop: [qop]
            )
        else { throw await challenge("malformed nonce") }
        let credentials = DigestCredentials(username: account.name, password: account.password)
        let verification = authorization.verify(
            credentials,
            challenge: issued,
            method: request.head.method,
            requestURI: request.head.path,
            body: body
        )

        switch await store.checkDigestNonce(
            authorization.nonce,
            space: space,
            count: authorization.nonceCount,
            now: now,
            lifetime: configuration.digestNonceLifetime
        )
        {
        case .unknown:
            throw await challenge("unknown nonce")
        case .replayed:
            throw await challenge("nonce count not above the last one")
        case .stale:
            if verification.isValid { throw await challenge(stale: true, "stale nonce") }
            throw await challenge("stale nonce and wrong response")
        case .fresh(let issuedAt):
            guard verification.isValid else { throw await challenge("wrong response for \(account.name)") }
            // Only a verified answer moves the nonce count, so a forged one cannot burn it.
            guard await store.recordDigestCount(authorization.nonce, count: authorization.nonceCount) else {
                throw await challenge("nonce count not above the last one")
            }
            var nextnonce: String? = nil
            if now - issuedAt > configuration.digestNonceLifetime / 2 {
                nextnonce = await store.issueDigestNonce(space: space, now: now)
            }
            let responseBody = Self.authenticatedBody(account.name)
            var headers: HTTPFields = [:]
            if let info = try? authorization.authenticationInfo(
                credentials,
                responseBody: responseBody,
                nextnonce: nextnonce
            ) {
                headers[.authenticationInfo] = info.headerValue
            }
            return Self.authenticated(account.name, headers: headers)
        }
    }

    // MARK: The answer

    /// The body of a success: `{"authenticated": true, "user": "alice"}`.
    struct Authenticated: Encodable {
        let authenticated: Bool
        let user: String
    }

    /// ``Authenticated`` as JSON with a space after each `:` and `,` (the separators of Python's
    /// `json.dumps`), the bytes this answer has always had: scripts/interop/curl_auth.sh and the
    /// tests compare them, and Digest's `rspauth` with `qop=auth-int` covers them.
    static func authenticatedBody(_ user: String) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let compact = (try? encoder.encode(Authenticated(authenticated: true, user: user))) ?? Data("{}".utf8)
        var output: [UInt8] = []
        var inString = false
        var escaped = false
        for byte in compact {
            output.append(byte)
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: ":") || byte == UInt8(ascii: ",") {
                output.append(UInt8(ascii: " "))
            }
        }
        return output
    }

    static func authenticated(_ user: String, headers: HTTPFields = [:]) -> Response {
        SandboxResponse.text(
            .ok,
            String(decoding: authenticatedBody(user), as: UTF8.self),
            contentType: "application/json",
            headers: headers
        )
    }
}

/// `401` with a Basic or Digest challenge and `{"authenticated":false}`: the credentials are
/// absent or not accepted ([RFC 9110 §11.6.1](https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1)).
struct HTTPAuthChallenge: SandboxRefusal {
    let scheme: String
    /// The `WWW-Authenticate` value, rendered by the core's challenge types.
    let headerValue: String
    /// Why, for the request log.
    let reason: String

    var status: HTTPResponse.Status { .unauthorized }

    struct Body: Encodable {
        let authenticated: Bool
    }

    func response(from request: Request, context: some RequestContext) -> Response {
        SandboxResponse.json(
            Body(authenticated: false),
            status: .unauthorized,
            headers: [.wwwAuthenticate: headerValue]
        )
    }

    var logOutcome: String { "\(scheme) challenge: \(reason)" }
}
