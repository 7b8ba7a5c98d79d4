import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import RemoteAuth
import Testing

/// The tool as a new user runs it: `remote-auth sandbox` in one process, `remote-auth authorize
/// oauth1 --no-browser` in another, the consent given over HTTP as a browser would, then
/// `remote-auth request --profile` and `remote-auth profiles`.
@Suite(.timeLimit(.minutes(5))) struct AuthorizeCLITests {
    @Test func demoPassesEveryStep() async throws {
        // --max-time: the hang guard, since this tells steps that pass from steps that fail, not
        // times (a loaded machine or ThreadSanitizer can take over 30 s for one request).
        let result = try await CLI.run(["demo", "--max-time", CLI.hangGuardSeconds])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.last == "demo: 19 passed, 0 failed")
        #expect(lines.filter { $0.hasPrefix("[") && $0.contains(": passed — ") }.count == 19)
    }

    @Test func authorizeThenRequestWithTheProfile() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(
            "remote-auth-home-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess([])
        let base = try await sandbox.baseURL()

        let output = FileManager.default.temporaryDirectory.appendingPathComponent("authorize-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        let authorize = Process()
        authorize.executableURL = try CLI.binary()
        authorize.arguments = [
            "authorize", "oauth1", "--profile", "sandbox", "--consumer-key", "demo-consumer",
            "--request-token-url", base + "/oauth/request_token", "--authorize-url", base + "/oauth/authorize",
            "--access-token-url", base + "/oauth/access_token", "--no-browser", "--timeout", CLI.hangGuardSeconds,
        ]
        authorize.environment = CLI.environment.merging(
            ["REMOTE_AUTH_HOME": home, "REMOTE_AUTH_CONSUMER_SECRET": "demo-consumer-secret"]) { $1 }
        authorize.standardOutput = handle
        authorize.standardError = handle
        try authorize.run()
        defer { if authorize.isRunning { authorize.terminate() } }

        // The URL it prints, then the browser's part over HTTP.
        var text = ""
        let clock = ContinuousClock()
        let deadline = clock.now + CLI.hangGuard
        while !text.contains("Waiting for the browser"), authorize.isRunning, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            text = String(decoding: try Data(contentsOf: output), as: UTF8.self)
        }
        // As for OAuth 2: what to do on stderr, the URL alone on a line of stdout.
        #expect(text.contains("Open this URL in a browser:\n"))
        let url = try #require(text.split(separator: "\n").first { $0.hasPrefix(base + "/oauth/authorize?") }.map(String.init))
        #expect(url.hasPrefix(base + "/oauth/authorize?oauth_token=rt-"))
        let token = String(url[url.range(of: "oauth_token=")!.upperBound...])
        let page = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: url))
        let csrfStart = try #require(page.1.range(of: "name=\"authenticity_token\" value=\""))
        let csrf = String(page.1[csrfStart.upperBound...].prefix { $0 != "\"" })
        var form = try HTTPRequest(method: .post, absoluteURL: base + "/oauth/authorize")
        form.headerFields[.contentType] = "application/x-www-form-urlencoded"
        let formBody =
            "oauth_token=\(token)&authenticity_token=\(csrf)&username=alice&password=wonderland&action=authorize"
        let redirect = try await httpRedirect(form, body: Array(formBody.utf8))
        #expect(redirect.hasPrefix("http://127.0.0.1:"))
        let landing = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: redirect))
        #expect(landing.0 == 200)
        await CLI.exited(authorize)
        try handle.close()
        text = String(decoding: try Data(contentsOf: output), as: UTF8.self)
        #expect(authorize.terminationStatus == 0, "\(text)")
        #expect(text.contains("Signed in as alice; saved as profile 'sandbox'."))
        let mode =
            try FileManager.default.attributesOfItem(atPath: home + "/tokens.json")[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)

        let environment = ["REMOTE_AUTH_HOME": home]
        let posted = try await CLI.run(
            [
                // curl's way to send text as a form field: -d would send it as it is, and its
                // '+' and '%' would not survive form decoding.
                "request", "--profile", "sandbox", "--data-urlencode", "status=From the tool + 100% ü",
                base + "/1.1/statuses/update.json",
            ],
            environment: environment
        )
        #expect(posted.status == 0, "\(posted.stderr)")
        #expect(posted.stdout.contains("\"text\":\"From the tool + 100% ü\""))
        let timeline = try await CLI.run(
            ["request", "--profile", "sandbox", base + "/1.1/statuses/home_timeline.json"],
            environment: environment
        )
        #expect(timeline.stdout.contains("From the tool + 100% ü"))
        // -v shows the OAuth parameters that identify, hides those that prove (RFC 5849 §3.5.1).
        let verbose = try await CLI.run(
            ["request", "-v", "--profile", "sandbox", base + "/1.1/statuses/home_timeline.json?count=1"],
            environment: environment
        )
        #expect(verbose.status == 0)
        let authorization = try #require(
            verbose.stderr.split(separator: "\n").first { $0.hasPrefix("> Authorization: OAuth ") }
        )
        let parameters = authorization.dropFirst("> Authorization: OAuth ".count).components(separatedBy: ", ")
        #expect(parameters.count == 7, "\(authorization)")
        #expect(parameters.contains("oauth_consumer_key=\"demo-consumer\""))
        #expect(parameters.contains("oauth_signature_method=\"HMAC-SHA1\""))
        #expect(parameters.contains("oauth_version=\"1.0\""))
        #expect(parameters.contains("oauth_signature=\"<redacted>\""))
        #expect(parameters.contains("oauth_token=\"<redacted>\""))
        #expect(parameters.contains { $0.hasPrefix("oauth_nonce=\"") && $0 != "oauth_nonce=\"<redacted>\"" })
        #expect(parameters.contains { $0.hasPrefix("oauth_timestamp=\"") && $0 != "oauth_timestamp=\"<redacted>\"" })
        #expect(verbose.stderr.contains("> GET /1.1/statuses/home_timeline.json?count=1 HTTP/1.1\n"))
        #expect(verbose.stderr.contains("\n< HTTP/1.1 200 OK\n"))

        let inQuery = try await CLI.run(
            [
                "request", "-v", "--profile", "sandbox", "--placement", "query",
                base + "/1.1/statuses/home_timeline.json",
            ],
            environment: environment
        )
        #expect(inQuery.status == 0, "\(inQuery.stderr)")
        let requestLine = try #require(inQuery.stderr.split(separator: "\n").first { $0.hasPrefix("> GET ") })
        #expect(requestLine.contains("oauth_consumer_key=demo-consumer"), "\(requestLine)")
        #expect(requestLine.contains("oauth_signature_method=HMAC-SHA1"), "\(requestLine)")
        #expect(requestLine.contains("oauth_signature=<redacted>"), "\(requestLine)")
        #expect(requestLine.contains("oauth_token=<redacted>"), "\(requestLine)")

        let raw = try await CLI.run(
            ["request", "--profile", "sandbox", "-d", "status=100% ü", base + "/1.1/statuses/update.json"],
            environment: environment
        )
        #expect(raw.status == 2)
        #expect(raw.stdout == "")
        #expect(
            raw.stderr
                == "remote-auth: the form body cannot be signed: a '%' is not followed by two hexadecimal digits; -d sends its text as it is, --data-urlencode NAME=TEXT percent-encodes TEXT\n"
        )

        let list = try await CLI.run(["profiles", "list"], environment: environment)
        #expect(list.stdout == "sandbox alice demo-consumer file\n")
        let show = try await CLI.run(["profiles", "show", "sandbox"], environment: environment)
        #expect(show.stdout.contains("client: ClientCredentials(key: demo-consumer, secret: <redacted>)"))
        #expect(!show.stdout.contains("demo-consumer-secret"))
        let tokenLine = try #require(show.stdout.split(separator: "\n").first { $0.hasPrefix("token: ") })
        #expect(tokenLine.hasSuffix("secret: <redacted>)"))
        let removed = try await CLI.run(["profiles", "remove", "sandbox"], environment: environment)
        #expect(removed.stdout == "Removed profile 'sandbox'.\n")
        let unknown = try await CLI.run(
            ["request", "--profile", "sandbox", base + "/1.1/statuses/home_timeline.json"],
            environment: environment
        )
        #expect(unknown.status == 2)
        #expect(unknown.stderr.hasPrefix("remote-auth: unknown profile: 'sandbox'"))
    }
}

/// The `Location` of a 302.
func httpRedirect(_ request: HTTPRequest, body: [UInt8]) async throws -> String {
    let client = CLI.httpClient()
    do {
        var outgoing = HTTPClientRequest(url: request.absoluteURL)
        outgoing.method = .POST
        for field in request.headerFields { outgoing.headers.add(name: field.name.rawName, value: field.value) }
        outgoing.body = .bytes(ByteBuffer(bytes: body))
        let response = try await client.execute(outgoing, timeout: CLI.hangGuardAmount)
        _ = try await response.body.collect(upTo: 1 << 20)
        try await client.shutdown()
        return response.headers["Location"].first ?? ""
    } catch {
        try? await client.shutdown()
        throw error
    }
}
