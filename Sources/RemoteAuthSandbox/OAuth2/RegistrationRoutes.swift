import Foundation
import HTTPTypes
import Hummingbird
import RemoteAuth

extension OAuth2.ErrorCode {
    /// [RFC 7591 §3.2.2](https://www.rfc-editor.org/rfc/rfc7591#section-3.2.2).
    static let invalidRedirectURI = Self(rawValue: "invalid_redirect_uri")
    /// [RFC 7591 §3.2.2](https://www.rfc-editor.org/rfc/rfc7591#section-3.2.2).
    static let invalidClientMetadata = Self(rawValue: "invalid_client_metadata")
}

/// The metadata a client registered ([RFC 7591 §2](https://www.rfc-editor.org/rfc/rfc7591#section-2)),
/// defaults applied, as the registration response echoes it.
struct ClientMetadata: Codable, Sendable, Hashable {
    var redirectURIs: [String]
    var tokenEndpointAuthMethod: String
    var grantTypes: [String]
    var responseTypes: [String]
    var clientName: String?
    var scope: String?
    /// `jwks`: the public keys of a `private_key_jwt` client, by value
    /// ([RFC 7591 §2](https://www.rfc-editor.org/rfc/rfc7591#section-2)); `nil` for the other
    /// methods (and in state files written before the sandbox took it).
    var jwks: JSONValue?

    /// At most this many `redirect_uris`, and this many bytes of registration body.
    static let maximumRedirectURIs = 10
    static let maximumBodyBytes = 16 * 1024
    /// At most this many keys in `jwks`.
    static let maximumKeys = 10

