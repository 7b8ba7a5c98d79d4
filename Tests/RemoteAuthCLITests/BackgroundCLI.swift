import Foundation

/// `remote-auth` running in the background, stdout and stderr in scratch files, stdin a pipe.
final class BackgroundCLI {
    let process = Process()
    let stdout: URL
    let stderr: URL
    let input = Pipe()
    private let handles: [FileHandle]

    init(_ arguments: [String], environment: [String: String]) throws {
        let directory = FileManager.default.temporaryDirectory
        stdout = directory.appendingPathComponent("cli-\(UUID().uuidString).out")
        stderr = directory.appendingPathComponent("cli-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
        handles = [try FileHandle(forWritingTo: stdout), try FileHandle(forWritingTo: stderr)]
        process.executableURL = try CLI.binary()
        process.arguments = arguments
        process.environment = CLI.environment.merging(environment) { $1 }
        process.standardOutput = handles[0]
        process.standardError = handles[1]
        process.standardInput = input
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
        for handle in handles { try? handle.close() }
        try? FileManager.default.removeItem(at: stdout)
        try? FileManager.default.removeItem(at: stderr)
    }

    var output: String { (try? String(contentsOf: stdout, encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOf: stderr, encoding: .utf8)) ?? "" }

    /// Waits until stderr contains `text` or the process ends (only a hang is cut, at
    /// `CLI.hangGuard`).
    func waitForError(_ text: String) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + CLI.hangGuard
        while !errors.contains(text), process.isRunning, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Waits for the exit and returns the status, stdout and stderr.
    func finish() async -> CLIResult {
        await CLI.exited(process)
        return CLIResult(status: process.terminationStatus, stdout: output, stderr: errors)
    }

    /// The stdout line that starts with `prefix`.
    func line(startingWith prefix: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix(prefix) }.map(String.init)
    }
}
