import Foundation
import RemoteAuth
import RemoteAuthFileStore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Where the tool keeps profiles, without a keyring (the keyring's side runs in
/// scripts/interop/keyring.sh: `KeyringCLITests`): `--store file` and `REMOTE_AUTH_STORE=file`
/// never touch D-Bus and say nothing; the default falls back to the file when no Secret
/// Service answers (no bus, a dead one, one that never answers), saying so in one line on
/// stderr, once; `--store keyring` and `profiles migrate` refuse to run without one.
@Suite(.timeLimit(.minutes(5))) struct StoreChoiceCLITests {
    static let session = StoredSession.oauth2(
        OAuth2.Session(
            tokens: OAuth2.Tokens(
                accessToken: Secret("access-SECRET"),
                tokenType: "Bearer",
                expiresAt: 4_000_000_000,
                refreshToken: Secret("refresh-SECRET")
            ),
            tokenEndpoint: "http://127.0.0.1:1/oauth2/token",
            clientID: "demo-app",
            resourceOrigins: ["http://127.0.0.1:1"]
        )
    )

    /// A folder with `tokens.json` holding profile `old`.
    static func home() async throws -> String {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("store-choice-\(UUID())").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try await FileTokenStore(path: home + "/tokens.json").save(session, service: "old", account: "demo-app")
        return home
    }

    /// The fallback line for `home` after `why`.
    static func notice(_ why: String, _ home: String) -> String {
        "remote-auth: \(why): keeping profiles in \(home)/tokens.json (REMOTE_AUTH_STORE=file or --store file chooses the file without asking)\n"
    }

    /// A Unix socket that listens and never answers (the kernel queues the connection); whether
    /// anything connected to it is asked with a non-blocking `accept(2)`.
    final class SilentBus {
        let path: String
        let fd: Int32
        init() throws {
            path = "/tmp/ra-bus-\(UUID().uuidString.prefix(8))"
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            try #require(bound == 0 && listen(fd, 16) == 0, "bind \(path): errno \(errno)")
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        var address: String { "unix:path=\(path)" }
        /// The connections made to it so far (accepted now, and closed).
        func connections() -> Int {
            var count = 0
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return count }
                close(client)
                count += 1
            }
        }
        deinit {
            close(fd)
            unlink(path)
        }
    }

    @Test func fileStoreNeverTouchesTheBusAndSaysNothing() async throws {
        let home = try await Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let bus = try SilentBus()
        for (arguments, variable) in [
            (["profiles", "list", "--store", "file"], ""), (["profiles", "list"], "file"),
            // The option wins over the variable.
            (["profiles", "list", "--store", "file"], "keyring"),
        ] {
            let result = try await CLI.run(
                arguments,
                environment: [
                    "REMOTE_AUTH_HOME": home, "REMOTE_AUTH_STORE": variable, "DBUS_SESSION_BUS_ADDRESS": bus.address,
                ]
            )
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == "old demo-app demo-app file\n")
            #expect(result.stderr == "")
        }
        let show = try await CLI.run(
            ["profiles", "show", "old"],
            environment: ["REMOTE_AUTH_HOME": home, "DBUS_SESSION_BUS_ADDRESS": bus.address]
        )
        #expect(
            show.stdout.hasPrefix("profile: old\naccount: demo-app\nstore: file\ntype: OAuth 2\n"),
            "\(show.stdout)"
        )
        #expect(!show.stdout.contains("SECRET"))
        #expect(bus.connections() == 0)
    }

    @Test func withoutASessionBusTheDefaultFallsBackSayingSoOnce() async throws {
        let home = try await Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let environment = ["REMOTE_AUTH_HOME": home, "REMOTE_AUTH_STORE": "", "DBUS_SESSION_BUS_ADDRESS": ""]
        let notice = Self.notice(
            "no Secret Service: DBUS_SESSION_BUS_ADDRESS is not set (no desktop session on this bus)",
            home
        )
        let list = try await CLI.run(["profiles", "list"], environment: environment)
        #expect(list.status == 0)
        #expect(list.stdout == "old demo-app demo-app file\n")
        #expect(list.stderr == notice)
        // `show` reads the profile twice (as OAuth 2, then its place): one line still.
        let show = try await CLI.run(["profiles", "show", "old"], environment: environment)
        #expect(show.status == 0)
        #expect(show.stderr == notice)
        // A profile saved in the fallback goes to the file; removing it says the line once too.
        let remove = try await CLI.run(["profiles", "remove", "old"], environment: environment)
        #expect(remove.stdout == "Removed profile 'old'.\n")
        #expect(remove.stderr == notice)
        #expect(try await FileTokenStore(path: home + "/tokens.json").keys() == [])
    }

    @Test func aDeadOrSilentBusFallsBackToo() async throws {
        let home = try await Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let dead = "unix:path=/tmp/ra-no-bus-\(UUID().uuidString.prefix(8))"
        let noBus = try await CLI.run(
            ["profiles", "list"],
            environment: ["REMOTE_AUTH_HOME": home, "REMOTE_AUTH_STORE": "", "DBUS_SESSION_BUS_ADDRESS": dead]
        )
        #expect(noBus.status == 0)
        #expect(noBus.stdout == "old demo-app demo-app file\n")
        #expect(noBus.stderr.hasPrefix("remote-auth: no Secret Service: "), "\(noBus.stderr)")
        #expect(
            noBus.stderr.hasSuffix(
                ": keeping profiles in \(home)/tokens.json (REMOTE_AUTH_STORE=file or --store file chooses the file without asking)\n"
            )
        )
        #expect(noBus.stderr.filter { $0 == "\n" }.count == 1)
        // A bus that takes the connection and never answers: the probe's deadline, then the file.
        let bus = try SilentBus()
        let silent = try await CLI.run(
            ["profiles", "list"],
            environment: ["REMOTE_AUTH_HOME": home, "REMOTE_AUTH_STORE": "", "DBUS_SESSION_BUS_ADDRESS": bus.address]
        )
        #expect(silent.status == 0)
        #expect(silent.stdout == "old demo-app demo-app file\n")
        #expect(silent.stderr.hasPrefix("remote-auth: the keyring did not answer ("), "\(silent.stderr)")
        #expect(silent.stderr.filter { $0 == "\n" }.count == 1)
        #expect(bus.connections() == 1)
    }

    @Test func keyringRequiredOrRefused() async throws {
        let home = try await Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let before = try Data(contentsOf: URL(fileURLWithPath: home + "/tokens.json"))
        let environment = ["REMOTE_AUTH_HOME": home, "REMOTE_AUTH_STORE": "", "DBUS_SESSION_BUS_ADDRESS": ""]
        let unavailable =
            "the keyring cannot be used: no Secret Service: DBUS_SESSION_BUS_ADDRESS is not set (no desktop session on this bus)"
        let keyring = try await CLI.run(["profiles", "list", "--store", "keyring"], environment: environment)
        #expect(keyring.status == 1)
        #expect(keyring.stdout == "")
        #expect(keyring.stderr == "remote-auth: \(unavailable)\n")
        for target in ["keyring", "file"] {
            let migrate = try await CLI.run(["profiles", "migrate", "--to", target], environment: environment)
            #expect(migrate.status == 1)
            #expect(migrate.stdout == "")
            #expect(migrate.stderr == "remote-auth: \(unavailable)\n")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: home + "/tokens.json")) == before)
        var bad = environment
        bad["REMOTE_AUTH_STORE"] = "vault"
        let variable = try await CLI.run(["profiles", "list"], environment: bad)
        #expect(variable.status == 2)
        #expect(variable.stderr == "remote-auth: REMOTE_AUTH_STORE must be 'keyring' or 'file', not 'vault'\n")
        let option = try await CLI.run(["profiles", "list", "--store", "vault"], environment: environment)
        #expect(option.status == 2)
        #expect(option.stderr.contains("The value 'vault' is invalid for '--store <keyring|file>'"), "\(option.stderr)")
    }
}
