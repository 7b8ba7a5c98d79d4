import Foundation
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthFileStore
import RemoteAuthLoopback
import RemoteAuthSandbox
import Testing

/// The README's Basic-over-AsyncHTTPClient snippet, compiled here with its origin as a parameter
/// (the README writes `https://api.example.com`) and run against the sandbox.
/// `readmeHoldsTheSnippet` checks that the README's block is these lines, so the two cannot drift.
private func readmeBasicSnippet(origin: String) async throws -> (HTTPResponse, [UInt8]) {
    // readme-snippet: basic-ahc begin
    let credentials = InMemoryCredentialStore()  // or FileCredentialStore (0600 JSON)
    try await credentials.add(.basic(user: "alice", password: "wonderland"), for: "\(origin)")
    let (response, body) = try await AsyncHTTPClientTransport.withTransport {
        try await AuthenticatingClient(transport: $0, credentials: credentials).get("\(origin)/basic/") }
    // readme-snippet: basic-ahc end
    return (response, body)
}

@Suite(.timeLimit(.minutes(2))) struct ReadmeSnippetTests {
    @Test func basicOverAsyncHTTPClientAnswersTheChallenge() async throws {
        try await Sandbox.withSandbox { sandbox in
            let (response, body) = try await readmeBasicSnippet(origin: sandbox.baseURL)
            #expect(response.status == .ok)
            #expect(String(decoding: body, as: UTF8.self) == #"{"authenticated": true, "user": "alice"}"#)
        }
    }

    @Test func readmeHoldsTheSnippet() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = "<!-- readme-snippet: basic-ahc"
        let afterMarker = try #require(readme.range(of: marker)).upperBound
        let open = try #require(readme.range(of: "```swift\n", range: afterMarker..<readme.endIndex))
        let close = try #require(readme.range(of: "\n```", range: open.upperBound..<readme.endIndex))
        let block = readme[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
        #expect(block.count <= 6, "the snippet is \(block.count) lines, imports included")
        #expect(block.prefix(2) == ["import RemoteAuth", "import RemoteAuthAsyncHTTPClient"])

        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let begin = try #require(source.range(of: "// readme-snippet: basic-ahc begin\n")).upperBound
        let end = try #require(source.range(of: "    // readme-snippet: basic-ahc end")).lowerBound
        let compiled = source[begin..<end].split(separator: "\n").map {
            String($0.dropFirst(4)).replacingOccurrences(of: #"\(origin)"#, with: "https://api.example.com")
        }
        #expect(Array(block.dropFirst(2)) == compiled)
    }
}

/// The README's OAuth 2 snippet ("Sign in with OAuth 2", "In code"), compiled (not run: it needs
/// a browser and a real issuer); `openBrowser` stands for the app's own.
private func readmeOAuth2Snippet() async throws {
    func openBrowser(_ url: String) {}
    let now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    try await AsyncHTTPClientTransport.withTransport { transport in
        let metadata = try await OAuth2.Flow.discover(issuer: "https://auth.example.com", transport: transport)
        let flow = OAuth2.Flow(
            server: .init(metadata: metadata),
            client: .public(id: "my-app"),
            transport: transport,
            now: now
        )
        let tokens = try await LoopbackCallbackListener.withListener { callbackURL, listener in
            let request = try flow.authorizationRequest(redirectURI: callbackURL, scope: ["read"], random: .system)
            openBrowser(request.url)
            return try await listener.tokens(for: request.pending, flow: flow, timeout: .seconds(300))
        }
        let store = try FileTokenStore()
        try await store.save(
            OAuth2.Session(
                tokens: tokens,
                issuer: metadata.issuer,
                tokenEndpoint: metadata.tokenEndpoint ?? "",
                clientID: "my-app",
                resourceOrigins: ["https://api.example.com"]
            ),
            service: "my-app",
            account: "alice"
        )
        let session = try await OAuth2.TokenSession.restore(
            from: store,
            service: "my-app",
            account: "alice",
            transport: transport,
            now: now
        )
        let credentials = InMemoryCredentialStore()
        await session.register(in: credentials)
        let client = AuthenticatingClient(transport: transport, credentials: credentials)
        let (response, body) = try await client.get("https://api.example.com/me")
        _ = (response, body)
    }
}

/// The README's OAuth 1.0a snippet ("In code, the flow is a few async steps"), compiled (not run:
/// it needs a browser).
private func readmeOAuth1Snippet(transport: any HTTPTransport, key: String, secret: Secret) async throws {
    func openBrowser(_ url: String) {}
    let flow = OAuth1.Flow(
        provider: .twitterStyle(baseURL: "https://api.example.com"),
        client: .init(key: key, secret: secret),
        transport: transport,
        now: { Int64(Date().timeIntervalSince1970) }
    )
    let access = try await LoopbackCallbackListener.withListener { callbackURL, listener in
        let requestToken = try await flow.requestToken(callback: callbackURL)
        openBrowser(flow.authorizeURL(for: requestToken))
        return try await listener.accessToken(for: requestToken, flow: flow, timeout: .seconds(300))
    }
    try await FileTokenStore().save(
        .init(provider: flow.provider, client: flow.client, accessToken: access),
        service: "my-app",
        account: access.screenName ?? "default"
    )
}
