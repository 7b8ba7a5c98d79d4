import Foundation
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

    @Test func refusesNonLoopbackHost() throws {
        let result = try CLI.run(["sandbox", "--host", "0.0.0.0", "--port", "0"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("remote-auth: refusing to listen on '0.0.0.0'"))
    }
}
