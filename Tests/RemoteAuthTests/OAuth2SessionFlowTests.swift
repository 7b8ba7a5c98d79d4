import HTTPTypes
import RemoteAuth
import Testing

/// The stored session refreshed by the protocol's own token request: `TokenSession.restore(…,
/// transport:)` wires `OAuth2.Flow.refresh` in, so an expired token costs one refresh request
/// (RFC 6749 §6, client_secret_basic per §2.3.1) before the Bearer call.
@Suite struct OAuth2SessionFlowTests {
    @Test func expiredTokenIsRefreshedAtTheStoredTokenEndpoint() async throws {
        let store = InMemoryTokenStore()
        try await store.save(
            Fixture.session(Fixture.tokens("old-access", refresh: "r1", expiresAt: 1_000)),
            service: "svc",
            account: "alice"
        )
        let transport = ScriptedTransport([
            { _, _ in
                (
                    HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]),
                    Array(#"{"access_token":"new-access","token_type":"Bearer","expires_in":3600}"#.utf8)
                )
            },
            ScriptedTransport.status(200),
        ])
        let session = try await OAuth2.TokenSession.restore(
            from: store,
            service: "svc",
            account: "alice",
            transport: transport,
            now: { 5_000 }
        )
        let client = AuthenticatingClient(transport: transport, session: session)
        let (response, _) = try await client.get("https://api.example/1.1/statuses/home_timeline.json")
        #expect(response.status == .ok)

        let sent = transport.sent
        #expect(sent.count == 2)
        let refresh = sent[0]
        #expect(refresh.request.method == .post)
        #expect(refresh.request.absoluteURL == "https://as.example/token")
        // RFC 6749 §2.3.1: Basic over the form-urlencoded id and secret.
        #expect(refresh.request.headerFields[.authorization] == "Basic ZGVtby1zZXJ2aWNlOmNsaWVudC1zM2NyZXQ=")
        #expect(String(decoding: refresh.body ?? [], as: UTF8.self) == "grant_type=refresh_token&refresh_token=r1")
        #expect(sent[1].request.headerFields[.authorization] == "Bearer new-access")

        // The rotation was saved, keeping the refresh token the response did not replace (§6).
        let saved = try #require(try await store.oauth2Session(service: "svc", account: "alice"))
        #expect(saved.tokens.accessToken == "new-access")
        #expect(saved.tokens.refreshToken == "r1")
        #expect(saved.tokens.expiresAt == 8_600)
    }

    @Test func nothingStoredMeansSignInAgain() async throws {
        await #expect(throws: OAuth2.Error(.reauthorizationRequired, "")) {
            _ = try await OAuth2.TokenSession.restore(
                from: InMemoryTokenStore(),
                service: "svc",
                account: "nobody",
                transport: ScriptedTransport([]),
                now: { 0 }
            )
        }
    }
}