    /// The `token_endpoint_auth_method`s a client may register: public clients, clients with a
    /// secret, and `private_key_jwt` clients whose public keys come in `jwks`
    /// ([RFC 7523 §2.2](https://www.rfc-editor.org/rfc/rfc7523#section-2.2)). `jwks_uri` is
    /// refused: the sandbox fetches no keys.
    static let methods = ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"]
    /// The methods whose client gets a secret at registration.
    static let secretMethods: Set<String> = ["client_secret_basic", "client_secret_post"]
    /// JWK members that only a private (or symmetric) key has
    /// ([RFC 7518 §6.2.2, §6.3.2, §6.4](https://www.rfc-editor.org/rfc/rfc7518#section-6), RFC 8037 §2):
    /// a `jwks` holding one would publish the client's secret.
    static let privateKeyMembers: Set<String> = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]
    static let grantTypes = [
        "authorization_code", "refresh_token", "client_credentials", MetadataRoutes.deviceCodeGrant,
    ]

    /// Reads and checks a registration request's JSON object
    /// ([RFC 7591 §3.1](https://www.rfc-editor.org/rfc/rfc7591#section-3.1)): unknown members
    /// are ignored (§2), the defaults of §2 applied (`client_secret_basic`,
    /// `["authorization_code"]`, `["code"]`).
    ///
    /// - Throws: ``OAuth2Problem`` 400 `invalid_redirect_uri` or `invalid_client_metadata`
    ///   ([RFC 7591 §3.2.2](https://www.rfc-editor.org/rfc/rfc7591#section-3.2.2)) naming the member.
    init(_ members: [String: JSONValue], scopes: [String]) throws(OAuth2Problem) {
        func refuse(_ description: String) -> OAuth2Problem { OAuth2Problem(.invalidClientMetadata, description) }
        func strings(_ name: String) throws(OAuth2Problem) -> [String]? {
            guard let value = members[name] else { return nil }
            guard let array = value.arrayValue, array.allSatisfy({ $0.stringValue != nil }) else {
                throw refuse("\(name) must be an array of strings")
            }
            return array.compactMap(\.stringValue)
        }
        func string(_ name: String) throws(OAuth2Problem) -> String? {
            guard let value = members[name] else { return nil }
            guard let text = value.stringValue else { throw refuse("\(name) must be a string") }
            return text
        }
        if members["jwks_uri"] != nil {
            throw refuse(
                members["jwks"] != nil
                    ? "jwks and jwks_uri must not both be present (RFC 7591 §2)"
                    : "jwks_uri is not supported: the sandbox fetches no keys; give them in jwks"
            )
        }
        tokenEndpointAuthMethod = try string("token_endpoint_auth_method") ?? "client_secret_basic"
        guard Self.methods.contains(tokenEndpointAuthMethod) else {
            throw refuse("token_endpoint_auth_method must be one of \(Self.methods.joined(separator: ", "))")
        }
        if tokenEndpointAuthMethod == "private_key_jwt" {
            guard let jwks = members["jwks"] else {
                throw refuse("private_key_jwt needs the client's public keys in jwks (RFC 7591 §2)")
            }
            try Self.checkKeys(jwks)
            self.jwks = jwks
        } else {
            guard members["jwks"] == nil else {
                throw refuse("jwks goes with token_endpoint_auth_method private_key_jwt only")
            }
            jwks = nil
        }
        grantTypes = try strings("grant_types") ?? ["authorization_code"]
        guard !grantTypes.isEmpty, grantTypes.allSatisfy(Self.grantTypes.contains) else {
            throw refuse("grant_types may hold \(Self.grantTypes.joined(separator: ", "))")
        }
        if grantTypes.contains("client_credentials"), tokenEndpointAuthMethod == "none" {
            throw refuse("client_credentials is for confidential clients, not token_endpoint_auth_method none")
        }
        responseTypes = try strings("response_types") ?? ["code"]
        // RFC 7591 §2.1: authorization_code goes with the response type code, and back.
        guard responseTypes.allSatisfy({ $0 == "code" }),
            responseTypes.contains("code") == grantTypes.contains("authorization_code")
        else {
            throw refuse(
                "response_types must be [\"code\"] with the authorization_code grant, [] without (RFC 7591 §2.1)"
            )
        }
        redirectURIs = try strings("redirect_uris") ?? []
        if grantTypes.contains("authorization_code"), redirectURIs.isEmpty {
            throw OAuth2Problem(.invalidRedirectURI, "redirect_uris is required for the authorization_code grant")
        }
        guard redirectURIs.count <= Self.maximumRedirectURIs else {
            throw OAuth2Problem(.invalidRedirectURI, "at most \(Self.maximumRedirectURIs) redirect_uris")
        }
        for uri in redirectURIs { try Self.checkRedirectURI(uri) }
        clientName = try string("client_name")
        if let clientName, clientName.isEmpty || clientName.count > 200 {
            throw refuse("client_name must have 1 to 200 characters")
        }
        scope = try string("scope")
        if let scope, OAuth2Rules.scope(scope, allowed: scopes) == nil {
            throw refuse("scope names a scope this server does not grant")
        }
    }

    /// A `jwks` a `private_key_jwt` client may register: a JWK Set
    /// ([RFC 7517 §5](https://www.rfc-editor.org/rfc/rfc7517#section-5)) of 1 to
    /// ``maximumKeys`` public keys that this server can verify assertions with (P-256, Ed25519,
    /// RSA of 2048 bits or more), none with a private member.
    static func checkKeys(_ jwks: JSONValue) throws(OAuth2Problem) {
        func refuse(_ description: String) -> OAuth2Problem { OAuth2Problem(.invalidClientMetadata, description) }
        guard let keys = jwks.objectValue?["keys"]?.arrayValue else {
            throw refuse("jwks must be a JWK Set: an object with a keys array (RFC 7517 §5)")
        }
        guard (1...maximumKeys).contains(keys.count) else {
            throw refuse("jwks must hold 1 to \(maximumKeys) keys")
        }
        for key in keys {
            guard let members = key.objectValue else { throw refuse("every member of jwks.keys must be a JWK object") }
            if let member = privateKeyMembers.sorted().first(where: { members[$0] != nil }) {
                throw refuse("jwks holds a private key (its '\(member)' member): register the public key only")
            }
        }
        guard let json = try? JSONEncoder().encode(jwks), let set = try? JOSE.KeySet(json: Array(json)),
            set.keys.count == keys.count
        else {
            throw refuse("jwks holds a key this server cannot verify with (P-256, Ed25519, or RSA of 2048 bits or more)")
        }
    }

    /// A redirect URI a client may register: absolute, no fragment
    /// ([RFC 6749 §3.1.2](https://www.rfc-editor.org/rfc/rfc6749#section-3.1.2)), `https`, or
    /// `http` on a loopback address ([RFC 8252 §7.3](https://www.rfc-editor.org/rfc/rfc8252#section-7.3)).
    static func checkRedirectURI(_ uri: String) throws(OAuth2Problem) {
        func refuse(_ description: String) -> OAuth2Problem { OAuth2Problem(.invalidRedirectURI, description) }
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else {
            throw refuse("'\(uri.prefix(200))' is not an absolute URL")
        }
        guard components.fragment == nil, !uri.contains("#") else {
            throw refuse("a redirect URI has no fragment (RFC 6749 §3.1.2): '\(uri.prefix(200))'")
        }
        let loopback = ["127.0.0.1", "[::1]", "::1", "localhost"].contains(host.lowercased())
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw refuse(
                "a redirect URI uses https, or http on a loopback address (RFC 8252 §7.3): '\(uri.prefix(200))'"
            )
        }
    }

    /// The members the response echoes ([RFC 7591 §3.2.1](https://www.rfc-editor.org/rfc/rfc7591#section-3.2.1)).
    var members: [String: JSONValue] {
        var members: [String: JSONValue] = [
            "redirect_uris": .array(redirectURIs.map(JSONValue.string)),
            "token_endpoint_auth_method": .string(tokenEndpointAuthMethod),
            "grant_types": .array(grantTypes.map(JSONValue.string)),
            "response_types": .array(responseTypes.map(JSONValue.string)),
        ]
        if let clientName { members["client_name"] = .string(clientName) }
        if let scope { members["scope"] = .string(scope) }
        if let jwks { members["jwks"] = jwks }
        return members
    }
}

