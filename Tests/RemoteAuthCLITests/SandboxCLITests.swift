import Foundation
import HTTPTypes
import RemoteAuth
import Testing

@Suite(.timeLimit(.minutes(5))) struct SandboxCLITests {
    /// `remote-auth sandbox --port 0`: the first line names the URL, the demo identities are
    /// printed, and SIGTERM stops it cleanly. (Serving is tested over sockets in
    /// RemoteAuthIntegrationTests and by scripts/interop.sh.)
    @Test func startsAndStops() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sandbox-cli-\(UUID().uuidString).out"
        )
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = try CLI.binary()
        process.arguments = ["sandbox", "--port", "0"]
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        var text = ""
        for _ in 0..<100 where !text.contains("user alice") {
            try await Task.sleep(for: .milliseconds(100))
            text = String(decoding: try Data(contentsOf: output), as: UTF8.self)
        }
        let firstLine = String(text.split(separator: "\n").first ?? "")
        #expect(firstLine.hasPrefix("RemoteAuth sandbox listening on http://127.0.0.1:"), "\(text)")
        #expect(text.contains("consumer demo-consumer / demo-consumer-secret"))
        #expect(text.contains("access token alice-device-token / alice-device-token-secret"))
        #expect(text.contains("user alice / wonderland"))
        #expect(text.contains("oauth2 client demo-app (public)  redirect http://127.0.0.1/callback"))
        #expect(text.contains("oauth2 client demo-service / demo-service-secret"))
        #expect(text.contains("/.well-known/oauth-authorization-server"))

        process.terminate()
        await CLI.exited(process)
        #expect(process.terminationStatus == 0)
        try handle.close()
    }

    @Test func refusesNonLoopbackHost() async throws {
        let result = try await CLI.run(["sandbox", "--host", "0.0.0.0", "--port", "0"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("remote-auth: refusing to listen on '0.0.0.0'"))
    }
}

/// Issue 22: the sandbox's loopback check resolves nothing (a name that is not an address is
/// refused), a port in use is named, a failed start leaves --write-certificate's file alone,
/// `--port -1` is refused by its range, and /redirect?to= takes only http(s) or a path.
@Suite(.timeLimit(.minutes(5))) struct SandboxStartCLITests {
    @Test func badHostsAndPorts() async throws {
        for (arguments, message) in [
            (
                ["--host", "127.evil"],
                "remote-auth: refusing to listen on '127.evil': the sandbox serves loopback addresses only (127.0.0.1, ::1 or localhost)\n"
            ),
            (
                ["--host", "10.0.0.1"],
                "remote-auth: refusing to listen on '10.0.0.1': the sandbox serves loopback addresses only\n"
            ),
            (["--port", "-1"], "remote-auth: Error: --port must be 0 to 65535 (0 picks a free one), not -1\n"),
        ] {
            let result = try await CLI.run(["sandbox"] + arguments)
            #expect(result.status == 2)
            #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
        }
    }

    @Test func aPortInUseIsNamedAndTheCertificateFileKept() async throws {
        let first = try SandboxProcess([])
        let base = try await first.baseURL()
        let port = try #require(base.split(separator: ":").last.map(String.init))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("sandbox.pem").path
        try "earlier certificate\n".write(toFile: certificate, atomically: true, encoding: .utf8)
        let second = try await CLI.run(
            ["sandbox", "--port", port, "--tls", "--write-certificate", certificate, "--quiet"]
        )
        #expect(second.status == 2)
        #expect(
            second.stderr
                == "remote-auth: cannot start the sandbox: port \(port) on 127.0.0.1 is in use (another sandbox?): stop what listens there, or pick another port (0 picks a free one)\n"
        )
        #expect(try String(contentsOfFile: certificate, encoding: .utf8) == "earlier certificate\n")
    }

    @Test func redirectTakesOnlyHTTPOrAPath() async throws {
        let sandbox = try SandboxProcess([])
        let base = try await sandbox.baseURL()
        for target in ["javascript%3Aalert(1)", "JavaScript%3Aalert(1)", "data%3Atext%2Fhtml%2C%3Cb%3E"] {
            let answer = try await httpExchange(
                try HTTPRequest(method: .get, absoluteURL: base + "/redirect?to=" + target)
            )
            #expect(answer.0 == 400, "\(target)")
        }
        #expect(try await httpGetLocation(base + "/redirect?to=https%3A%2F%2Fexample.com%2F") == "https://example.com/")
        #expect(try await httpGetLocation(base + "/redirect?to=%2Fbasic%2F") == "/basic/")
    }
}
