import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthPostgres
import RemoteAuthSandbox
import Testing

/// The server the tests use: `POSTGRES_URL` (`postgres://USER@127.0.0.1:PORT/DATABASE`), set by
/// `scripts/interop/postgres_store.sh`, which starts a throwaway PostgreSQL. Without it, as in a
/// plain `swift test`, every test here is skipped; the script fails when none ran.
enum Database {
    static let url = ProcessInfo.processInfo.environment["POSTGRES_URL"]
    static var isConfigured: Bool { url != nil }

    static func configuration() throws -> PostgresClient.Configuration {
        guard let url, let parsed = URLComponents(string: url), let host = parsed.host, let user = parsed.user else {
            throw PostgresStoreError(.database, "POSTGRES_URL is not postgres://USER@HOST:PORT/DATABASE")
        }
        let database = String(parsed.path.drop(while: { $0 == "/" }))
        return PostgresClient.Configuration(
            host: host,
            port: parsed.port ?? 5432,
            username: user,
            password: parsed.password,
            database: database.isEmpty ? nil : database,
            tls: .disable
        )
    }

    /// Runs `body` with `count` clients, each with its own pool (as separate instances of a
    /// backend have), running for the duration.
    static func withClients<T: Sendable>(
        _ count: Int,
        _ body: @Sendable ([PostgresClient]) async throws -> T
    ) async throws -> T {
        let configuration = try configuration()
        let clients = (0..<count).map { _ in
            PostgresClient(
                configuration: configuration,
                backgroundLogger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            )
        }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            for client in clients {
                group.addTask {
                    await client.run()
                    return nil
                }
            }
            defer { group.cancelAll() }
            return try await body(clients)
        }
    }

    /// A table of its own for each test.
    static func table() -> String {
        "sessions_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }
}

/// Every suite that uses the server, one test at a time: `PostgresRestartTests` restarts the
/// server under whatever else runs. Enabled only when `POSTGRES_URL` names a server.
@Suite(.enabled(if: Database.isConfigured, "POSTGRES_URL names no PostgreSQL server"), .serialized)
enum PostgresServer {}

extension PostgresServer {
    @Suite(.timeLimit(.minutes(5)))
    struct PostgresTokenStoreTests {
        static func session(_ access: String, refresh: String = "r", expiresAt: Int64 = 0) -> OAuth2.Session {
            OAuth2.Session(
                tokens: OAuth2.Tokens(
                    accessToken: Secret(access),
                    tokenType: "Bearer",
                    expiresAt: expiresAt,
                    refreshToken: Secret(refresh)
                ),
                tokenEndpoint: "https://as.example/token",
                clientID: "demo-app",
                clientAuthentication: .clientSecretBasic,
                clientSecret: "client-s3cret",
                resourceOrigins: ["https://api.example"]
            )
        }

