import Foundation
import RemoteAuth
import RemoteAuthFileStore
import Testing

/// Two processes share one tokens.json: each has its own ``FileTokenStore`` and
/// ``OAuth2/TokenSession``. The server rotates refresh tokens and refuses a rotated one.
@Suite(.timeLimit(.minutes(5))) struct OAuth2SessionFileTests {
    /// A token endpoint that rotates: each refresh token works once.
    final class RotatingServer: Sendable {
        private let state = Locked((current: "r1", generation: 1, refreshes: 0))
        var refreshes: Int { state.withLock { $0.refreshes } }

        func refresh(_ tokens: OAuth2.Tokens) throws -> OAuth2.Tokens {
            try state.withLock { state in
                state.refreshes += 1
                guard let presented = tokens.refreshToken, presented == Secret(state.current) else {
                    throw OAuth2.Error(
                        .serverRefused,
                        "the token endpoint refused the grant",
                        serverError: OAuth2.ErrorResponse(code: .invalidGrant),
                        status: 400
                    )
                }
                state.generation += 1
                state.current = "r\(state.generation)"
                return OAuth2.Tokens(
                    accessToken: Secret("a\(state.generation)"),
                    tokenType: "Bearer",
                    expiresAt: 10_000,
                    refreshToken: Secret(state.current)
                )
            }
        }
    }

    /// Process A refreshes (r1 → r2, saved); process B still holds r1, but refreshes holding the
    /// file's lock, finds A's rotation there and adopts it: the server sees r1 once.
    @Test func siblingRotationThroughTheFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("remote-auth-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.path + "/tokens.json"
        let server = RotatingServer()
        let signedIn = OAuth2.Session(
            tokens: OAuth2.Tokens(accessToken: "a1", tokenType: "Bearer", expiresAt: 900, refreshToken: "r1"),
            tokenEndpoint: "https://as.example/token",
            clientID: "demo-app",
            resourceOrigins: ["https://api.example"]
        )
        try await FileTokenStore(path: path).save(signedIn, service: "api", account: "alice")

        func process() async throws -> OAuth2.TokenSession {
            try await OAuth2.TokenSession.restore(
                from: try FileTokenStore(path: path),
                service: "api",
                account: "alice",
                now: { 1_000 },
                refresher: { try server.refresh($0) }
            )
        }
        let a = try await process()
        let b = try await process()
        #expect(try await a.validTokens().accessToken == "a2")
        #expect(try await b.validTokens().accessToken == "a2")
        #expect(server.refreshes == 1)
        #expect(
            try await FileTokenStore(path: path).oauth2Session(service: "api", account: "alice")?.tokens.refreshToken
                == "r2"
        )

        // B then refreshes on a 401 (r2 → r3); A, still on a2/r2, is refused too, and adopts a3
        // from the file instead of spending r2 again.
        #expect(try await b.tokenRejected("a2").accessToken == "a3")
        #expect(try await a.tokenRejected("a2").accessToken == "a3")
        #expect(server.refreshes == 2)

        // A family whose refresh token nobody holds any more: re-authorization required.
        try await FileTokenStore(path: path).save(signedIn, service: "api", account: "alice")
        let c = try await process()
        let error = await #expect(throws: OAuth2.Error.self) { try await c.validTokens() }
        #expect(error?.code == .reauthorizationRequired)
        #expect(!"\(error!)".contains("r1"))
    }
}
