import Foundation
import Testing

/// A `remote-auth sandbox --port 0` process for the duration of `body`; passes its base URL.
func withSandboxProcess<T>(_ body: (String) async throws -> T) async throws -> T {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("request-cli-\(UUID().uuidString).out")
    _ = FileManager.default.createFile(atPath: output.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: output) }
    let process = Process()
    process.executableURL = try CLI.binary()
    process.arguments = ["sandbox", "--port", "0"]
    let handle = try FileHandle(forWritingTo: output)
    process.standardOutput = handle
    process.standardError = handle
    try process.run()
    defer { try? handle.close() }
    /// Stops the sandbox and waits for it without blocking a cooperative thread.
    func stop() async {
        if process.isRunning { process.terminate() }
        await CLI.exited(process)
    }
    do {
        let prefix = "RemoteAuth sandbox listening on "
        var base: String?
        for _ in 0..<200 where base == nil {
            try await Task.sleep(for: .milliseconds(50))
            let text = String(decoding: try Data(contentsOf: output), as: UTF8.self)
            if let line = text.split(separator: "\n", omittingEmptySubsequences: false).first, text.contains("\n"),
                line.hasPrefix(prefix)
            {
                base = String(line.dropFirst(prefix.count))
            }
        }
        let url = try #require(base)
        let result = try await body(url.hasSuffix("/") ? String(url.dropLast()) : url)
        await stop()
        return result
    } catch {
        await stop()
        throw error
    }
}

