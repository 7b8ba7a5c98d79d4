import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// Runs the built `remote-auth` and returns its exit status, stdout and stderr.
struct CLIResult {
    let status: Int32
    let stdout: String
    let stderr: String
}

enum CLI {
    struct Missing: Error, CustomStringConvertible { let description: String }

    /// The environment the tool runs in: this one, profiles in the file (`REMOTE_AUTH_STORE=file`)
    /// unless a test says otherwise, so that no test depends on a desktop keyring of the machine.
    static let environment = ProcessInfo.processInfo.environment.merging(["REMOTE_AUTH_STORE": "file"]) { $1 }

    /// How long a wait for a process's output (a banner, a prompt) may take before it counts as
    /// a hang. Not a speed bound: the waits end as soon as the output is there or the process has
    /// exited, so a slow start on a loaded machine or under a sanitizer is waited for.
    static let hangGuard: Duration = .seconds(300)
    /// `hangGuard` in whole seconds, for the tool's own `--timeout` where a test does not test
    /// it: `authorize` waits that long for the browser, whom the test plays when it gets there.
    static let hangGuardSeconds = "300"

    /// An HTTP client for the test's own exchanges with a sandbox or the tool: redirects not
    /// followed, a failed connection failed at once (not retried), and only a hang cut
    /// (`hangGuard`), since what these exchanges tell apart is "answered" from "hung".
    static func httpClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = hangGuardAmount
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// `hangGuard` as SwiftNIO's `TimeAmount`.
    static let hangGuardAmount: TimeAmount = .seconds(300)

    /// The `remote-auth` binary beside the test bundle (`.build/<triple>/debug/`).
    static func binary() throws -> URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("remote-auth")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        throw Missing(description: "remote-auth was not built next to \(CommandLine.arguments[0])")
    }

    /// Runs `remote-auth` and waits for it without holding a thread: for async tests, where a
    /// blocking wait would take one of the cooperative pool's few threads (two on a two-core
    /// machine) while an in-process server may need it.
    static func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        stdin: String? = nil
    ) async throws -> CLIResult {
        let prepared = try Prepared(arguments, environment: environment, stdin: stdin)
        defer { prepared.remove() }
        try await launchAndWait(prepared.process)
        return try prepared.result()
    }

    /// Starts `process` and resumes when it has exited; the wait is a termination handler, so no
    /// thread blocks.
    static func launchAndWait(_ process: Process) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
    }

    /// Waits for a process started elsewhere (and perhaps signalled) to exit, polling rather than
    /// blocking a cooperative thread in `waitUntilExit()`.
    static func exited(_ process: Process) async {
        while process.isRunning {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// A process set up to run `remote-auth`, with stdout, stderr and stdin in scratch files.
    private struct Prepared {
        let process = Process()
        let scratch: URL
        let paths: [String]
        let handles: [FileHandle]

        init(_ arguments: [String], environment: [String: String], stdin: String?) throws {
            process.executableURL = try binary()
            process.arguments = arguments
            var env = CLI.environment
            for (key, value) in environment { env[key] = value }
            process.environment = env
            // Files rather than pipes: reading a pipe from Foundation on Linux can die on EINTR
            // while other test processes come and go.
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
                "remote-auth-cli-\(UUID().uuidString)"
            )
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            self.scratch = scratch
            let paths = ["out", "err", "in"].map { scratch.appendingPathComponent($0).path }
            self.paths = paths
            for (index, path) in paths.enumerated() {
                _ = FileManager.default.createFile(
                    atPath: path,
                    contents: index == 2 ? Data((stdin ?? "").utf8) : Data()
                )
            }
            handles = [
                try FileHandle(forWritingTo: URL(fileURLWithPath: paths[0])),
                try FileHandle(forWritingTo: URL(fileURLWithPath: paths[1])),
                try FileHandle(forReadingFrom: URL(fileURLWithPath: paths[2])),
            ]
            process.standardOutput = handles[0]
            process.standardError = handles[1]
            process.standardInput = handles[2]
        }

        func result() throws -> CLIResult {
            for handle in handles { try handle.close() }
            return CLIResult(
                status: process.terminationStatus,
                stdout: String(decoding: try Data(contentsOf: URL(fileURLWithPath: paths[0])), as: UTF8.self),
                stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: paths[1])), as: UTF8.self)
            )
        }

        func remove() {
            try? FileManager.default.removeItem(at: scratch)
        }
    }

    /// A temporary file holding `contents`.
    static func temporaryFile(_ contents: String, name: String = UUID().uuidString) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("remote-auth-test-\(name)").path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

