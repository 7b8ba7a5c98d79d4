import Foundation
import Testing

/// Secrets never need the command line: values that begin with '-', '-' for stdin, environment
/// variables, a prompt for --user USER, and blanked arguments in the process list.
@Suite(.timeLimit(.minutes(5))) struct SecretsCLITests {
    let twitterSignature = "hCtSmYh+iHYCEqBWrE7C7hYmtUk=\n"

    /// `twitterArguments` with the consumer secret given as `value`.
    func twitter(consumerSecret value: String) -> [String] {
        var arguments = twitterArguments
        let index = arguments.firstIndex(of: "--consumer-secret")!
        arguments[index + 1] = value
        return arguments + ["--print", "signature"]
    }

    @Test func secretFromStandardInput() async throws {
        let result = try await CLI.run(
            twitter(consumerSecret: "-"),
            stdin: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw\n"
        )
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout == twitterSignature)
        let empty = try await CLI.run(twitter(consumerSecret: "-"))
        #expect(empty.status == 2)
        #expect(
            empty.stderr
                == "remote-auth: --consumer-secret -: standard input is empty; write the secret to it, one line\n"
        )
    }

    /// A secret that begins with '-' is a value, not an option; the same signature as from the
    /// environment.
    @Test func secretBeginningWithDash() async throws {
        let dashed = try await CLI.run(twitter(consumerSecret: "-abc"))
        #expect(dashed.status == 0)
        #expect(dashed.stderr == "")
        var arguments = twitter(consumerSecret: "x")
        let index = arguments.firstIndex(of: "--consumer-secret")!
        arguments.removeSubrange(index...(index + 1))
        let fromEnvironment = try await CLI.run(arguments, environment: ["REMOTE_AUTH_CONSUMER_SECRET": "-abc"])
        #expect(fromEnvironment.status == 0)
        #expect(dashed.stdout == fromEnvironment.stdout)
        #expect(dashed.stdout != twitterSignature)

        let basic = try await CLI.run(["sign", "basic", "--username", "alice", "--password", "-x"])
        #expect(basic.status == 0)
        #expect(basic.stdout == "Basic YWxpY2U6LXg=\n")
    }

    @Test func passwordsFromEnvironmentAndStdin() async throws {
        let environment = try await CLI.run(
            ["sign", "basic", "--username", "Aladdin"],
            environment: ["REMOTE_AUTH_PASSWORD": "open sesame"]
        )
        #expect(environment.stdout == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\n")
        let stdin = try await CLI.run(["sign", "basic", "--username", "Aladdin", "--password", "-"], stdin: "open sesame\n")
        #expect(stdin.stdout == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\n")
        let missing = try await CLI.run(
            ["sign", "basic", "--username", "Aladdin"],
            environment: ["REMOTE_AUTH_PASSWORD": ""]
        )
        #expect(missing.status == 0)
        let none = try await CLI.run([
            "sign", "digest", "--username", "u", "--uri", "/", "--challenge", "Digest realm=\"r\", nonce=\"n\"",
        ])
        #expect(none.status == 2)
        #expect(none.stderr == "remote-auth: missing secret: --password (or REMOTE_AUTH_PASSWORD) is required\n")
    }

    /// --user USER with no password and no terminal: says how to pass it.
    @Test func userWithoutPasswordAndNoTerminal() async throws {
        let result = try await CLI.run(["request", "--user", "alice", "http://127.0.0.1:1/"])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "remote-auth: --user alice has no password, and standard input is not a terminal to ask for it: set REMOTE_AUTH_PASSWORD, or pass --user USER:PASSWORD\n"
        )
    }

    /// While `remote-auth` waits on a server that never answers, /proc/PID/cmdline shows the
    /// secret's bytes overwritten, in every spelling curl accepts.
    @Test(arguments: [
        ["--user", "alice:sekrit-pw"], ["--user=alice:sekrit-pw"], ["-u", "alice:sekrit-pw"], ["-ualice:sekrit-pw"],
        ["-su", "alice:sekrit-pw"], ["-vu", "alice:sekrit-pw"], ["-sSu", "alice:sekrit-pw"], ["-sSualice:sekrit-pw"],
        ["-U", "proxy:sekrit-pw"], ["-sUproxy:sekrit-pw"], ["--proxy-user", "proxy:sekrit-pw"], ["-u=alice:sekrit-pw"],
    ])
    func processListDoesNotShowTheSecret(_ spelling: [String]) async throws {
        try await withEchoServer(silent: true) { server in
            let process = Process()
            process.executableURL = try CLI.binary()
            // The proxy options need a proxy: the silent server is one too.
            let proxy = spelling[0].contains("U") || spelling[0] == "--proxy-user" ? ["-x", server.base] : []
            // Every phase waits as long as the whole request: a proxy that never answers must not end
            // the run at the connect deadline before a loaded machine has read /proc.
            process.arguments = ["request", "--max-time", "120", "--connect-timeout", "120"] + proxy + spelling + ["-s", server.base + "/"]
            process.standardOutput = FileHandle.nullDevice
            // Kept, so that a run that ends early says why.
            let errors = FileManager.default.temporaryDirectory.appendingPathComponent("secrets-\(UUID()).err")
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: errors) }
            process.standardError = try FileHandle(forWritingTo: errors)
            try process.run()
            defer { process.terminate() }
            var seen = ""
            // Until the blanked arguments show (a loaded machine can take seconds to start the
            // process), while it waits on the silent server (up to its --max-time).
            while process.isRunning {
                try await Task.sleep(for: .milliseconds(50))
                let bytes =
                    (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/cmdline")))
                    ?? Data()
                seen = String(decoding: bytes.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
                if seen.contains("*") { break }
            }
            let ended = process.isRunning ? "running" : "exited \(process.terminationStatus): \((try? String(contentsOf: errors, encoding: .utf8)) ?? "")"
            #expect(seen.contains("*"), "\(seen) (\(ended))")
            #expect(!seen.contains("sekrit"), "\(seen)")
            process.terminate()
            await CLI.exited(process)
        }
    }

    /// `-ualice:pw URL` takes `alice:pw` as the user and URL as the URL, as curl does; clusters
    /// of flags with a value at the end read the same.
    @Test(arguments: [["-ualice:pw"], ["-sSualice:pw"], ["-su", "alice:pw"], ["-s", "-u", "alice:pw"]])
    func attachedAndClusteredValuesParseAsInCurl(_ spelling: [String]) async throws {
        try await withEchoServer { server in
            let result = try await CLI.run(["request", "--preemptive"] + spelling + [server.base + "/echo"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("GET /echo HTTP/1.1\r\n"))
            #expect(result.stdout.contains("\r\nAuthorization: Basic YWxpY2U6cHc=\r\n"), "\(result.stdout)")
        }
    }
}
