import Foundation
import PostgresNIO
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthPostgres
import RemoteAuthSandbox
import Testing

extension PostgresServer {
    /// The PostgreSQL server restarted while instances refresh (issue 24). The restart is the
    /// command `POSTGRES_RESTART` names, which `scripts/interop/postgres_store.sh` sets with
    /// `POSTGRES_URL`; with `POSTGRES_URL` and without it the test fails.
    @Suite(.timeLimit(.minutes(5)))
    struct PostgresRestartTests {
        /// What one request ended with.
        enum Outcome: Hashable, Sendable {
            case status(Int)
            case storeError(PostgresStoreError.Code)
            case other(String)
        }

        static func request(_ api: AuthenticatingClient, _ url: String) async -> Outcome {
            do {
                return .status(try await api.get(url).0.status.code)
            } catch let error as PostgresStoreError {
                return .storeError(error.code)
            } catch {
                return .other(String(reflecting: error))
            }
        }

        /// `count` concurrent requests through each client: each client's outcomes.
        static func round(_ apis: [AuthenticatingClient], _ url: String, count: Int) async -> [[Outcome]] {
            await withTaskGroup(of: (Int, Outcome).self) { group in
                for (index, api) in apis.enumerated() {
                    for _ in 0..<count { group.addTask { (index, await request(api, url)) } }
                }
                var outcomes = Array(repeating: [Outcome](), count: apis.count)
                for await (index, outcome) in group { outcomes[index].append(outcome) }
                return outcomes
            }
        }

        static func allSucceeded(_ outcomes: [[Outcome]]) -> Bool {
            outcomes.allSatisfy { $0.allSatisfy { $0 == .status(200) } }
        }