let twitterArguments = [
    "sign", "oauth1", "POST", "https://api.twitter.com/1.1/statuses/update.json?include_entities=true",
    "--consumer-key", "xvz1evFS4wEEPTGEFPHBog", "--consumer-secret", "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw",
    "--token", "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
    "--token-secret", "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE",
    "--nonce", "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", "--timestamp", "1318622958",
    "-d", "status=Hello Ladies + Gentlemen, a signed OAuth request!",
]

@Suite(.timeLimit(.minutes(5))) struct SignOAuth1CLITests {
    /// The Twitter documentation's header, byte for byte.
    @Test func twitterHeader() async throws {
        let result = try await CLI.run(twitterArguments)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout
                == "OAuth oauth_consumer_key=\"xvz1evFS4wEEPTGEFPHBog\", oauth_nonce=\"kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg\", oauth_signature=\"hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D\", oauth_signature_method=\"HMAC-SHA1\", oauth_timestamp=\"1318622958\", oauth_token=\"370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb\", oauth_version=\"1.0\"\n"
        )
    }

    @Test func printChoices() async throws {
        #expect(try await CLI.run(twitterArguments + ["--print", "signature"]).stdout == "hCtSmYh+iHYCEqBWrE7C7hYmtUk=\n")
        #expect(
            try await CLI.run(twitterArguments + ["--print", "base-string"]).stdout
                == "POST&https%3A%2F%2Fapi.twitter.com%2F1.1%2Fstatuses%2Fupdate.json&include_entities%3Dtrue%26oauth_consumer_key%3Dxvz1evFS4wEEPTGEFPHBog%26oauth_nonce%3DkYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1318622958%26oauth_token%3D370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb%26oauth_version%3D1.0%26status%3DHello%2520Ladies%2520%252B%2520Gentlemen%252C%2520a%2520signed%2520OAuth%2520request%2521\n"
        )
        #expect(
            try await CLI.run(twitterArguments + ["--print", "url", "--placement", "query"]).stdout
                == "https://api.twitter.com/1.1/statuses/update.json?include_entities=true&oauth_consumer_key=xvz1evFS4wEEPTGEFPHBog&oauth_nonce=kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg&oauth_signature=hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D&oauth_signature_method=HMAC-SHA1&oauth_timestamp=1318622958&oauth_token=370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb&oauth_version=1.0\n"
        )
        #expect(
            try await CLI.run(twitterArguments + ["--print", "url"]).stdout
                == "https://api.twitter.com/1.1/statuses/update.json?include_entities=true\n"
        )
    }

    /// Secrets from the environment sign the same.
    @Test func secretsFromEnvironment() async throws {
        var arguments = twitterArguments
        for option in ["--consumer-secret", "--token-secret"] {
            let index = arguments.firstIndex(of: option)!
            arguments.removeSubrange(index...(index + 1))
        }
        let result = try await CLI.run(
            arguments + ["--print", "signature"],
            environment: [
                "REMOTE_AUTH_CONSUMER_SECRET": "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw",
                "REMOTE_AUTH_TOKEN_SECRET": "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE",
            ]
        )
        #expect(result.stdout == "hCtSmYh+iHYCEqBWrE7C7hYmtUk=\n")
    }

    /// RFC 5849 §1.2's temporary-credential request, with realm, callback and no version.
    @Test func rfcInitiateRequest() async throws {
        let result = try await CLI.run([
            "sign", "oauth1", "POST", "https://photos.example.net/initiate", "--consumer-key", "dpf43f3p2l4k3l03",
            "--consumer-secret", "kd94hf93k423kf44", "--nonce", "wIjqoS", "--timestamp", "137131200", "--realm",
            "Photos",
            "--callback", "http://printer.example.com/ready", "--omit-version",
        ])
        #expect(
            result.stdout
                == "OAuth realm=\"Photos\", oauth_callback=\"http%3A%2F%2Fprinter.example.com%2Fready\", oauth_consumer_key=\"dpf43f3p2l4k3l03\", oauth_nonce=\"wIjqoS\", oauth_signature=\"74KNZJeDHnMBp0EMJ9ZHt%2FXKycU%3D\", oauth_signature_method=\"HMAC-SHA1\", oauth_timestamp=\"137131200\"\n"
        )
    }

    @Test func plaintextAndRSA() async throws {
        let plaintext = try await CLI.run([
            "sign", "oauth1", "POST", "https://server.example.com/request_temp_credentials", "--consumer-key",
            "jd83jd92dhsh93js",
            "--consumer-secret", "ja893SD9", "--signature-method", "PLAINTEXT", "--print", "signature",
        ])
        #expect(plaintext.stdout == "ja893SD9&\n")
        let noBase = try await CLI.run([
            "sign", "oauth1", "GET", "https://example.com/", "--consumer-key", "k", "--consumer-secret", "s",
            "--signature-method", "PLAINTEXT", "--print", "base-string",
        ])
        #expect(noBase.status == 2)
        #expect(noBase.stdout == "")
        #expect(noBase.stderr.hasPrefix("remote-auth: no base string"))

        // The oauth.net test key and case (see Tests/Vectors/SOURCES.md).
        let vectors =
            try JSONSerialization.jsonObject(with: Data(contentsOf: try vectorsURL("oauth1_signing.json")))
            as! [[String: Any]]
        let rsa = vectors.first { $0["name"] as? String == "oauth_net_testcases_rsa_sha1" }!
        let keyFile = try CLI.temporaryFile(rsa["rsa_private_key_pem"] as! String)
        let result = try await CLI.run([
            "sign", "oauth1", "GET", rsa["url"] as! String, "--consumer-key", rsa["consumer_key"] as! String,
            "--nonce", rsa["nonce"] as! String, "--timestamp", rsa["timestamp"] as! String,
            "--signature-method", "RSA-SHA1", "--private-key", keyFile, "--print", "signature",
        ])
        #expect(result.stderr == "")
        #expect(result.stdout == (rsa["expected_signature"] as! String) + "\n")
    }

    /// Bad input: exit status 2, nothing on stdout, a first stderr line naming the problem, and
    /// no secret anywhere in the output.
    @Test(arguments: [
        (["--signature-method", "HMAC-MD5"], "remote-auth: unknown signature method"),
        (["--signature-method", "RSA-SHA1"], "remote-auth: missing private key"),
        (["--signature-method", "RSA-SHA1", "--private-key", "/nonexistent/key.pem"], "remote-auth: unreadable key"),
        (["--token", "t"], "remote-auth: missing secret"),
        (["-d", "novalue"], "remote-auth: invalid -d"),
        (["--placement", "sideways"], "remote-auth: "),
    ])
    func badInput(extra: [String], prefix: String) async throws {
        let result = try await CLI.run(
            [
                "sign", "oauth1", "GET", "https://example.com/", "--consumer-key", "k", "--consumer-secret",
                "sekrit-value",
            ] + extra
        )
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix(prefix), "\(result.stderr)")
        #expect(!result.stderr.contains("sekrit-value"))
    }

    @Test func badKeyFileAndMissingSecret() async throws {
        let keyFile = try CLI.temporaryFile("not a key")
        let result = try await CLI.run([
            "sign", "oauth1", "GET", "https://example.com/", "--consumer-key", "k", "--signature-method", "RSA-SHA1",
            "--private-key", keyFile,
        ])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("remote-auth: unreadable key"))
        let missing = try await CLI.run(["sign", "oauth1", "GET", "https://example.com/", "--consumer-key", "k"])
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("remote-auth: missing secret"))
        let badURL = try await CLI.run([
            "sign", "oauth1", "GET", "example.com/", "--consumer-key", "k", "--consumer-secret", "s",
        ])
        #expect(badURL.status == 2)
        #expect(badURL.stderr.hasPrefix("remote-auth: invalid URL"))
    }
}

/// `Tests/Vectors/NAME` under the package root; throws when it is missing.
func vectorsURL(_ name: String, file: String = #filePath) throws -> URL {
    var dir = URL(fileURLWithPath: file).deletingLastPathComponent()
    while dir.path != "/" {
        if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
            let url = dir.appendingPathComponent("Tests/Vectors/\(name)")
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw CLI.Missing(description: "vector file \(url.path) is missing")
            }
            return url
        }
        dir = dir.deletingLastPathComponent()
    }
    throw CLI.Missing(description: "no Package.swift above \(file)")
}
