import Foundation
public import Logging
public import PostgresNIO
public import RemoteAuth

/// A `TokenStore` in a PostgreSQL table, shared by every instance of a backend:
/// the database such deployments already run coordinates their refreshes, with no service of
/// our own.
///
/// Sessions are rows of `(service, account, session jsonb, updated_at)`, the table created if
/// missing. Every change, and every refresh an `OAuth2.TokenSession` makes through
/// ``withExclusiveAccess(service:account:_:)``, runs in a transaction that first takes a
/// transaction-level advisory lock on the session's key (`pg_advisory_xact_lock`, which works
/// for a row that does not exist yet, unlike `SELECT … FOR UPDATE`): N instances refreshing one
/// session queue up on it, the first refreshes and commits, the others read the rotated tokens
/// and use them. The commit comes before the new token is handed out, so it is visible to every
/// instance before anyone uses it. PostgreSQL releases the lock when the transaction ends or the
/// connection drops.
///
/// ```swift
/// let client = PostgresClient(configuration: .init(host: "db", username: "app", password: password,
///                                                  database: "app", tls: .require(.makeClientConfiguration())))
/// async let running: Void = client.run()
/// let store = try PostgresTokenStore(client: client)
/// let session = try await OAuth2.TokenSession.restore(from: store, service: "github", account: "alice",
///                                                      transport: transport, now: now)
/// ```
///
/// The session JSON (tokens and client secret) is always a bound parameter, never part of the
/// SQL text that postgres-nio may log, and the store's own errors never quote it. Secrets are in
/// clear text in the table, as in `FileTokenStore`'s file: grant the table to the application's
/// role only.
public final class PostgresTokenStore: CoordinatedTokenStore {
    /// The client the store runs its statements on; the caller runs it (`client.run()`).
    public let client: PostgresClient
    /// The table, a plain lowercase identifier.
    public let table: String
    /// How long a change waits for the lock another instance holds (its refresh included).
    public let lockTimeout: Duration
    private let logger: Logger
    private let listeners = TokenStoreListeners()
    /// Whether this object has made sure the table exists.
    private let tableReady = Locked(false)

