import Foundation
import RemoteAuth
import Testing

@testable import RemoteAuthKeyring

/// The Secret Service store against a real gnome-keyring: what it writes (attributes, label,
/// content type, JSON), reads back, lists and removes; other programs' items and items it
/// cannot read left alone with a typed error naming the profile; a collection locked between
/// two calls; the lock shared by store objects (processes); no secret in any description.
@Suite(
    "Keyring: Secret Service store",
    .enabled(
        if: KeyringFixture.enabled,
        "needs REMOTE_AUTH_KEYRING_TESTS=1 and a Secret Service (scripts/interop/keyring.sh)"
    ),
    .timeLimit(.minutes(5))
)
struct SecretServiceTokenStoreTests {
    static func session(_ access: String, refresh: String = "refresh-SECRET-1") -> StoredSession {
        .oauth2(
            OAuth2.Session(
                tokens: OAuth2.Tokens(
                    accessToken: Secret(access),
                    tokenType: "Bearer",
                    expiresAt: 2_000_000_000,
                    refreshToken: Secret(refresh)
                ),
                tokenEndpoint: "https://as.example/oauth2/token",
                clientID: "demo-app",
                resourceOrigins: ["https://api.example"]
            )
        )
    }

    static let key = TokenStoreKey(service: "work", account: "demo-app")

    @Test func savesReadsListsAndRemoves() async throws {
        let fixture = try await KeyringFixture.make()
        let store = fixture.store()
        var changes = store.changes().makeAsyncIterator()
        #expect(try await store.session(service: "work", account: "demo-app") == nil)
        #expect(try await store.keys() == [])

        let saved = Self.session("access-SECRET-1")
        try await store.save(saved, service: "work", account: "demo-app")
        #expect(await changes.next() == .saved(Self.key, saved))
        #expect(try await store.session(service: "work", account: "demo-app") == saved)
        #expect(try await store.keys() == [Self.key])

        // The item as the Secret Service holds it: the documented attributes and label, JSON.
        let items = try await fixture.bus.searchItems(in: fixture.collection, ["application": "remote-auth"])
        #expect(items.count == 1)
        let item = try #require(items.first)
        #expect(
            try await fixture.bus.attributes(of: item) == [
                "application": "remote-auth", "service": "work", "account": "demo-app",
                "xdg:schema": "org.remoteauth.Session",
            ]
        )
        let label = try await fixture.bus.property(item, SecretService.itemInterface, "Label")
        #expect(label == .string("remote-auth: work at as.example"))
        // gnome-keyring answers text/plain whatever content type was written.
        let (value, _) = try await fixture.bus.secret(of: item)
        #expect(try JSONDecoder().decode(StoredSession.self, from: Data(value)) == saved)

        // Saving again replaces the item (CreateItem with replace): still one.
        let rotated = Self.session("access-SECRET-2", refresh: "refresh-SECRET-2")
        try await store.save(rotated, service: "work", account: "demo-app")
        #expect(try await fixture.bus.searchItems(in: fixture.collection, ["application": "remote-auth"]) == [item])
        // A second store object (another process) reads what the first wrote.
        #expect(try await fixture.store().session(service: "work", account: "demo-app") == rotated)

