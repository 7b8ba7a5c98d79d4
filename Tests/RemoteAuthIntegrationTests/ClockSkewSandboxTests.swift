import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthSandbox
import Testing

/// Issue 24, clocks: the client's clock 10 minutes ahead of or behind the sandbox's. A token's
/// expiry is the client's receipt time plus `expires_in` (RFC 6749 §5.1: a lifetime, not a date),
/// so a session renews its token once per lifetime, in its expiry skew (60 s), whatever the
/// offset: not on every request, and never with a token the server still takes as expired or
/// early. Both clocks are moved by the test; the sandbox issues one-hour tokens.
@Suite struct ClockSkewSandboxTests {
    typealias TestClock = TokenSourceSandboxTests.TestClock

    static let timeline = "/1.1/statuses/home_timeline.json"

    @Test(arguments: [600, -600] as [Int64])
    func renewsOncePerLifetimeWithTheClockOff(by offset: Int64) async throws {
        let server = TestClock(Int64(Date().timeIntervalSince1970))
        let clientNow: @Sendable () -> Int64 = { server.now() + offset }
        var configuration = SandboxConfiguration.demo()
        configuration.now = server.now
        try await Sandbox.withSandbox(configuration) { sandbox in
            let base = sandbox.baseURL
            try await AsyncHTTPClientTransport.withTransport(
                connectTimeout: TestTime.hangGuardAmount, timeout: TestTime.hangGuardAmount
            ) { ahc in
                let recording = RecordingTransport(ahc)
                let flow = OAuth2.Flow(
                    server: OAuth2.AuthorizationServer(issuer: base, tokenEndpoint: base + "/oauth2/token"),
                    client: OAuth2.Client(id: "demo-service", authentication: .clientSecretBasic("demo-service-secret")),
                    transport: recording,
                    now: clientNow
                )
                let first = try await flow.clientCredentials(scope: ["statuses:read"]).tokens
                // The expiry is on the client's clock: its now plus the hour.
                #expect(first.expiresAt == clientNow() + 3_600)
                let session = try TokenSourceSandboxTests.clientCredentialsSession(
                    first, base: base, flow: flow, now: clientNow
                )
                let client = AuthenticatingClient(transport: recording, session: session)
                func requests(_ count: Int) async throws -> [Int] {
                    try await withThrowingTaskGroup(of: Int.self) { group in
                        for _ in 0..<count { group.addTask { try await client.get(base + Self.timeline).0.status.code } }
                        return try await group.reduce(into: [Int]()) { $0.append($1) }
                    }
                }
                func tokenRequests() -> Int { recording.hops.filter { $0.request.path == "/oauth2/token" }.count }

                // Half the lifetime: the token is used as it is.
                server.advance(1_800)
                #expect(try await requests(20) == Array(repeating: 200, count: 20))
                #expect(tokenRequests() == 1)
                #expect(await session.refreshCount == 0)

                // 30 s before its expiry (inside the 60 s skew): renewed once, for all 20.
                server.advance(1_770)
                #expect(try await requests(20) == Array(repeating: 200, count: 20))
                #expect(tokenRequests() == 2)
                #expect(await session.refreshCount == 1)
                let renewed = (await session.session).tokens
                #expect(renewed.accessToken != first.accessToken)
                #expect(renewed.expiresAt == clientNow() + 3_600)

                // And not again on the next requests, nor later within the new lifetime.
                #expect(try await requests(20) == Array(repeating: 200, count: 20))
                server.advance(3_000)
                #expect(try await requests(20) == Array(repeating: 200, count: 20))
                #expect(tokenRequests() == 2)
                #expect(await session.refreshCount == 1)
                // Nothing was refused on the way: every request went out once.
                #expect(recording.hops.filter { $0.status == 401 }.isEmpty)
            }
        }
    }
}