    /// - Parameters:
    ///   - client: a running `PostgresClient` (see postgres-nio's `PostgresClient.Configuration`
    ///     for the host, credentials and TLS).
    ///   - table: created on first use if missing; `remote_auth_sessions` by default.
    ///   - lockTimeout: how long a save, removal or refresh waits for another instance's lock
    ///     before failing with ``PostgresStoreError/Code-swift.struct/lockTimeout``.
    ///   - logger: handed to postgres-nio for the store's statements (it logs no bound value);
    ///     none by default.
    /// - Throws: ``PostgresStoreError/Code-swift.struct/invalidTableName``.
    public init(
        client: PostgresClient,
        table: String = "remote_auth_sessions",
        lockTimeout: Duration = .seconds(30),
        logger: Logger = Logger(label: "RemoteAuthPostgres", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws {
        guard Self.isPlainIdentifier(table) else {
            throw PostgresStoreError(
                .invalidTableName,
                "'\(table)' is not a plain lowercase SQL identifier ([a-z_][a-z0-9_]*, at most 63 bytes)"
            )
        }
        self.client = client
        self.table = table
        self.lockTimeout = lockTimeout
        self.logger = logger
    }

    // MARK: TokenStore

    public func session(service: String, account: String) async throws -> StoredSession? {
        try await prepareTable()
        return try await run("read the session") {
            try await client.withConnection { connection in
                try await self.read(service: service, account: account, on: connection)
            }
        }
    }

    public func save(_ session: StoredSession, service: String, account: String) async throws {
        try await withExclusiveAccess(service: service, account: account) { $0 = session }
    }

    public func removeSession(service: String, account: String) async throws {
        try await withExclusiveAccess(service: service, account: account) { $0 = nil }
    }

    /// Every stored key, sorted by service then account.
    public func keys() async throws -> [TokenStoreKey] {
        try await prepareTable()
        return try await run("list the sessions") {
            let rows = try await client.query("SELECT service, account FROM \(unescaped: table)", logger: logger)
            var keys: [TokenStoreKey] = []
            for try await (service, account) in rows.decode((String, String).self) {
                keys.append(TokenStoreKey(service: service, account: account))
            }
            return keys.sorted()
        }
    }

    /// The saves and removals made through this store object; another instance's changes are
    /// seen by reading.
    public func changes() -> AsyncStream<TokenStoreChange> { listeners.stream() }

    // MARK: CoordinatedTokenStore

    /// Runs `body` in a transaction holding the session key's advisory lock, and writes what it
    /// left in `session` before committing.
    ///
    /// - Throws: ``PostgresStoreError`` (`lockTimeout` when another instance holds the lock
    ///   longer than ``lockTimeout``, `database`, `corruptSession`); `body`'s error, as is, with
    ///   the transaction rolled back.
    public func withExclusiveAccess<Result: Sendable>(
        service: String,
        account: String,
        _ body: @Sendable (_ session: inout StoredSession?) async throws -> Result
    ) async throws -> Result {
        try await prepareTable()
        let key = TokenStoreKey(service: service, account: account)
        let (result, change) = try await run("change the session \(key)") {
            try await client.withConnection { connection in
                try await self.inTransaction(on: connection) {
                    try await self.lock(key, on: connection)
                    let current = try await self.read(service: service, account: account, on: connection)
                    var session = current
                    let result = try await body(&session)
                    guard session != current else { return (result, TokenStoreChange?.none) }
                    if let session {
                        try await self.write(session, key: key, on: connection)
                        return (result, TokenStoreChange.saved(key, session))
                    }
                    try await self.execute(
                        "DELETE FROM \(unescaped: self.table) WHERE service = \(service) AND account = \(account)",
                        on: connection
                    )
                    return (result, TokenStoreChange.removed(key))
                }
            }
        }
        if let change { listeners.yield(change) }
        return result
    }

    // MARK: Statements

    /// Creates the table if it is missing, once per store object (under an advisory lock, so
    /// that instances starting together do not race on the catalog).
    public func prepareTable() async throws {
        if tableReady.withLock({ $0 }) { return }
        try await run("create the table \(table)") {
            try await client.withConnection { connection in
                try await self.inTransaction(on: connection) {
                    try await self.execute(
                        "SELECT pg_advisory_xact_lock(hashtextextended(\("remote-auth-table\u{1F}" + self.table), 0))",
                        on: connection
                    )
                    try await self.execute(
                        """
                        CREATE TABLE IF NOT EXISTS \(unescaped: self.table) (
                            service text NOT NULL,
                            account text NOT NULL,
                            session jsonb NOT NULL,
                            updated_at timestamptz NOT NULL DEFAULT now(),
                            PRIMARY KEY (service, account)
                        )
                        """,
                        on: connection
                    )
                }
            }
        }
        tableReady.withLock { $0 = true }
    }

    /// Takes the key's transaction-level advisory lock, waiting at most ``lockTimeout``.
    private func lock(_ key: TokenStoreKey, on connection: PostgresConnection) async throws {
        let milliseconds = max(1, Int((lockTimeout / .milliseconds(1)).rounded(.up)))
        try await execute("SET LOCAL lock_timeout = \(unescaped: String(milliseconds))", on: connection)
        let name = table + "\u{1F}" + key.service + "\u{1F}" + key.account
        try await execute("SELECT pg_advisory_xact_lock(hashtextextended(\(name), 0))", on: connection)
    }

    private func read(
        service: String,
        account: String,
        on connection: PostgresConnection
    ) async throws -> StoredSession? {
        try Self.checkOpen(connection)
        let rows = try await connection.query(
            "SELECT session::text FROM \(unescaped: table) WHERE service = \(service) AND account = \(account)",
            logger: logger
        )
        // Read to the end (one row at most: the key is the primary key).
        var found: String? = nil
        for try await json in rows.decode(String.self) { found = json }
        guard let found else { return nil }
        do {
            return try JSONDecoder().decode(StoredSession.self, from: Data(found.utf8))
        } catch {
            throw PostgresStoreError(
                .corruptSession,
                "the session \(TokenStoreKey(service: service, account: account)) in \(table) is not a stored session"
            )
        }
    }

    private func write(_ session: StoredSession, key: TokenStoreKey, on connection: PostgresConnection) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(session), as: UTF8.self)
        try await execute(
            """
            INSERT INTO \(unescaped: table) (service, account, session, updated_at)
            VALUES (\(key.service), \(key.account), \(json)::jsonb, now())
            ON CONFLICT (service, account) DO UPDATE SET session = EXCLUDED.session, updated_at = now()
            """,
            on: connection
        )
    }

