import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthFileStore
import RemoteAuthSandbox
import Testing

/// Persistence levels: none (one use), for the client's lifetime, permanent (a 0600 file).
@Suite(.timeLimit(.minutes(5))) struct ClientFileStoreTests {
    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "remote-auth-\(UUID().uuidString)/credentials.json"
        ).path
    }

    @Test func permanentCredentialsSurviveAndAreMode0600() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let scope = try AuthScope(url: "https://api.example.com:8443", realm: "Photos")
        let store = try FileCredentialStore(path: path)
        try await store.add(Credential(user: "alice", password: "wonderland"), for: scope)
        try await store.add(
            Credential(user: "bob", password: "builder"),
            for: try AuthScope(url: "https://b.example"),
            persistence: .forClient
        )

        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        let reopened = try FileCredentialStore(path: path)
        let found = await reopened.credential(for: scope.origin, realm: "Photos")
        #expect(found?.credential == Credential(user: "alice", password: "wonderland"))
        #expect(found?.scope == scope)
        // Another port, or no realm asked, finds nothing; the for-client credential was not written.
        #expect(await reopened.credential(for: try AuthScope(url: "https://api.example.com"), realm: "Photos") == nil)
        #expect(await reopened.credential(for: try AuthScope(url: "https://b.example"), realm: nil) == nil)
        #expect(await store.credential(for: try AuthScope(url: "https://b.example"), realm: nil) != nil)

        try await reopened.remove(scope)
        #expect(await (try FileCredentialStore(path: path)).credential(for: scope.origin, realm: "Photos") == nil)
    }

    /// A credentials.json written before ``Secret`` (the password a plain string) still opens.
    @Test func oldFormatStillOpens() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true
        )
        let old = #"""
            [
              {
                "allowsPlainHTTP" : false,
                "basic" : true,
                "digest" : true,
                "host" : "api.example.com",
                "password" : "wonderland",
                "port" : 8443,
                "realm" : "Photos",
                "scheme" : "https",
                "user" : "alice"
              }
            ]
            """#
        try Data(old.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let store = try FileCredentialStore(path: path)
        let scope = try AuthScope(url: "https://api.example.com:8443", realm: "Photos")
        let found = await store.credential(for: scope.origin, realm: "Photos")
        #expect(found?.credential == Credential(user: "alice", password: "wonderland"))
        #expect(found?.credential != Credential(user: "alice", password: "wonderlanD"))
        // Written back, the password is still a plain JSON string.
        try await store.add(Credential(user: "bob", password: "builder"), for: try AuthScope(url: "https://b.example"))
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.contains(#""password" : "wonderland""#))
        #expect(written.contains(#""password" : "builder""#))
    }

    @Test func singleUseCredential() async throws {
        let store = InMemoryCredentialStore()
        let scope = try AuthScope(url: "https://api.example.com")
        await store.add(Credential(user: "alice", password: "wonderland"), for: scope, persistence: .none)
        #expect(await store.credential(for: scope, realm: nil) != nil)
        #expect(await store.credential(for: scope, realm: nil) == nil)
    }

    /// The client answers the sandbox's challenge from the file store.
    @Test func clientUsesTheFileStore() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try await Sandbox.withSandbox { sandbox in
            let store = try FileCredentialStore(path: path)
            try await store.add(
                Credential(user: "alice", password: "wonderland"),
                for: try AuthScope(url: sandbox.baseURL)
            )
            try await AsyncHTTPClientTransport.withTransport { transport in
                let client = AuthenticatingClient(transport: transport, credentials: store)
                let (response, body) = try await client.send(
                    try HTTPRequest(method: .get, absoluteURL: sandbox.baseURL + "/digest/SHA-256/auth/")
                )
                #expect(response.status == .ok)
                #expect(String(decoding: body, as: UTF8.self) == aliceJSON)
            }
        }
    }
}
