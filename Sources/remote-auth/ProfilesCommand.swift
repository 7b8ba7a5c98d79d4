import ArgumentParser
import Foundation
import RemoteAuth
import RemoteAuthFileStore

struct ProfilesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profiles",
        abstract:
            "List, show, remove or move the profiles kept by 'remote-auth authorize', or print the file they are kept in.",
        discussion: ExitStatus.help,
        subcommands: [List.self, Show.self, Remove.self, Migrate.self, Path.self]
    )

    struct Path: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the file the profiles are kept in when they are not in the keyring.",
            discussion: ExitStatus.discussion(
                """
                $REMOTE_AUTH_HOME/tokens.json, else $XDG_CONFIG_HOME/remote-auth/tokens.json, else \
                ~/.config/remote-auth/tokens.json; it may not exist yet. It holds secrets: mode 0600, \
                and a file that others can read is refused.
                """
            )
        )
        func run() throws {
            Terminal.writeLine(FileTokenStore.defaultPath())
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One line per profile: NAME ACCOUNT CLIENT STORE (keyring, file, or keyring+file).",
            discussion: ExitStatus.help
        )
        @OptionGroup(title: "Profiles") var storeOptions: StoreOptions
        func run() async throws {
            let store = try await storeOptions.open()
            for key in try await store.keys() {
                let stored = try await store.session(service: key.service, account: key.account)
                let places = try await store.places(service: key.service, account: key.account)
                // Names made before names were restricted, and accounts (a provider's screen
                // name), are escaped: one row per profile, whatever they hold.
                let client = stored?.oauth1?.client.key ?? stored?.oauth2?.clientID ?? ""
                Terminal.writeLine(
                    "\(PeerText.printable(key.service)) \(PeerText.printable(key.account)) \(PeerText.printable(client)) \(places.map(\.rawValue).joined(separator: "+"))"
                )
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A profile's provider, client and token, secrets redacted, and where it is kept.",
            discussion: ExitStatus.help
        )
        @Argument(help: "The profile name.") var name: String
        @OptionGroup(title: "Profiles") var storeOptions: StoreOptions
        func run() async throws {
            let store = try await storeOptions.open()
            if let oauth2 = try await OAuth2Profile.load(name, from: store) {
                var lines = oauth2.shown
                lines.insert(try await Self.place(oauth2.key, store), at: 2)
                for line in lines { Terminal.writeLine(line) }
                return
            }
            guard let key = try await store.keys().first(where: { $0.service == name }),
                let session = try await store.session(service: key.service, account: key.account)?.oauth1
            else { throw CLIFailure("unknown profile: '\(name)'") }
            Terminal.writeLine("profile: \(name)")
            Terminal.writeLine("account: \(key.account)")
            Terminal.writeLine(try await Self.place(key, store))
            Terminal.writeLine("request token URL: \(session.provider.requestTokenURL)")
            Terminal.writeLine("authorize URL: \(session.provider.authorizeURL)")
            Terminal.writeLine("access token URL: \(session.provider.accessTokenURL)")
            Terminal.writeLine("client: \(session.client)")
            Terminal.writeLine("token: \(session.accessToken.credentials)")
            for field in session.accessToken.fields { Terminal.writeLine("\(field.name): \(field.value)") }
        }

        /// `store: keyring`, `store: file` or `store: keyring+file` (the keyring's copy is used).
        static func place(_ key: TokenStoreKey, _ store: ProfileStore) async throws -> String {
            let places = try await store.places(service: key.service, account: key.account)
            return "store: \(places.map(\.rawValue).joined(separator: "+"))"
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget a profile (in the keyring and in the file).",
            discussion: ExitStatus.help
        )
        @Argument(help: "The profile name.") var name: String
        @OptionGroup(title: "Profiles") var storeOptions: StoreOptions
        func run() async throws {
            let store = try await storeOptions.open()
            let keys = try await store.keys().filter { $0.service == name }
            guard !keys.isEmpty else { throw CLIFailure("unknown profile: '\(name)'") }
            for key in keys { try await store.removeSession(service: key.service, account: key.account) }
            Terminal.writeLine("Removed profile '\(name)'.")
        }
    }
}