/// Dynamic client registration ([RFC 7591](https://www.rfc-editor.org/rfc/rfc7591)) at
/// `POST /oauth2/register`, and its management ([RFC 7592](https://www.rfc-editor.org/rfc/rfc7592))
/// at `/oauth2/register/{client_id}` with the registration access token.
///
/// Registration is open unless ``SandboxConfiguration/registrationToken`` is set: then the
/// request must carry it as `Authorization: Bearer TOKEN`, the initial access token of
/// [RFC 7591 §3](https://www.rfc-editor.org/rfc/rfc7591#section-3), compared in constant time.
/// A registered client is an ``SandboxConfiguration/OAuth2Client`` like a configured one: the
/// authorization endpoint, the consent page and the token endpoint take it. The token endpoint
/// holds it to its registered `grant_types` (`unauthorized_client` otherwise); its registered
/// `scope` is echoed, not enforced.
struct RegistrationRoutes: Sendable {
    let configuration: SandboxConfiguration
    let store: OAuth2Store
    let issuer: OAuth2Issuer

    var registry: OAuth2ClientRegistry { store.clients }

    var collection: RouteCollection<SandboxRequestContext> {
        let routes = RouteCollection(context: SandboxRequestContext.self)
        routes.post("register") { request, _ in try await register(request) }
        routes.get("register/{client_id}") { request, context in
            let registration = try authorize(request, id: context.parameters.get("client_id") ?? "")
            return response(registration, token: nil, status: .ok)
        }
        routes.put("register/{client_id}") { request, context in
            try await update(request, id: context.parameters.get("client_id") ?? "")
        }
        routes.delete("register/{client_id}") { request, context in
            let registration = try authorize(request, id: context.parameters.get("client_id") ?? "")
            try await ServerFailure.mapping("cannot save the registration") {
                try registry.remove(registration.client.id)
                // RFC 7592 §2.3: its grants and tokens are invalidated with it.
                try await store.revokeClient(registration.client.id)
            }
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
        return routes
    }

    /// `POST /oauth2/register` ([RFC 7591 §3.1](https://www.rfc-editor.org/rfc/rfc7591#section-3.1)):
    /// `201` with the client's id, secret (for `client_secret_basic` and `client_secret_post`),
    /// `client_id_issued_at`, `client_secret_expires_at: 0` (never), the metadata and, for
    /// RFC 7592, `registration_access_token` and `registration_client_uri`.
    func register(_ request: Request) async throws -> Response {
        if let expected = configuration.registrationToken {
            guard let presented = request.headers[.authorization].flatMap(BearerAuthenticator.bearerToken) else {
                throw unauthorized(error: nil, "registration needs the initial access token (RFC 7591 §3)")
            }
            guard constantTimeEquals(presented, expected) else {
                throw unauthorized(error: .invalidToken, "the initial access token is not accepted (RFC 7591 §3)")
            }
        }
        let metadata = try ClientMetadata(try await Self.members(request), scopes: scopes)
        let now = configuration.now()
        let confidential = ClientMetadata.secretMethods.contains(metadata.tokenEndpointAuthMethod)
        let client = SandboxConfiguration.OAuth2Client(
            id: await store.token(),
            secret: confidential ? await store.token() : nil,
            name: metadata.clientName,
            redirectURIs: metadata.redirectURIs,
            jwks: metadata.jwks,
            tokenEndpointAuthMethod: metadata.tokenEndpointAuthMethod
        )
        let token = await store.token()
        let registration = OAuth2ClientRegistry.Registration(
            client: client,
            metadata: metadata,
            issuedAt: now,
            registrationTokenSHA256: OAuth2ClientRegistry.hash(token)
        )
        let saved = try await ServerFailure.mapping("cannot save the registration") {
            try registry.save(registration, limit: configuration.registeredClientLimit)
        }
        guard saved else {
            throw OAuth2Problem(
                .accessDenied,
                "the sandbox holds at most \(configuration.registeredClientLimit) registered clients: delete one (RFC 7592 §2.3)",
                status: .forbidden
            )
        }
        return response(registration, token: token, status: .created)
    }

    /// `PUT /oauth2/register/{client_id}` ([RFC 7592 §2.2](https://www.rfc-editor.org/rfc/rfc7592#section-2.2)):
    /// the whole metadata again, with `client_id` (and `client_secret`, if given, the current
    /// one); the id, the secret and the registration access token stay.
    func update(_ request: Request, id: String) async throws -> Response {
        var registration = try authorize(request, id: id)
        let members = try await Self.members(request)
        guard members["client_id"]?.stringValue == registration.client.id else {
            throw OAuth2Problem(.invalidRequest, "client_id must be the registered client's (RFC 7592 §2.2)")
        }
        if let secret = members["client_secret"] {
            guard let given = secret.stringValue, let current = registration.client.secret,
                constantTimeEquals(given, current)
            else {
                throw OAuth2Problem(
                    .invalidRequest,
                    "client_secret must be the client's current secret (RFC 7592 §2.2)"
                )
            }
        }
        let metadata = try ClientMetadata(members, scopes: scopes)
        guard ClientMetadata.secretMethods.contains(metadata.tokenEndpointAuthMethod) == (registration.client.secret != nil)
        else {
            throw OAuth2Problem(
                .invalidClientMetadata,
                "token_endpoint_auth_method cannot change between a secret and none or private_key_jwt: register a new client"
            )
        }
        registration.metadata = metadata
        registration.client.jwks = metadata.jwks
        registration.client.name = metadata.clientName
        registration.client.redirectURIs = metadata.redirectURIs
        registration.client.tokenEndpointAuthMethod = metadata.tokenEndpointAuthMethod
        let updated = registration
        _ = try await ServerFailure.mapping("cannot save the registration") {
            try registry.save(updated, limit: configuration.registeredClientLimit)
        }
        return response(updated, token: nil, status: .ok)
    }

    /// The registration `id` names, when the request's `Authorization: Bearer` is its
    /// registration access token ([RFC 7592 §2](https://www.rfc-editor.org/rfc/rfc7592#section-2));
    /// `401 invalid_token` otherwise, the same for an unknown client and a wrong token.
    func authorize(_ request: Request, id: String) throws(OAuth2Problem) -> OAuth2ClientRegistry.Registration {
        guard let token = request.headers[.authorization].flatMap(BearerAuthenticator.bearerToken) else {
            throw unauthorized(error: nil, "this needs the registration access token (RFC 7592 §2)")
        }
        guard let registration = registry.registration(id, token: token) else {
            throw unauthorized(
                error: .invalidToken,
                "the registration access token is not the one of this client, or the client is not registered"
            )
        }
        return registration
    }

    var scopes: [String] { configuration.oauth2Scopes + OpenIDProvider.scopes }

    /// The client information response ([RFC 7592 §3](https://www.rfc-editor.org/rfc/rfc7592#section-3)),
    /// with `registration_access_token` when one was just issued (it is kept only as a hash).
    func response(
        _ registration: OAuth2ClientRegistry.Registration,
        token: String?,
        status: HTTPResponse.Status
    ) -> Response {
        var members = registration.metadata.members
        members["client_id"] = .string(registration.client.id)
        members["client_id_issued_at"] = .integer(registration.issuedAt)
        if let secret = registration.client.secret {
            members["client_secret"] = .string(secret)
            members["client_secret_expires_at"] = .integer(0)
        }
        if let token { members["registration_access_token"] = .string(token) }
        members["registration_client_uri"] = .string(issuer.url + "/oauth2/register/" + registration.client.id)
        return OAuth2JSON.response(members, status: status)
    }

    /// The request's JSON object, at most ``ClientMetadata/maximumBodyBytes``.
    static func members(_ request: Request) async throws(OAuth2Problem) -> [String: JSONValue] {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
            throw OAuth2Problem(.invalidClientMetadata, "the body must be application/json (RFC 7591 §3.1)")
        }
        var request = request
        let body: [UInt8]
        do {
            body = Array((try await request.collectBody(upTo: ClientMetadata.maximumBodyBytes)).readableBytesView)
        } catch {
            throw OAuth2Problem(
                .invalidClientMetadata,
                "the registration body is larger than \(ClientMetadata.maximumBodyBytes) bytes"
            )
        }
        guard let members = try? JSONDecoder().decode([String: JSONValue].self, from: Data(body)) else {
            throw OAuth2Problem(.invalidClientMetadata, "the body is not a JSON object")
        }
        return members
    }

    /// `401` with a Bearer challenge ([RFC 6750 §3](https://www.rfc-editor.org/rfc/rfc6750#section-3)):
    /// without `error` when no token came (§3.1).
    func unauthorized(error: OAuth2.ErrorCode?, _ description: String) -> OAuth2Problem {
        var problem = OAuth2Problem(error ?? .invalidToken, description, status: .unauthorized)
        var challenge = "Bearer realm=\"\(configuration.realm.replacingQuotes())\""
        if let error { challenge += ", error=\"\(error.rawValue)\"" }
        problem.headers[.wwwAuthenticate] = challenge
        return problem
    }
}