        /// Until the next whole second and 50 ms past it: the sandbox's 1-second tokens are issued
        /// and expire on whole seconds.
        static func sleepPastExpiry(of expiresAt: Int64?) async throws {
            let target = Double(expiresAt ?? Int64(floor(Date().timeIntervalSince1970)) + 1) + 0.05
            let wait = target - Date().timeIntervalSince1970
            if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1_000))) }
        }

        /// N instances (each its own PostgresClient pool, store and token session) of one signed-in
        /// sandbox session with 1-second rotating tokens. After a round of requests, a fifth client
        /// holds the session's lock; the token expires and every instance's refresh queues behind
        /// that lock (seen in `pg_locks`), each with 10 requests waiting on it; then the server
        /// restarts (`POSTGRES_RESTART`, run as a process the test awaits). No refresh reached
        /// the sandbox while the lock was held; each instance's refresh in flight fails with
        /// `PostgresStoreError.database`, and so do the requests waiting on it (counted: every
        /// request is that error or a `200`, a request that started a refresh of its own after
        /// the restart; nothing else), and after the restart
        /// every instance recovers on its next requests (two rounds, every request `200`): one
        /// refresh per expiry, no refresh token refused (a replayed one revokes the family), and
        /// every instance holds the table's newest token, or an expired older one that it replaces
        /// from the table at its next request (never a stale token saved over a newer one).
        @Test(arguments: [4]) func serverRestartedWhileInstancesRefresh(_ instances: Int) async throws {
            _ = try #require(
                Faults.restartCommand,
                "POSTGRES_RESTART is not set: scripts/interop/postgres_store.sh sets it with POSTGRES_URL"
            )
            let table = Database.table()
            let log = Locked<[String]>([])
            var configuration = SandboxConfiguration.demo()
            configuration.autoApprove = true
            configuration.accessTokenTTL = 1
            configuration.requestLog = { entry in log.withLock { $0.append(entry.description) } }
            try await Sandbox.withSandbox(configuration) { sandbox in
                try await AsyncHTTPClientTransport.withTransport { transport in
                    let now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
                    let signedIn = try await Faults.signIn(to: sandbox, transport: transport, now: now)
                    let url = sandbox.baseURL + "/1.1/account/verify_credentials.json"
                    try await Database.withClients(instances + 1) { clients in
                        let blocker = try PostgresTokenStore(client: clients[instances], table: table)
                        try await blocker.save(signedIn, service: "sandbox", account: "alice")
                        let (sessions, apis) = try await Faults.instances(
                            Array(clients.prefix(instances)),
                            table: table,
                            transport: transport,
                            now: now
                        )
                        let tokenAnswers = { log.withLock { $0.filter { $0.hasPrefix("POST /oauth2/token ") } } }

                        // A round before the fault: every request succeeds.
                        try await Self.sleepPastExpiry(of: signedIn.tokens.expiresAt)
                        let first = await Self.round(apis, url, count: 20)
                        #expect(Self.allSucceeded(first), "\(first)")

                        // The lock held elsewhere, the token expired, every instance's refresh waiting.
                        let (held, holding) = AsyncStream.makeStream(of: Void.self)
                        let release = Locked<CheckedContinuation<Void, Never>?>(nil)
                        let blocking = Task {
                            try await blocker.withExclusiveAccess(service: "sandbox", account: "alice") { _ in
                                await withCheckedContinuation { continuation in
                                    release.withLock { $0 = continuation }
                                    holding.yield()
                                }
                            }
                        }
                        var iterator = held.makeAsyncIterator()
                        _ = await iterator.next()
                        let stored = try await blocker.oauth2Session(service: "sandbox", account: "alice")
                        try await Self.sleepPastExpiry(of: stored?.tokens.expiresAt)
                        let answersBefore = tokenAnswers()
                        let waiting = Task { [apis] in await Self.round(apis, url, count: 10) }
                        while try await Faults.backends(
                            granted: false,
                            table: table,
                            service: "sandbox",
                            account: "alice",
                            on: clients[instances]
                        ).count < instances {
                            try await Task.sleep(for: .milliseconds(20))
                        }

                        #expect(
                            tokenAnswers() == answersBefore,
                            "no refresh reached the sandbox while the lock was held"
                        )

                        try await Faults.restartServer()

                        // Each instance's refresh in flight failed, and the requests waiting on it
                        // with it; a request that started its own refresh after the restart may have
                        // succeeded. Nothing else.
                        let outcomes = await waiting.value
                        let counts = Dictionary(grouping: outcomes.joined(), by: { $0 }).mapValues(\.count)
                        for (index, outcome) in outcomes.enumerated() {
                            #expect(outcome.contains(.storeError(.database)), "instance \(index): \(outcome)")
                            #expect(
                                outcome.allSatisfy { $0 == .storeError(.database) || $0 == .status(200) },
                                "instance \(index): \(outcome)"
                            )
                        }
                        let failed = counts[.storeError(.database), default: 0]
                        let succeeded = counts[.status(200), default: 0]
                        release.withLock { $0?.resume() }
                        let blockerError = await #expect(throws: PostgresStoreError.self) { try await blocking.value }
                        #expect(blockerError?.code == .database)

                        // Recovery: the next requests of every instance succeed, this expiry and the next.
                        let recovery = await Self.round(apis, url, count: 50)
                        try await Self.sleepPastExpiry(of: nil)
                        let next = await Self.round(apis, url, count: 50)
                        #expect(Self.allSucceeded(recovery), "\(recovery)")
                        #expect(Self.allSucceeded(next), "\(next)")
                        let answers = tokenAnswers()
                        #expect(answers.filter { !$0.hasSuffix(" 200") } == [], "a refresh token refused: \(answers)")
                        let refreshesAfter = answers.count - answersBefore.count
                        #expect(refreshesAfter >= 2, "\(refreshesAfter) refreshes after the restart")

                        // What every instance holds is the table's newest token, or an expired older
                        // one it replaces from the table at its next request.
                        var stale = 0
                        for (index, session) in sessions.enumerated() {
                            let held = await session.session.tokens
                            let newest = try await blocker.oauth2Session(service: "sandbox", account: "alice")?.tokens
                            guard held != newest else { continue }
                            stale += 1
                            try await Self.sleepPastExpiry(of: held.expiresAt)
                            #expect(await Self.request(apis[index], url) == .status(200))
                            let after = try await blocker.oauth2Session(service: "sandbox", account: "alice")?.tokens
                            #expect(await session.session.tokens == after, "instance \(index)")
                        }
                        #expect(log.withLock { $0.filter { $0.hasPrefix("POST /oauth2/token 4") } } == [])
                        print(
                            "postgres-store: restart with \(instances) instances x 10 requests waiting on the lock: \(failed) failed with PostgresStoreError.database, \(succeeded) succeeded (a refresh of their own after the restart), \(instances * 10 - failed - succeeded) otherwise; after it \(instances * 100) requests succeeded with \(refreshesAfter) refreshes and no refresh token refused; \(stale) instances held an expired older token and took the table's at their next request"
                        )
                    }
                }
            }
        }
    }
}
