import Foundation
import HTTPTypes
import RemoteAuth
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Tokens shared by processes: `remote-auth request --profile` processes started at once with
/// an expired token refresh it once (the file store's lock), against the sandbox's rotating
/// refresh tokens with reuse detection; `kill -9` in the middle of a write never leaves a torn
/// token file.
@Suite(.timeLimit(.minutes(5)), .serialized) struct SharedTokenCLITests {
    /// Signs in with the code flow and PKCE through the loopback (the sandbox approves at once).
    static func signIn(profile: String, base: String, environment: [String: String]) async throws {
        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--profile", profile, "--issuer", base, "--client-id", "demo-app",
                "--scope", "statuses:read", "--no-browser", "--timeout", CLI.hangGuardSeconds,
            ],
            environment: environment
        )
        try await authorize.waitForError("Waiting for the browser")
        let url = try #require(authorize.line(startingWith: base + "/oauth2/authorize?"), "\(authorize.errors)")
        let redirect = try await httpGetLocation(url)
        _ = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: redirect))
        let signedIn = await authorize.finish()
        try #require(signedIn.status == 0, "\(signedIn.stderr)")
    }

    /// The sandbox's log lines so far.
    static func log(_ sandbox: SandboxProcess) throws -> [String] {
        String(decoding: try Data(contentsOf: sandbox.output), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Seconds since 1970, with the fraction.
    static func now() -> Double { Date().timeIntervalSince1970 }

    /// 4 processes × 50 concurrent requests, in 3 rounds, each started once the access token is
    /// due for renewal: every request succeeds, no refresh token is presented twice (the sandbox
    /// would revoke the family), and there is one refresh per expiry: at least one per round, and
    /// at most one per second boundary the rounds crossed (a token is due at a whole second, so
    /// no more can fall due). The tokens live an hour and three seconds at the sandbox, and the
    /// processes renew them an hour early (`--expiry-skew 3600`): due after 3 s for the clients,
    /// while a renewed token is never refused on its way to the server, however long a round
    /// takes (under ThreadSanitizer, 3-second tokens expired in flight).
    @Test func fourProcessesOfFiftyRequestsRefreshOncePerExpiry() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        try await Self.fourProcessesOfFiftyRequests(profile: "shared", environment: ["REMOTE_AUTH_HOME": home])
    }

    /// The test above with `environment` (the file store, or the keyring: `KeyringCLITests`):
    /// signs in as `profile`, then the rounds; `checkStore` runs after the sign-in; `store`
    /// names the store in the line printed.
    static func fourProcessesOfFiftyRequests(
        profile: String,
        environment: [String: String],
        store: String = "file",
        checkStore: () async throws -> Void = {}
    ) async throws {
        // `ttl`: how long a token lasts for the processes, `skew` seconds short of its life.
        let ttl = 3.0
        let skew = 3600
        let sandbox = try SandboxProcess(["--auto-approve", "--access-token-ttl", String(Int(ttl) + skew)])
        let base = try await sandbox.baseURL()
        try await Self.signIn(profile: profile, base: base, environment: environment)
        try await checkStore()
        let tokenLine = "POST /oauth2/token 200"
        let resourceLine = "GET /1.1/account/verify_credentials.json 200"
        let signInTokens = try Self.log(sandbox).filter { $0 == tokenLine }.count
        #expect(signInTokens == 1)

        let rounds = 3
        var seconds = Set<Int64>()
        var durations: [Double] = []
        for _ in 0..<rounds {
            // Past `ttl` whole seconds from this one: every token issued so far is due.
            let wait = floor(Self.now()) + ttl + 0.05 - Self.now()
            try await Task.sleep(for: .milliseconds(Int(wait * 1_000)))
            let start = Self.now()
            let results = try await withThrowingTaskGroup(of: CLIResult.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await CLI.run(
                            [
                                "request", "--profile", profile, "--expiry-skew", String(skew), "--parallel", "50",
                                base + "/1.1/account/verify_credentials.json",
                            ],
                            environment: environment
                        )
                    }
                }
                return try await group.reduce(into: [CLIResult]()) { $0.append($1) }
            }
            let end = Self.now()
            durations.append(end - start)
            for second in Int64(floor(start))...Int64(floor(end)) { seconds.insert(second) }
            for result in results {
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stdout.hasPrefix("{\"id\":"), "\(result.stdout)")
            }
        }
        // The log line of the last answer may follow it by a moment.
        var log = try Self.log(sandbox)
        for _ in 0..<50 where log.filter({ $0 == resourceLine }).count < rounds * 200 {
            try await Task.sleep(for: .milliseconds(20))
            log = try Self.log(sandbox)
        }
        #expect(log.filter { $0 == resourceLine }.count == rounds * 200)
        let refreshes = log.filter { $0 == tokenLine }.count - signInTokens
        let refused = log.filter { $0.hasPrefix("POST /oauth2/token 4") }
        #expect(refused == [])
        #expect(refreshes >= rounds && refreshes <= seconds.count, "\(refreshes) refreshes, \(seconds.count) seconds")
        let retried = log.filter { $0.hasPrefix("GET /1.1/account/verify_credentials.json 401") }.count
        print(
            "shared-token (\(store) store): \(rounds) rounds of 4 processes x 50 requests: \(refreshes) refreshes for \(seconds.count) second boundaries, \(retried) requests retried after invalid_token, rounds took \(durations.map { String(format: "%.2f s", $0) }.joined(separator: ", "))"
        )
    }

    /// `--expiry-skew` is for OAuth 2 profiles, and is 0 or more seconds.
    @Test func expirySkewNeedsAnOAuth2ProfileAndNoNegative() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let withoutProfile = try await CLI.run(
            ["request", "--expiry-skew", "5", "http://127.0.0.1:1/"],
            environment: ["REMOTE_AUTH_HOME": home]
        )
        #expect(withoutProfile.status == 2)
        #expect(withoutProfile.stdout == "")
        #expect(withoutProfile.stderr == "remote-auth: --expiry-skew needs an OAuth 2 --profile\n")
        let negative = try await CLI.run(
            ["request", "--expiry-skew=-1", "http://127.0.0.1:1/"],
            environment: ["REMOTE_AUTH_HOME": home]
        )
        #expect(negative.status == 2)
        #expect(negative.stderr == "remote-auth: --expiry-skew must be 0 or more seconds, not -1\n")
    }

    /// Writers rewriting one token file as fast as they can (each holding the lock), killed with
    /// SIGKILL at random moments, again and again: after every kill the file opens whole, every
    /// writer's counter is there and never went back, and a reader meanwhile never saw a torn
    /// or empty file.
    @Test func killDuringWritesNeverLeavesATornFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "remote-auth-kill-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("tokens.json").path
        let accounts = ["w0", "w1", "w2"]
        var last: [String: Int] = [:]
        var reads = 0
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let writers = try accounts.map { account in
                let process = Process()
                process.executableURL = try CLI.binary()
                process.arguments = ["store-writer", "--path", path, "--account", account]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                return process
            }
            // Read while they write: once every writer has written in this round, kill each at
            // its own random moment within the next 100 ms.
            var killAt: [Double]? = nil
            let giveUp = Self.now() + 10
            while writers.contains(where: \.isRunning), Self.now() < giveUp {
                if let data = FileManager.default.contents(atPath: path) {
                    #expect(!data.isEmpty)
                    let counters = try FileTokenStoreReading.counters(data)
                    reads += 1
                    if killAt == nil, accounts.allSatisfy({ counters[$0, default: 0] > last[$0, default: 0] }) {
                        killAt = accounts.map { _ in Self.now() + Double.random(in: 0...0.1, using: &generator) }
                    }
                }
                if let killAt {
                    for (writer, moment) in zip(writers, killAt) where writer.isRunning && Self.now() >= moment {
                        kill(writer.processIdentifier, SIGKILL)
                    }
                }
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...5, using: &generator)))
            }
            #expect(killAt != nil, "the writers did not all write within 10 s")
            for writer in writers where writer.isRunning { kill(writer.processIdentifier, SIGKILL) }
            for writer in writers { await CLI.exited(writer) }
            for writer in writers { #expect(writer.terminationReason == .uncaughtSignal) }
            let data = try #require(FileManager.default.contents(atPath: path))
            let counters = try FileTokenStoreReading.counters(data)
            for (account, count) in counters {
                #expect(count >= last[account, default: 0], "\(account) went back")
            }
            last = counters
            // The store opens it as a user's next command would.
            let check = try await CLI.run(["profiles", "list"], environment: ["REMOTE_AUTH_HOME": folder.path])
            #expect(check.status == 0, "\(check.stderr)")
        }
        #expect(Set(last.keys) == Set(accounts))
        #expect(last.values.reduce(0, +) > 0)
        // A writer killed between creating its temporary file and the rename leaves it behind;
        // the next write removes such files (it holds the lock, so no live writer owns one):
        // only the last round's can be left.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.count <= accounts.count, "\(leftovers)")
        print(
            "kill-9: 20 rounds of 3 writers killed at random: \(last.values.reduce(0, +)) writes kept, \(reads) reads whole, \(leftovers.count) temporary files left by killed writers"
        )
    }
}

/// The counters the `store-writer`s keep, read from the file's JSON as any reader would.
enum FileTokenStoreReading {
    struct Entry: Decodable {
        struct Key: Decodable { let account: String }
        let key: Key
        let session: StoredSession
    }

    static func counters(_ data: Data) throws -> [String: Int] {
        var counters: [String: Int] = [:]
        for entry in try JSONDecoder().decode([Entry].self, from: data) {
            counters[entry.key.account] = Int(entry.session.oauth2?.tokens.accessToken.reveal() ?? "") ?? -1
        }
        return counters
    }
}
