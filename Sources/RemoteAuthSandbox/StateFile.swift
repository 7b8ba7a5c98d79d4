import Foundation
import RemoteAuth

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `--state` file: one JSON object holding what the sandbox has confirmed to its clients,
/// the OAuth 1.0a tokens and statuses (``SandboxStore``) and the OAuth 2 codes and tokens
/// (``OAuth2Store``, under `oauth2`).
///
/// Each store hands over its part synchronously, from inside its actor, before it answers the
/// request that changed it; the file is rewritten whole under a lock, atomically (a temporary
/// file created 0600, flushed to disk, renamed over the old one), so a process killed at any
/// moment leaves the previous or the new file, never a torn one, and loses nothing it confirmed.
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

    let path: String
    private let random: RandomSource
    private let contents: Locked<Contents>

    /// Reads the file when it exists and writes it back, so that a path that cannot be written
    /// fails at start-up rather than as a `500` on the first token.
    ///
    /// - Throws: ``SandboxError`` when the file cannot be read, parsed or written.
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
        contents = Locked(initial)
        try update { _ in }
    }

    /// What the file held at start-up, or since the last update.
    var current: Contents { contents.withLock { $0 } }

    /// Applies `change` and writes the file before returning.
    ///
    /// - Throws: ``SandboxError`` naming the file and the system's reason; the change is kept
    ///   in memory, so the next successful write includes it.
    func update(_ change: (inout Contents) -> Void) throws(SandboxError) {
        let saved: Result<Void, SandboxError> = contents.withLock { contents in
            change(&contents)
            do throws(SandboxError) {
                try Self.save(contents, to: path, random: random)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try saved.get()
    }

    /// Writes `contents` as sorted JSON to a temporary file beside `path`, created 0600 before
    /// any secret is written and flushed to disk, then renamed into place (atomic on POSIX).
    private static func save(_ contents: Contents, to path: String, random: RandomSource) throws(SandboxError) {
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
        var written = 0
        var code: Int32 = 0
        data.withUnsafeBytes { bytes in
            while written < bytes.count {
                let count = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    code = errno
                    return
                }
                written += count
            }
        }
        if code == 0, fsync(descriptor) != 0 { code = errno }
        if close(descriptor) != 0, code == 0 { code = errno }
        if code == 0, rename(temporary, path) != 0 { code = errno }
        if code != 0 {
            unlink(temporary)
            throw failure(code)
        }
    }
}