@Suite(.timeLimit(.minutes(5))) struct RequestCLITests {
    let aliceJSON = "{\"authenticated\": true, \"user\": \"alice\"}"

    @Test func basicAndDigest() async throws {
        try await withSandboxProcess { base in
            for path in ["/basic/", "/digest/SHA-256/auth/", "/digest/MD5-sess/auth-int/"] {
                let result = try await CLI.run(["request", "--user", "alice:wonderland", base + path])
                #expect(result.stdout == aliceJSON, "\(path)")
                #expect(result.stderr == "")
                #expect(result.status == 0)
            }
            // A form body, hashed by auth-int.
            let post = try await CLI.run([
                "request", "-d", "status=hello world", "--user", "alice:wonderland", base + "/digest/SHA-256/auth-int/",
            ])
            #expect(post.stdout == aliceJSON)
            #expect(post.stderr == "")
            #expect(post.status == 0)
            // USER alone, the password from the environment.
            let fromEnvironment = try await CLI.run(
                ["request", "--user", "alice", base + "/basic/"],
                environment: ["REMOTE_AUTH_PASSWORD": "wonderland"]
            )
            #expect(fromEnvironment.stdout == aliceJSON)
            #expect(fromEnvironment.status == 0)
        }
    }

    @Test func failuresExitNonZeroWithTheStatusLine() async throws {
        try await withSandboxProcess { base in
            let none = try await CLI.run(["request", base + "/basic/"])
            #expect(none.stdout == "{\"authenticated\":false}")
            #expect(none.stderr == "remote-auth: HTTP 401 Unauthorized\n")
            #expect(none.status == 1)

            let port = base.split(separator: ":").last.map(String.init) ?? ""
            let wrong = try await CLI.run(["request", "--user", "alice:queen-of-hearts", base + "/basic/"])
            #expect(wrong.stdout == "")
            #expect(
                wrong.stderr
                    == "remote-auth: authentication failed: http://127.0.0.1:\(port) refused the Basic credential for realm \"RemoteAuth Sandbox\"\nremote-auth: HTTP 401 Unauthorized\n"
            )
            #expect(wrong.status == 1)
            #expect(!wrong.stderr.contains("queen-of-hearts"))
        }
    }

    /// -v: each head on stderr, Authorization redacted; the body alone on stdout.
    @Test func verboseRedacts() async throws {
        try await withSandboxProcess { base in
            let result = try await CLI.run([
                "request", "-v", "--preemptive", "-H", "Cookie: s=1", "--user", "alice:wonderland", base + "/basic/",
            ])
            #expect(result.stdout == aliceJSON)
            #expect(result.status == 0)
            let lines = result.stderr.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("< Date:") }
            #expect(
                lines == [
                    "* Basic: sent preemptively",
                    "> GET /basic/ HTTP/1.1", "> Host: \(base.dropFirst("http://".count))",
                    "> User-Agent: remote-auth/0.1.0", "> Accept: */*", "> Cookie: <redacted>",
                    "> Authorization: Basic <redacted>",
                    "< HTTP/1.1 200 OK", "< Content-Type: application/json",
                    "< Content-Length: \(aliceJSON.utf8.count)",
                ],
                "\(result.stderr)"
            )
            #expect(!result.stderr.contains("YWxpY2U6d29uZGVybGFuZA"))
        }
    }

    /// -v shows the authenticators' decisions as `* ` lines where they happen: the Digest answer
    /// between the challenge and the second send; a redirect to another origin, and that the
    /// credential stayed behind.
    @Test func verboseShowsDecisions() async throws {
        try await withSandboxProcess { a in
            try await withSandboxProcess { b in
                let digest = try await CLI.run([
                    "request", "-v", "--user", "alice:wonderland", a + "/digest/SHA-256/auth/",
                ])
                #expect(digest.status == 0, "\(digest.stderr)")
                let lines = digest.stderr.split(separator: "\n").map(String.init)
                let decision = try #require(lines.firstIndex(of: "* Digest: challenge answered"), "\(digest.stderr)")
                #expect(lines[..<decision].contains("< HTTP/1.1 401 Unauthorized"))
                #expect(lines[decision + 1] == "> GET /digest/SHA-256/auth/ HTTP/1.1")
                #expect(lines.filter { $0.hasPrefix("* ") } == ["* Digest: challenge answered"])

                let target = b + "/basic/"
                let redirect = try await CLI.run([
                    "request", "-v", "-L", "--preemptive", "--user", "alice:wonderland",
                    a + "/redirect?to=" + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
                ])
                #expect(redirect.status == 1, "\(redirect.stderr)")
                #expect(
                    redirect.stderr.split(separator: "\n").filter { $0.hasPrefix("* ") } == [
                        "* Basic: sent preemptively",
                        "* Following the 302 redirect to \(target), credentials dropped (another origin)",
                    ],
                    "\(redirect.stderr)"
                )
            }
        }
    }

    /// Redirects: followed only with -L (as curl), at most --max-redirs, and the credential does
    /// not cross to another port.
    @Test func redirects() async throws {
        try await withSandboxProcess { a in
            try await withSandboxProcess { b in
                // Without -L, the 3xx answer itself.
                let unfollowed = try await CLI.run(
                    ["request", "-i", "--user", "alice:wonderland", a + "/redirect?to=%2Fbasic%2F"]
                )
                #expect(unfollowed.status == 0, "\(unfollowed.stderr)")
                #expect(unfollowed.stdout.hasPrefix("HTTP/1.1 302 "), "\(unfollowed.stdout)")
                #expect(unfollowed.stdout.contains("\r\nLocation: /basic/\r\n") || unfollowed.stdout.contains("\r\nlocation: /basic/\r\n"))
                #expect(!unfollowed.stdout.contains(aliceJSON))
                let same = try await CLI.run(["request", "-L", "--user", "alice:wonderland", a + "/redirect?to=%2Fbasic%2F"])
                #expect(same.stdout == aliceJSON)
                #expect(same.status == 0)
                let limited = try await CLI.run(
                    ["request", "-L", "--max-redirs", "0", "--user", "alice:wonderland", a + "/redirect?to=%2Fbasic%2F"]
                )
                #expect(limited.status == 47, "\(limited.stderr)")
                let other = try await CLI.run(
                    [
                        "request", "-L", "--preemptive", "--user", "alice:wonderland",
                        a + "/redirect?to="
                            + b.replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: "/", with: "%2F")
                            + "%2Fbasic%2F",
                    ])
                #expect(other.stdout == "{\"authenticated\":false}")
                #expect(other.stderr == "remote-auth: HTTP 401 Unauthorized\n")
                #expect(other.status == 1)
            }
        }
    }

    /// Plain http to a host that is not loopback: refused before any connection.
    @Test func plainHTTPNeedsOptIn() async throws {
        let result = try await CLI.run(["request", "--user", "alice:wonderland", "http://example.invalid/"])
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "remote-auth: refusing to send the credential for http://example.invalid:80 over plain http, where anyone on the path can read it; use https, or pass --allow-http to allow it for this origin\n"
        )
        #expect(result.status == 2)
    }

    @Test func badInput() async throws {
        let header = try await CLI.run(["request", "-H", "no colon", "http://127.0.0.1:9/"])
        #expect(
            header.stderr
                == "remote-auth: invalid -H (the 1st one): expected 'Name: value' (not shown: it may hold a credential)\n"
        )
        #expect(header.status == 2)
        let url = try await CLI.run(["request", "example.org"])
        #expect(
            url.stderr
                == "remote-auth: invalid URL: 'example.org' is not an absolute URL (expected scheme://host/path)\n"
        )
        #expect(url.status == 2)
    }
}
