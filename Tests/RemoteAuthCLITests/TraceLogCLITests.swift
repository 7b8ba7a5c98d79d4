import Foundation
import RemoteAuthSandbox
import Testing

/// `REMOTE_AUTH_LOG=trace remote-auth demo`: every flow of the demo with the library's log at
/// its most verbose, and not one secret in any line (issue 25). The secrets looked for are every
/// one the sandbox held at the end (its state file: tokens, token secrets, codes, refresh
/// families) and every one it was configured with (passwords, consumer and client secrets, the
/// AWS secret, the demo's private signing key).
@Suite(.timeLimit(.minutes(10))) struct TraceLogCLITests {
    /// The strings of a JSON document, keys included, that look like a secret: 16 characters
    /// or more, all of the token alphabet (a URL, a scope, a date or a sentence is not one).
    static func tokenLikeStrings(in value: Any, into found: inout Set<String>) {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/=")
        func consider(_ text: String) {
            if text.count >= 16, text.allSatisfy(alphabet.contains) { found.insert(text) }
        }
        switch value {
        case let object as [String: Any]:
            for (key, member) in object {
                consider(key)
                // Public by design: a key's thumbprint (RFC 7638), which the demo prints, and
                // the registered grant types (`authorization_code`).
                if ["jkt", "dpopJKT", "grantTypes"].contains(key) { continue }
                tokenLikeStrings(in: member, into: &found)
            }
        case let array as [Any]:
            for member in array { tokenLikeStrings(in: member, into: &found) }
        case let text as String:
            consider(text)
        default:
            break
        }
    }

    /// A level swift-log does not have is a usage error that names the levels, not a silent
    /// default.
    @Test func unknownLevelIsRefused() async throws {
        let result = try await CLI.run(["sign", "basic", "--user", "a:b"], environment: ["REMOTE_AUTH_LOG": "loud"])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "remote-auth: REMOTE_AUTH_LOG=loud is not a log level: use one of trace, debug, info, notice, warning, error, critical\n"
        )
    }

    @Test func demoAtTraceLevelLogsNoSecret() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let state = scratch.appendingPathComponent("state.json").path
        let result = try await CLI.run(
            ["demo", "--sandbox-state", state, "--max-time", CLI.hangGuardSeconds],
            environment: ["REMOTE_AUTH_LOG": "trace"]
        )
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("demo: 19 passed, 0 failed"), "\(result.stdout)")

        // The log is there, at every level the library uses, with what a person debugging needs.
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.contains(" trace RemoteAuth.") }.count >= 20, "\(result.stderr)")
        for needed in [
            "decision=Basic: challenge answered", "decision=Digest: challenge answered",
            "decision=Basic: sent preemptively", "[RemoteAuth] token request", "[RemoteAuth] key set fetched",
            "[RemoteAuth] refreshing the access token", "Authorization: Digest <redacted>",
        ] {
            #expect(lines.contains { $0.contains(needed) }, "no line has \(needed)")
        }

        var secrets = Set<String>()
        let stateJSON = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: state)))
        Self.tokenLikeStrings(in: stateJSON, into: &secrets)
        // The state held the demo's tokens: the check below is not empty.
        #expect(secrets.count >= 20, "\(secrets.count) secrets in the sandbox's state")
        let demo = SandboxConfiguration.demo()
        secrets.formUnion(demo.users.map(\.password))
        secrets.formUnion(demo.consumers.compactMap(\.secret))
        secrets.formUnion(demo.oauth2Clients.compactMap(\.secret))
        secrets.formUnion(demo.awsKeys.map(\.secret))
        secrets.formUnion(demo.seededTokens.map(\.secret))
        // The private key's base64 lines (64 characters each but the last).
        secrets.formUnion(
            SandboxConfiguration.DemoSignatureKeys.clientPrivateKeyPEM.split(separator: "\n")
                .filter { !$0.hasPrefix("-----") }.map(String.init)
        )
        let output = result.stdout + "\n" + result.stderr
        let leaked = secrets.filter { output.contains($0) }.sorted()
        #expect(leaked.isEmpty, "\(leaked.count) secrets appear in the output (not shown here)")
    }
}
