import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthFileStore
import RemoteAuthSandbox
import Testing

/// Sessions kept by service and account: signed in once, restored from the file at the next
/// start, and used for a signed call without a new sign-in.
@Suite struct TokenStoreTests {
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
                    try await FileTokenStore(path: path).session(service: "sandbox", account: "alice")
                )
                #expect(restored.accessToken == access)
                #expect(!restored.description.contains(access.credentials.secret))
                #expect(!restored.description.contains(demoClient.secret))
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
        await store.save(session, service: "p", account: "alice")
        #expect(await store.session(service: "p", account: "alice") == session)
        #expect(await store.session(service: "p", account: "bob") == nil)
        #expect(await store.keys() == [TokenStoreKey(service: "p", account: "alice")])
    }
}
