import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file that holds secrets: created with mode 0600 (its folder 0700) before any byte
/// is written, synced, then renamed over the old one, so a crash leaves the old file or the new
/// one, never half of either.
package enum AtomicFile {
    static func write(_ data: Data, to path: String) throws {
        try checkFolder(of: path)
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent()
        func unwritable(_ what: String, _ code: Int32) -> FileStoreError {
            FileStoreError(
                .unwritable,
                path: path,
                reason: "cannot write \(path): \(what): \(String(cString: strerror(code))); the file is as it was"
            )
        }
        do {
            try FileManager.default.createDirectory(
                at: folder,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw FileStoreError(
                .unwritable,
                path: path,
                reason: "cannot write \(path): cannot create its folder: \(error.localizedDescription)"
            )
        }
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
        // POSIX calls, so that a full or read-only file system is named by its errno.
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw unwritable("cannot create a file beside it", errno) }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        var failure: Int32 = 0
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure == 0, fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == 0 { failure = errno }
        guard failure == 0 else { throw unwritable("writing its new content failed", failure) }
        guard rename(temporary, path) == 0 else { throw unwritable("cannot replace it", errno) }
        renamed = true
    }

    /// Removes the temporary files that writers of `path` killed before their rename left
    /// behind (`.NAME.UUID.tmp`). Call it only holding the file's lock: then no live writer owns
    /// one.
    static func removeTemporaryFiles(of path: String) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent()
        let prefix = ".\(url.lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// `$REMOTE_AUTH_HOME/NAME`, else `$XDG_CONFIG_HOME/remote-auth/NAME`, else
    /// `~/.config/remote-auth/NAME`.
    package static func defaultPath(_ name: String, environment: [String: String]) -> String {
        if let home = environment["REMOTE_AUTH_HOME"], !home.isEmpty { return home + "/" + name }
        let config =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return config + "/remote-auth/" + name
    }
}