        /// Saved by one instance, read by another; keys sorted; listeners hear this instance's
        /// changes; a removal; the table created on first use, with its columns.
        @Test func saveReadKeysRemoveAcrossInstances() async throws {
            let table = Database.table()
            try await Database.withClients(2) { clients in
                let one = try PostgresTokenStore(client: clients[0], table: table)
                let two = try PostgresTokenStore(client: clients[1], table: table)
                #expect(try await two.keys() == [])
                var changes = one.changes().makeAsyncIterator()
                try await one.save(Self.session("a1"), service: "api", account: "bob")
                try await one.save(Self.session("b1"), service: "api", account: "alice")
                #expect(try await two.oauth2Session(service: "api", account: "bob") == Self.session("a1"))
                #expect(
                    try await two.oauth2Session(service: "api", account: "alice")?.tokens.accessToken.reveal() == "b1"
                )
                #expect(try await two.session(service: "api", account: "carol") == nil)
                #expect(
                    try await two.keys() == [
                        TokenStoreKey(service: "api", account: "alice"), TokenStoreKey(service: "api", account: "bob"),
                    ]
                )
                #expect(
                    await changes.next()
                        == .saved(TokenStoreKey(service: "api", account: "bob"), .oauth2(Self.session("a1")))
                )
                try await two.removeSession(service: "api", account: "bob")
                #expect(try await one.keys() == [TokenStoreKey(service: "api", account: "alice")])
                let columns = try await clients[0].query(
                    "SELECT column_name::text, data_type::text FROM information_schema.columns WHERE table_name = \(table) ORDER BY ordinal_position"
                )
                var described: [String] = []
                for try await (name, type) in columns.decode((String, String).self) {
                    described.append("\(name) \(type)")
                }
                #expect(
                    described == [
                        "service text", "account text", "session jsonb", "updated_at timestamp with time zone",
                    ]
                )
            }
        }

        @Test func tableNamesArePlainIdentifiers() async throws {
            try await Database.withClients(1) { clients in
                for bad in [
                    "", "Sessions", "1sessions", "sessions; DROP TABLE x", "a.b", String(repeating: "a", count: 64),
                ] {
                    let error = #expect(throws: PostgresStoreError.self) {
                        try PostgresTokenStore(client: clients[0], table: bad)
                    }
                    #expect(error?.code == .invalidTableName)
                }
                #expect(throws: Never.self) { try PostgresTokenStore(client: clients[0], table: "_remote_auth_2") }
            }
        }

        /// Four instances, 10 increments each of a number kept in one session, each holding the lock
        /// across a suspension: never two inside, no increment lost.
        @Test func exclusiveAccessSerializesInstances() async throws {
            let table = Database.table()
            try await Database.withClients(4) { clients in
                let inside = Locked((now: 0, most: 0))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for client in clients {
                        let store = try PostgresTokenStore(client: client, table: table)
                        group.addTask {
                            for _ in 0..<10 {
                                try await store.withExclusiveAccess(service: "api", account: "alice") { session in
                                    inside.withLock {
                                        $0.now += 1
                                        $0.most = max($0.most, $0.now)
                                    }
                                    try await Task.sleep(for: .milliseconds(2))
                                    let count = Int(session?.oauth2?.tokens.accessToken.reveal() ?? "0") ?? 0
                                    session = .oauth2(Self.session(String(count + 1)))
                                    inside.withLock { $0.now -= 1 }
                                }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                #expect(inside.withLock { $0.most } == 1)
                let store = try PostgresTokenStore(client: clients[0], table: table)
                #expect(
                    try await store.oauth2Session(service: "api", account: "alice")?.tokens.accessToken.reveal() == "40"
                )
                // A body that throws writes nothing.
                struct Stop: Error {}
                await #expect(throws: Stop.self) {
                    try await store.withExclusiveAccess(service: "api", account: "alice") { session in
                        session = nil
                        throw Stop()
                    }
                }
                #expect(try await store.keys() == [TokenStoreKey(service: "api", account: "alice")])
            }
        }

        /// An instance that holds the lock longer than another's `lockTimeout`: the other fails with
        /// `lockTimeout` in about that time, and goes through once it is released.
        @Test func lockTimeoutIsATypedError() async throws {
            let table = Database.table()
            try await Database.withClients(2) { clients in
                let holder = try PostgresTokenStore(client: clients[0], table: table)
                let waiter = try PostgresTokenStore(client: clients[1], table: table, lockTimeout: .milliseconds(300))
                try await waiter.prepareTable()
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
                let error = await #expect(throws: PostgresStoreError.self) {
                    try await waiter.save(Self.session("x"), service: "api", account: "alice")
                }
                let elapsed = clock.now - start
                #expect(
                    error?.code == .lockTimeout,
                    "\(String(describing: error)) \(error?.underlying.map { String(reflecting: $0) } ?? "")"
                )
                // It waited out the timeout; the holder never lets go, so only the timeout can have
                // ended the wait (no upper bound: a loaded machine may resume this task late).
                #expect(elapsed >= .milliseconds(300), "\(elapsed)")
                // Another key is not held up.
                try await waiter.save(Self.session("y"), service: "api", account: "bob")
                while release.withLock({ $0 == nil }) { try await Task.sleep(for: .milliseconds(5)) }
                release.withLock { $0?.resume() }
                try await holderTask.value
                try await waiter.save(Self.session("x"), service: "api", account: "alice")
                #expect(
                    try await holder.oauth2Session(service: "api", account: "alice")?.tokens.accessToken.reveal() == "x"
                )
            }
        }

        /// No secret in an error, and the session is a bound value: a table whose session is not
        /// JSON of ours is `corruptSession`, naming the key only.
        @Test func corruptSessionNamesTheKeyOnly() async throws {
            let table = Database.table()
            try await Database.withClients(1) { clients in
                let store = try PostgresTokenStore(client: clients[0], table: table)
                try await store.save(Self.session("a1"), service: "api", account: "alice")
                try await clients[0].query(
                    "UPDATE \(unescaped: table) SET session = '{\"kind\": \"oauth3\", \"token\": \"s3cret\"}'::jsonb"
                )
                let error = await #expect(throws: PostgresStoreError.self) {
                    try await store.session(service: "api", account: "alice")
                }
                #expect(error?.code == .corruptSession)
                #expect(
                    error?.description
                        == "PostgresStoreError.corruptSession: the session api/alice in \(table) is not a stored session"
                )
            }
        }

        /// N instances of a backend (each its own PostgresClient pool, store and token session) × 50
        /// concurrent requests, in 3 rounds each started once the sandbox's 1-second access token has
        /// expired: every request succeeds, no refresh token is refused (the sandbox revokes the
        /// family on reuse), and one refresh per expiry: at least one per round, at most one per
        /// second boundary the rounds crossed.
        @Test(arguments: [4]) func instancesRefreshOncePerExpiryAgainstTheSandbox(_ instances: Int) async throws {
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
                    try await Database.withClients(instances) { clients in
                        try await PostgresTokenStore(client: clients[0], table: table).save(
                            signedIn,
                            service: "sandbox",
                            account: "alice"
                        )
                        let (sessions, apiClients) = try await Faults.instances(
                            clients,
                            table: table,
                            transport: transport,
                            now: now
                        )
                        let signInTokens = log.withLock { $0.filter { $0 == "POST /oauth2/token 200" }.count }
                        let rounds = 3
                        var seconds = Set<Int64>()
                        var durations: [Double] = []
                        for _ in 0..<rounds {
                            let wait = floor(Date().timeIntervalSince1970) + 1.05 - Date().timeIntervalSince1970
                            try await Task.sleep(for: .milliseconds(Int(wait * 1_000)))
                            let start = Date().timeIntervalSince1970
                            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                                for api in apiClients {
                                    for _ in 0..<50 { group.addTask { try await api.get(url).0.status.code } }
                                }
                                return try await group.reduce(into: [Int]()) { $0.append($1) }
                            }
                            let end = Date().timeIntervalSince1970
                            durations.append(end - start)
                            for second in Int64(floor(start))...Int64(floor(end)) { seconds.insert(second) }
                            #expect(statuses == Array(repeating: 200, count: instances * 50))
                        }
                        var refreshCounts: [Int] = []
                        for session in sessions { refreshCounts.append(await session.refreshCount) }
                        let refreshes = refreshCounts.reduce(0, +)
                        let entries = log.withLock { $0 }
                        #expect(entries.filter { $0 == "POST /oauth2/token 200" }.count - signInTokens == refreshes)
                        #expect(entries.filter { $0.hasPrefix("POST /oauth2/token 4") } == [])
                        #expect(
                            refreshes >= rounds && refreshes <= seconds.count,
                            "\(refreshes) for \(seconds.count) seconds"
                        )
                        // What every instance holds is the table's last rotation, or an older token that
                        // it replaces from the table at its next request once that token has expired: an
                        // instance whose requests of the last round all ended before the token it
                        // adopted expired never saw the rotation that followed. One instance at a time,
                        // so the check does not depend on how the requests interleaved.
                        let store = try PostgresTokenStore(client: clients[0], table: table)
                        var stale = 0
                        for (index, session) in sessions.enumerated() {
                            let held = await session.session.tokens
                            let stored = try await store.oauth2Session(service: "sandbox", account: "alice")?.tokens
                            guard held != stored else { continue }
                            stale += 1
                            let expiresAt = try #require(held.expiresAt)
                            let wait = Double(expiresAt) + 0.05 - Date().timeIntervalSince1970
                            if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1_000))) }
                            #expect(try await apiClients[index].get(url).0.status.code == 200)
                            let after = try await store.oauth2Session(service: "sandbox", account: "alice")?.tokens
                            #expect(await session.session.tokens == after, "instance \(index)")
                        }
                        #expect(log.withLock { $0.filter { $0.hasPrefix("POST /oauth2/token 4") } } == [])
                        let retried = entries.filter { $0.hasPrefix("GET /1.1/account/verify_credentials.json 401") }
                            .count
                        print(
                            "postgres-store: \(instances) instances x 50 requests, \(rounds) rounds: \(refreshes) refreshes (per instance \(refreshCounts)) for \(seconds.count) second boundaries, \(retried) requests retried after invalid_token, rounds took \(durations.map { String(format: "%.2f s", $0) }.joined(separator: ", ")); \(stale) instances held an expired older token and took the table's at their next request"
                        )
                    }
                }
            }
        }
    }
}
