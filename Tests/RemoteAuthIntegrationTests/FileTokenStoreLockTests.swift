import Foundation
import RemoteAuth
import RemoteAuthFileStore
import Testing

/// The file store's lock (`flock` on `PATH.lock`): two store objects on one file exclude each
/// other as two processes do, a holder that keeps it too long makes the others fail in time,
/// and token sessions on separate store objects refresh once.
@Suite(.timeLimit(.minutes(5))) struct FileTokenStoreLockTests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("remote-auth-lock-\(UUID().uuidString)")
    }

    static func session(_ access: String, refresh: String, expiresAt: Int64) -> OAuth2.Session {
        OAuth2.Session(
            tokens: OAuth2.Tokens(
                accessToken: Secret(access),
                tokenType: "Bearer",
                expiresAt: expiresAt,
                refreshToken: Secret(refresh)
            ),
            tokenEndpoint: "https://as.example/token",
            clientID: "demo-app",
            resourceOrigins: ["https://api.example"]
        )
    }

    /// Four store objects on one file (four processes), 25 increments each, every one holding the
    /// lock across a suspension: never two inside, no increment lost; the lock file is 0600.
    @Test func storesOnOneFileExcludeEachOther() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("tokens.json").path
        // The lock is not fair (flock, polled): on a loaded machine one store can wait through
        // many others' turns. What is checked here is exclusion, not waiting time, so the stores
        // wait as long as the suite's time limit allows (lockTimeoutIsATypedError checks the
        // timeout).
        let stores = try (0..<4).map { _ in try FileTokenStore(path: path, lockTimeout: .seconds(600)) }
        let inside = Locked((now: 0, most: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in stores {
                group.addTask {
                    for _ in 0..<25 {
                        try await store.withExclusiveAccess(service: "api", account: "alice") { session in
                            inside.withLock {
                                $0.now += 1
                                $0.most = max($0.most, $0.now)
                            }
                            try await Task.sleep(for: .milliseconds(1))
                            let count = Int(session?.oauth2?.tokens.accessToken.reveal() ?? "0") ?? 0
                            session = .oauth2(Self.session(String(count + 1), refresh: "r", expiresAt: 0))
                            inside.withLock { $0.now -= 1 }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(inside.withLock { $0.most } == 1)
        let reopened = try FileTokenStore(path: path)
        #expect(await reopened.session(service: "api", account: "alice")?.oauth2?.tokens.accessToken.reveal() == "100")
        let attributes = try FileManager.default.attributesOfItem(atPath: path + ".lock")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    /// A holder that keeps the lock longer than another store's `lockTimeout`: that store's
    /// save and exclusive access fail with `lockTimeout`, within about the timeout; once the
    /// holder is done, saves go through.
    @Test func lockTimeoutIsATypedError() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("tokens.json").path
        let holder = try FileTokenStore(path: path)
        let waiter = try FileTokenStore(path: path, lockTimeout: .milliseconds(300))
        let (held, holding) = AsyncStream.makeStream(of: Void.self)
        let release = Locked<CheckedContinuation<Void, Never>?>(nil)
        let holderTask = Task {
            try await holder.withExclusiveAccess(service: "api", account: "alice") { _ in
                holding.yield()
                await withCheckedContinuation { continuation in release.withLock { $0 = continuation } }
            }
        }
        var iterator = held.makeAsyncIterator()
        _ = await iterator.next()
        let clock = ContinuousClock()
        let start = clock.now
        let saveError = await #expect(throws: FileStoreError.self) {
            try await waiter.save(
                .oauth2(Self.session("a", refresh: "r", expiresAt: 0)),
                service: "api",
                account: "bob"
            )
        }
        #expect(saveError?.code == .lockTimeout)
        #expect(saveError?.path == path + ".lock")
        let elapsed = clock.now - start
        // It waited out the timeout; the holder never lets go, so only the timeout can have
        // ended the wait (no upper bound: a loaded machine may resume this task late).
        #expect(elapsed >= .milliseconds(300), "\(elapsed)")
        let accessError = await #expect(throws: FileStoreError.self) {
            try await waiter.withExclusiveAccess(service: "api", account: "alice") { _ in }
        }
        #expect(accessError?.code == .lockTimeout)
        #expect(accessError?.description.contains("longer than") == true)
        while release.withLock({ $0 == nil }) { try await Task.sleep(for: .milliseconds(5)) }
        release.withLock { $0?.resume() }
        try await holderTask.value
        try await waiter.save(.oauth2(Self.session("a", refresh: "r", expiresAt: 0)), service: "api", account: "bob")
        #expect(await waiter.keys() == [TokenStoreKey(service: "api", account: "bob")])
    }

    /// Two token sessions, each on its own store object (two processes), an expired token, 50
    /// callers each: one refresh; the second session adopts the saved rotation.
    @Test func sessionsOnSeparateStoresRefreshOnce() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("tokens.json").path
        try await FileTokenStore(path: path).save(
            .oauth2(Self.session("a1", refresh: "r1", expiresAt: 900)),
            service: "api",
            account: "alice"
        )
        let calls = Locked<[String]>([])
        let refresher: OAuth2.TokenSession.Refresher = { tokens in
            try await Task.sleep(for: .milliseconds(30))
            let generation = calls.withLock { calls in
                calls.append(tokens.refreshToken?.reveal() ?? "-")
                return calls.count + 1
            }
            return OAuth2.Tokens(
                accessToken: Secret("a\(generation)"),
                tokenType: "Bearer",
                expiresAt: 4_600,
                refreshToken: Secret("r\(generation)")
            )
        }
        var sessions: [OAuth2.TokenSession] = []
        for _ in 0..<2 {
            sessions.append(
                try await OAuth2.TokenSession.restore(
                    from: try FileTokenStore(path: path),
                    service: "api",
                    account: "alice",
                    now: { 1_000 },
                    refresher: refresher
                )
            )
        }
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for session in sessions {
                for _ in 0..<50 { group.addTask { try await session.validTokens().accessToken.reveal() } }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens == Array(repeating: "a2", count: 100))
        #expect(calls.withLock { $0 } == ["r1"])
        let saved = try await FileTokenStore(path: path).session(service: "api", account: "alice")
        #expect(saved?.oauth2?.tokens.refreshToken?.reveal() == "r2")
    }
}

