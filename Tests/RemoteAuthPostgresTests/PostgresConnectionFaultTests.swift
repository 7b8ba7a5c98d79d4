import Foundation
import PostgresNIO
import RemoteAuth
import RemoteAuthPostgres
import Testing

extension PostgresServer {
    /// Faults in the store's connection (issue 24): the backend serving a transaction is terminated
    /// while the store holds the session's lock.
    @Suite(.timeLimit(.minutes(5)))
    struct PostgresConnectionFaultTests {
        /// An instance inside `withExclusiveAccess` (its body has set a new session and is
        /// suspended) loses its connection: another connection runs `pg_terminate_backend` on the
        /// backend holding the session's advisory lock. The lock is released with the connection
        /// (another instance gets exclusive access within its own `lockTimeout`, while the first
        /// body is still suspended), the in-flight call ends with `PostgresStoreError.database`
        /// naming the lost connection, the row is still the previous session (no half-write), and
        /// the same store object works on its very next call (the pool connects again).
        @Test func connectionDroppedMidTransaction() async throws {
            let table = Database.table()
            try await Database.withClients(2) { clients in
                let holder = try PostgresTokenStore(client: clients[0], table: table)
                // Any finite timeout tells a released lock from one held until the body returns:
                // the holder's body never returns before the other instance is through.
                let other = try PostgresTokenStore(client: clients[1], table: table, lockTimeout: .seconds(20))
                let before = PostgresTokenStoreTests.session("a1", refresh: "r1")
                try await holder.save(before, service: "api", account: "alice")

                let (held, holding) = AsyncStream.makeStream(of: Void.self)
                let release = Locked<CheckedContinuation<Void, Never>?>(nil)
                let holderTask = Task {
                    try await holder.withExclusiveAccess(service: "api", account: "alice") { session in
                        session = .oauth2(PostgresTokenStoreTests.session("a2", refresh: "r2"))
                        await withCheckedContinuation { continuation in
                            release.withLock { $0 = continuation }
                            holding.yield()
                        }
                    }
                }
                var iterator = held.makeAsyncIterator()
                _ = await iterator.next()

                let pids = try await Faults.backends(
                    granted: true,
                    table: table,
                    service: "api",
                    account: "alice",
                    on: clients[1]
                )
                #expect(pids.count == 1, "\(pids)")
                for pid in pids {
                    let rows = try await clients[1].query("SELECT pg_terminate_backend(\(pid))")
                    for try await terminated in rows.decode(Bool.self) { #expect(terminated) }
                }

                // The lock went with the connection: the holder's body is still suspended.
                let seen = try await other.withExclusiveAccess(service: "api", account: "alice") { $0 }
                #expect(seen == .oauth2(before))

                release.withLock { $0?.resume() }
                let error = await #expect(throws: PostgresStoreError.self) { try await holderTask.value }
                #expect(error?.code == .database)
                #expect(
                    error?.description
                        == "PostgresStoreError.database: cannot change the session api/alice: the connection to the server was lost",
                    "\(error.map { String(reflecting: $0.underlying as Any) } ?? "")"
                )
                #expect(try await other.session(service: "api", account: "alice") == .oauth2(before))

                // The same store object, its next call: a new connection from its pool.
                let after = PostgresTokenStoreTests.session("a3", refresh: "r3")
                try await holder.save(after, service: "api", account: "alice")
                #expect(try await holder.session(service: "api", account: "alice") == .oauth2(after))
                #expect(try await other.session(service: "api", account: "alice") == .oauth2(after))
            }
        }
    }
}
