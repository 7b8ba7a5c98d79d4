import ArgumentParser
import Foundation
import HTTPTypes
import NIOCore
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthLoopback
import RemoteAuthSandbox

/// `remote-auth demo`: every flow, end to end, against a sandbox started in-process on a free
/// port, over real sockets.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run every flow against an in-process sandbox and print a line per step and a summary.",
        discussion: ExitStatus.discussion("Exit status 0 only if every step passed, 1 if one failed.")
    )

    struct Step: Sendable {
        let name: String
        let run: @Sendable (Context) async throws -> String
    }

    struct Context: Sendable {
        let base: String
        let transport: AsyncHTTPClientTransport
        /// How long a wait for the loopback callback may take (`--max-time`).
        let maxTime: Duration

        func get(_ url: String) async throws -> (HTTPResponse, String) {
            let (response, body) = try await transport.send(try HTTPRequest(method: .get, absoluteURL: url), body: nil)
            return (response, String(decoding: body, as: UTF8.self))
        }

        func postForm(_ url: String, _ fields: [(String, String)]) async throws -> (HTTPResponse, String) {
            let request = try HTTPRequest(
                method: .post,
                absoluteURL: url,
                headerFields: [.contentType: "application/x-www-form-urlencoded"]
            )
            let body = FormURLEncoding.encode(fields.map { (name: $0.0, value: $0.1) })
            let (response, answer) = try await transport.send(request, body: Array(body.utf8))
            return (response, String(decoding: answer, as: UTF8.self))
        }

        /// What a browser does on the consent page: load it, sign in as alice, press Authorize.
        func consent(_ authorizeURL: String) async throws -> (HTTPResponse, String) {
            let (page, html) = try await get(authorizeURL)
            try expect(page.status == .ok, "the consent page answered \(page.status.code)")
            let token = try requireValue(
                queryValue(authorizeURL, "oauth_token"),
                "the authorize URL has no oauth_token"
            )
            let csrf = try requireValue(
                between(html, "name=\"authenticity_token\" value=\"", "\""),
                "no authenticity_token on the page"
            )
            return try await postForm(
                base + "/oauth/authorize",
                [
                    ("oauth_token", token), ("authenticity_token", csrf), ("username", "alice"),
                    ("password", "wonderland"),
                    ("action", "authorize"),
                ]
            )
        }

        func client(preemptive: Bool = false) async throws -> AuthenticatingClient {
            let store = InMemoryCredentialStore()
            await store.add(Credential(user: "alice", password: "wonderland"), for: try AuthScope(url: base))
            var configuration = AuthenticatingClient.Configuration()
            configuration.preemptive = preemptive
            return AuthenticatingClient(transport: transport, credentials: store, configuration: configuration)
        }

        func flow(
            _ client: OAuth1.ClientCredentials = .init(key: "demo-consumer", secret: "demo-consumer-secret")
        ) -> OAuth1.Flow {
            OAuth1.Flow(provider: .twitterStyle(baseURL: base), client: client, transport: transport, now: unixNow)
        }
    }

    struct StepFailure: Error, CustomStringConvertible { let description: String }

    @Option(
        name: .customLong("sandbox-state"),
        help: ArgumentHelp(
            "Keep the in-process sandbox's state in FILE: the tokens, codes and statuses it issued, to inspect after the run (a test reads it to check that no log line holds one).",
            valueName: "file"
        )
    )
    var sandboxState: String?

    @Option(
        name: .customLong("max-time"),
        help: ArgumentHelp(
            "Seconds each request on the wire, and each wait for a loopback callback, may take (default 30).",
            valueName: "seconds"
        )
    )
    var maxTime: Double?

    static let steps: [Step] = [
        Step(name: "Basic, challenge") { context in
            let client = try await context.client()
            let (response, _) = try await client.send(
                try HTTPRequest(method: .get, absoluteURL: context.base + "/basic/")
            )
            try expect(response.status == .ok, "GET /basic/ answered \(response.status.code)")
            return "200 after a 401 challenge, \(await client.roundTrips) round trips"
        },
        Step(name: "Basic, preemptive") { context in
            let client = try await context.client(preemptive: true)
            let (response, _) = try await client.send(
                try HTTPRequest(method: .get, absoluteURL: context.base + "/basic/")
            )
            try expect(response.status == .ok, "GET /basic/ answered \(response.status.code)")
            return "200 at once, \(await client.roundTrips) round trip"
        },
        Step(name: "Digest SHA-256") { context in
            let client = try await context.client()
            for _ in 0..<5 {
                let (response, _) = try await client.send(
                    try HTTPRequest(method: .get, absoluteURL: context.base + "/digest/SHA-256/auth/")
                )
                try expect(response.status == .ok, "GET /digest/SHA-256/auth/ answered \(response.status.code)")
            }
            let trips = await client.roundTrips
            try expect(trips == 6, "5 requests took \(trips) round trips, not 6")
            return "5 requests, one nonce, \(trips) round trips"
        },
        Step(name: "OAuth 1.0a, three-legged") { context in
            let flow = context.flow()
            let access = try await LoopbackCallbackListener.withListener { callbackURL, listener in
                let requestToken = try await flow.requestToken(callback: callbackURL)
                let (approved, _) = try await context.consent(flow.authorizeURL(for: requestToken))
                let location = try requireValue(approved.headerFields[.location], "the consent form did not redirect")
                // The browser lands on the loopback listener, which answers once signed in.
                async let landing = context.get(location)
                let access = try await listener.accessToken(for: requestToken, flow: flow, timeout: context.maxTime)
                let (page, _) = try await landing
                try expect(page.status == .ok, "the loopback listener answered \(page.status.code)")
                return access
            }
            return "signed in as \(access.screenName ?? "?") through the consent form and a loopback callback"
        },
        Step(name: "OAuth 1.0a, PIN") { context in
            let flow = context.flow()
            var pin = ""
            let access = try await flow.signIn(callback: "oob") { authorizeURL in
                let (_, page) = try await context.consent(authorizeURL)
                pin = try requireValue(between(page, "<code id=\"pin\">", "</code>"), "no PIN on the page")
                return pin
            }
            return "PIN \(pin.count) digits, signed in as \(access.screenName ?? "?")"
        },
        Step(name: "Reverse auth") { context in
            let parameters = try await context.flow().reverseAuthParameters()
            let device = context.flow(.init(key: "demo-device", secret: "demo-device-secret"))
            let access = try await device.reverseAuthAccessToken(
                deviceToken: .init(token: "alice-device-token", secret: "alice-device-token-secret"),
                targetConsumerKey: "demo-consumer",
                parameters: parameters
            )
            return "demo-consumer got \(access.screenName ?? "?")'s token from demo-device"
        },
        Step(name: "Signed status and timeline") { context in
            let flow = context.flow()
            let requestToken = try await flow.requestToken(callback: "oob")
            let (_, page) = try await context.consent(flow.authorizeURL(for: requestToken))
            let pin = try requireValue(between(page, "<code id=\"pin\">", "</code>"), "no PIN on the page")
            let access = try await flow.accessToken(for: requestToken, verifier: pin)
            let session = OAuth1.Session(provider: flow.provider, client: flow.client, accessToken: access)
            let signing = AuthenticatingClient(
                transport: context.transport,
                authenticators: [try session.authenticator(now: unixNow)]
            )
            let text = "Hello Ladies + Gentlemen, a signed OAuth request! ünïcödé 😀"
            let update = try HTTPRequest(
                method: .post,
                absoluteURL: context.base + "/1.1/statuses/update.json",
                headerFields: [.contentType: "application/x-www-form-urlencoded"]
            )
            let (posted, _) = try await signing.send(
                update,
                body: Array(FormURLEncoding.encode([("status", text)]).utf8)
            )
            try expect(posted.status == .ok, "statuses/update answered \(posted.status.code)")
            let (read, body) = try await signing.send(
                try HTTPRequest(method: .get, absoluteURL: context.base + "/1.1/statuses/home_timeline.json"),
                body: nil
            )
            try expect(read.status == .ok, "home_timeline answered \(read.status.code)")
            let timeline = try JSONSerialization.jsonObject(with: Data(body)) as? [[String: Any]]
            try expect(timeline?.first?["text"] as? String == text, "the timeline does not start with the status")
            return "posted and read back \"\(text)\""
        },
    ]

    func run() async throws {
        let timeout = try RequestCommand.timeAmount(maxTime, option: "--max-time") ?? .seconds(30)
        var configuration = SandboxConfiguration.demo()
        configuration.accessTokenTTL = Self.oauth2AccessTokenTTL
        configuration.devicePollingInterval = 1
        configuration.statePath = sandboxState
        let steps = Self.steps + Self.oauth2Steps + Self.resourceSteps + Self.openIDSteps + Self.signatureSteps
        let results: [(String, Result<String, any Error>)] = try await Sandbox.withSandbox(configuration) { sandbox in
            Terminal.writeLine("Sandbox at \(sandbox.baseURL)")
            return try await AsyncHTTPClientTransport.withTransport(timeout: timeout) { transport in
                let context = Context(
                    base: sandbox.baseURL, transport: transport, maxTime: .nanoseconds(timeout.nanoseconds)
                )
                var results: [(String, Result<String, any Error>)] = []
                for (index, step) in steps.enumerated() {
                    let result: Result<String, any Error>
                    do { result = .success(try await step.run(context)) } catch { result = .failure(error) }
                    switch result {
                    case .success(let detail):
                        Terminal.writeLine("[\(index + 1)/\(steps.count)] \(step.name): passed — \(detail)")
                    case .failure(let error):
                        Terminal.writeLine(
                            "[\(index + 1)/\(steps.count)] \(step.name): FAILED — \(describe(error))"
                        )
                    }
                    results.append((step.name, result))
                }
                return results
            }
        }
        let width = results.map(\.0.count).max() ?? 0
        Terminal.writeLine("")
        Terminal.writeLine("step" + String(repeating: " ", count: width - 4) + "  result")
        for (name, result) in results {
            let outcome: String
            if case .success = result { outcome = "passed" } else { outcome = "FAILED" }
            Terminal.writeLine(name + String(repeating: " ", count: width - name.count) + "  " + outcome)
        }
        let failed = results.filter { if case .failure = $0.1 { true } else { false } }.count
        Terminal.writeLine("demo: \(results.count - failed) passed, \(failed) failed")
        if failed > 0 { throw ExitCode(1) }
    }
}

func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw DemoCommand.StepFailure(description: message()) }
}

func queryValue(_ url: String, _ name: String) -> String? {
    guard let mark = url.firstIndex(of: "?") else { return nil }
    return (try? FormURLEncoding.firstValue(named: name, in: url[url.index(after: mark)...])) ?? nil
}

func between(_ text: String, _ start: String, _ end: String) -> String? {
    guard let open = text.range(of: start) else { return nil }
    let rest = text[open.upperBound...]
    guard let close = rest.range(of: end) else { return nil }
    return String(rest[..<close.lowerBound])
}

func requireValue<T>(_ value: T?, _ message: @autoclosure () -> String) throws -> T {
    guard let value else { throw DemoCommand.StepFailure(description: message()) }
    return value
}
