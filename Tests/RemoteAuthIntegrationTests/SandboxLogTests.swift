import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthSandbox
import Testing

/// The request log (``SandboxConfiguration/requestLog``) and the start-up check of the state
/// file, over real sockets.
@Suite(.timeLimit(.minutes(5))) struct SandboxLogTests {
    final class Entries: Sendable {
        private let entries = Locked<[SandboxLogEntry]>([])
        func append(_ entry: SandboxLogEntry) { entries.withLock { $0.append(entry) } }
        var lines: [String] { entries.withLock { $0.map(\.description) } }
    }

    /// One line per request, with the `oauth_problem` or challenge outcome of each refusal and
    /// the path without its query.
    @Test func oneLinePerRequest() async throws {
        let entries = Entries()
        var configuration = SandboxConfiguration.demo()
        configuration.requestLog = { entries.append($0) }
        try await Sandbox.withSandbox(configuration) { sandbox in
            let base = sandbox.baseURL
            let alice = try BasicCredentials(user: "alice", password: "wonderland").authorization
            _ = try await Wire.get(base + "/basic/")
            _ = try await Wire.get(base + "/basic/", headers: [.authorization: alice])
            _ = try await Wire.get(
                base + "/basic/",
                headers: [.authorization: try BasicCredentials(user: "alice", password: "x").authorization]
            )
            _ = try await Wire.get(
                base + "/basic/",
                headers: [.authorization: try BasicCredentials(user: "bob", password: "x").authorization]
            )
            _ = try await Wire.get(base + "/digest/SHA-256/auth/")
            _ = try await Wire.get(base + "/digest/SHA-1/auth/")
            _ = try await Wire.get(base + "/1.1/account/verify_credentials.json?count=1")
            _ = try await OAuthClient(client: .init(key: "demo-consumer", secret: "wrong")).send(
                .post,
                base + "/oauth/request_token",
                options: .init(callback: "oob")
            )
            _ = try await Wire.get(base + "/oauth/authorize?oauth_token=nope")
            _ = try await Wire.get(base + "/redirect?to=http%3A%2F%2F127.0.0.2%2F&status=307")
            _ = try await Wire.get(base + "/nowhere")
        }
        #expect(
            entries.lines == [
                "GET /basic/ 401 Basic challenge: no credentials",
                "GET /basic/ 200",
                "GET /basic/ 401 Basic challenge: wrong password for alice",
                "GET /basic/ 401 Basic challenge: unknown user",
                "GET /digest/SHA-256/auth/ 401 Digest challenge: no credentials",
                "GET /digest/SHA-1/auth/ 404 use /digest/{MD5|MD5-sess|SHA-256|SHA-256-sess|SHA-512-256|SHA-512-256-sess}/{auth|auth-int}/",
                "GET /1.1/account/verify_credentials.json 401 oauth_problem=parameter_absent: this endpoint needs a request signed with OAuth 1.0a",
                "POST /oauth/request_token 401 oauth_problem=signature_invalid: oauth_signature does not match the request",
                "GET /oauth/authorize 404 Unknown request token",
                "GET /redirect 307",
                "GET /nowhere 404",
            ]
        )
    }

    /// A Digest nonce that expired is logged as stale, and a right answer as a 200.
    @Test func digestOutcomes() async throws {
        let entries = Entries()
        let clock = TestClock()
        var configuration = SandboxConfiguration.demo()
        configuration.requestLog = { entries.append($0) }
        configuration.digestNonceLifetime = 60
        configuration.now = { clock.now() }
        try await Sandbox.withSandbox(configuration) { sandbox in
            let path = "/digest/MD5/auth/"
            let first = try await Wire.get(sandbox.baseURL + path)
            let challenge = try DigestChallenge(headerValue: try #require(first.header("WWW-Authenticate")))
            func answer(_ count: UInt32, password: String = "wonderland") throws -> HTTPFields {
                let response = try DigestResponse(
                    challenge: challenge,
                    credentials: DigestCredentials(username: "alice", password: password),
                    method: .get,
                    uri: path,
                    nonceCount: count,
                    cnonce: "c\(count)"
                )
                return [.authorization: response.authorization]
            }
            _ = try await Wire.get(sandbox.baseURL + path, headers: try answer(1))
            _ = try await Wire.get(sandbox.baseURL + path, headers: try answer(1))
            _ = try await Wire.get(sandbox.baseURL + path, headers: try answer(2, password: "x"))
            clock.advance(by: 61)
            _ = try await Wire.get(sandbox.baseURL + path, headers: try answer(3))
        }
        #expect(
            entries.lines == [
                "GET /digest/MD5/auth/ 401 Digest challenge: no credentials",
                "GET /digest/MD5/auth/ 200",
                "GET /digest/MD5/auth/ 401 Digest challenge: nonce count not above the last one",
                "GET /digest/MD5/auth/ 401 Digest challenge: wrong response for alice",
                "GET /digest/MD5/auth/ 401 Digest challenge: stale nonce, stale=true",
            ]
        )
    }

    /// Without `requestLog` nothing is logged (the in-process sandbox of `remote-auth demo` and
    /// the tests stays quiet): nothing to observe but that the default is `nil`.
    @Test func quietByDefault() {
        #expect(SandboxConfiguration.demo().requestLog == nil)
        #expect(SandboxConfiguration().requestLog == nil)
    }

    /// An entry stays on one line whatever an echoed parameter carries.
    @Test func controlCharactersAreEscaped() {
        let entry = SandboxLogEntry(
            method: .post,
            path: "/oauth/request_token",
            status: .unauthorized,
            outcome: "oauth_problem=timestamp_refused: oauth_timestamp '1\n2' is not a number"
        )
        #expect(
            entry.description
                == "POST /oauth/request_token 401 oauth_problem=timestamp_refused: oauth_timestamp '1\\u{a}2' is not a number"
        )
        #expect(SandboxLogEntry(method: .get, path: "/", status: .ok).description == "GET / 200")
    }

    /// A state file that cannot be written stops the sandbox before it listens, with the file
    /// and the system's reason.
    @Test func unwritableStateFailsAtStart() async throws {
        var configuration = SandboxConfiguration.demo()
        let directory = "/nonexistent-\(UUID().uuidString)"
        configuration.statePath = directory + "/state.json"
        let error = await #expect(throws: SandboxError.self) {
            try await Sandbox.withSandbox(configuration) { _ in Issue.record("the sandbox started") }
        }
        #expect(
            error?.reason == "cannot write the state file '\(directory)/state.json': No such file or directory"
        )
    }

    /// A writable state path is written at start, 0600, before any token exists.
    @Test func stateFileWrittenAtStart() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sandbox-start-\(UUID().uuidString).json"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = SandboxConfiguration.demo()
        configuration.statePath = path
        try await Sandbox.withSandbox(configuration) { _ in
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600)
        }
    }
}
