import Foundation
import HTTPTypes
import RemoteAuth
import Testing

@testable import RemoteAuthSandbox

/// The sandbox's state across restarts (`--state`) and its bounded tables.
@Suite("Sandbox state: OAuth 2 tokens kept across restarts, every table bounded")
struct SandboxStateTests {
    typealias W = OAuth2Wire
    static let service = (id: "demo-service", secret: "demo-service-secret")

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-state-\(UUID().uuidString).json").path
    }

    @Test("OAuth 2 codes, access and refresh tokens and their rotation survive a restart; the file stays 0600")
    func oauth2StateSurvivesRestarts() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = SandboxConfiguration.demo()
        configuration.statePath = path

        // First run: tokens from a code flow, one rotation, and a code not yet exchanged.
        let pkce = W.pkce()
        let (refresh1, refresh2, access2, code) = try await Sandbox.withSandbox(configuration) { sandbox in
            let first = try await W.codeFlow(sandbox.baseURL)
            let refresh1 = try #require(first["refresh_token"] as? String)
            let rotated = try await W.token(
                sandbox.baseURL,
                [("grant_type", "refresh_token"), ("refresh_token", refresh1), ("client_id", "demo-app")]
            )
            #expect(rotated.status == 200, "\(rotated.body)")
            let refresh2 = try #require(W.json(rotated)["refresh_token"] as? String)
            let access2 = try #require(W.json(rotated)["access_token"] as? String)
            let answer = try await W.consent(W.authorizeURL(sandbox.baseURL, challenge: pkce.challenge))
            let code = try #require(queryParameters(answer.header("Location") ?? "")["code"])
            return (refresh1, refresh2, access2, code)
        }
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        let saved = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        )
        let oauth2 = try #require(saved["oauth2"] as? [String: Any])
        #expect(Set(oauth2.keys) == ["codes", "accessTokens", "refreshTokens"])
        #expect((oauth2["refreshTokens"] as? [String: Any])?.count == 2)

        // Second run: the access token works, the code is exchanged, the rotated refresh token
        // is still known as rotated: presenting it revokes the family.
        try await Sandbox.withSandbox(configuration) { sandbox in
            let base = sandbox.baseURL
            #expect(try await W.bearer(base + "/1.1/statuses/home_timeline.json", access2).status == 200)
            let exchanged = try await W.token(
                base,
                [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", W.loopbackRedirect),
                    ("client_id", "demo-app"), ("code_verifier", pkce.verifier),
                ]
            )
            #expect(exchanged.status == 200, "\(exchanged.body)")
            let reuse = try await W.token(
                base,
                [("grant_type", "refresh_token"), ("refresh_token", refresh1), ("client_id", "demo-app")]
            )
            #expect(reuse.status == 400)
            #expect(W.json(reuse)["error"] as? String == "invalid_grant")
            #expect(try await W.bearer(base + "/1.1/statuses/home_timeline.json", access2).status == 401)
        }

        // Third run: the revocation was kept too.
        try await Sandbox.withSandbox(configuration) { sandbox in
            let after = try await W.token(
                sandbox.baseURL,
                [("grant_type", "refresh_token"), ("refresh_token", refresh2), ("client_id", "demo-app")]
            )
            #expect(W.json(after)["error"] as? String == "invalid_grant")
            #expect(try await W.bearer(sandbox.baseURL + "/1.1/statuses/home_timeline.json", access2).status == 401)
        }
    }

    @Test("a state file written before OAuth 2 state was kept is read, and gains an oauth2 member")
    func stateFileWithoutOAuth2() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(#"{"accessTokens":{},"nextStatusID":7,"requestTokens":{},"statuses":[]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        var configuration = SandboxConfiguration.demo()
        configuration.statePath = path
        try await Sandbox.withSandbox(configuration) { sandbox in
            let tokens = try await W.codeFlow(sandbox.baseURL)
            #expect(tokens["access_token"] is String)
        }
        let saved = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        )
        #expect(saved["nextStatusID"] as? Int == 7)
        #expect(((saved["oauth2"] as? [String: Any])?["accessTokens"] as? [String: Any])?.count == 1)
    }

    @Test("revoking a token nobody holds, or another client's, leaves the state file and its log alone; a real revocation writes")
    func revocationWritesOnlyOnChange() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = SandboxConfiguration.demo()
        configuration.statePath = path
        // A write appends to the log beside the file, or folds the log into a new file renamed
        // into place. A hard link keeps the file as it was (and its inode from being reused), so
        // the path and the link name one file, and the log keeps its length, until a write.
        let held = path + ".held"
        defer { try? FileManager.default.removeItem(atPath: held) }
        let heldLog = Locked<Int?>(nil)
        @Sendable func logLength() throws -> Int? {
            (try FileManager.default.attributesOfItem(atPath: path + ".log")[.size] as? NSNumber)?.intValue
        }
        @Sendable func unchanged() throws -> Bool {
            let inode = { (path: String) throws -> Int? in
                (try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.intValue
            }
            return try inode(path) == inode(held) && logLength() == heldLog.withLock { $0 }
        }
        try await Sandbox.withSandbox(configuration) { sandbox in
            let base = sandbox.baseURL
            let access = try #require(try await W.codeFlow(base)["access_token"] as? String)
            try FileManager.default.linkItem(atPath: path, toPath: held)
            let length = try logLength()
            heldLog.withLock { $0 = length }
            let unknown = try await W.token(base, [("token", "nonsense"), ("client_id", "demo-app")], endpoint: "/oauth2/revoke")
            #expect(unknown.status == 200)
            let foreign = try await W.token(base, [("token", access)], basic: Self.service, endpoint: "/oauth2/revoke")
            #expect(foreign.status == 200)
            #expect(try unchanged())
            #expect(try await W.bearer(base + "/1.1/statuses/home_timeline.json", access).status == 200)
            let own = try await W.token(base, [("token", access), ("client_id", "demo-app")], endpoint: "/oauth2/revoke")
            #expect(own.status == 200)
            #expect(try !unchanged())
            #expect(try await W.bearer(base + "/1.1/statuses/home_timeline.json", access).status == 401)
        }
    }

    @Test("a state file that is not the sandbox's is refused at start, naming the file")
    func unreadableStateFile() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("[1,2".utf8).write(to: URL(fileURLWithPath: path))
        var configuration = SandboxConfiguration.demo()
        configuration.statePath = path
        let error = await #expect(throws: SandboxError.self) {
            try await Sandbox.withSandbox(configuration) { _ in }
        }
        #expect(error?.reason == "the state file '\(path)' cannot be read: it is not the sandbox's state JSON")
    }

    @Test("tableCapacity bounds the access tokens: the oldest go first, the newest still work")
    func accessTokensBounded() async throws {
        var configuration = SandboxConfiguration.demo()
        configuration.tableCapacity = 5
        try await Sandbox.withSandbox(configuration) { sandbox in
            var tokens: [String] = []
            for _ in 0..<8 {
                let answer = try await W.token(
                    sandbox.baseURL,
                    [("grant_type", "client_credentials"), ("scope", "statuses:read")],
                    basic: Self.service
                )
                #expect(answer.status == 200, "\(answer.body)")
                tokens.append(try #require(W.json(answer)["access_token"] as? String))
            }
            var statuses: [Int] = []
            for token in tokens {
                statuses.append(try await W.bearer(sandbox.baseURL + "/1.1/statuses/home_timeline.json", token).status)
            }
            #expect(statuses == [401, 401, 401, 200, 200, 200, 200, 200])
            // The seeded OAuth 1.0a token is not in a bounded table: it still works.
            let me = try await OAuthClient(
                client: .init(key: "demo-device", secret: "demo-device-secret"),
                token: .init(token: "alice-device-token", secret: "alice-device-token-secret")
            ).send(
                .get,
                sandbox.baseURL + "/1.1/account/verify_credentials.json"
            )
            #expect(me.status == 200)
        }
    }

    @Test("BoundedTable: a million inserts keep at most capacity entries, the newest; removals are compacted")
    func boundedTable() {
        var table = BoundedTable<Int>(capacity: 1000)
        for index in 0..<1_000_000 {
            table["k\(index)"] = index
            // Every third entry is removed again (a revoked token), the rest age out.
            if index % 3 == 1 { table.remove("k\(index)") }
            #expect(table.count <= 1000)
        }
        #expect(table.count == 1000)
        #expect(table["k999999"] == 999_999)
        #expect(table["k0"] == nil)
        #expect(table["k998000"] == nil)
        // The newest 1,000 kept are those not removed: 1,500 indexes back at most.
        #expect(table.entries.values.min()! > 1_000_000 - 1_501)
        // Updating a present key neither adds an entry nor evicts one.
        table["k999999"] = -1
        #expect(table.count == 1000)
        #expect(table["k999998"] == 999_998)
        table.removeAll { $0 < 0 }
        #expect(table["k999999"] == nil)
        #expect(table.count == 999)
    }

    @Test("BoundedTable read back from a file keeps the newest by age when there are too many")
    func boundedTableFromFile() {
        let entries = Dictionary(uniqueKeysWithValues: (0..<10).map { ("k\($0)", Int64($0)) })
        let table = BoundedTable(capacity: 4, entries: entries) { $0 }
        #expect(Set(table.entries.keys) == ["k6", "k7", "k8", "k9"])
    }
}
