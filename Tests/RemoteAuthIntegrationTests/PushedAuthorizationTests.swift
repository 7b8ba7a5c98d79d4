import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthSandbox
import Testing

/// Pushed authorization requests (RFC 9126) between the library's flow and the sandbox, over
/// real sockets.
@Suite("Pushed authorization requests", .timeLimit(.minutes(5)))
struct PushedAuthorizationTests {
    typealias W = OAuth2Wire

    /// A sandbox clock the test moves.
    final class Clock: Sendable {
        let time = Locked<Int64>(1_800_000_000)
        var now: @Sendable () -> Int64 { { self.time.withLock { $0 } } }
    }

    static func configuration(now: (@Sendable () -> Int64)? = nil) -> SandboxConfiguration {
        var configuration = SandboxConfiguration.demo()
        configuration.autoApprove = true
        configuration.requirePushedAuthorizationRequests = true
        if let now { configuration.now = now }
        return configuration
    }

    @Test("discovered require_pushed_authorization_requests: the flow pushes, the browser sees client_id and request_uri only")
    func requiredAndAutomatic() async throws {
        try await Sandbox.withSandbox(Self.configuration()) { sandbox in
            let base = sandbox.baseURL
            try await AsyncHTTPClientTransport.withTransport { transport in
                let metadata = try await OAuth2.Flow.discover(issuer: base, transport: transport)
                #expect(metadata.pushedAuthorizationRequestEndpoint == base + "/oauth2/par")
                #expect(metadata.requirePushedAuthorizationRequests)
                let flow = OAuth2.Flow(
                    server: .init(metadata: metadata), client: .public(id: "demo-app"), transport: transport,
                    now: { Int64(Date().timeIntervalSince1970) })
                // The synchronous request would be refused by the server: it is refused here.
                #expect(throws: OAuth2.Error(.invalidConfiguration, "")) {
                    try flow.authorizationRequest(redirectURI: W.loopbackRedirect, random: .system)
                }
                let request = try await flow.startAuthorization(
                    redirectURI: W.loopbackRedirect, scope: ["statuses:read"], random: .system)
                let pushed = try #require(request.pushedRequest)
                #expect(pushed.requestURI.hasPrefix("urn:ietf:params:oauth:request_uri:"))
                #expect(pushed.expiresIn == 60)
                #expect(request.frontChannelParameters.map(\.name) == ["client_id", "request_uri"])
                #expect(request.url == base + "/oauth2/authorize?" + FormURLEncoding.encode([
                    ("client_id", "demo-app"), ("request_uri", pushed.requestURI),
                ]))
                #expect(!request.url.contains("state="))

                let answer = try await Wire.get(request.url)
                #expect(answer.status == 302)
                let redirect = try #require(answer.header("Location"))
                let tokens = try await flow.tokens(fromCallback: redirect, pending: request.pending)
                #expect(tokens.scope == ["statuses:read"])
                #expect(
                    try await W.bearer(base + "/1.1/statuses/home_timeline.json", tokens.accessToken.reveal()).status
                        == 200)

                // A request_uri is used once (RFC 9126 §4).
                let again = try await Wire.get(request.url)
                #expect(again.status == 400)
                #expect(again.body.contains("Invalid request_uri"))
            }
        }
    }

    @Test("the sandbox refuses what RFC 9126 forbids: a request that was not pushed, another client's request_uri, an expired one, request_uri in the push")
    func refusals() async throws {
        let clock = Clock()
        try await Sandbox.withSandbox(Self.configuration(now: clock.now)) { sandbox in
            let base = sandbox.baseURL
            let notPushed = try await Wire.get(W.authorizeURL(base, challenge: W.pkce().challenge))
            #expect(notPushed.status == 400)
            #expect(notPushed.body.contains("Pushed request required"))

            func push(_ extra: [(name: String, value: String)] = []) async throws -> Exchange {
                try await Wire.postForm(
                    base + "/oauth2/par",
                    [
                        ("response_type", "code"), ("client_id", "demo-app"), ("redirect_uri", W.loopbackRedirect),
                        ("state", "xyz"), ("code_challenge", W.pkce().challenge), ("code_challenge_method", "S256"),
                    ] + extra)
            }
            let created = try await push()
            #expect(created.status == 201)
            #expect(created.header("Cache-Control") == "no-store")
            let uri = try #require(W.json(created)["request_uri"] as? String)
            #expect(W.json(created)["expires_in"] as? Int == 60)

            // Another client's id with this request_uri.
            let stolen = try await Wire.get(
                base + "/oauth2/authorize?" + FormURLEncoding.encode([("client_id", "demo-service"), ("request_uri", uri)]))
            #expect(stolen.status == 400)

            // Expired: the clock moves past expires_in.
            let late = try await push()
            let lateURI = try #require(W.json(late)["request_uri"] as? String)
            clock.time.withLock { $0 += 61 }
            let expired = try await Wire.get(
                base + "/oauth2/authorize?" + FormURLEncoding.encode([("client_id", "demo-app"), ("request_uri", lateURI)]))
            #expect(expired.status == 400)

            // request_uri inside a push, a wrong redirect_uri, no PKCE: JSON errors (RFC 9126 §2.3).
            let nested = try await push([("request_uri", "urn:x")])
            #expect(nested.status == 400)
            #expect(W.json(nested)["error"] as? String == "invalid_request")
            let badRedirect = try await Wire.postForm(
                base + "/oauth2/par",
                [
                    ("response_type", "code"), ("client_id", "demo-app"), ("redirect_uri", "https://evil.example/cb"),
                    ("code_challenge", W.pkce().challenge), ("code_challenge_method", "S256"),
                ])
            #expect(W.json(badRedirect)["error"] as? String == "invalid_request")
            let confidential = try await Wire.postForm(
                base + "/oauth2/par", [("response_type", "code"), ("client_id", "demo-service")])
            #expect(confidential.status == 400)
            #expect(W.json(confidential)["error"] as? String == "invalid_client")
        }
    }
}
