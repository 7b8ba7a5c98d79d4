import Foundation
import HTTPTypes
import InMemoryTracing
import Logging
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthSandbox
import Testing
import Tracing

/// The spans and the log of a token session's refreshes, against the sandbox over sockets: an
/// in-memory tracer bound to the test's task (`withTracer`), a log handler that keeps every line.
@Suite(.timeLimit(.minutes(5))) struct TracingTests {
    static let timeline = "/1.1/statuses/home_timeline.json"

    /// A refresh at expiry and one on `invalid_token`: each a `RemoteAuth.OAuth2.refresh` span
    /// (its reason, grant type and outcome) inside the attempt that needed it, around the token
    /// request (grant type, status); the attempts carry method, redacted URL, status, retry and
    /// the decisions as events; the log says the same, and neither holds a token or the secret.
    @Test func spansAndLogOfRefreshes() async throws {
        let tracer = InMemoryTracer()
        let sink = LogSink()
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            try await AsyncHTTPClientTransport.withTransport { transport in
                let clock = TokenSourceSandboxTests.TestClock(Int64(Date().timeIntervalSince1970))
                var flow = OAuth2.Flow(
                    server: OAuth2.AuthorizationServer(
                        issuer: base,
                        tokenEndpoint: base + "/oauth2/token",
                        revocationEndpoint: base + "/oauth2/revoke"
                    ),
                    client: OAuth2.Client(
                        id: "demo-service",
                        authentication: .clientSecretBasic("demo-service-secret")
                    ),
                    transport: transport,
                    now: clock.now
                )
                flow.logger = sink.logger
                let first = try await flow.clientCredentials(scope: ["statuses:read"]).tokens
                let session = try TokenSourceSandboxTests.clientCredentialsSession(
                    first, base: base, flow: flow, now: clock.now, logger: sink.logger
                )
                var configuration = AuthenticatingClient.Configuration()
                configuration.logger = sink.logger
                let client = AuthenticatingClient(transport: transport, session: session, configuration: configuration)

                // At expiry: the attempt refreshes first, then sends once.
                clock.advance(3_600)
                let atExpiry = try await withTracer(tracer) { () async throws -> HTTPResponse.Status in
                    try await client.get(base + Self.timeline).0.status
                }
                #expect(atExpiry == .ok)
                let expiry = tracer.popFinishedSpans()
                #expect(
                    expiry.map(\.operationName).sorted() == [
                        "RemoteAuth.OAuth2.refresh", "RemoteAuth.OAuth2.tokenRequest", "RemoteAuth.attempt",
                    ]
                )
                let attempt = try #require(expiry.first { $0.operationName == "RemoteAuth.attempt" })
                let refresh = try #require(expiry.first { $0.operationName == "RemoteAuth.OAuth2.refresh" })
                let tokenRequest = try #require(expiry.first { $0.operationName == "RemoteAuth.OAuth2.tokenRequest" })
                #expect(refresh.parentSpanID == attempt.spanID)
                #expect(tokenRequest.parentSpanID == refresh.spanID)
                #expect(refresh.attributes.get("remote_auth.refresh.reason") == .string("expiry"))
                #expect(refresh.attributes.get("oauth2.grant_type") == .string("client_credentials"))
                #expect(refresh.attributes.get("remote_auth.refresh.outcome") == .string("refreshed"))
                #expect(tokenRequest.attributes.get("oauth2.grant_type") == .string("client_credentials"))
                #expect(tokenRequest.attributes.get("http.response.status_code") == .int64(200))
                #expect(tokenRequest.attributes.get("url.full") == .string(base + "/oauth2/token"))
                #expect(attempt.attributes.get("http.request.method") == .string("GET"))
                #expect(attempt.attributes.get("url.full") == .string(base + Self.timeline))
                #expect(attempt.attributes.get("http.response.status_code") == .int64(200))
                #expect(attempt.attributes.get("remote_auth.retry") == .bool(false))
                #expect(attempt.events.map(\.name) == ["RemoteAuth.decision"])
                #expect(attempt.events.first?.attributes.get("remote_auth.action") == .string("token refreshed"))
                #expect(attempt.events.first?.attributes.get("remote_auth.reason") == .string("expiry"))
                #expect(attempt.events.first?.attributes.get("remote_auth.scheme") == .string("Bearer"))

                // Revoked at the server: 401 invalid_token, a refresh, the retry passes.
                try await flow.revoke((await session.session).tokens.accessToken)
                let afterRevocation = try await withTracer(tracer) { () async throws -> HTTPResponse.Status in
                    try await client.get(base + Self.timeline).0.status
                }
                #expect(afterRevocation == .ok)
                let refused = tracer.popFinishedSpans()
                let attempts = [1, 2].compactMap { number in
                    refused.first {
                        $0.operationName == "RemoteAuth.attempt"
                            && $0.attributes.get("remote_auth.attempt") == .int64(number)
                    }
                }
                #expect(attempts.map { $0.attributes.get("http.response.status_code") } == [.int64(401), .int64(200)])
                #expect(attempts.map { $0.attributes.get("remote_auth.retry") } == [.bool(true), .bool(false)])
                #expect(attempts.first?.events.first?.attributes.get("remote_auth.reason") == .string("invalid_token"))
                let renewal = try #require(refused.first { $0.operationName == "RemoteAuth.OAuth2.refresh" })
                #expect(renewal.attributes.get("remote_auth.refresh.reason") == .string("invalid_token"))
                #expect(renewal.parentSpanID == attempts.first?.spanID)
                #expect(await session.refreshCount == 2)

                let text = sink.text
                #expect(text.contains(#""decision": Bearer: token refreshed (expiry)"#))
                #expect(text.contains(#""decision": Bearer: token refreshed (invalid_token)"#))
                #expect(text.contains("refreshing the access token"))
                #expect(text.contains(#""grant_type": client_credentials"#))
                var secrets = ["demo-service-secret", first.accessToken.reveal()]
                secrets.append((await session.session).tokens.accessToken.reveal())
                for secret in secrets { #expect(!text.contains(secret)) }
            }
        }
    }
}
