import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthSandbox
import Testing

/// The OAuth 1.0a flow library against the sandbox, over real sockets.
@Suite(.timeLimit(.minutes(5))) struct OAuth1FlowTests {
    func withFlow(
        _ base: String,
        client: OAuth1.ClientCredentials = demoClient,
        _ body: (OAuth1.Flow, any HTTPTransport) async throws -> Void
    ) async throws {
        try await AsyncHTTPClientTransport.withTransport { transport in
            let flow = OAuth1.Flow(
                provider: .twitterStyle(baseURL: base),
                client: client,
                transport: transport,
                now: { Int64(Date().timeIntervalSince1970) }
            )
            try await body(flow, transport)
        }
    }

    @Test(arguments: [OAuth1.Placement.header, .query, .body])
    func threeLegged(placement: OAuth1.Placement) async throws {
        try await Sandbox.withSandbox { sandbox in
            try await withFlow(sandbox.baseURL) { flow, transport in
                var flow = flow
                var provider = flow.provider
                provider.placement = placement
                flow = OAuth1.Flow(
                    provider: provider,
                    client: demoClient,
                    transport: transport,
                    now: { Int64(Date().timeIntervalSince1970) }
                )
                let requestToken = try await flow.requestToken(callback: "http://127.0.0.1:9/cb")
                let authorize = flow.authorizeURL(for: requestToken)
                #expect(authorize == sandbox.baseURL + "/oauth/authorize?oauth_token=" + requestToken.token)
                let approved = try await consent(sandbox.baseURL, token: requestToken.token)
                let verifier = try flow.verifier(
                    fromCallback: try #require(approved.header("Location")),
                    for: requestToken
                )
                let access = try await flow.accessToken(for: requestToken, verifier: verifier)
                #expect(access.screenName == "alice")
                #expect(access.userID == "1001")
                #expect(!"\(access)".contains(access.credentials.secret.reveal()))
                // The token signs API calls.
                let me = try await OAuthClient(client: demoClient, token: access.credentials).send(
                    .get,
                    sandbox.baseURL + "/1.1/account/verify_credentials.json"
                )
                #expect(me.status == 200)
            }
        }
    }

    @Test func pinFlow() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await withFlow(sandbox.baseURL) { flow, _ in
                let requestToken = try await flow.requestToken(callback: "oob")
                let page = try await consent(sandbox.baseURL, token: requestToken.token)
                let marker = try #require(page.body.range(of: "<code id=\"pin\">"))
                let pin = String(page.body[marker.upperBound...].prefix(7))
                let access = try await flow.accessToken(for: requestToken, verifier: pin)
                #expect(access.screenName == "alice")
            }
        }
    }

    /// Each failure is typed: denied consent, a callback for another token, a wrong verifier
    /// (with the provider's `oauth_problem`), a wrong client secret.
    @Test func failures() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await withFlow(sandbox.baseURL) { flow, _ in
                let requestToken = try await flow.requestToken(callback: "http://127.0.0.1:9/cb")
                let denied = try await consent(sandbox.baseURL, token: requestToken.token, action: "deny")
                #expect(throws: OAuth1.FlowError(.consentDenied, "")) {
                    try flow.verifier(fromCallback: try #require(denied.header("Location")), for: requestToken)
                }
                let other = try await flow.requestToken(callback: "http://127.0.0.1:9/cb")
                let approved = try await consent(sandbox.baseURL, token: other.token)
                let location = try #require(approved.header("Location"))
                #expect(throws: OAuth1.FlowError(.callbackMismatch, "")) {
                    try flow.verifier(fromCallback: location, for: requestToken)
                }
                #expect(throws: OAuth1.FlowError(.missingVerifier, "")) {
                    try flow.verifier(fromCallback: "http://127.0.0.1:9/cb?oauth_token=" + other.token, for: other)
                }
                let error = await #expect(throws: OAuth1.FlowError.self) {
                    try await flow.accessToken(for: other, verifier: "wrong")
                }
                #expect(error?.code == .providerRefused)
                #expect(error?.status == 401)
                #expect(error?.problem == .verifierInvalid)
            }
            try await withFlow(sandbox.baseURL, client: .init(key: "demo-consumer", secret: "wrong")) { flow, _ in
                let error = await #expect(throws: OAuth1.FlowError.self) {
                    try await flow.requestToken(callback: "oob")
                }
                #expect(error?.problem == .signatureInvalid)
                #expect(!"\(error!)".contains("wrong"))
            }
        }
    }

    @Test func reverseAuth() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
                let app = OAuth1.Flow(
                    provider: .twitterStyle(baseURL: sandbox.baseURL),
                    client: demoClient,
                    transport: transport,
                    now: now
                )
                let parameters = try await app.reverseAuthParameters()
                let device = OAuth1.Flow(
                    provider: .twitterStyle(baseURL: sandbox.baseURL),
                    client: .init(key: "demo-device", secret: "demo-device-secret"),
                    transport: transport,
                    now: now
                )
                let access = try await device.reverseAuthAccessToken(
                    deviceToken: .init(token: "alice-device-token", secret: "alice-device-token-secret"),
                    targetConsumerKey: "demo-consumer",
                    parameters: parameters
                )
                #expect(access.screenName == "alice")
                let me = try await OAuthClient(client: demoClient, token: access.credentials).send(
                    .get,
                    sandbox.baseURL + "/1.1/account/verify_credentials.json"
                )
                #expect(me.status == 200)
            }
        }
    }
}
