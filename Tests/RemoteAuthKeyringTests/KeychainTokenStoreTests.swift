// Apple platforms only: not built or run on Linux (see KeychainTokenStore.swift). The same
// expectations as SecretServiceTokenStoreTests, against the login keychain of the user running
// `swift test` on macOS (no entitlement: dataProtectionKeychain false), with a service name of
// its own that is removed afterwards.
#if canImport(Security)
import Foundation
import RemoteAuth
import Security
import Testing

@testable import RemoteAuthKeyring

@Suite("Keychain store", .serialized, .timeLimit(.minutes(2)))
struct KeychainTokenStoreTests {
    let service = "remote-auth-tests-\(UUID().uuidString)"
    let lockFile = FileManager.default.temporaryDirectory.appendingPathComponent("keychain-\(UUID().uuidString).lock").path

    func store() -> KeychainTokenStore {
        KeychainTokenStore(dataProtectionKeychain: false, lockFile: lockFile)
    }

    func removeEverything() {
        SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service] as CFDictionary)
    }

    @Test func savesReadsListsReplacesAndRemoves() async throws {
        defer { removeEverything() }
        let store = store()
        let key = TokenStoreKey(service: service, account: "demo-app")
        var changes = store.changes().makeAsyncIterator()
        #expect(try await store.session(service: service, account: "demo-app") == nil)
        let first = SecretServiceTokenStoreTests.session("access-SECRET-1")
        try await store.save(first, service: service, account: "demo-app")
        #expect(await changes.next() == .saved(key, first))
        #expect(try await store.session(service: service, account: "demo-app") == first)
        #expect(try await store.keys().contains(key))

        // The item: the documented label and marker, the JSON as its data, no secret elsewhere.
        var result: CFTypeRef?
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "demo-app", kSecReturnAttributes as String: true,
            kSecMatchLimit as String: kSecMatchLimitOne,
        ]
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
        let attributes = try #require(result as? [String: Any])
        #expect(attributes[kSecAttrLabel as String] as? String == "remote-auth: \(service) at as.example")
        #expect(attributes[kSecAttrGeneric as String] as? Data == KeychainTokenStore.marker)
        #expect(!"\(attributes)".contains("SECRET"))

        let second = SecretServiceTokenStoreTests.session("access-SECRET-2")
        try await store.save(second, service: service, account: "demo-app")
        #expect(try await store.session(service: service, account: "demo-app") == second)
        try await store.removeSession(service: service, account: "demo-app")
        #expect(try await store.session(service: service, account: "demo-app") == nil)
        #expect(await changes.next() == .saved(key, second))
        #expect(await changes.next() == .removed(key))
    }

    @Test func anotherProgramsItemIsLeftAlone() async throws {
        defer { removeEverything() }
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "theirs", kSecValueData as String: Data("their password".utf8),
        ]
        #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
        let store = store()
        let read = await #expect(throws: KeyringError.self) {
            _ = try await store.session(service: service, account: "theirs")
        }
        #expect(read?.code == .foreignItem)
        #expect(read?.key == TokenStoreKey(service: service, account: "theirs"))
        let save = await #expect(throws: KeyringError.self) {
            try await store.save(SecretServiceTokenStoreTests.session("x"), service: service, account: "theirs")
        }
        #expect(save?.code == .foreignItem)
        let remove = await #expect(throws: KeyringError.self) {
            try await store.removeSession(service: service, account: "theirs")
        }
        #expect(remove?.code == .foreignItem)
        #expect(try await !store.keys().contains(TokenStoreKey(service: service, account: "theirs")))
    }

    @Test func anItemThatDoesNotDecodeIsReportedThenRemovable() async throws {
        defer { removeEverything() }
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "broken", kSecAttrGeneric as String: KeychainTokenStore.marker,
            kSecValueData as String: Data("not json".utf8),
        ]
        #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
        let store = store()
        let read = await #expect(throws: KeyringError.self) {
            _ = try await store.session(service: service, account: "broken")
        }
        #expect(read?.code == .undecodable)
        #expect(read.map { !"\($0)".contains("not json") } == true)
        try await store.removeSession(service: service, account: "broken")
        #expect(try await store.session(service: service, account: "broken") == nil)
    }
}
#endif
