import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthFileStore
import RemoteAuthSandbox
import Testing

/// Sessions kept by service and account: signed in once, restored from the file at the next
/// start, and used for a signed call without a new sign-in.
@Suite(.timeLimit(.minutes(5))) struct TokenStoreTests {
    @Test func fileStoreRestoresASession() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "remote-auth-home-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = FileTokenStore.defaultPath(environment: ["REMOTE_AUTH_HOME": folder.path])
        #expect(path == folder.path + "/tokens.json")
        #expect(FileTokenStore.defaultPath(environment: ["XDG_CONFIG_HOME": "/x"]) == "/x/remote-auth/tokens.json")

        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let provider = OAuth1.Provider.twitterStyle(baseURL: sandbox.baseURL)
                let flow = OAuth1.Flow(
                    provider: provider,
                    client: demoClient,
                    transport: transport,
                    now: { Int64(Date().timeIntervalSince1970) }
                )
                let requestToken = try await flow.requestToken(callback: "oob")
                let page = try await consent(sandbox.baseURL, token: requestToken.token)
                let marker = try #require(page.body.range(of: "<code id=\"pin\">"))
                let access = try await flow.accessToken(
                    for: requestToken,
                    verifier: String(page.body[marker.upperBound...].prefix(7))
                )

                let store = try FileTokenStore(path: path)
                try await store.save(
                    .init(provider: provider, client: demoClient, accessToken: access),
                    service: "sandbox",
                    account: "alice"
                )
                let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
                #expect(mode?.intValue == 0o600)

                // The next start.
                let restored = try #require(
                    try await FileTokenStore(path: path).oauth1Session(service: "sandbox", account: "alice")
                )
                #expect(restored.accessToken == access)
                #expect(!restored.description.contains(access.credentials.secret.reveal()))
                #expect(!restored.description.contains(demoClient.secret.reveal()))
                let me = try await OAuthClient(client: restored.client, token: restored.accessToken.credentials).send(
                    .get,
                    restored.provider.requestTokenURL.replacingOccurrences(
                        of: "/oauth/request_token",
                        with: "/1.1/account/verify_credentials.json"
                    )
                )
                #expect(me.status == 200)

                #expect(
                    try await FileTokenStore(path: path).keys() == [TokenStoreKey(service: "sandbox", account: "alice")]
                )
                try await store.removeSession(service: "sandbox", account: "alice")
                #expect(try await FileTokenStore(path: path).session(service: "sandbox", account: "alice") == nil)
            }
        }
    }

    @Test func inMemoryStore() async throws {
        let store = InMemoryTokenStore()
        let session = OAuth1.Session(
            provider: .twitterStyle(baseURL: "https://p.example"),
            client: .init(key: "k", secret: "s"),
            accessToken: .init(credentials: .init(token: "t", secret: "ts"), fields: [.init("screen_name", "alice")])
        )
        try await store.save(session, service: "p", account: "alice")
        #expect(await store.session(service: "p", account: "alice") == .oauth1(session))
        #expect(try await store.oauth1Session(service: "p", account: "alice") == session)
        #expect(await store.session(service: "p", account: "bob") == nil)
        #expect(await store.keys() == [TokenStoreKey(service: "p", account: "alice")])
    }

    /// A tokens.json written before sessions had a `kind` (and before ``Secret``) still opens,
    /// and is written back in the new shape, which opens again.
    @Test func fileStoreReadsTheOldFormat() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "remote-auth-home-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.path + "/tokens.json"
        let old = #"""
            [
              {
                "key" : { "account" : "alice", "service" : "sandbox" },
                "session" : {
                  "accessToken" : {
                    "credentials" : { "secret" : "alice-token-secret", "token" : "alice-token" },
                    "fields" : [ { "name" : "screen_name", "value" : "alice" } ]
                  },
                  "client" : { "key" : "demo-consumer", "secret" : "demo-consumer-secret" },
                  "provider" : {
                    "accessTokenURL" : "http://127.0.0.1:8080/oauth/access_token",
                    "authorizeURL" : "http://127.0.0.1:8080/oauth/authorize",
                    "placement" : "header",
                    "requestTokenURL" : "http://127.0.0.1:8080/oauth/request_token",
                    "signatureMethod" : "HMAC-SHA1"
                  }
                }
              }
            ]
            """#
        try Data(old.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let expected = OAuth1.Session(
            provider: .twitterStyle(baseURL: "http://127.0.0.1:8080"),
            client: .init(key: "demo-consumer", secret: "demo-consumer-secret"),
            accessToken: .init(
                credentials: .init(token: "alice-token", secret: "alice-token-secret"),
                fields: [.init("screen_name", "alice")]
            )
        )
        let store = try FileTokenStore(path: path)
        let found = try #require(try await store.oauth1Session(service: "sandbox", account: "alice"))
        #expect(found == expected)
        #expect(found.client.secret.reveal() == "demo-consumer-secret")
        #expect(found.accessToken.credentials.secret.reveal() == "alice-token-secret")

        try await store.save(found, service: "sandbox", account: "bob")
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.contains(#""kind" : "oauth1""#))
        #expect(try await FileTokenStore(path: path).oauth1Session(service: "sandbox", account: "alice") == expected)
        #expect(try await FileTokenStore(path: path).oauth1Session(service: "sandbox", account: "bob") == expected)
    }

    /// One session, one signing transport: every request to the provider's origin is signed.
    @Test func sessionMakesASigningAuthenticator() async throws {
        let transport = AnsweringTransport()
        let session = OAuth1.Session(
            provider: .twitterStyle(baseURL: "https://api.example"),
            client: .init(key: "k", secret: "s"),
            accessToken: .init(credentials: .init(token: "t", secret: "ts"))
        )
        let signing = AuthenticatingClient(
            transport: transport,
            authenticators: [try session.authenticator(now: { 1_700_000_000 }, nonce: { "n" })]
        )
        _ = try await signing.get("https://api.example/1.1/x.json")
        _ = try await signing.get("https://elsewhere.example/")
        let sent = await transport.requests
        #expect(sent.count == 2)
        let received = try OAuth1.ReceivedRequest(sent[0])
        #expect(received.consumerKey == "k")
        #expect(received.token == "t")
        #expect(received.timestamp == "1700000000")
        try received.verify(clientSecret: Secret("s"), tokenSecret: Secret("ts"))
        #expect(throws: OAuth1Error(.invalidSignature, "")) {
            try received.verify(clientSecret: Secret("s"), tokenSecret: Secret("wrong"))
        }
        #expect(sent[1].headerFields[.authorization] == nil)
    }
}

/// Records what it is asked to send and answers 200.
actor AnsweringTransport: HTTPTransport {
    var requests: [HTTPRequest] = []
    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        requests.append(request)
        return (HTTPResponse(status: .ok), [])
    }
}

/// OAuth 2 sessions in the file store, beside OAuth 1.0a ones.
@Suite struct FileTokenStoreOAuth2Tests {
    static func oauth2Session(_ access: String, refresh: String) -> OAuth2.Session {
        OAuth2.Session(
            tokens: OAuth2.Tokens(
                accessToken: Secret(access),
                tokenType: "Bearer",
                expiresAt: 1_700_003_600,
                refreshToken: Secret(refresh)
            ),
            issuer: "https://as.example",
            tokenEndpoint: "https://as.example/token",
            clientID: "demo-service",
            clientAuthentication: .clientSecretPost,
            clientSecret: "demo-service-secret",
            resourceOrigins: ["https://api.example"]
        )
    }

    /// Both kinds in one 0600 file; another store object on the same file (another process)
    /// sees a save at once; the store's listeners hear of its own saves and removals.
    @Test func oauth2BesideOAuth1() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("remote-auth-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.path + "/tokens.json"
        let store = try FileTokenStore(path: path)
        let changes = store.changes()
        let oauth1 = OAuth1.Session(
            provider: .twitterStyle(baseURL: "https://p.example"),
            client: .init(key: "k", secret: "s"),
            accessToken: .init(credentials: .init(token: "t", secret: "ts"))
        )
        try await store.save(oauth1, service: "twitter", account: "alice")
        let sibling = try FileTokenStore(path: path)
        try await store.save(Self.oauth2Session("a1", refresh: "r1"), service: "api", account: "alice")
        #expect(
            try await sibling.oauth2Session(service: "api", account: "alice") == Self.oauth2Session("a1", refresh: "r1")
        )
        try await sibling.save(Self.oauth2Session("a2", refresh: "r2"), service: "api", account: "alice")
        #expect(try await store.oauth2Session(service: "api", account: "alice")?.tokens.refreshToken == "r2")
        #expect(try await store.oauth1Session(service: "twitter", account: "alice") == oauth1)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.contains(#""kind" : "oauth2""#) && written.contains(#""kind" : "oauth1""#))

        try await store.removeSession(service: "twitter", account: "alice")
        #expect(await sibling.keys() == [TokenStoreKey(service: "api", account: "alice")])
        var received: [TokenStoreChange] = []
        for await change in changes {
            received.append(change)
            if received.count == 3 { break }
        }
        #expect(
            received.map(\.description) == [
                "saved twitter/alice: OAuth1.\(oauth1)",
                "saved api/alice: \(Self.oauth2Session("a1", refresh: "r1"))",
                "removed twitter/alice",
            ]
        )
    }
}
