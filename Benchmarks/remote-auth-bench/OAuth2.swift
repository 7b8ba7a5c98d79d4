import HTTPTypes
import RemoteAuth
import Synchronization

/// OAuth 2 token sessions:
/// - `oauth2-refreshes-per-100-concurrent`: 100 concurrent requests through
///   `AuthenticatingClient` with an expired access token, over a transport that answers at once;
///   the refresher takes 2 ms, so the requests really overlap (target 1: single flight).
func oauth2Benchmarks() async throws {
    guard wanted("oauth2") else { return }
    let refreshes = Atomic<Int>(0)
    let bearer = try await bearerCredentials(origin: "https://api.example", expiresAt: 0) { tokens in
        refreshes.add(1, ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(2))
        var renewed = tokens
        renewed.accessToken = "renewed-access-token"
        renewed.expiresAt = Int64.max / 2
        return renewed
    }
    let client = AuthenticatingClient(transport: InstantTransport(), authenticators: bearer.authenticators)
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<100 {
            group.addTask {
                let (response, _) = try await client.get("https://api.example/resource")
                guard response.status == .ok else { fatalError("request refused: \(response.status)") }
            }
        }
        try await group.waitForAll()
    }
    print("oauth2-refreshes-per-100-concurrent: \(refreshes.load(ordering: .relaxed)) (target 1)")
}

/// The authenticators of an OAuth 2 token session for `origin`, its access token expiring
/// at `expiresAt` (seconds since 1970; the clock says 1000), refreshed by `refresher`.
func bearerCredentials(
    origin: String,
    expiresAt: Int64,
    refresher: @escaping OAuth2.TokenSession.Refresher = { $0 }
) async throws -> (authenticators: [ScopedAuthenticator], session: OAuth2.TokenSession) {
    let session = OAuth2.Session(
        tokens: OAuth2.Tokens(
            accessToken: "bench-access-token",
            tokenType: "Bearer",
            expiresAt: expiresAt,
            refreshToken: "bench-refresh-token"
        ),
        issuer: origin,
        tokenEndpoint: origin + "/oauth2/token",
        clientID: "bench",
        clientAuthentication: .none,
        resourceOrigins: [origin]
    )
    let tokenSession = try OAuth2.TokenSession(
        session: session,
        store: InMemoryTokenStore(),
        service: "bench",
        account: "bench",
        now: { 1_000 },
        refresher: refresher
    )
    return (tokenSession.authenticators(allowingPlainHTTP: true), tokenSession)
}
