import Foundation

/// Writes a file that holds secrets: created with mode 0600 (its folder 0700) before any byte
/// is written, synced, then renamed over the old one, so a crash leaves the old file or the new
/// one, never half of either.
enum AtomicFile {
    static func write(_ data: Data, to path: String) throws {
        try checkFolder(of: path)
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(
            at: folder,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        guard
            FileManager.default.createFile(
                atPath: temporary.path,
                contents: nil,
                attributes: [.posixPermissions: 0o600]
            )
        else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
            guard rename(temporary.path, url.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
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
    static func defaultPath(_ name: String, environment: [String: String]) -> String {
        if let home = environment["REMOTE_AUTH_HOME"], !home.isEmpty { return home + "/" + name }
        let config =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return config + "/remote-auth/" + name
    }
}
