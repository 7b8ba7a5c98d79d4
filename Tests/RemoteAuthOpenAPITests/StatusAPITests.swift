import Foundation
import HTTPTypes
import OpenAPIRuntime
import RemoteAuth
import RemoteAuthOpenAPI
import RemoteAuthSandbox
import Testing

/// The generated client with `AuthenticationMiddleware`, over each OpenAPI transport, against
/// the sandbox's status API: OAuth 1.0a signing a form body, a Bearer session renewed before
/// expiry and once on `invalid_token`, and DPoP with the resource server's nonce challenge.
@Suite(.timeLimit(.minutes(5))) struct StatusAPITests {
    static let alice = Components.Schemas.User(id: 1001, idStr: "1001", screenName: "alice", name: "alice")

    /// alice's token for the device consumer, seeded in the demo sandbox.
    static func oauth1(_ origin: String) throws -> AuthenticationMiddleware {
        let signer = try OAuth1.Signer(
            client: .init(key: "demo-device", secret: "demo-device-secret"),
            token: .init(token: "alice-device-token", secret: "alice-device-token-secret")
        )
        return AuthenticationMiddleware(authenticators: [
            ScopedAuthenticator(
                OAuth1.RequestSigner(signer: signer, now: UnixTime.now),
                for: try AuthScope(url: origin)
            )
        ])
    }

    /// An auto-approving sandbox whose access tokens live `ttl` seconds on `clock`.
    static func sandbox(clock: TestClock, ttl: Int64 = 3600, dpopNonce: Bool = false) -> SandboxConfiguration {
        var configuration = SandboxConfiguration.demo()
        configuration.autoApprove = true
        configuration.accessTokenTTL = ttl
        configuration.dpopNonce = dpopNonce
        configuration.now = { clock.now() }
        return configuration
    }

    @Test(
        "OAuth 1.0a: the form body signed with the header (RFC 5849 §3.4.1.3.1); update, timeline, user",
        arguments: OpenAPITransport.allCases
    )
    func oauth1SignsTheFormBody(_ transport: OpenAPITransport) async throws {
        try await Sandbox.withSandbox { sandbox in
            let hops = Hops()
            try await transport.withClient(
                serverURL: sandbox.baseURL,
                middlewares: [try Self.oauth1(sandbox.baseURL), hops]
            ) { client in
                // Characters the form encoding and RFC 5849 §3.6 encode differently.
                let text = "über & +1 = 100%, via \(transport.rawValue)"
                let status = try await client.updateStatus(body: .urlEncodedForm(.init(status: text))).ok.body.json
                #expect(status.text == text)
                #expect(status.user == Self.alice)
                #expect(status.id == 1)
                #expect(status.idStr == "1")
                let timeline = try await client.getHomeTimeline(query: .init(count: 5)).ok.body.json
                #expect(timeline == [status])
                #expect(try await client.verifyCredentials().ok.body.json == Self.alice)
                #expect(hops.all.map(\.status) == [200, 200, 200])
                #expect(hops.all.allSatisfy { $0.authorization?.hasPrefix("OAuth ") == true })
                #expect(
                    hops.all.map(\.path) == [
                        "/1.1/statuses/update.json", "/1.1/statuses/home_timeline.json?count=5",
                        "/1.1/account/verify_credentials.json",
                    ]
                )
            }
        }
    }

    @Test(
        "Bearer: a short-lived token renewed once before it expires, once on invalid_token, never twice",
        arguments: OpenAPITransport.allCases
    )
    func bearerRefresh(_ transport: OpenAPITransport) async throws {
        let clock = TestClock()
        // 120 s tokens: past 60 s (the session's expiry skew) a token is renewed before use.
        try await Sandbox.withSandbox(Self.sandbox(clock: clock, ttl: 120)) { sandbox in
            try await Flows.withTransport { flowTransport in
                let signedIn = try await Flows.signIn(
                    sandbox.baseURL,
                    scope: ["statuses:read", "statuses:write"],
                    transport: flowTransport,
                    now: { clock.now() }
                )
                let session = signedIn.session
                let hops = Hops()
                try await transport.withClient(
                    serverURL: sandbox.baseURL,
                    middlewares: [AuthenticationMiddleware(session: session), hops]
                ) { client in
                    let posted = try await client.updateStatus(body: .urlEncodedForm(.init(status: "first"))).ok.body
                        .json
                    #expect(posted.user.screenName == "alice")
                    #expect(await session.refreshCount == 0)
                    let firstToken = try #require(hops.all.last?.authorization)
                    #expect(firstToken.hasPrefix("Bearer "))

                    // 70 s later the token has 50 s left, under the skew: renewed before use, no 401.
                    clock.advance(by: 70)
                    let timeline = try await client.getHomeTimeline().ok.body.json
                    #expect(timeline.map(\.text) == ["first"])
                    #expect(await session.refreshCount == 1)
                    #expect(hops.statuses(since: 1) == [200])
                    let secondToken = try #require(hops.all.last?.authorization)
                    #expect(secondToken != firstToken)

                    // The renewed token is used as it is: no second refresh.
                    #expect(try await client.verifyCredentials().ok.body.json == Self.alice)
                    #expect(await session.refreshCount == 1)
                    #expect(hops.all.last?.authorization == secondToken)

                    // Revoked at the server: 401 invalid_token, renewed once, sent again.
                    try await signedIn.flow.revoke(try await session.validTokens().accessToken)
                    let before = hops.count
                    let again = try await client.updateStatus(body: .urlEncodedForm(.init(status: "second"))).ok.body
                        .json
                    #expect(again.text == "second")
                    #expect(hops.statuses(since: before) == [401, 200])
                    #expect(await session.refreshCount == 2)
                }
            }
        }
    }

    @Test(
        "DPoP: the proof covers the operation's URL; the nonce challenge answered once, the nonce kept",
        arguments: OpenAPITransport.allCases
    )
    func dpopNonceChallenge(_ transport: OpenAPITransport) async throws {
        let clock = TestClock()
        try await Sandbox.withSandbox(Self.sandbox(clock: clock, dpopNonce: true)) { sandbox in
            try await Flows.withTransport { flowTransport in
                let prover = try OAuth2.DPoP.Prover(key: .generateP256(), now: { clock.now() })
                let signedIn = try await Flows.signIn(
                    sandbox.baseURL,
                    scope: ["statuses:read", "statuses:write"],
                    transport: flowTransport,
                    now: { clock.now() },
                    prover: prover
                )
                let hops = Hops()
                try await transport.withClient(
                    serverURL: sandbox.baseURL,
                    middlewares: [AuthenticationMiddleware(session: signedIn.session), hops]
                ) { client in
                    let status = try await client.updateStatus(body: .urlEncodedForm(.init(status: "bound"))).ok.body
                        .json
                    #expect(status.text == "bound")
                    #expect(status.user == Self.alice)
                    // The first proof has no nonce of this server's: use_dpop_nonce, then the retry.
                    #expect(hops.all.map(\.status) == [401, 200])
                    // The nonce is kept in the session's prover: the next call goes through at once.
                    #expect(try await client.getHomeTimeline().ok.body.json == [status])
                    #expect(hops.all.map(\.status) == [401, 200, 200])
                    #expect(hops.all.allSatisfy { $0.authorization?.hasPrefix("DPoP ") == true && $0.dpopProof })
                    #expect(await signedIn.session.refreshCount == 0)
                }
            }
        }
    }
}
