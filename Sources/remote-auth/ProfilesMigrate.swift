import ArgumentParser
import Foundation
import RemoteAuth
import RemoteAuthFileStore
import RemoteAuthKeyring

extension ProfilesCommand {
    /// `profiles migrate --to keyring|file [PROFILE…]`: each profile written to the target, read
    /// back and compared, and only then deleted from the source, so a crash leaves it in one place
    /// or both, never neither. In both, the keyring's copy is the one the tool uses, and running
    /// the command again finishes the move.
    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move profiles to the keyring or to the file, without losing any.",
            discussion: ExitStatus.discussion(
                """
                Each profile is written to the target, read back and compared, and only then deleted \
                where it was: a crash in the middle leaves it in one place or both, never neither. A \
                profile in both is used from the keyring (its copy wins) and 'profiles list' shows it as \
                keyring+file; running the command again finishes the move. The keyring must answer. A \
                profile that cannot be moved (another program's keyring item under its name, an item \
                that does not decode, a locked keyring) is named on stderr and left where it is; \
                nothing is overwritten.
                """
            )
        )

        @Option(name: .customLong("to"), help: ArgumentHelp("Where the profiles go.", valueName: "keyring|file"))
        var target: StoreKind

        @Argument(help: "The profiles to move (default: every profile).")
        var profiles: [String] = []

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let file = try openFileStore(environment: environment)
            let keyring = try await ProfileStore.requireKeyring(environment: environment)
            let all = try await ProfileStore(keyring: keyring, file: file).keys()
            for name in profiles where !all.contains(where: { $0.service == name }) {
                throw CLIFailure(
                    "unknown profile: '\(PeerText.printable(name, limit: 80))' (see 'remote-auth profiles list'); nothing was moved"
                )
            }
            let keys = profiles.isEmpty ? all : all.filter { profiles.contains($0.service) }
            let named = target == .keyring ? "the keyring" : "the file"
            var failed: [String] = []
            for key in keys {
                let name = PeerText.printable(key.service)
                do {
                    if try await Self.move(key, to: target, keyring: keyring, file: file) {
                        Terminal.writeLine("Moved profile '\(name)' to \(named).")
                    } else {
                        Terminal.writeLine("Profile '\(name)' is in \(named) already.")
                    }
                } catch {
                    Terminal.writeError(
                        "remote-auth: profile '\(name)' was not moved: \(Terminal.safe(describe(error)))\n"
                    )
                    failed.append("'\(name)'")
                }
            }
            guard failed.isEmpty else {
                throw CLIFailure(
                    "\(failed.count) of \(keys.count) profiles not moved (\(failed.joined(separator: ", "))): each is where it was",
                    status: .failure
                )
            }
        }

        /// Moves the session under `key`; `false` when it is only in the target already.
        ///
        /// 1. The copy to move: the keyring's when the profile is in both (the copy the tool uses).
        /// 2. Written to the target holding the target's lock, unless the target holds it already.
        /// 3. Read back from the target and compared with what was written.
        /// 4. Deleted from the source holding the source's lock, if unchanged since step 1.
        static func move(
            _ key: TokenStoreKey,
            to target: StoreKind,
            keyring: SecretServiceTokenStore,
            file: FileTokenStore
        ) async throws -> Bool {
            let (service, account) = (key.service, key.account)
            let inKeyring = try await keyring.session(service: service, account: account)
            let inFile = await file.session(service: service, account: account)
            let source: any CoordinatedTokenStore = target == .keyring ? file : keyring
            let destination: any CoordinatedTokenStore = target == .keyring ? keyring : file
            let (inSource, inTarget) = target == .keyring ? (inFile, inKeyring) : (inKeyring, inFile)
            guard let moving = inKeyring ?? inFile, inSource != nil else { return false }
            let names = target == .keyring ? ("the keyring", "the file") : ("the file", "the keyring")
            let changed = CLIFailure(
                "it changed in \(names.1) while it was being moved (a refresh by another process): run the command again"
            )
            if inTarget != moving {
                try await destination.withExclusiveAccess(service: service, account: account) { current in
                    guard current == inTarget else { throw changed }
                    current = moving
                }
            }
            guard try await destination.session(service: service, account: account) == moving else {
                throw CLIFailure(
                    "what \(names.0) holds after the write is not what was written; it is still in \(names.1)"
                )
            }
            try await source.withExclusiveAccess(service: service, account: account) { current in
                guard current == inSource else { throw changed }
                current = nil
            }
            return true
        }
    }
}
