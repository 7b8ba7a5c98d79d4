import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthSandbox
import Testing

private typealias W = OAuth2Wire

/// The sandbox's protected resources (issue 26): every scheme in the status API's `401`
/// (RFC 9110 §11.6.1), `resource_metadata` in the Bearer and DPoP challenges (RFC 9728 §5.1),
/// the metadata documents (RFC 9728 §3) and tokens bound to one resource (RFC 8707).
@Suite(.timeLimit(.minutes(5))) struct SandboxResourceTests {
    static let algs = "ES256 Ed25519 EdDSA PS256 RS256"

    /// Every `WWW-Authenticate` field line, in order.
    static func challenges(_ exchange: Exchange) -> [String] {
        exchange.headers.filter { $0.0.lowercased() == "www-authenticate" }.map(\.1)
    }

    @Test("A status-API request with no credentials gets the OAuth, Bearer and DPoP challenges")
    func everySchemeWithoutCredentials() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let metadata = base + "/.well-known/oauth-protected-resource/1.1"
            for path in ["/1.1", "/1.1/statuses/home_timeline.json", "/1.1/account/verify_credentials.json"] {
                let answer = try await Wire.get(base + path)
                #expect(answer.status == 401, "\(path)")
                #expect(
                    Self.challenges(answer) == [
                        "OAuth realm=\"RemoteAuth Sandbox\", oauth_problem=\"parameter_absent\"",
                        "Bearer realm=\"RemoteAuth Sandbox\", resource_metadata=\"\(metadata)\"",
                        "DPoP algs=\"\(Self.algs)\", resource_metadata=\"\(metadata)\"",
                    ],
                    "\(path)"
                )
                #expect(answer.form["oauth_problem"] == "parameter_absent")
            }
            // The challenge's resource_metadata is what a client reads (RFC 9728 §5.1).
            let root = try await Wire.get(base + "/1.1")
            var fields = HTTPFields()
            for (name, value) in root.headers {
                fields.append(HTTPField(name: try #require(.init(name)), value: value))
            }
            #expect(
                OAuth2.ProtectedResourceMetadata.metadataURL(
                    in: HTTPResponse(status: .unauthorized, headerFields: fields)
                )
                    == metadata
            )

            // A signed request that fails keeps its OAuth challenge alone: its client chose OAuth 1.0a.
            let signed = try await Wire.get(
                base + "/1.1/account/verify_credentials.json",
                headers: [.authorization: "OAuth oauth_consumer_key=\"nobody\""]
            )
            #expect(signed.status == 400)
            #expect(
                Self.challenges(signed) == ["OAuth realm=\"RemoteAuth Sandbox\", oauth_problem=\"parameter_absent\""]
            )
        }
    }

    @Test("Bearer and DPoP error challenges carry resource_metadata")
    func errorChallenges() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let metadata = base + "/.well-known/oauth-protected-resource/1.1"
            let bogus = try await W.bearer(base + "/1.1/statuses/home_timeline.json", "bogus")
            #expect(bogus.status == 401)
            #expect(
                Self.challenges(bogus) == [
                    "Bearer realm=\"RemoteAuth Sandbox\", error=\"invalid_token\", resource_metadata=\"\(metadata)\""
                ]
            )
            let dpop = try await Wire.get(
                base + "/1.1/statuses/home_timeline.json",
                headers: [.authorization: "DPoP bogus"]
            )
            #expect(dpop.status == 401)
            #expect(
                Self.challenges(dpop) == [
                    "DPoP algs=\"\(Self.algs)\", error=\"invalid_token\", resource_metadata=\"\(metadata)\""
                ]
            )
        }
    }
}

