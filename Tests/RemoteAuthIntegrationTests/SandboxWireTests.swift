import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthSandbox
import Testing

/// The sandbox's answers byte for byte, fields in order: clients and scripts compare them, so
/// they stay what they were before the sandbox moved onto route collections and thrown errors.
@Suite(.timeLimit(.minutes(5))) struct SandboxWireTests {
    func expectAnswer(
        _ exchange: Exchange,
        _ status: Int,
        _ fields: [(String, String)],
        _ body: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(exchange.status == status, sourceLocation: sourceLocation)
        // The server adds Content-Length and Date (which changes every second) after the fields.
        let expected = fields + [("Content-Length", String(body.utf8.count))]
        let received = exchange.headers.filter { $0.0.lowercased() != "date" }
        #expect(
            received.map { "\($0.0): \($0.1)" } == expected.map { "\($0.0): \($0.1)" },
            sourceLocation: sourceLocation
        )
        #expect(exchange.body == body, sourceLocation: sourceLocation)
    }

    @Test func refusals() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            expectAnswer(
                try await Wire.get(base + "/basic/"),
                401,
                [
                    ("WWW-Authenticate", "Basic realm=\"RemoteAuth Sandbox\", charset=\"UTF-8\""),
                    ("Content-Type", "application/json"),
                ],
                "{\"authenticated\":false}"
            )
            expectAnswer(
                try await Wire.get(base + "/digest/SHA-1/auth/"),
                404,
                [("Content-Type", "application/json")],
                #"{"error":"use \/digest\/{MD5|MD5-sess|SHA-256|SHA-256-sess|SHA-512-256|SHA-512-256-sess}\/{auth|auth-int}\/"}"#
            )
            expectAnswer(
                try await Wire.get(base + "/redirect"),
                400,
                [("Content-Type", "application/json")],
                #"{"error":"use \/redirect?to=URL[&status=301|302|303|307|308]"}"#
            )
            // Every scheme the status API takes, one field line each (RFC 9110 §11.6.1; issue 26).
            let metadata = base + "/.well-known/oauth-protected-resource/1.1"
            expectAnswer(
                try await Wire.get(base + "/1.1/account/verify_credentials.json"),
                401,
                [
                    ("WWW-Authenticate", "OAuth realm=\"RemoteAuth Sandbox\", oauth_problem=\"parameter_absent\""),
                    ("WWW-Authenticate", "Bearer realm=\"RemoteAuth Sandbox\", resource_metadata=\"\(metadata)\""),
                    (
                        "WWW-Authenticate",
                        "DPoP algs=\"ES256 Ed25519 EdDSA PS256 RS256\", resource_metadata=\"\(metadata)\""
                    ),
                    ("Content-Type", "application/x-www-form-urlencoded"),
                ],
                "oauth_problem=parameter_absent&oauth_problem_advice=this%20endpoint%20needs%20a%20request%20signed%20with%20OAuth%201.0a"
            )
            let missingNonce = try await Wire.send(
                try HTTPRequest(
                    method: .post,
                    absoluteURL: base + "/oauth/request_token",
                    headerFields: [
                        .authorization:
                            "OAuth oauth_consumer_key=\"demo-consumer\", oauth_signature_method=\"HMAC-SHA1\", oauth_signature=\"eA%3D%3D\", oauth_timestamp=\"1\""
                    ]
                )
            )
            expectAnswer(
                missingNonce,
                400,
                [
                    ("WWW-Authenticate", "OAuth realm=\"RemoteAuth Sandbox\", oauth_problem=\"parameter_absent\""),
                    ("Content-Type", "application/x-www-form-urlencoded"),
                ],
                "oauth_problem=parameter_absent&oauth_problem_advice=oauth_nonce%20is%20absent&oauth_parameters_absent=oauth_nonce"
            )
            let missingToken = try await Wire.get(base + "/oauth/authorize")
            #expect(missingToken.status == 400)
            #expect(missingToken.header("Content-Type") == "text/html; charset=utf-8")
            #expect(missingToken.header("Cache-Control") == "no-store")
            #expect(
                missingToken.body.contains(
                    "<body><main><h1 id=\"title\">Missing request token</h1><p id=\"message\">The link has no oauth_token.</p><footer>"
                )
            )
            expectAnswer(try await Wire.get(base + "/nowhere"), 404, [], "")
        }
    }

    @Test func successes() async throws {
        var configuration = SandboxConfiguration.demo()
        configuration.users.append(.init(name: "o\"b/c", password: "x", id: "7"))
        try await Sandbox.withSandbox(configuration) { sandbox in
            let base = sandbox.baseURL
            expectAnswer(
                try await Wire.get(
                    base + "/basic/",
                    headers: [.authorization: try BasicCredentials(user: "o\"b/c", password: "x").authorization]
                ),
                200,
                [("Content-Type", "application/json")],
                #"{"authenticated": true, "user": "o\"b/c"}"#
            )
            let device = OAuthClient(
                client: .init(key: "demo-device", secret: "demo-device-secret"),
                token: .init(token: "alice-device-token", secret: "alice-device-token-secret")
            )
            expectAnswer(
                try await device.send(.get, base + "/1.1/account/verify_credentials.json"),
                200,
                [("Content-Type", "application/json")],
                #"{"id":1001,"id_str":"1001","name":"alice","screen_name":"alice"}"#
            )
            expectAnswer(
                try await Wire.get(base + "/redirect?to=%2Fx&status=399"),
                302,
                [("Location", "/x")],
                ""
            )
        }
    }
}
