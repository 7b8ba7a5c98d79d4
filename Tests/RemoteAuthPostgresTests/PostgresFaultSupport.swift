import Foundation
import HTTPTypes
import PostgresNIO
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthPostgres
import RemoteAuthSandbox
import Testing

/// What the fault tests need around the server: the backends holding or waiting for a session's
/// lock, the restart command the script provides, and a signed-in sandbox session.
enum Faults {
    /// `POSTGRES_RESTART`: a shell command line that restarts the server `POSTGRES_URL` names
    /// and returns once it accepts connections again (`scripts/interop/postgres_store.sh` sets
    /// both).
    static let restartCommand = ProcessInfo.processInfo.environment["POSTGRES_RESTART"]

    struct CommandFailed: Error, CustomStringConvertible { let description: String }

    /// Runs `restartCommand` with `/bin/bash -c` and resumes when it has exited, without holding a
    /// thread (a termination handler, as `CLI.launchAndWait` in the CLI tests): its output goes
    /// to a scratch file, shown when it fails.
    static func restartServer() async throws {
        let command = try #require(
            restartCommand,
            "POSTGRES_RESTART is not set: scripts/interop/postgres_store.sh sets it with POSTGRES_URL"
        )
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "remote-auth-pg-restart-\(UUID().uuidString)"
        )
        _ = FileManager.default.createFile(atPath: output.path, contents: Data())
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        // Foundation learns that the child exited when a descriptor the child inherited
        // closes; the server that pg_ctl starts would inherit it too and keep it open for its
        // lifetime. The shell closes every descriptor but 0, 1 and 2 first.
        let closeInherited = #"for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; "#
        process.arguments = ["-c", closeInherited + command]
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        try handle.close()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self)
            throw CommandFailed(description: "'\(command)' exited \(process.terminationStatus): \(text)")
        }
    }

    /// The condition on `pg_locks` that picks the advisory lock ``PostgresTokenStore`` takes for
    /// `service`/`account` in `table`: `pg_advisory_xact_lock(hashtextextended(NAME, 0))`, whose
    /// 64-bit key PostgreSQL shows as `classid` (high half) and `objid` (low half).
    private static func lockKey(table: String, service: String, account: String) -> String {
        table + "\u{1F}" + service + "\u{1F}" + account
    }

    /// The backends that hold (`granted`) or wait for the session's lock.
    static func backends(
        granted: Bool,
        table: String,
        service: String,
        account: String,
        on client: PostgresClient
    ) async throws -> [Int32] {
        let name = lockKey(table: table, service: service, account: account)
        let rows = try await client.query(
            """
            SELECT pid FROM pg_locks
            WHERE locktype = 'advisory' AND objsubid = 1 AND granted = \(granted)
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND ((classid::int8 << 32) | objid::int8) = hashtextextended(\(name), 0)
            """
        )
        var pids: [Int32] = []
        for try await pid in rows.decode(Int32.self) { pids.append(pid) }
        return pids
    }

    /// The demo user signed in to `sandbox` (auto-approved) through the authorization code flow:
    /// the session every instance restores.
    static func signIn(
        to sandbox: RunningSandbox,
        transport: some HTTPTransport,
        now: @escaping @Sendable () -> Int64
    ) async throws -> OAuth2.Session {
        let metadata = try await OAuth2.Flow.discover(issuer: sandbox.baseURL, transport: transport)
        let flow = OAuth2.Flow(
            server: .init(metadata: metadata),
            client: .public(id: "demo-app"),
            transport: transport,
            now: now
        )
        let request = try flow.authorizationRequest(
            redirectURI: "http://127.0.0.1/callback",
            scope: ["statuses:read"],
            random: .system
        )
        let (answer, _) = try await transport.send(try HTTPRequest(method: .get, absoluteURL: request.url), body: nil)
        let redirect = try #require(answer.headerFields[.location])
        let tokens = try await flow.tokens(fromCallback: redirect, pending: request.pending)
        return OAuth2.Session(
            tokens: tokens,
            issuer: metadata.issuer,
            tokenEndpoint: metadata.tokenEndpoint ?? "",
            clientID: "demo-app",
            resourceOrigins: [sandbox.baseURL]
        )
    }

    /// One token session per client (each its own store over its own pool) restoring the
    /// session saved under `sandbox`/`alice`, refreshed only once expired, and an
    /// authenticating client over each.
    static func instances(
        _ clients: [PostgresClient],
        table: String,
        transport: some HTTPTransport,
        now: @escaping @Sendable () -> Int64
    ) async throws -> (sessions: [OAuth2.TokenSession], apis: [AuthenticatingClient]) {
        var sessions: [OAuth2.TokenSession] = []
        var apis: [AuthenticatingClient] = []
        for client in clients {
            let session = try await OAuth2.TokenSession.restore(
                from: try PostgresTokenStore(client: client, table: table),
                service: "sandbox",
                account: "alice",
                transport: transport,
                policy: .init(expirySkew: 0),
                now: now
            )
            sessions.append(session)
            apis.append(AuthenticatingClient(transport: transport, session: session))
        }
        return (sessions, apis)
    }
}
