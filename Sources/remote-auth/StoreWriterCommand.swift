import ArgumentParser
import Foundation
import RemoteAuth
import RemoteAuthFileStore
import RemoteAuthKeyring

/// `remote-auth store-writer` (hidden): rewrites a token file as fast as it can, holding its
/// lock, until killed: each pass reads the counter kept in the session under `--account`, adds
/// one and saves it, a session padded to about 20 KiB so that a `kill -9` often lands in the
/// middle of a write. The tests run several at once, kill them at random moments, and check that
/// the file always opens whole. With `--keyring-collection` the counter is kept in that Secret
/// Service collection instead, the lock on `PATH.lock` as the file store's: the keyring store's
/// tests run several at once and count every increment.
struct StoreWriterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store-writer",
        abstract: "Rewrite a token file in a loop, for the crash tests of the file store.",
        shouldDisplay: false
    )

    @Option(help: "The token file.")
    var path: String

    @Option(help: "The account the counter is kept under.")
    var account: String

    @Option(help: "Stop after this many writes (default: until killed).")
    var count: Int?

    @Option(help: "Keep the counter in the Secret Service collection at this object path (the lock: PATH.lock).")
    var keyringCollection: String?

    func run() async throws {
        let store: any CoordinatedTokenStore =
            if let keyringCollection {
                SecretServiceTokenStore(
                    collection: .path(keyringCollection),
                    lockFile: path + ".lock",
                    lockTimeout: .seconds(240)
                )
            } else {
                try FileTokenStore(path: path)
            }
        let padding = (0..<500).map { "scope-\($0)-padding-padding-padding" }
        var written = 0
        while count.map({ written < $0 }) ?? true {
            try await store.withExclusiveAccess(service: "store-writer", account: account) { session in
                let counter = Int(session?.oauth2?.tokens.accessToken.reveal() ?? "0") ?? 0
                session = .oauth2(
                    OAuth2.Session(
                        tokens: OAuth2.Tokens(
                            accessToken: Secret(String(counter + 1)),
                            tokenType: "Bearer",
                            scope: padding
                        ),
                        tokenEndpoint: "http://127.0.0.1:1/token",
                        clientID: "store-writer"
                    )
                )
            }
            written += 1
            // A moment outside the lock, as a real process has between two refreshes.
            try await Task.sleep(for: .microseconds(Int.random(in: 500...3_000)))
        }
    }
}
