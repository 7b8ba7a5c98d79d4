import Foundation
import RemoteAuth
import Testing

@testable import RemoteAuthKeyring

/// libsecret's `secret-tool` (Debian's libsecret-tools, `REMOTE_AUTH_SECRET_TOOL`) on the same
/// keyring: it finds the store's item by the documented attributes and reads its secret, with no
/// secret in the attributes or the label; an item it stores under a profile's attributes is
/// another program's to the store.
@Suite(
    "Keyring: secret-tool",
    .enabled(
        if: KeyringFixture.enabled,
        "needs REMOTE_AUTH_KEYRING_TESTS=1 and a Secret Service (scripts/interop/keyring.sh)"
    ),
    .timeLimit(.minutes(2))
)
struct SecretToolTests {
    /// Runs secret-tool, its standard input `input`, waiting for it without blocking a thread.
    static func secretTool(_ arguments: [String], input: String? = nil) async throws -> (status: Int32, output: String)
    {
        let tool = try #require(
            ProcessInfo.processInfo.environment["REMOTE_AUTH_SECRET_TOOL"],
            "REMOTE_AUTH_SECRET_TOOL is not set"
        )
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        let standardInput = Pipe()
        process.standardOutput = output
        // secret-tool search prints the attributes on standard error.
        process.standardError = output
        process.standardInput = standardInput
        let exited = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
        try process.run()
        if let input { standardInput.fileHandleForWriting.write(Data(input.utf8)) }
        try standardInput.fileHandleForWriting.close()
        var statuses = exited.stream.makeAsyncIterator()
        let status = await statuses.next() ?? -1
        let data = try output.fileHandleForReading.readToEnd() ?? Data()
        return (status, String(decoding: data, as: UTF8.self))
    }

    @Test func secretToolReadsWhatTheStoreWrote() async throws {
        let fixture = try await KeyringFixture.make()
        let store = fixture.store()
        let profile = "st-\(fixture.name)"
        let session = SecretServiceTokenStoreTests.session("access-SECRET-7", refresh: "refresh-SECRET-7")
        try await store.save(session, service: profile, account: "demo-app")
        let lookup = try await Self.secretTool([
            "lookup", "application", "remote-auth", "service", profile, "account", "demo-app",
        ])
        #expect(lookup.status == 0)
        #expect(try JSONDecoder().decode(StoredSession.self, from: Data(lookup.output.utf8)) == session)
        let search = try await Self.secretTool(["search", "--all", "application", "remote-auth", "service", profile])
        #expect(search.status == 0)
        let lines = search.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("label = remote-auth: \(profile) at as.example"))
        #expect(lines.contains("attribute.application = remote-auth"))
        #expect(lines.contains("attribute.service = \(profile)"))
        #expect(lines.contains("attribute.account = demo-app"))
        // libsecret shows xdg:schema as the item's schema.
        #expect(lines.contains("schema = org.remoteauth.Session"))
        // Only the secret line holds a secret.
        for line in lines where !line.hasPrefix("secret = ") { #expect(!line.contains("SECRET"), "\(line)") }
        await store.close()
        await fixture.delete()
    }

    @Test func whatSecretToolStoresIsAnotherProgramsItem() async throws {
        let profile = "st-foreign-\(UUID().uuidString.prefix(8).lowercased())"
        let stored = try await Self.secretTool(
            [
                "store", "--label", "not remote-auth", "application", "remote-auth", "service", profile, "account",
                "demo-app",
            ],
            input: "a password of someone else's"
        )
        #expect(stored.status == 0)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "remote-auth-keyring-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        // secret-tool stores in the 'default' collection.
        let store = SecretServiceTokenStore(lockFile: folder.appendingPathComponent("keyring.lock").path)
        let key = TokenStoreKey(service: profile, account: "demo-app")
        await #expect(throws: KeyringError(.foreignItem, key: key, reason: "")) {
            try await store.session(service: profile, account: "demo-app")
        }
        await #expect(throws: KeyringError(.foreignItem, key: key, reason: "")) {
            try await store.save(SecretServiceTokenStoreTests.session("x"), service: profile, account: "demo-app")
        }
        let lookup = try await Self.secretTool([
            "lookup", "application", "remote-auth", "service", profile, "account", "demo-app",
        ])
        #expect(lookup.output == "a password of someone else's")
        _ = try await Self.secretTool(["clear", "application", "remote-auth", "service", profile])
        #expect(try await store.session(service: profile, account: "demo-app") == nil)
        await store.close()
    }

    /// A credential kept in the login keyring ('default', where secret-tool looks): found by its
    /// scope's attributes, the label naming the user and the origin, the secret its JSON.
    @Test func secretToolReadsACredentialTheStoreWrote() async throws {
        let host = "st-\(UUID().uuidString.prefix(8).lowercased()).example"
        let scope = try AuthScope(url: "https://\(host):8443", realm: "Photos")
        let store = try await SecretServiceCredentialStore.open()
        try await store.add(Credential(user: "alice", password: "wonder-SECRET", schemes: .basic), for: scope)
        let lookup = try await Self.secretTool([
            "lookup", "application", "remote-auth", "protocol", "https", "server", host, "port", "8443", "realm", "Photos",
        ])
        #expect(lookup.status == 0)
        #expect(
            lookup.output == #"{"allowsPlainHTTP":false,"password":"wonder-SECRET","schemes":["basic"],"user":"alice"}"#
        )
        let search = try await Self.secretTool(["search", "--all", "application", "remote-auth", "server", host])
        let lines = search.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("label = remote-auth: alice at https://\(host):8443 (realm \"Photos\")"), "\(lines)")
        #expect(lines.contains("attribute.protocol = https"))
        #expect(lines.contains("attribute.port = 8443"))
        #expect(lines.contains("attribute.realm = Photos"))
        #expect(lines.contains("schema = org.remoteauth.Credential"))
        for line in lines where !line.hasPrefix("secret = ") { #expect(!line.contains("SECRET"), "\(line)") }
        try await store.remove(scope)
        #expect(
            try await Self.secretTool(["search", "--all", "application", "remote-auth", "server", host]).output == ""
        )
        await store.close()
    }
}
