import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthSandbox
import Testing

private typealias W = OAuth2Wire

/// What a third-party client checking the sandbox found (issue 26): RFC 8414 §2's signing
/// algorithms for the JWT methods it lists at revocation and introspection, and RFC 7662 §2.1's
/// authorized caller at introspection.
@Suite(.timeLimit(.minutes(5))) struct SandboxCheckerFixesTests {
    @Test("The metadata lists signing algorithms wherever it lists private_key_jwt (RFC 8414 §2)")
    func signingAlgorithmsBesideJWTMethods() async throws {
        try await Sandbox.withSandbox { sandbox in
            let json = W.json(try await Wire.get(sandbox.baseURL + "/.well-known/oauth-authorization-server"))
            let algorithms = ["RS256", "PS256", "ES256", "EdDSA", "HS256"]
            #expect(json["token_endpoint_auth_signing_alg_values_supported"] as? [String] == algorithms)
            #expect(json["revocation_endpoint_auth_signing_alg_values_supported"] as? [String] == algorithms)
            #expect(json["introspection_endpoint_auth_signing_alg_values_supported"] as? [String] == algorithms)
            #expect(
                json["revocation_endpoint_auth_methods_supported"] as? [String] == [
                    "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt", "none",
                ]
            )
            // A public client cannot introspect, so none is not offered there.
            #expect(
                json["introspection_endpoint_auth_methods_supported"] as? [String] == [
                    "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt",
                ]
            )
        }
    }

    @Test(
        "Introspection refuses a public client with 401 invalid_client (RFC 7662 §2.1); a confidential one is answered"
    )
    func introspectionNeedsAConfidentialClient() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            let access = try #require(try await W.codeFlow(base, scope: "statuses:read")["access_token"] as? String)
            // demo-app is public: its own token, asked with client_id alone, is refused.
            let publicClient = try await W.token(
                base,
                [("token", access), ("client_id", "demo-app")],
                endpoint: "/oauth2/introspect"
            )
            #expect(publicClient.status == 401)
            #expect(publicClient.header("WWW-Authenticate") == "Basic realm=\"RemoteAuth Sandbox\"")
            #expect(W.json(publicClient)["error"] as? String == "invalid_client")
            #expect(
                W.json(publicClient)["error_description"] as? String
                    == "introspection needs an authenticated confidential client; a public client cannot call it (RFC 7662 §2.1)"
            )
            let anonymous = try await W.token(base, [("token", access)], endpoint: "/oauth2/introspect")
            #expect(anonymous.status == 401)
            #expect(W.json(anonymous)["error"] as? String == "invalid_client")
            let confidential = try await W.token(
                base,
                [("token", access)],
                basic: ("demo-service", "demo-service-secret"),
                endpoint: "/oauth2/introspect"
            )
            #expect(confidential.status == 200)
            #expect(W.json(confidential)["active"] as? Bool == true)
            #expect(W.json(confidential)["client_id"] as? String == "demo-app")
        }
    }
}