    /// `BEGIN`, `body`, `COMMIT`; `ROLLBACK` when `body` throws (its error is thrown as is).
    private func inTransaction<T>(
        on connection: PostgresConnection,
        _ body: () async throws -> T
    ) async throws -> T {
        try await execute("BEGIN", on: connection)
        let value: T
        do {
            value = try await body()
        } catch {
            try? await execute("ROLLBACK", on: connection)
            throw error
        }
        try await execute("COMMIT", on: connection)
        return value
    }

    /// Runs a statement and reads its answer to the end: the server's error for a `SELECT`
    /// (a lock wait that timed out) arrives with its rows, and is thrown here, not at the next
    /// statement.
    private func execute(_ query: PostgresQuery, on connection: PostgresConnection) async throws {
        try Self.checkOpen(connection)
        for try await _ in try await connection.query(query, logger: logger) {}
    }

    /// The connection was closed (the server ended it, or it dropped) before a statement.
    private struct ConnectionClosed: Error {}

    /// Throws ``ConnectionClosed`` when `connection` is closed: postgres-nio never answers a
    /// query written to a closed connection (its channel write fails unheard; see
    /// vapor/postgres-nio#487, reverted in #501), so a transaction whose connection dropped
    /// while its body was suspended would wait forever at its next statement. A close that
    /// lands between this check and the write is not caught; one during a statement fails that
    /// statement.
    private static func checkOpen(_ connection: PostgresConnection) throws {
        if connection.isClosed { throw ConnectionClosed() }
    }

    /// Runs `body`, turning postgres-nio's errors into ``PostgresStoreError``s (`doing` says what
    /// failed); other errors (the body's) pass as they are.
    private func run<T>(_ doing: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch is ConnectionClosed {
            throw PostgresStoreError(.database, "cannot \(doing): the connection to the server was lost")
        } catch let error as PSQLError {
            if error.serverInfo?[.sqlState] == "55P03" {
                throw PostgresStoreError(
                    .lockTimeout,
                    "cannot \(doing): another instance held its lock for longer than \(lockTimeout)",
                    underlying: error
                )
            }
            if let lost = Self.connectionLost(error) {
                throw PostgresStoreError(.database, "cannot \(doing): \(lost)", underlying: error)
            }
            let state = error.serverInfo?[.sqlState].map { ", SQLSTATE \($0)" } ?? ""
            throw PostgresStoreError(.database, "cannot \(doing): \(error.code)\(state)", underlying: error)
        }
    }

    /// Why the connection is gone, when `error` says it is: closed under the statement, not
    /// made, or ended by the server (SQLSTATE class 57P, `operator_intervention`:
    /// `pg_terminate_backend`, a shutdown, a server still starting; class 08,
    /// `connection_exception`).
    private static func connectionLost(_ error: PSQLError) -> String? {
        switch error.code {
        case .serverClosedConnection, .uncleanShutdown:
            return "the connection to the server was lost"
        case .connectionError:
            return "cannot connect to the server"
        case .server:
            guard let state = error.serverInfo?[.sqlState], state.hasPrefix("57P") || state.hasPrefix("08") else {
                return nil
            }
            return "the server ended the connection (SQLSTATE \(state))"
        default:
            return nil
        }
    }

    private static func isPlainIdentifier(_ name: String) -> Bool {
        let letters = UInt8(ascii: "a")...UInt8(ascii: "z")
        guard let first = name.utf8.first, name.utf8.count <= 63, first == UInt8(ascii: "_") || letters.contains(first)
        else { return false }
        return name.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "_") || letters.contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }
}