/// The metadata documents (RFC 9728 §3) and tokens bound to one resource (RFC 8707).
@Suite(.timeLimit(.minutes(5))) struct SandboxResourceAudienceTests {
    static let service = (id: "demo-service", secret: "demo-service-secret")

    @Test("Each resource's document at its path-inserted well-known URL; none for the origin")
    func metadataDocuments() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let statusAPI = try await Wire.get(base + "/.well-known/oauth-protected-resource/1.1")
            #expect(statusAPI.status == 200)
            #expect(statusAPI.header("Content-Type") == "application/json")
            #expect(
                statusAPI.body
                    == #"{"authorization_servers":["\#(base)"],"bearer_methods_supported":["header"],"dpop_signing_alg_values_supported":["ES256","Ed25519","EdDSA","PS256","RS256"],"resource":"\#(base)/1.1","resource_name":"RemoteAuth Sandbox status API","scopes_supported":["statuses:read","statuses:write"],"tls_client_certificate_bound_access_tokens":false}"#
            )
            let files = try await Wire.get(base + "/.well-known/oauth-protected-resource/files")
            #expect(
                files.body
                    == #"{"authorization_servers":["\#(base)"],"bearer_methods_supported":["header"],"dpop_signing_alg_values_supported":["ES256","Ed25519","EdDSA","PS256","RS256"],"resource":"\#(base)/files","resource_name":"RemoteAuth Sandbox files","scopes_supported":["statuses:read"],"tls_client_certificate_bound_access_tokens":false}"#
            )
            #expect(try await Wire.get(base + "/.well-known/oauth-protected-resource").status == 404)
            // /files without credentials: its own challenges, no OAuth 1.0a.
            let metadata = base + "/.well-known/oauth-protected-resource/files"
            let anonymous = try await Wire.get(base + "/files")
            #expect(anonymous.status == 401)
            #expect(
                SandboxResourceTests.challenges(anonymous) == [
                    "Bearer realm=\"RemoteAuth Sandbox\", resource_metadata=\"\(metadata)\"",
                    "DPoP algs=\"\(SandboxResourceTests.algs)\", resource_metadata=\"\(metadata)\"",
                ]
            )
            #expect(anonymous.body == #"{"error":"this resource needs an access token (Bearer or DPoP)"}"#)
        }
    }

    /// A client_credentials token for `resources` (none: no `resource` parameter).
    static func token(_ base: String, resources: [String]) async throws -> Exchange {
        try await OAuth2Wire.token(
            base,
            [("grant_type", "client_credentials"), ("scope", "statuses:read")] + resources.map { ("resource", $0) },
            basic: service
        )
    }

    static func accessToken(_ base: String, resources: [String]) async throws -> String {
        let response = try await token(base, resources: resources)
        #expect(response.status == 200, "\(response.body)")
        return try #require(OAuth2Wire.json(response)["access_token"] as? String)
    }

    @Test("A token is taken only by the resource it was issued for; one without resource by the status API only")
    func audience() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let timeline = base + "/1.1/statuses/home_timeline.json"
            let filesToken = try await Self.accessToken(base, resources: [base + "/files"])
            let files = try await OAuth2Wire.bearer(base + "/files", filesToken)
            #expect(files.status == 200)
            #expect(files.body == #"{"files":["demo-service.txt"],"user":"demo-service"}"#)
            let refused = try await OAuth2Wire.bearer(timeline, filesToken)
            #expect(refused.status == 401)
            #expect(
                SandboxResourceTests.challenges(refused) == [
                    "Bearer realm=\"RemoteAuth Sandbox\", error=\"invalid_token\", resource_metadata=\"\(base)/.well-known/oauth-protected-resource/1.1\""
                ]
            )
            #expect(
                OAuth2Wire.json(refused)["error_description"] as? String
                    == "the access token's audience is \(base)/files, not this resource (\(base)/1.1) (RFC 8707)"
            )

            let statusToken = try await Self.accessToken(base, resources: [base + "/1.1"])
            #expect(try await OAuth2Wire.bearer(timeline, statusToken).status == 200)
            let other = try await OAuth2Wire.bearer(base + "/files", statusToken)
            #expect(other.status == 401)
            #expect(
                OAuth2Wire.json(other)["error_description"] as? String
                    == "the access token's audience is \(base)/1.1, not this resource (\(base)/files) (RFC 8707)"
            )
            #expect(
                SandboxResourceTests.challenges(other) == [
                    "Bearer realm=\"RemoteAuth Sandbox\", error=\"invalid_token\", resource_metadata=\"\(base)/.well-known/oauth-protected-resource/files\""
                ]
            )

            // No resource: today's behaviour on the status API, refused by /files.
            let unbound = try await Self.accessToken(base, resources: [])
            #expect(try await OAuth2Wire.bearer(timeline, unbound).status == 200)
            let unboundFiles = try await OAuth2Wire.bearer(base + "/files", unbound)
            #expect(unboundFiles.status == 401)
            #expect(
                OAuth2Wire.json(unboundFiles)["error_description"] as? String
                    == "the access token's audience is none (a token issued without resource), not this resource (\(base)/files) (RFC 8707)"
            )

            // Both: taken by both.
            let both = try await Self.accessToken(base, resources: [base + "/1.1", base + "/files"])
            #expect(try await OAuth2Wire.bearer(timeline, both).status == 200)
            #expect(try await OAuth2Wire.bearer(base + "/files", both).status == 200)
            let introspection = try await OAuth2Wire.token(
                base,
                [("token", both)],
                basic: Self.service,
                endpoint: "/oauth2/introspect"
            )
            #expect(OAuth2Wire.json(introspection)["aud"] as? [String] == [base + "/1.1", base + "/files"])

            // A value naming none of the resources (the origin, another server): no specific
            // resource, as before audiences; a trailing slash names the resource.
            for unspecific in [base, "https://elsewhere.example/api"] {
                let token = try await Self.accessToken(base, resources: [unspecific])
                #expect(try await OAuth2Wire.bearer(timeline, token).status == 200, "\(unspecific)")
                #expect(try await OAuth2Wire.bearer(base + "/files", token).status == 401, "\(unspecific)")
            }
            let slash = try await Self.accessToken(base, resources: [base + "/files/"])
            #expect(try await OAuth2Wire.bearer(base + "/files", slash).status == 200)
            #expect(try await OAuth2Wire.bearer(timeline, slash).status == 401)

            // Not an absolute URI, or a fragment: invalid_target (RFC 8707 §2).
            for bad in [base + "/1.1#x", "not a uri"] {
                let answer = try await Self.token(base, resources: [bad])
                #expect(answer.status == 400, "\(bad)")
                #expect(OAuth2Wire.json(answer)["error"] as? String == "invalid_target", "\(bad)")
            }
        }
    }

    @Test("Code + PKCE with resource: the grant's resources, narrowed by the token and refresh requests, never widened")
    func codeFlowResources() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let pkce = OAuth2Wire.pkce()
            let url =
                OAuth2Wire.authorizeURL(base, challenge: pkce.challenge, scope: "statuses:read")
                + "&resource=" + OAuth1.PercentEncoding.encode(base + "/files")
            let answer = try await OAuth2Wire.consent(url)
            let code = try #require(queryParameters(answer.header("Location") ?? "")["code"])
            let response = try await OAuth2Wire.token(
                base,
                [
                    ("grant_type", "authorization_code"), ("code", code),
                    ("redirect_uri", OAuth2Wire.loopbackRedirect), ("client_id", "demo-app"),
                    ("code_verifier", pkce.verifier),
                ]
            )
            #expect(response.status == 200, "\(response.body)")
            let tokens = OAuth2Wire.json(response)
            let access = try #require(tokens["access_token"] as? String)
            let refresh = try #require(tokens["refresh_token"] as? String)
            #expect(try await OAuth2Wire.bearer(base + "/files", access).status == 200)
            #expect(try await OAuth2Wire.bearer(base + "/1.1/statuses/home_timeline.json", access).status == 401)
            // A refresh cannot widen the grant to the status API (RFC 8707 §2.2), and keeps the refresh token.
            let widened = try await OAuth2Wire.token(
                base,
                [
                    ("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "demo-app"),
                    ("resource", base + "/1.1"),
                ]
            )
            #expect(widened.status == 400)
            #expect(OAuth2Wire.json(widened)["error"] as? String == "invalid_target")
            #expect(
                OAuth2Wire.json(widened)["error_description"] as? String
                    == "'\(base)/1.1' was not asked for in the authorization request (RFC 8707 §2.2)"
            )
            let renewed = try await OAuth2Wire.token(
                base,
                [("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "demo-app")]
            )
            #expect(renewed.status == 200, "\(renewed.body)")
            let next = try #require(OAuth2Wire.json(renewed)["access_token"] as? String)
            #expect(try await OAuth2Wire.bearer(base + "/files", next).status == 200)

            // A resource with a fragment at the authorization endpoint goes back as invalid_target.
            let refusedURL =
                OAuth2Wire.authorizeURL(base, challenge: pkce.challenge)
                + "&resource=" + OAuth1.PercentEncoding.encode(base + "/files#part")
            let refusedAnswer = try await Wire.get(refusedURL)
            #expect(refusedAnswer.status == 302)
            #expect(queryParameters(refusedAnswer.header("Location") ?? "")["error"] == "invalid_target")
        }
    }
}