        try await store.save(Self.session("other"), service: "home", account: "demo-app")
        #expect(try await store.keys() == [TokenStoreKey(service: "home", account: "demo-app"), Self.key])
        try await store.removeSession(service: "work", account: "demo-app")
        #expect(try await store.session(service: "work", account: "demo-app") == nil)
        #expect(try await store.keys() == [TokenStoreKey(service: "home", account: "demo-app")])
        // Removing what is not there is not an error.
        try await store.removeSession(service: "work", account: "demo-app")
        await store.close()
        await fixture.delete()
    }

    @Test func anItemOfAnotherProgramIsLeftAlone() async throws {
        let fixture = try await KeyringFixture.make()
        let store = fixture.store()
        let item = try await fixture.writeItem(
            ["application": "remote-auth", "service": "work", "account": "demo-app"],
            secret: "another program's password"
        )
        let readError = await #expect(throws: KeyringError.self) {
            try await store.session(service: "work", account: "demo-app")
        }
        #expect(readError == KeyringError(.foreignItem, key: Self.key, reason: ""))
        #expect(readError?.reason.contains("profile 'work'") == true)
        #expect(readError?.reason.contains("another program") == false)
        await #expect(throws: KeyringError(.foreignItem, key: Self.key, reason: "")) {
            try await store.save(Self.session("access-SECRET-1"), service: "work", account: "demo-app")
        }
        await #expect(throws: KeyringError(.foreignItem, key: Self.key, reason: "")) {
            try await store.removeSession(service: "work", account: "demo-app")
        }
        await #expect(throws: KeyringError(.foreignItem, key: Self.key, reason: "")) {
            try await store.withExclusiveAccess(service: "work", account: "demo-app") { _ in }
        }
        // Untouched, and alone: nothing was written beside it.
        #expect(try await fixture.bus.secret(of: item).value == Array("another program's password".utf8))
        #expect(try await fixture.bus.searchItems(in: fixture.collection, ["application": "remote-auth"]) == [item])
        #expect(try await store.keys() == [])
        await store.close()
        await fixture.delete()
    }

    @Test func anItemThatDoesNotDecodeIsLeftAlone() async throws {
        let fixture = try await KeyringFixture.make()
        let store = fixture.store()
        let attributes = [
            "application": "remote-auth", "service": "work", "account": "demo-app",
            "xdg:schema": "org.remoteauth.Session",
        ]
        let item = try await fixture.writeItem(
            attributes,
            secret: "{\"kind\": 7, \"SECRET\"",
            contentType: "application/json"
        )
        let readError = await #expect(throws: KeyringError.self) {
            try await store.session(service: "work", account: "demo-app")
        }
        #expect(readError == KeyringError(.undecodable, key: Self.key, reason: ""))
        #expect(readError?.reason.contains("profile 'work'") == true)
        #expect(readError?.description.contains("SECRET") == false)
        await #expect(throws: KeyringError(.undecodable, key: Self.key, reason: "")) {
            try await store.save(Self.session("access-SECRET-1"), service: "work", account: "demo-app")
        }
        #expect(try await fixture.bus.secret(of: item).value == Array("{\"kind\": 7, \"SECRET\"".utf8))
        // Listed (it is this store's), and removing the profile removes it.
        #expect(try await store.keys() == [Self.key])
        try await store.removeSession(service: "work", account: "demo-app")
        #expect(try await fixture.bus.searchItems(in: fixture.collection, ["application": "remote-auth"]) == [])
        await store.close()
        await fixture.delete()
    }

    @Test func aCollectionLockedBetweenTwoCalls() async throws {
        let fixture = try await KeyringFixture.make()
        let store = fixture.store()
        let saved = Self.session("access-SECRET-1")
        try await store.save(saved, service: "work", account: "demo-app")
        try await fixture.bus.lock([fixture.collection])
        #expect(try await fixture.bus.isLocked(fixture.collection))
        let readError = await #expect(throws: KeyringError.self) {
            try await store.session(service: "work", account: "demo-app")
        }
        #expect(readError == KeyringError(.locked, key: Self.key, reason: ""))
        #expect(readError?.reason.contains("profile 'work'") == true)
        await #expect(throws: KeyringError(.locked, key: Self.key, reason: "")) {
            try await store.save(Self.session("access-SECRET-2"), service: "work", account: "demo-app")
        }
        await #expect(throws: KeyringError(.locked, key: nil, reason: "")) { try await store.check() }
        // Unlocked again: the session is the one saved before, nothing was overwritten.
        try await fixture.unlock()
        try await store.check()
        #expect(try await store.session(service: "work", account: "demo-app") == saved)
        await store.close()
        await fixture.delete()
    }

    /// Four store objects (four processes) on one lock file, 10 increments each holding the lock
    /// across a suspension: never two inside, no increment lost.
    @Test func storesOnOneLockFileExcludeEachOther() async throws {
        let fixture = try await KeyringFixture.make()
        let stores = (0..<4).map { _ in fixture.store(lockTimeout: .seconds(240)) }
        let inside = Shared((now: 0, most: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in stores {
                group.addTask {
                    for _ in 0..<10 {
                        try await store.withExclusiveAccess(service: "work", account: "demo-app") { session in
                            inside.withLock {
                                $0.now += 1
                                $0.most = max($0.most, $0.now)
                            }
                            try await Task.sleep(for: .milliseconds(1))
                            let count = Int(session?.oauth2?.tokens.accessToken.reveal() ?? "0") ?? 0
                            session = Self.session(String(count + 1))
                            inside.withLock { $0.now -= 1 }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(inside.withLock { $0.most } == 1)
        #expect(try await fixture.store().session(service: "work", account: "demo-app") == Self.session("40"))
        let mode = try FileManager.default.attributesOfItem(
            atPath: fixture.folder.appendingPathComponent("keyring.lock").path
        )[.posixPermissions]
        #expect(mode as? Int == 0o600)
        for store in stores { await store.close() }
        await fixture.delete()
    }

    /// Two token sessions on separate store objects, an expired token, 25 callers each: one
    /// refresh, saved to the keyring before it is used.
    @Test func sessionsOnSeparateStoresRefreshOnce() async throws {
        let fixture = try await KeyringFixture.make()
        try await fixture.store().save(Self.session("a1", refresh: "r1"), service: "work", account: "demo-app")
        let calls = Shared<[String]>([])
        let refresher: OAuth2.TokenSession.Refresher = { tokens in
            try await Task.sleep(for: .milliseconds(30))
            calls.withLock { $0.append(tokens.refreshToken?.reveal() ?? "-") }
            return OAuth2.Tokens(
                accessToken: Secret("a2"),
                tokenType: "Bearer",
                expiresAt: 4_000_000_000,
                refreshToken: Secret("r2")
            )
        }
        var sessions: [OAuth2.TokenSession] = []
        for _ in 0..<2 {
            sessions.append(
                try await OAuth2.TokenSession.restore(
                    from: fixture.store(),
                    service: "work",
                    account: "demo-app",
                    now: { 3_000_000_000 },
                    refresher: refresher
                )
            )
        }
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for session in sessions {
                for _ in 0..<25 { group.addTask { try await session.validTokens().accessToken.reveal() } }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens == Array(repeating: "a2", count: 50))
        #expect(calls.withLock { $0 } == ["r1"])
        let saved = try await fixture.store().session(service: "work", account: "demo-app")
        #expect(saved?.oauth2?.tokens.refreshToken?.reveal() == "r2")
        await fixture.delete()
    }
}

/// Without a Secret Service: a typed `.unavailable`, in time, whatever is missing. These run
/// everywhere (they need no bus).
@Suite("Keyring: no Secret Service")
struct SecretServiceUnavailableTests {
    @Test func noSessionBus() async throws {
        let store = SecretServiceTokenStore(environment: ["HOME": "/nonexistent"])
        let error = await #expect(throws: KeyringError.self) { try await store.check() }
        #expect(error?.code == .unavailable)
        #expect(error?.reason.contains("DBUS_SESSION_BUS_ADDRESS") == true)
        await #expect(throws: KeyringError(.unavailable, key: TokenStoreKey(service: "p", account: "a"), reason: "")) {
            try await store.session(service: "p", account: "a")
        }
    }

    @Test func nothingListens() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-bus-\(UUID().uuidString)").path
        for address in [
            "unix:path=\(path)", "unix:abstract=remote-auth-no-bus-\(UUID().uuidString)", "tcp:host=127.0.0.1,port=1",
        ] {
            let store = SecretServiceTokenStore(environment: [
                "DBUS_SESSION_BUS_ADDRESS": address, "HOME": "/nonexistent",
            ])
            let error = await #expect(throws: KeyringError.self, "\(address)") { try await store.keys() }
            #expect(error?.code == .unavailable, "\(address): \(String(describing: error))")
        }
    }
}

/// A value behind a lock that closures can share (a `Mutex` cannot be captured: it is not
/// copyable).
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Locked<Value>
    init(_ value: Value) { mutex = Locked(value) }
    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { mutex.withLock { body(&$0) } }
}
