import Foundation
import HTTPTypes
import Logging
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthSandbox
import Testing

/// Token sessions renewed by a grant other than `refresh_token`, against the sandbox over
/// sockets, with a clock the test moves (the sandbox issues one-hour tokens).
@Suite struct TokenSourceSandboxTests {
    final class TestClock: Sendable {
        private let seconds: Locked<Int64>
        init(_ start: Int64) { seconds = Locked(start) }
        var now: @Sendable () -> Int64 { { self.seconds.withLock { $0 } } }
        func advance(_ by: Int64) { seconds.withLock { $0 += by } }
    }

    static let timeline = "/1.1/statuses/home_timeline.json"

    /// The sandbox's `demo-service` client's token session from its first client-credentials
    /// tokens, renewed by a new grant (`statuses:read`) on `flow`.
    static func clientCredentialsSession(
        _ first: OAuth2.Tokens,
        base: String,
        flow: OAuth2.Flow,
        store: InMemoryTokenStore = InMemoryTokenStore(),
        now: @escaping @Sendable () -> Int64,
        logger: Logger = Logger(label: "RemoteAuth.OAuth2.TokenSession")
    ) throws -> OAuth2.TokenSession {
        try OAuth2.TokenSession(
            session: OAuth2.Session(
                tokens: first,
                tokenEndpoint: base + "/oauth2/token",
                clientID: "demo-service",
                resourceOrigins: [base],
                grant: .clientCredentials
            ),
            store: store,
            service: "svc",
            account: "demo-service",
            now: now,
            logger: logger,
            source: OAuth2.ClientCredentialsSource(flow: flow, scope: ["statuses:read"])
        )
    }

    /// A client credentials session has no refresh token (RFC 6749 §4.4.3); once its token has
    /// expired, 100 concurrent requests renew it with one new client credentials grant, save it,
    /// and all succeed.
    @Test func clientCredentialsSessionRenewsItselfOnce() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            // 100 requests queue for 8 connections, and AsyncHTTPClient bounds a wait for a pooled
            // connection by the connect timeout: both are the hang guard, as these tests count
            // refreshes, not times.
            try await AsyncHTTPClientTransport.withTransport(
                connectTimeout: TestTime.hangGuardAmount, timeout: TestTime.hangGuardAmount
            ) { ahc in
                let recording = RecordingTransport(ahc)
                let clock = TestClock(Int64(Date().timeIntervalSince1970))
                let flow = OAuth2.Flow(
                    server: OAuth2.AuthorizationServer(
                        issuer: base,
                        tokenEndpoint: base + "/oauth2/token",
                        revocationEndpoint: base + "/oauth2/revoke"
                    ),
                    client: OAuth2.Client(id: "demo-service", authentication: .clientSecretBasic("demo-service-secret")),
                    transport: recording,
                    now: clock.now
                )
                let first = try await flow.clientCredentials(scope: ["statuses:read"]).tokens
                #expect(first.refreshToken == nil)
                let store = InMemoryTokenStore()
                let session = try Self.clientCredentialsSession(first, base: base, flow: flow, store: store, now: clock.now)
                let client = AuthenticatingClient(transport: recording, session: session)
                #expect(try await client.get(base + Self.timeline).0.status == .ok)

                clock.advance(3_600)
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<100 { group.addTask { try await client.get(base + Self.timeline).0.status.code } }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(statuses == Array(repeating: 200, count: 100))
                let tokenRequests = recording.hops.filter { $0.request.path == "/oauth2/token" }
                #expect(tokenRequests.count == 2)
                #expect(tokenRequests.allSatisfy { $0.status == 200 })
                #expect(await session.refreshCount == 1)
                let saved = try #require(try await store.oauth2Session(service: "svc", account: "demo-service"))
                #expect(saved.tokens.accessToken != first.accessToken)
                #expect(saved.tokens.accessToken == (await session.session).tokens.accessToken)
                #expect(saved.grant == .clientCredentials)

                // Revoked at the server: the 401 invalid_token renews once, and the retry passes.
                try await flow.revoke(saved.tokens.accessToken)
                let hopsBefore = recording.hops.count
                #expect(try await client.get(base + Self.timeline).0.status == .ok)
                #expect(recording.hops.dropFirst(hopsBefore).map(\.status) == [401, 200, 200])
                #expect(await session.refreshCount == 2)
            }
        }
    }

    /// Without a source that renews without a refresh token, the same session ends at expiry.
    @Test func refreshTokenSourceCannotRenewClientCredentials() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            try await AsyncHTTPClientTransport.withTransport(
                connectTimeout: TestTime.hangGuardAmount, timeout: TestTime.hangGuardAmount
            ) { ahc in
                let clock = TestClock(Int64(Date().timeIntervalSince1970))
                let flow = OAuth2.Flow(
                    server: OAuth2.AuthorizationServer(issuer: base, tokenEndpoint: base + "/oauth2/token"),
                    client: OAuth2.Client(id: "demo-service", authentication: .clientSecretBasic("demo-service-secret")),
                    transport: ahc,
                    now: clock.now
                )
                let first = try await flow.clientCredentials().tokens
                let session = try OAuth2.TokenSession(
                    session: OAuth2.Session(
                        tokens: first,
                        tokenEndpoint: base + "/oauth2/token",
                        clientID: "demo-service",
                        resourceOrigins: [base]
                    ),
                    store: InMemoryTokenStore(),
                    service: "svc",
                    account: "demo-service",
                    now: clock.now,
                    source: OAuth2.RefreshTokenSource(flow: flow)
                )
                clock.advance(3_600)
                let error = await #expect(throws: OAuth2.Error.self) { try await session.validTokens() }
                #expect(error?.code == .reauthorizationRequired)
            }
        }
    }
}

/// RFC 9728 against the sandbox: from the status API's URL to its authorization server, and on
/// to a flow.
@Suite struct ProtectedResourceSandboxTests {
    @Test func fromAResourceURLToItsAuthorizationServer() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            try await AsyncHTTPClientTransport.withTransport(
                connectTimeout: TestTime.hangGuardAmount, timeout: TestTime.hangGuardAmount
            ) { ahc in
                let metadata = try await OAuth2.ProtectedResourceMetadata.discover(resource: base + "/1.1", transport: ahc)
                #expect(metadata.resource == base + "/1.1")
                #expect(metadata.authorizationServers == [base])
                #expect(metadata.scopesSupported == ["statuses:read", "statuses:write"])
                let flow = try await OAuth2.Flow(
                    discovering: try #require(metadata.authorizationServers.first),
                    client: OAuth2.Client(id: "demo-service", authentication: .clientSecretBasic("demo-service-secret")),
                    transport: ahc
                )
                let session = try await flow.clientCredentialsSession(scope: ["statuses:read"], resources: [metadata.resource])
                let (response, _) = try await AuthenticatingClient(transport: ahc, session: session)
                    .get(base + "/1.1/statuses/home_timeline.json")
                #expect(response.status == .ok)

                // The /files resource's document is for /files, not for /1.1 (RFC 9728 §3.3).
                let error = await #expect(throws: OAuth2.Error.self) {
                    _ = try await OAuth2.ProtectedResourceMetadata.discover(
                        resource: base + "/1.1",
                        metadataURL: base + "/.well-known/oauth-protected-resource/files",
                        transport: ahc
                    )
                }
                #expect(error?.code == .resourceMismatch)
            }
        }
    }
}
