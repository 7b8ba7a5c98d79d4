import Foundation
import RemoteAuth
import Testing

@testable import RemoteAuthKeyring

/// Processes on one keyring: 3 `remote-auth store-writer` processes, each incrementing a counter
/// kept in one Secret Service item 15 times through the keyring store's exclusive access (the
/// `flock` on a shared lock file): the item ends at 45, no increment lost, and still decodes.
@Suite(
    "Keyring: processes",
    .enabled(
        if: KeyringFixture.enabled,
        "needs REMOTE_AUTH_KEYRING_TESTS=1 and a Secret Service (scripts/interop/keyring.sh)"
    ),
    .timeLimit(.minutes(5))
)
struct KeyringProcessesTests {
    /// The `remote-auth` binary beside the test bundle.
    static func binary() throws -> URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("remote-auth")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        throw KeyringError(.failed, reason: "remote-auth was not built next to \(CommandLine.arguments[0])")
    }

    @Test func threeProcessesIncrementOneItem() async throws {
        let fixture = try await KeyringFixture.make()
        try FileManager.default.createDirectory(at: fixture.folder, withIntermediateDirectories: true)
        let path = fixture.folder.appendingPathComponent("keyring").path
        let binary = try Self.binary()
        let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    let process = Process()
                    process.executableURL = binary
                    process.arguments = [
                        "store-writer", "--path", path, "--account", "shared", "--count", "15",
                        "--keyring-collection", fixture.collection,
                    ]
                    let exited = AsyncStream.makeStream(of: Int32.self)
                    process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
                    try process.run()
                    var iterator = exited.stream.makeAsyncIterator()
                    return await iterator.next() ?? -1
                }
            }
            return try await group.reduce(into: [Int32]()) { $0.append($1) }
        }
        #expect(statuses == [0, 0, 0])
        let store = SecretServiceTokenStore(collection: .path(fixture.collection), lockFile: path + ".lock")
        let session = try await store.session(service: "store-writer", account: "shared")
        #expect(session?.oauth2?.tokens.accessToken.reveal() == "45")
        #expect(try await store.keys() == [TokenStoreKey(service: "store-writer", account: "shared")])
        await store.close()
        await fixture.delete()
    }
}
