import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock (`flock(2)`, exclusive) on a lock file beside a store, `PATH.lock`: the data
/// file itself is replaced by `rename(2)` on every write, so a lock on it would be a lock on a
/// file that is gone; the lock file is created once (mode 0600) and never removed.
///
/// `flock` locks belong to an open file description, so two stores in one process exclude each
/// other as two processes do, and the kernel drops the lock when its holder dies (`kill -9`
/// included): a crash never leaves the store locked.
package struct FileLock {
    private let descriptor: Int32

    /// Takes the lock, trying again with a growing pause (1 ms up to 10 ms) until `timeout` has
    /// passed; the task is never blocked in the kernel, so an actor waiting here serves its other
    /// callers meanwhile.
    ///
    /// - Throws: ``FileStoreError/Code-swift.struct/lockTimeout`` when another holder keeps it
    ///   longer than `timeout`; ``FileStoreError/Code-swift.struct/unreadable`` when the lock
    ///   file cannot be opened; `CancellationError` when the task is cancelled while waiting.
    package static func acquire(_ path: String, timeout: Duration) async throws -> FileLock {
        try await acquire(lockFile: path + ".lock", timeout: timeout)
    }

    /// Takes the lock on `lockPath` itself (created 0600, its folder 0700, when missing), as
    /// ``acquire(_:timeout:)`` does on `PATH.lock`: for a store that has no file of its own (the
    /// keyring store).
    package static func acquire(lockFile lockPath: String, timeout: Duration) async throws -> FileLock {
        let folder = (lockPath as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            try FileManager.default.createDirectory(
                atPath: folder,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        }
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw FileStoreError(
                .unreadable,
                path: lockPath,
                reason: "cannot open the lock file \(lockPath): \(String(cString: strerror(errno)))"
            )
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var pause = Duration.milliseconds(1)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            guard failure == EWOULDBLOCK || failure == EINTR else {
                close(descriptor)
                throw FileStoreError(
                    .unreadable,
                    path: lockPath,
                    reason: "cannot lock \(lockPath): \(String(cString: strerror(failure)))"
                )
            }
            guard clock.now < deadline else {
                close(descriptor)
                throw FileStoreError(
                    .lockTimeout,
                    path: lockPath,
                    reason: "\(lockPath) was held by another process or store for longer than \(timeout)"
                )
            }
            do {
                try await Task.sleep(for: min(pause, deadline - clock.now))
            } catch {
                close(descriptor)
                throw error
            }
            pause = min(pause * 2, .milliseconds(10))
        }
        return FileLock(descriptor: descriptor)
    }

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// Releases the lock (closing the descriptor releases it); call it once, from a `defer`.
    package func release() { close(descriptor) }
}
