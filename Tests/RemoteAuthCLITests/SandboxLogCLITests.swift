import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// `remote-auth sandbox` logs each request on stderr (`--quiet` turns it off), and refuses to
/// start with a `--state` it cannot write.
@Suite(.timeLimit(.minutes(5))) struct SandboxLogCLITests {
    /// A sandbox process with stdout and stderr in separate files.
    final class Running {
        let process = Process()
        let scratch: URL
        let stdout: URL
        let stderr: URL

        init(_ arguments: [String]) throws {
            scratch = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-log-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            stdout = scratch.appendingPathComponent("out")
            stderr = scratch.appendingPathComponent("err")
            _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
            _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
            process.executableURL = try CLI.binary()
            process.arguments = ["sandbox", "--port", "0"] + arguments
            process.standardOutput = try FileHandle(forWritingTo: stdout)
            process.standardError = try FileHandle(forWritingTo: stderr)
            try process.run()
        }

        func read(_ url: URL) throws -> String {
            String(decoding: try Data(contentsOf: url), as: UTF8.self)
        }

        /// The URL of the first line, once the banner is complete.
        func baseURL() async throws -> String {
            var text = ""
            for _ in 0..<150 where !text.contains("user alice") {
                try await Task.sleep(for: .milliseconds(100))
                text = try read(stdout)
            }
            let first = String(text.split(separator: "\n").first ?? "")
            return String(first.dropFirst("RemoteAuth sandbox listening on ".count))
        }

        /// SIGTERM, then waits for the exit without blocking a thread.
        func stop() async throws -> Int32 {
            process.terminate()
            for _ in 0..<200 where process.isRunning {
                try await Task.sleep(for: .milliseconds(50))
            }
            return process.terminationStatus
        }

        deinit {
            if process.isRunning { process.terminate() }
            try? FileManager.default.removeItem(at: scratch)
        }
    }

    static func requests(_ base: String) async throws {
        let alice = try BasicCredentials(user: "alice", password: "wonderland").authorization
        #expect(try await httpExchange(try HTTPRequest(method: .get, absoluteURL: base + "/basic/")).0 == 401)
        #expect(
            try await httpExchange(
                try HTTPRequest(method: .get, absoluteURL: base + "/basic/", headerFields: [.authorization: alice])
            ).0 == 200
        )
        let unsigned = try HTTPRequest(method: .get, absoluteURL: base + "/1.1/account/verify_credentials.json?count=1")
        #expect(try await httpExchange(unsigned).0 == 401)
        #expect(try await httpExchange(try HTTPRequest(method: .get, absoluteURL: base + "/digest/MD5/auth/")).0 == 401)
    }

    @Test func logsEachRequestOnStderr() async throws {
        let sandbox = try Running([])
        try await Self.requests(try await sandbox.baseURL())
        #expect(try await sandbox.stop() == 0)
        #expect(
            try sandbox.read(sandbox.stderr) == """
                GET /basic/ 401 Basic challenge: no credentials
                GET /basic/ 200
                GET /1.1/account/verify_credentials.json 401 oauth_problem=parameter_absent: this endpoint needs a request signed with OAuth 1.0a
                GET /digest/MD5/auth/ 401 Digest challenge: no credentials

                """
        )
        #expect(try sandbox.read(sandbox.stdout).hasPrefix("RemoteAuth sandbox listening on http://127.0.0.1:"))
    }

    @Test func quietLogsNothing() async throws {
        let sandbox = try Running(["--quiet"])
        try await Self.requests(try await sandbox.baseURL())
        #expect(try await sandbox.stop() == 0)
        #expect(try sandbox.read(sandbox.stderr) == "")
        #expect(try sandbox.read(sandbox.stdout).hasPrefix("RemoteAuth sandbox listening on http://127.0.0.1:"))
    }

    /// A `--state` in a directory that does not exist (or cannot be written) fails at start-up,
    /// not with a 500 on the first token.
    @Test func unwritableStateFailsAtStart() async throws {
        let path = "/nonexistent-\(UUID().uuidString)/state.json"
        let result = try await CLI.run(["sandbox", "--port", "0", "--state", path])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "remote-auth: cannot start the sandbox: cannot write the state file '\(path)': No such file or directory\n"
        )
    }

    /// A directory given as `--state` cannot be replaced by a file.
    @Test func directoryAsStateFailsAtStart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("state-dir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await CLI.run(["sandbox", "--port", "0", "--state", directory.path])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("remote-auth: cannot start the sandbox: the state file '\(directory.path)'"))
    }
}
