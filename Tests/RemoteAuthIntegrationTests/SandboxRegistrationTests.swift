import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthSandbox
import Testing

private typealias W = OAuth2Wire

/// Dynamic client registration at the sandbox (RFC 7591) and its management (RFC 7592).
@Suite(.timeLimit(.minutes(5))) struct SandboxRegistrationTests {
    /// Sends `body` (JSON) with `method`, and `Authorization: Bearer token` when given.
    static func send(
        _ method: HTTPRequest.Method,
        _ url: String,
        json body: String? = nil,
        token: String? = nil
    ) async throws -> Exchange {
        var fields = HTTPFields()
        if body != nil { fields[.contentType] = "application/json" }
        if let token { fields[.authorization] = "Bearer " + token }
        return try await Wire.send(
            try HTTPRequest(method: method, absoluteURL: url, headerFields: fields),
            body: body.map { Array($0.utf8) }
        )
    }

    static func register(_ base: String, _ body: String, token: String? = nil) async throws -> Exchange {
        try await send(.post, base + "/oauth2/register", json: body, token: token)
    }

    static let publicClient =
        #"{"redirect_uris":["http://127.0.0.1/callback"],"token_endpoint_auth_method":"none","client_name":"Registered App","scope":"statuses:read","grant_types":["authorization_code","refresh_token"],"response_types":["code"],"software_id":"ignored"}"#

    @Test("A public client registers (201, RFC 7591 §3.2.1) and signs alice in with code + PKCE")
    func registerPublicClientAndSignIn() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let answer = try await Self.register(base, Self.publicClient)
            #expect(answer.status == 201, "\(answer.body)")
            #expect(answer.header("Cache-Control") == "no-store")
            let json = W.json(answer)
            #expect(
                Set(json.keys) == [
                    "client_id", "client_id_issued_at", "redirect_uris", "token_endpoint_auth_method", "grant_types",
                    "response_types", "client_name", "scope", "registration_access_token", "registration_client_uri",
                ]
            )
            let clientID = try #require(json["client_id"] as? String)
            #expect(json["redirect_uris"] as? [String] == ["http://127.0.0.1/callback"])
            #expect(json["token_endpoint_auth_method"] as? String == "none")
            #expect(json["grant_types"] as? [String] == ["authorization_code", "refresh_token"])
            #expect(json["response_types"] as? [String] == ["code"])
            #expect(json["client_name"] as? String == "Registered App")
            #expect(json["scope"] as? String == "statuses:read")
            #expect(json["registration_client_uri"] as? String == base + "/oauth2/register/" + clientID)
            #expect((json["client_id_issued_at"] as? Int).map { $0 > 1_700_000_000 } == true)

            // The consent page names it; code + PKCE; the token works on the status API.
            let pkce = W.pkce()
            let url = W.authorizeURL(base, clientID: clientID, challenge: pkce.challenge, scope: "statuses:read")
            let page = try await Wire.get(url)
            #expect(page.body.contains("Registered App"))
            let consent = try await W.consent(url)
            let code = try #require(queryParameters(consent.header("Location") ?? "")["code"])
            let tokens = try await W.token(
                base,
                [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", W.loopbackRedirect),
                    ("client_id", clientID), ("code_verifier", pkce.verifier),
                ]
            )
            #expect(tokens.status == 200, "\(tokens.body)")
            let access = try #require(W.json(tokens)["access_token"] as? String)
            #expect(try await W.bearer(base + "/1.1/statuses/home_timeline.json", access).status == 200)

            // Both metadata documents name the endpoint (RFC 8414 §2).
            for path in ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"] {
                let metadata = W.json(try await Wire.get(base + path))
                #expect(metadata["registration_endpoint"] as? String == base + "/oauth2/register")
            }
        }
    }

    @Test("A confidential client gets a secret that never expires; RFC 7592 read, update, delete")
    func confidentialClientManagement() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let answer = try await Self.register(
                base,
                #"{"grant_types":["client_credentials"],"response_types":[],"client_name":"Service"}"#
            )
            #expect(answer.status == 201, "\(answer.body)")
            let json = W.json(answer)
            let id = try #require(json["client_id"] as? String)
            let secret = try #require(json["client_secret"] as? String)
            let token = try #require(json["registration_access_token"] as? String)
            let uri = try #require(json["registration_client_uri"] as? String)
            #expect(json["client_secret_expires_at"] as? Int == 0)
            #expect(json["token_endpoint_auth_method"] as? String == "client_secret_basic")
            #expect(json["redirect_uris"] as? [String] == [])

            let issued = try await W.token(
                base,
                [("grant_type", "client_credentials"), ("scope", "statuses:read")],
                basic: (id, secret)
            )
            #expect(issued.status == 200, "\(issued.body)")
            // It registered client_credentials only (RFC 7591 §2).
            let otherGrant = try await W.token(
                base,
                [("grant_type", "refresh_token"), ("refresh_token", "whatever")],
                basic: (id, secret)
            )
            #expect(otherGrant.status == 400)
            #expect(W.json(otherGrant)["error"] as? String == "unauthorized_client")
            #expect(
                W.json(otherGrant)["error_description"] as? String
                    == "this client did not register the grant type refresh_token (RFC 7591 §2)"
            )
            // Registered for client_secret_basic: client_secret_post is refused.
            let posted = try await W.token(
                base,
                [("grant_type", "client_credentials"), ("client_id", id), ("client_secret", secret)]
            )
            #expect(posted.status == 401)
            #expect(
                W.json(posted)["error_description"] as? String == "the client is registered for client_secret_basic"
            )

            // Read (RFC 7592 §2.1): the same members, the token not repeated.
            let read = try await Self.send(.get, uri, token: token)
            #expect(read.status == 200)
            var expected = json
            expected["registration_access_token"] = nil
            #expect(NSDictionary(dictionary: W.json(read)) == NSDictionary(dictionary: expected))
            // A wrong token, no token, another client's id: 401 (RFC 7592 §2).
            let wrong = try await Self.send(.get, uri, token: token + "x")
            #expect(wrong.status == 401)
            #expect(wrong.header("WWW-Authenticate") == "Bearer realm=\"RemoteAuth Sandbox\", error=\"invalid_token\"")
            #expect(W.json(wrong)["error"] as? String == "invalid_token")
            let none = try await Self.send(.get, uri)
            #expect(none.status == 401)
            #expect(none.header("WWW-Authenticate") == "Bearer realm=\"RemoteAuth Sandbox\"")
            #expect(try await Self.send(.get, base + "/oauth2/register/demo-app", token: token).status == 401)

            // Update (§2.2): the whole metadata with client_id; the name changes.
            let update =
                #"{"client_id":"\#(id)","client_secret":"\#(secret)","grant_types":["client_credentials"],"response_types":[],"client_name":"Renamed"}"#
            let updated = try await Self.send(.put, uri, json: update, token: token)
            #expect(updated.status == 200, "\(updated.body)")
            #expect(W.json(updated)["client_name"] as? String == "Renamed")
            #expect(W.json(updated)["client_secret"] as? String == secret)
            let otherID = try await Self.send(
                .put,
                uri,
                json: #"{"client_id":"someone-else","grant_types":["client_credentials"],"response_types":[]}"#,
                token: token
            )
            #expect(otherID.status == 400)
            #expect(W.json(otherID)["error"] as? String == "invalid_request")

            // Delete (§2.3): 204; the client gets no more tokens, its tokens are gone.
            let deleted = try await Self.send(.delete, uri, token: token)
            #expect(deleted.status == 204)
            let after = try await W.token(base, [("grant_type", "client_credentials")], basic: (id, secret))
            #expect(after.status == 401)
            #expect(W.json(after)["error"] as? String == "invalid_client")
            let access = try #require(W.json(issued)["access_token"] as? String)
            #expect(try await W.bearer(base + "/1.1/statuses/home_timeline.json", access).status == 401)
            #expect(try await Self.send(.get, uri, token: token).status == 401)
        }
    }

    @Test(
        "Refusals: invalid_redirect_uri and invalid_client_metadata, 400 JSON (RFC 7591 §3.2.2)",
        arguments: [
            (#"{"redirect_uris":["http://app.example/cb"]}"#, "invalid_redirect_uri"),
            (#"{"redirect_uris":["https://app.example/cb#frag"]}"#, "invalid_redirect_uri"),
            (#"{"redirect_uris":["not a url"]}"#, "invalid_redirect_uri"),
            (#"{"token_endpoint_auth_method":"none"}"#, "invalid_redirect_uri"),
            (#"{"redirect_uris":"https://app.example/cb"}"#, "invalid_client_metadata"),
            (
                #"{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"private_key_jwt"}"#,
                "invalid_client_metadata"
            ),
            (#"{"redirect_uris":["https://app.example/cb"],"jwks":{"keys":[]}}"#, "invalid_client_metadata"),
            (
                #"{"redirect_uris":["https://app.example/cb"],"jwks_uri":"https://app.example/jwks"}"#,
                "invalid_client_metadata"
            ),
            (#"{"redirect_uris":["https://app.example/cb"],"grant_types":["password"]}"#, "invalid_client_metadata"),
            (#"{"redirect_uris":["https://app.example/cb"],"response_types":["token"]}"#, "invalid_client_metadata"),
            (#"{"redirect_uris":["https://app.example/cb"],"scope":"admin"}"#, "invalid_client_metadata"),
            (
                #"{"grant_types":["client_credentials"],"response_types":[],"token_endpoint_auth_method":"none"}"#,
                "invalid_client_metadata"
            ),
            (#"["not an object"]"#, "invalid_client_metadata"),
            ("{", "invalid_client_metadata"),
        ]
    )
    func refusals(body: String, error: String) async throws {
        try await Sandbox.withSandbox { sandbox in
            let answer = try await Self.register(sandbox.baseURL, body)
            #expect(answer.status == 400, "\(answer.body)")
            #expect(answer.header("Content-Type") == "application/json")
            #expect(W.json(answer)["error"] as? String == error, "\(answer.body)")
        }
    }

    @Test(
        "private_key_jwt registrations that are refused, each naming its rule (RFC 7591 §2, RFC 7517 §5)",
        arguments: [
            (
                #"{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"private_key_jwt","jwks":{"keys":[]}}"#,
                "jwks must hold 1 to 10 keys"
            ),
            (
                #"{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"private_key_jwt","jwks":{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"}]}}"#,
                "jwks holds a private key (its 'd' member): register the public key only"
            ),
            (
                #"{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"private_key_jwt","jwks":{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]},"jwks_uri":"https://app.example/jwks"}"#,
                "jwks and jwks_uri must not both be present (RFC 7591 §2)"
            ),
            (
                #"{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"private_key_jwt","jwks":{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}}"#,
                "jwks holds a private key (its 'k' member): register the public key only"
            ),
            (
                #"{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"private_key_jwt","jwks":{"keys":[{"kty":"EC","crv":"P-521","x":"AA","y":"AA"}]}}"#,
                "jwks holds a key this server cannot verify with (P-256, Ed25519, or RSA of 2048 bits or more)"
            ),
            (
                #"{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"private_key_jwt","jwks":[]}"#,
                "jwks must be a JWK Set: an object with a keys array (RFC 7517 §5)"
            ),
        ]
    )
    func keyRefusals(body: String, description: String) async throws {
        try await Sandbox.withSandbox { sandbox in
            let answer = try await Self.register(sandbox.baseURL, body)
            #expect(answer.status == 400, "\(answer.body)")
            #expect(W.json(answer)["error"] as? String == "invalid_client_metadata")
            #expect(W.json(answer)["error_description"] as? String == description)
        }
    }

    @Test("Bounds: body size, redirect URIs, registered clients")
    func bounds() async throws {
        var configuration = SandboxConfiguration.demo()
        configuration.registeredClientLimit = 1
        try await Sandbox.withSandbox(configuration) { sandbox in
            let base = sandbox.baseURL
            let padding = String(repeating: "a", count: 17 * 1024)
            let large = try await Self.register(
                base,
                #"{"redirect_uris":["https://app.example/cb"],"client_name":"\#(padding)"}"#
            )
            #expect(large.status == 400)
            #expect(W.json(large)["error_description"] as? String == "the registration body is larger than 16384 bytes")
            let uris = (0..<11).map { #""https://app.example/\#($0)""# }.joined(separator: ",")
            let many = try await Self.register(base, #"{"redirect_uris":[\#(uris)]}"#)
            #expect(W.json(many)["error_description"] as? String == "at most 10 redirect_uris")
            let form = try await Wire.postForm(base + "/oauth2/register", [("redirect_uris", "https://app.example/cb")])
            #expect(W.json(form)["error"] as? String == "invalid_client_metadata")

            #expect(try await Self.register(base, Self.publicClient).status == 201)
            let full = try await Self.register(base, Self.publicClient)
            #expect(full.status == 403)
            #expect(W.json(full)["error"] as? String == "access_denied")
        }
    }

    @Test("--registration-token: the initial access token is required (RFC 7591 §3)")
    func initialAccessToken() async throws {
        var configuration = SandboxConfiguration.demo()
        configuration.registrationToken = "initial-token"
        try await Sandbox.withSandbox(configuration) { sandbox in
            let base = sandbox.baseURL
            let none = try await Self.register(base, Self.publicClient)
            #expect(none.status == 401)
            #expect(none.header("WWW-Authenticate") == "Bearer realm=\"RemoteAuth Sandbox\"")
            let wrong = try await Self.register(base, Self.publicClient, token: "initial-tokeN")
            #expect(wrong.status == 401)
            #expect(wrong.header("WWW-Authenticate") == "Bearer realm=\"RemoteAuth Sandbox\", error=\"invalid_token\"")
            #expect(try await Self.register(base, Self.publicClient, token: "initial-token").status == 201)
        }
    }

    @Test("Registered clients survive a restart with --state")
    func survivesRestart() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "registration-\(UUID().uuidString).json"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = SandboxConfiguration.demo()
        configuration.statePath = path
        let registered = try await Sandbox.withSandbox(configuration) { sandbox in
            let answer = try await Self.register(
                sandbox.baseURL,
                #"{"grant_types":["client_credentials"],"response_types":[],"token_endpoint_auth_method":"client_secret_post"}"#
            )
            #expect(answer.status == 201, "\(answer.body)")
            let json = W.json(answer)
            return (
                id: try #require(json["client_id"] as? String),
                secret: try #require(json["client_secret"] as? String),
                token: try #require(json["registration_access_token"] as? String)
            )
        }
        // The state file keeps the registration access token's hash, not the token.
        let saved = try String(contentsOfFile: path, encoding: .utf8)
        #expect(saved.contains(registered.id))
        #expect(!saved.contains(registered.token))
        try await Sandbox.withSandbox(configuration) { sandbox in
            let base = sandbox.baseURL
            let issued = try await W.token(
                base,
                [
                    ("grant_type", "client_credentials"), ("client_id", registered.id),
                    ("client_secret", registered.secret),
                ]
            )
            #expect(issued.status == 200, "\(issued.body)")
            let read = try await Self.send(.get, base + "/oauth2/register/" + registered.id, token: registered.token)
            #expect(read.status == 200)
            #expect(W.json(read)["token_endpoint_auth_method"] as? String == "client_secret_post")
        }
    }
}
