import Foundation
import RemoteAuth

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The C library's `close`, out of reach of ``StateFile/close()`` by name.
private func closeFile(_ descriptor: Int32) -> Int32 { close(descriptor) }

/// The `--state` file: one JSON object holding what the sandbox has confirmed to its clients,
/// the OAuth 1.0a tokens and statuses (``SandboxStore``) and the OAuth 2 codes and tokens
/// (``OAuth2Store``, under `oauth2`), and beside it a log of the changes since (`PATH.log`).
///
/// Each store hands over its part synchronously, from inside its actor, before it answers the
/// request that changed it. Only what changed is written: one JSON line per entry added,
/// replaced or removed, appended to the log and flushed to disk (`fsync`) before the answer, so
/// a write costs the change, not the table. The log is folded into the file (a temporary file
/// created 0600, flushed, renamed over the old one: atomic) at start-up, when it has grown as
/// large as the file, and when the sandbox stops (the log is then removed). A process killed at any moment loses nothing
/// it confirmed: the file is the previous or the new one, never a torn one; a line the kill cut
/// short was never answered and is dropped; replaying lines the file already holds changes
/// nothing (each line sets an entry to what it became).
final class StateFile: Sendable {
    struct Contents: Codable, Sendable {
        var requestTokens: [String: SandboxStore.RequestToken] = [:]
        var accessTokens: [String: SandboxStore.AccessToken] = [:]
        var statuses: [SandboxStore.Status] = []
        var nextStatusID: Int64 = 1
        /// Absent in files written before OAuth 2 state was kept.
        var oauth2: OAuth2Store.Persisted?
        /// Clients registered through RFC 7591 (``OAuth2ClientRegistry``); absent in older files.
        var registeredClients: [String: OAuth2ClientRegistry.Registration]?
    }

    /// What the lock guards: the contents and the files' sizes.
    private struct State {
        var contents: Contents
        /// The log's length: a failed append is cut back to it.
        var logBytes = 0
        var fileBytes = 0
        /// A write failed: the next one folds everything into the file instead of appending.
        var mustCompact = false
    }

    let path: String
    var logPath: String { path + ".log" }
    private let random: RandomSource
    private let state: Locked<State>
    /// The log, open for appending (`O_APPEND`), created 0600.
    private let log: Int32

    /// Reads the file and replays its log when they exist, and folds them into a new file and
    /// an empty log, so that a path that cannot be written fails at start-up rather than as a
    /// `500` on the first token.
    ///
    /// - Throws: ``SandboxError`` when the file or the log cannot be read, parsed or written.
    init(path: String, random: RandomSource) throws(SandboxError) {
        self.path = path
        self.random = random
        var initial = Contents()
        if FileManager.default.fileExists(atPath: path) {
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                initial = try JSONDecoder().decode(Contents.self, from: data)
            } catch is DecodingError {
                // Not the decoder's description: its coding path names dictionary keys, which
                // here are token values.
                throw SandboxError("the state file '\(path)' cannot be read: it is not the sandbox's state JSON")
            } catch {
                throw SandboxError("the state file '\(path)' cannot be read: \(error.localizedDescription)")
            }
        }
        let logPath = path + ".log"
        if let data = FileManager.default.contents(atPath: logPath) {
            try StateLog.replay(data, into: &initial, path: logPath)
        }
        // Folded now: the file first (a path that cannot be written is named as the file),
        // then a new, empty log.
        let fileBytes = try Self.save(initial, to: path, random: random)
        let descriptor = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw SandboxError("cannot write the state file's log '\(logPath)': \(String(cString: strerror(errno)))")
        }
        log = descriptor
        state = Locked(State(contents: initial, fileBytes: fileBytes))
    }

    deinit { _ = closeFile(log) }

    /// What the file held at start-up, or since the last update.
    var current: Contents { state.withLock { $0.contents } }

    /// Applies `change` and writes what it changed before returning.
    ///
    /// - Throws: ``SandboxError`` naming the file and the system's reason; the change is kept
    ///   in memory, and the next successful write folds everything into the file.
    func update(_ change: (inout Contents) -> Void) throws(SandboxError) {
        let saved: Result<Void, SandboxError> = state.withLock { state in
            let before = state.contents
            change(&state.contents)
            do throws(SandboxError) {
                if state.mustCompact || state.logBytes >= max(state.fileBytes, 64 * 1024) {
                    try compact(&state)
                } else {
                    try append(StateLog.lines(from: before, to: state.contents), &state)
                }
                return .success(())
            } catch {
                state.mustCompact = true
                return .failure(error)
            }
        }
        try saved.get()
    }

    /// Folds the log into the file and removes the log, when the sandbox stops. Best effort: a
    /// failure leaves the file and the log, which the next start replays.
    func close() {
        state.withLock { state in
            guard (try? compact(&state)) != nil else { return }
            unlink(logPath)
        }
    }

    /// Appends `lines` to the log and flushes it; on failure cuts the log back to where it was,
    /// so that no partial line stays before later ones.
    private func append(_ lines: [UInt8], _ state: inout State) throws(SandboxError) {
        guard !lines.isEmpty else { return }
        var code = Self.writeAll(log, lines)
        if code == 0, fsync(log) != 0 { code = errno }
        guard code == 0 else {
            _ = ftruncate(log, off_t(state.logBytes))
            throw SandboxError("cannot write the state file's log '\(logPath)': \(String(cString: strerror(code)))")
        }
        state.logBytes += lines.count
    }

    /// Writes the whole contents to the file (atomically), then empties the log.
    private func compact(_ state: inout State) throws(SandboxError) {
        state.fileBytes = try Self.save(state.contents, to: path, random: random)
        guard ftruncate(log, 0) == 0 else {
            throw SandboxError("cannot empty the state file's log '\(logPath)': \(String(cString: strerror(errno)))")
        }
        state.logBytes = 0
        state.mustCompact = false
    }

    /// Writes `bytes` in full; `0` or the `errno` of the failure.
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Int32 {
        var written = 0
        return bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += count
            }
            return 0
        }
    }

    /// Writes `contents` as sorted JSON to a temporary file beside `path`, created 0600 before
    /// any secret is written and flushed to disk, then renamed into place (atomic on POSIX).
    /// Returns the file's length.
    private static func save(_ contents: Contents, to path: String, random: RandomSource) throws(SandboxError) -> Int {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(contents) else {
            throw SandboxError("cannot encode the state for '\(path)'")
        }
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(random.hex(byteCount: 6)).tmp").path
        func failure(_ code: Int32) -> SandboxError {
            SandboxError("cannot write the state file '\(path)': \(String(cString: strerror(code)))")
        }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(errno) }
        var code = writeAll(descriptor, Array(data))
        if code == 0, fsync(descriptor) != 0 { code = errno }
        if closeFile(descriptor) != 0, code == 0 { code = errno }
        if code == 0, rename(temporary, path) != 0 { code = errno }
        if code != 0 {
            unlink(temporary)
            throw failure(code)
        }
        return data.count
    }
}
