import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthSandbox
import Testing

@testable import RemoteAuthKeyring

/// The Secret Service credential store against a real gnome-keyring: the items it writes
/// (attributes, label, JSON secret), read back by another store object, replaced and removed;
/// a client answering the sandbox's Digest challenge from it; other programs' items and items it
/// cannot read left alone with a typed error naming the scope; a collection locked between two
/// calls.
@Suite(
    "Keyring: Secret Service credential store",
    .enabled(
        if: KeyringFixture.enabled,
        "needs REMOTE_AUTH_KEYRING_TESTS=1 and a Secret Service (scripts/interop/keyring.sh)"
    ),
    .timeLimit(.minutes(5))
)
struct SecretServiceCredentialStoreTests {
    static func open(_ fixture: KeyringFixture) async throws -> SecretServiceCredentialStore {
        try await SecretServiceCredentialStore.open(collection: .path(fixture.collection), timeout: .seconds(10))
    }

    static func items(_ fixture: KeyringFixture) async throws -> [String] {
        try await fixture.bus.searchItems(in: fixture.collection, ["application": "remote-auth"]).sorted()
    }

    @Test func keepsReadsReplacesAndRemoves() async throws {
        let fixture = try await KeyringFixture.make()
        let store = try await Self.open(fixture)
        let photos = try AuthScope(url: "https://API.example.com:8443", realm: "Photos")
        let origin = try AuthScope(url: "https://api.example.com:8443")
        try await store.add(Credential(user: "alice", password: "wonder-SECRET", schemes: .digest), for: photos)
        try await store.add(Credential(user: "bob", password: "builder-SECRET"), for: origin, allowingPlainHTTP: true)
        try await store.add(Credential(user: "carol", password: "memory-SECRET"), for: try AuthScope(url: "https://b.example"), persistence: .forClient)

        // Two items, one per permanent scope; the for-client credential was not written.
        let items = try await Self.items(fixture)
        #expect(items.count == 2)
        var byRealm: [String: String] = [:]
        for item in items {
            let attributes = try await fixture.bus.attributes(of: item)
            byRealm[attributes["realm"] ?? "?"] = item
            #expect(
                attributes == [
                    "application": "remote-auth", "xdg:schema": "org.remoteauth.Credential", "protocol": "https",
                    "server": "api.example.com", "port": "8443", "realm": attributes["realm"] ?? "?",
                ]
            )
            #expect(!attributes.values.contains { $0.contains("SECRET") || $0 == "alice" || $0 == "bob" })
        }
        let photosItem = try #require(byRealm["Photos"])
        let originItem = try #require(byRealm[""])
        let label = try await fixture.bus.property(photosItem, SecretService.itemInterface, "Label")
        #expect(label == .string("remote-auth: alice at https://api.example.com:8443 (realm \"Photos\")"))
        #expect(
            try await fixture.bus.property(originItem, SecretService.itemInterface, "Label")
                == .string("remote-auth: bob at https://api.example.com:8443")
        )
        #expect(
            String(decoding: try await fixture.bus.secret(of: photosItem).value, as: UTF8.self)
                == #"{"allowsPlainHTTP":false,"password":"wonder-SECRET","schemes":["digest"],"user":"alice"}"#
        )

        // Another store object (another process) reads them: the realm's credential wins there,
        // the origin's elsewhere; another port finds nothing.
        let reopened = try await Self.open(fixture)
        let found = await reopened.credential(for: origin, realm: "Photos")
        #expect(found == ScopedCredential(scope: photos, credential: Credential(user: "alice", password: "wonder-SECRET", schemes: .digest)))
        #expect(
            await reopened.credential(for: origin, realm: "Videos")
                == ScopedCredential(scope: origin, credential: Credential(user: "bob", password: "builder-SECRET"), allowsPlainHTTP: true)
        )
        #expect(await reopened.credential(for: try AuthScope(url: "https://api.example.com"), realm: nil) == nil)
        #expect(await reopened.credential(for: try AuthScope(url: "https://b.example"), realm: nil) == nil)
        #expect(await store.credential(for: try AuthScope(url: "https://b.example"), realm: nil)?.credential.user == "carol")
        #expect(!"\(String(describing: found))".contains("SECRET"))

        // Another user for the scope replaces its item: still one, the new one.
        try await store.add(Credential(user: "dave", password: "other-SECRET"), for: photos)
        #expect(try await Self.items(fixture).count == 2)
        try await reopened.reload()
        #expect(await reopened.credential(for: origin, realm: "Photos")?.credential == Credential(user: "dave", password: "other-SECRET"))

        // Kept for this run only: the scope's item goes, memory answers.
        try await store.add(Credential(user: "erin", password: "brief-SECRET"), for: photos, persistence: .forClient)
        #expect(try await Self.items(fixture) == [originItem])
        #expect(await store.credential(for: origin, realm: "Photos")?.credential.user == "erin")

        try await store.remove(origin)
        #expect(try await Self.items(fixture) == [])
        #expect(await (try await Self.open(fixture)).credential(for: origin, realm: nil) == nil)
        // Removing what is not there is not an error.
        try await store.remove(origin)
        await store.close()
        await reopened.close()
        await fixture.delete()
    }

    /// The client answers the sandbox's Digest SHA-256 challenge with the credential from the
    /// keyring, read by a store opened after it was written.
    @Test func aClientAnswersTheSandboxFromTheKeyring() async throws {
        let fixture = try await KeyringFixture.make()
        try await Sandbox.withSandbox { sandbox in
            let writer = try await Self.open(fixture)
            try await writer.add(Credential(user: "alice", password: "wonderland"), for: try AuthScope(url: sandbox.baseURL))
            await writer.close()
            let store = try await Self.open(fixture)
            try await AsyncHTTPClientTransport.withTransport { transport in
                let client = AuthenticatingClient(transport: transport, credentials: store)
                let (response, body) = try await client.send(
                    try HTTPRequest(method: .get, absoluteURL: sandbox.baseURL + "/digest/SHA-256/auth/")
                )
                #expect(response.status == .ok)
                #expect(String(decoding: body, as: UTF8.self) == "{\"authenticated\": true, \"user\": \"alice\"}")
            }
            await store.close()
        }
        await fixture.delete()
    }

    @Test func anItemOfAnotherProgramIsLeftAlone() async throws {
        let fixture = try await KeyringFixture.make()
        let scope = try AuthScope(url: "https://api.example.com")
        let item = try await fixture.writeItem(
            ["application": "remote-auth", "protocol": "https", "server": "api.example.com", "port": "443", "realm": ""],
            secret: "another program's password"
        )
        // Not read as a credential (it lacks the schema)...
        let store = try await Self.open(fixture)
        #expect(await store.credential(for: scope, realm: nil) == nil)
        // ...and never overwritten or removed.
        let addError = await #expect(throws: KeyringError.self) {
            try await store.add(Credential(user: "alice", password: "wonderland"), for: scope)
        }
        #expect(addError == KeyringError(.foreignItem, scope: scope, reason: ""))
        #expect(addError?.reason.contains("the credential for https://api.example.com:443") == true)
        await #expect(throws: KeyringError(.foreignItem, scope: scope, reason: "")) { try await store.remove(scope) }
        #expect(await store.credential(for: scope, realm: nil) == nil)
        #expect(try await fixture.bus.secret(of: item).value == Array("another program's password".utf8))
        #expect(try await Self.items(fixture) == [item])
        await store.close()
        await fixture.delete()
    }

    @Test func anItemThatDoesNotDecodeFailsTheOpenNamingItsScope() async throws {
        let fixture = try await KeyringFixture.make()
        let scope = try AuthScope(url: "https://api.example.com", realm: "Photos")
        let item = try await fixture.writeItem(
            SecretServiceCredentialStore.attributes(scope),
            secret: #"{"user": "alice", "password": "wonder-SECRET", "schemes": ["ntlm"]}"#,
            contentType: "application/json"
        )
        let error = await #expect(throws: KeyringError.self) { try await Self.open(fixture) }
        #expect(error == KeyringError(.undecodable, scope: scope, reason: ""))
        #expect(error?.reason.contains(#"the credential for https://api.example.com:443 realm="Photos""#) == true, "\(String(describing: error))")
        #expect(error?.description.contains("SECRET") == false)
        #expect(
            try await fixture.bus.secret(of: item).value
                == Array(#"{"user": "alice", "password": "wonder-SECRET", "schemes": ["ntlm"]}"#.utf8)
        )
        // An item of the schema whose attributes name no scope: the same, with no scope.
        try #require(try await fixture.bus.delete(item))
        _ = try await fixture.writeItem(
            ["application": "remote-auth", "xdg:schema": "org.remoteauth.Credential", "server": "api.example.com"],
            secret: "{}"
        )
        await #expect(throws: KeyringError(.undecodable, reason: "")) { try await Self.open(fixture) }
        await fixture.delete()
    }

    @Test func aCollectionLockedBetweenTwoCalls() async throws {
        let fixture = try await KeyringFixture.make()
        let scope = try AuthScope(url: "https://api.example.com")
        let store = try await Self.open(fixture)
        try await store.add(Credential(user: "alice", password: "wonderland"), for: scope)
        try await fixture.bus.lock([fixture.collection])
        let error = await #expect(throws: KeyringError.self) {
            try await store.add(Credential(user: "alice", password: "changed"), for: scope)
        }
        #expect(error == KeyringError(.locked, scope: scope, reason: ""))
        #expect(error?.reason.contains("the credential for https://api.example.com:443") == true)
        await #expect(throws: KeyringError(.locked, scope: scope, reason: "")) { try await store.remove(scope) }
        await #expect(throws: KeyringError(.locked, reason: "")) { try await Self.open(fixture) }
        // What was read before still answers; unlocked again, the keyring holds the old password.
        #expect(await store.credential(for: scope, realm: nil)?.credential == Credential(user: "alice", password: "wonderland"))
        try await fixture.unlock()
        #expect(await (try await Self.open(fixture)).credential(for: scope, realm: nil)?.credential == Credential(user: "alice", password: "wonderland"))
        await store.close()
        await fixture.delete()
    }
}

/// Without a Secret Service, opening the credential store fails at once with `.unavailable`
/// (runs everywhere: it needs no bus).
@Suite("Keyring: credential store without a Secret Service")
struct SecretServiceCredentialStoreUnavailableTests {
    @Test func noSessionBusOrNothingListening() async throws {
        let error = await #expect(throws: KeyringError.self) {
            try await SecretServiceCredentialStore.open(environment: ["HOME": "/nonexistent"])
        }
        #expect(error == KeyringError(.unavailable, reason: ""))
        #expect(error?.reason.contains("DBUS_SESSION_BUS_ADDRESS is not set") == true)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-bus-\(UUID().uuidString)").path
        await #expect(throws: KeyringError(.unavailable, reason: "")) {
            try await SecretServiceCredentialStore.open(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(path)"])
        }
    }
}
