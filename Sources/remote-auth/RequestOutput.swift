import Foundation

#if canImport(Glibc)
import Glibc
/// write(2), under a name `RequestCommand.write(_:)` does not shadow.
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
#endif

/// Where `remote-auth request` writes: notes to stderr, the response body to stdout or the
/// `-o` file.
extension RequestCommand {
    /// Writes to stderr unless -s.
    func note(_ text: String) {
        if !silent { Terminal.writeError(text) }
    }

    /// `bytes` to stdout, or to the `-o` file (created or truncated).
    func write(_ bytes: [UInt8]) throws {
        guard let output, output != "-" else {
            FileHandle.standardOutput.write(Data(bytes))
            return
        }
        // Opened in place (created 0644 or truncated), as curl's fopen(.., "wb") does: never a
        // temporary file renamed over the target, which would replace `-o /dev/null` (a device)
        // with a regular file when run as root (FileManager.createFile writes atomically).
        let descriptor = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CLIFailure(
                "cannot write '\(output)' (-o): check that its directory exists and is writable",
                status: .writeError
            )
        }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                throw CLIFailure("cannot write '\(output)' (-o): the write failed", status: .writeError)
            }
            written += count
        }
    }
}
