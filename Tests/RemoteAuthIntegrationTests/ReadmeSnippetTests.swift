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

@Suite(.timeLimit(.minutes(5))) struct ReadmeSnippetTests {
    @Test func basicOverAsyncHTTPClientAnswersTheChallenge() async throws {
        try await Sandbox.withSandbox { sandbox in
            let (response, body) = try await readmeBasicSnippet(origin: sandbox.baseURL)
            #expect(response.status == .ok)
            #expect(String(decoding: body, as: UTF8.self) == #"{"authenticated": true, "user": "alice"}"#)
        }
    }

    @Test func codeFlowSnippetSignsInAndCalls() async throws {
        var configuration = SandboxConfiguration.demo()
        configuration.autoApprove = true
        try await Sandbox.withSandbox(configuration) { sandbox in
            let (response, body) = try await readmeCodeFlowSnippet(issuer: sandbox.baseURL, api: sandbox.baseURL)
            #expect(response.status == .ok)
            #expect(String(decoding: body, as: UTF8.self).hasPrefix("["))
        }
    }

    @Test func clientCredentialsSnippetCalls() async throws {
        try await Sandbox.withSandbox { sandbox in
            let (response, body) = try await readmeClientCredentialsSnippet(
                issuer: sandbox.baseURL,
                api: sandbox.baseURL,
                secret: "demo-service-secret"
            )
            #expect(response.status == .ok)
            #expect(String(decoding: body, as: UTF8.self).hasPrefix("["))
        }
    }

    @Test func openIDSnippetStoresRestoresAndCallsUserInfoWithDPoP() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("remote-auth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Sandbox.withSandbox(DPoPSandboxTests.autoApproving(nonce: true)) { sandbox in
            let info = try await readmeOpenIDSnippet(
                issuer: sandbox.baseURL,
                api: sandbox.baseURL,
                tokensFile: folder.path + "/tokens.json"
            )
            #expect(info.subject == "1001")
            #expect(info.claims["name"] == "Alice")
            let stored = try #require(try await FileTokenStore(path: folder.path + "/tokens.json")
                .oauth2Session(service: "my-app", account: "alice"))
            #expect(stored.tokens.tokenType == "DPoP")
            #expect(stored.dpopKey != nil)
            #expect(stored.openIDProvider?.userInfoEndpoint == sandbox.baseURL + "/oauth2/userinfo")
        }
    }

    @Test(arguments: [
        ("openid-dpop", 40, [
            "import RemoteAuth", "import RemoteAuthAsyncHTTPClient", "import RemoteAuthFileStore",
            "import RemoteAuthLoopback",
        ]),
        ("basic-ahc", 6, ["import RemoteAuth", "import RemoteAuthAsyncHTTPClient"]),
        ("oauth2-code", 12, ["import RemoteAuth", "import RemoteAuthAsyncHTTPClient", "import RemoteAuthLoopback"]),
        ("client-credentials", 12, ["import RemoteAuth", "import RemoteAuthAsyncHTTPClient"]),
    ])
    func readmeHoldsTheSnippet(name: String, maximumLines: Int, imports: [String]) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = "<!-- readme-snippet: \(name) "
        let afterMarker = try #require(readme.range(of: marker)).upperBound
        let open = try #require(readme.range(of: "```swift\n", range: afterMarker..<readme.endIndex))
        let close = try #require(readme.range(of: "\n```", range: open.upperBound..<readme.endIndex))
        let block = readme[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
        #expect(block.count <= maximumLines, "the snippet is \(block.count) lines, imports included")
        #expect(Array(block.prefix(imports.count)) == imports)

        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let begin = try #require(source.range(of: "// readme-snippet: \(name) begin\n")).upperBound
        let end = try #require(source.range(of: "    // readme-snippet: \(name) end")).lowerBound
        let compiled = source[begin..<end].split(separator: "\n").map {
            String($0.dropFirst(4)).replacingOccurrences(of: #"\(origin)"#, with: "https://api.example.com")
                .replacingOccurrences(of: #"\(api)"#, with: "https://api.example.com")
                .replacingOccurrences(of: #"\(issuer)"#, with: "https://auth.example.com")
                .replacingOccurrences(of: #"\(tokensFile)"#, with: "tokens.json")
        }
        #expect(Array(block.dropFirst(imports.count)) == compiled)
    }
}

/// The README's OAuth 2 code + PKCE snippet ("Sign in with OAuth 2", "In code"), run against
/// the auto-approving sandbox: `openBrowser` stands for the user's browser, which follows the
/// sandbox's redirect to the loopback listener.
private func readmeCodeFlowSnippet(issuer: String, api: String) async throws -> (HTTPResponse, [UInt8]) {
    func openBrowser(_ url: String) {
        Task {
            let consent = try await Wire.get(url)
            _ = try await Wire.get(try #require(consent.header("Location")))
        }
    }
    // readme-snippet: oauth2-code begin
    let (response, body) = try await AsyncHTTPClientTransport.withTransport { transport in
        let flow = try await OAuth2.Flow(discovering: "\(issuer)", client: .public(id: "demo-app"), transport: transport)
        let tokens = try await LoopbackCallbackListener.withListener { callbackURL, listener in
            let request = try flow.authorizationRequest(redirectURI: callbackURL, scope: ["statuses:read"], random: .system)
            openBrowser(request.url)                      // state and PKCE inside; tokens in the redirect refused
            return try await listener.tokens(for: request.pending, flow: flow, timeout: .seconds(300)) }
        let session = try await flow.session(for: tokens, resources: ["\(api)"])   // refreshes, never races
        return try await AuthenticatingClient(transport: transport, session: session).get("\(api)/1.1/statuses/home_timeline.json") }
    // readme-snippet: oauth2-code end
    return (response, body)
}

/// The README's client credentials snippet, run against the sandbox.
private func readmeClientCredentialsSnippet(issuer: String, api: String, secret: Secret) async throws
    -> (HTTPResponse, [UInt8])
{
    // readme-snippet: client-credentials begin
    let (response, body) = try await AsyncHTTPClientTransport.withTransport { transport in
        let flow = try await OAuth2.Flow(discovering: "\(issuer)", client: .init(id: "demo-service",
                                         authentication: .clientSecretBasic(secret)), transport: transport)
        let session = try await flow.clientCredentialsSession(scope: ["statuses:read"], resources: ["\(api)"])
        return try await AuthenticatingClient(transport: transport, session: session).get("\(api)/1.1/statuses/home_timeline.json") }
    // readme-snippet: client-credentials end
    return (response, body)
}

/// The README's OpenID Connect + DPoP snippet: sign in, store, restore, UserInfo with the
/// DPoP-bound token; run against the auto-approving sandbox with DPoP nonces on.
private func readmeOpenIDSnippet(issuer: String, api: String, tokensFile: String) async throws
    -> OpenIDConnect.UserInfo
{
    func openBrowser(_ url: String) {
        Task {
            let consent = try await Wire.get(url)
            _ = try await Wire.get(try #require(consent.header("Location")))
        }
    }
    // readme-snippet: openid-dpop begin
    let info = try await AsyncHTTPClientTransport.withTransport { transport in
        let prover = try OAuth2.DPoP.Prover(key: .generateP256(), now: UnixTime.now)     // tokens bound to this key
        let flow = try await OAuth2.Flow.discoverOpenIDConnect(issuer: "\(issuer)", client: .public(id: "demo-app"),
                                                               transport: transport, now: UnixTime.now).binding(to: prover)
        let tokens = try await LoopbackCallbackListener.withListener { callbackURL, listener in
            let request = try flow.authorizationRequest(redirectURI: callbackURL, scope: ["openid", "profile"], random: .system)
            openBrowser(request.url)
            return try await listener.tokens(for: request.pending, flow: flow, timeout: .seconds(300)) }  // ID token validated
        let store = try FileTokenStore(path: "\(tokensFile)")
        _ = try await flow.session(for: tokens, resources: ["\(api)"], store: store, service: "my-app", account: "alice", dpop: prover)
        // Later, in any process: the stored session, its DPoP key and its provider's endpoints.
        let session = try await OAuth2.TokenSession.restore(from: store, service: "my-app", account: "alice",
                                                            transport: transport, now: UnixTime.now)
        return try await session.userInfo(over: transport) }                     // DPoP token, with a proof
    // readme-snippet: openid-dpop end
    return info
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
