import Foundation
import RemoteAuth
import RemoteAuthFileStore
import Testing

@testable import RemoteAuthKeyring

#if canImport(Glibc)
import Glibc
#endif

/// The tool's profiles in a real keyring: gnome-keyring's login collection (the `default`
/// alias) on the session bus scripts/interop/keyring.sh starts, with `REMOTE_AUTH_KEYRING_TESTS=1`
/// (a plain `swift test` reports them as skipped). `profiles list` and `show` say where each
/// profile lives; `profiles migrate` moves them both ways, finishes a move cut short (a
/// profile in both: the keyring's copy is used) and overwrites nothing another program wrote or
/// that does not decode; `secret-tool` finds the items with the documented attributes and no
/// secret outside the secret; 4 processes × 50 requests refresh through the keyring once per
/// expiry. Profile names are unique to a run: the login collection is shared.
@Suite(
    .enabled(
        if: ProcessInfo.processInfo.environment["REMOTE_AUTH_KEYRING_TESTS"] == "1",
        "needs REMOTE_AUTH_KEYRING_TESTS=1 and a Secret Service (scripts/interop/keyring.sh)"
    ),
    .serialized,
    .timeLimit(.minutes(5))
)
struct KeyringCLITests {
    static func session(_ access: String) -> StoredSession {
        .oauth2(
            OAuth2.Session(
                tokens: OAuth2.Tokens(
                    accessToken: Secret(access),
                    tokenType: "Bearer",
                    expiresAt: 4_000_000_000,
                    refreshToken: Secret("refresh-SECRET-\(access)")
                ),
                tokenEndpoint: "http://127.0.0.1:1/oauth2/token",
                clientID: "demo-app",
                resourceOrigins: ["http://127.0.0.1:1"]
            )
        )
    }

    /// Runs libsecret's secret-tool (`REMOTE_AUTH_SECRET_TOOL`), `input` on its stdin; its
    /// stdout and stderr (where `search` prints the attributes) together.
    static func secretTool(_ arguments: [String], input: String? = nil) async throws -> (status: Int32, output: String)
    {
        let tool = try #require(
            ProcessInfo.processInfo.environment["REMOTE_AUTH_SECRET_TOOL"],
            "REMOTE_AUTH_SECRET_TOOL is not set"
        )
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("secret-tool-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (outputPath, inputPath) = (scratch.appendingPathComponent("out"), scratch.appendingPathComponent("in"))
        _ = FileManager.default.createFile(atPath: outputPath.path, contents: nil)
        _ = FileManager.default.createFile(atPath: inputPath.path, contents: Data((input ?? "").utf8))
        let output = try FileHandle(forWritingTo: outputPath)
        let standardInput = try FileHandle(forReadingFrom: inputPath)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        process.standardInput = standardInput
        try await CLI.launchAndWait(process)
        try output.close()
        try standardInput.close()
        return (process.terminationStatus, String(decoding: try Data(contentsOf: outputPath), as: UTF8.self))
    }

    /// A fresh `REMOTE_AUTH_HOME`, its file store, the keyring store the tool uses, the tool's
    /// environment (the default choice), and a prefix for this test's profile names.
    struct Setup {
        let home: String
        let file: FileTokenStore
        let keyring = SecretServiceTokenStore()
        let environment: [String: String]
        let prefix = "kc\(UUID().uuidString.prefix(8).lowercased())"

        init() throws {
            home = FileManager.default.temporaryDirectory.appendingPathComponent("keyring-cli-\(UUID())").path
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            file = try FileTokenStore(path: home + "/tokens.json")
            environment = ["REMOTE_AUTH_HOME": home, "REMOTE_AUTH_STORE": ""]
        }

        /// `profiles list`'s rows for this test's profiles.
        func list() async throws -> [String] {
            let list = try await CLI.run(["profiles", "list"], environment: environment)
            #expect(list.status == 0, "\(list.stderr)")
            #expect(list.stderr == "")
            return list.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix) }
        }

        func run(_ arguments: [String]) async throws -> CLIResult {
            try await CLI.run(arguments, environment: environment)
        }

        func remove() async {
            for key in (try? await keyring.keys()) ?? [] where key.service.hasPrefix(prefix) {
                try? await keyring.removeSession(service: key.service, account: key.account)
            }
            await keyring.close()
            try? FileManager.default.removeItem(atPath: home)
        }
    }

    @Test func listAndMigrateBothWays() async throws {
        let setup = try Setup()
        let (old, new) = (setup.prefix + "-old", setup.prefix + "-new")
        try await setup.file.save(Self.session("file-SECRET-1"), service: old, account: "demo-app")
        try await setup.keyring.save(Self.session("keyring-SECRET-1"), service: new, account: "demo-app")
        #expect(try await setup.list() == ["\(new) demo-app demo-app keyring", "\(old) demo-app demo-app file"])
        // --store file: the file alone, nothing said.
        let fileOnly = try await setup.run(["profiles", "list", "--store", "file"])
        #expect(
            fileOnly.stdout.split(separator: "\n").filter { $0.hasPrefix(setup.prefix) } == [
                "\(old) demo-app demo-app file"
            ]
        )
        #expect(fileOnly.stderr == "")

        let toKeyring = try await setup.run(["profiles", "migrate", "--to", "keyring", old])
        #expect(toKeyring.status == 0, "\(toKeyring.stderr)")
        #expect(toKeyring.stdout == "Moved profile '\(old)' to the keyring.\n")
        #expect(toKeyring.stderr == "")
        #expect(try await setup.list() == ["\(new) demo-app demo-app keyring", "\(old) demo-app demo-app keyring"])
        #expect(await setup.file.keys() == [])
        #expect(try await setup.keyring.session(service: old, account: "demo-app") == Self.session("file-SECRET-1"))

        // secret-tool finds the item: the documented attributes and label, the token in the secret only.
        let search = try await Self.secretTool(["search", "--all", "application", "remote-auth", "service", old])
        #expect(search.status == 0)
        let lines = search.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("label = remote-auth: \(old) at 127.0.0.1"), "\(lines)")
        let attributes = lines.filter { $0.hasPrefix("attribute.") }.sorted()
        #expect(
            attributes == [
                "attribute.account = demo-app", "attribute.application = remote-auth", "attribute.service = \(old)",
            ]
                || attributes == [
                    "attribute.account = demo-app", "attribute.application = remote-auth", "attribute.service = \(old)",
                    "attribute.xdg:schema = org.remoteauth.Session",
                ],
            "\(attributes)"
        )
        #expect(lines.contains("schema = org.remoteauth.Session") || attributes.count == 4, "\(lines)")
        let secretLines = lines.filter { $0.contains("SECRET") }
        #expect(secretLines.count == 1 && secretLines[0].hasPrefix("secret = {"), "\(secretLines)")

        let toFile = try await setup.run(["profiles", "migrate", "--to", "file", new, old])
        #expect(toFile.status == 0, "\(toFile.stderr)")
        #expect(toFile.stdout == "Moved profile '\(new)' to the file.\nMoved profile '\(old)' to the file.\n")
        #expect(try await setup.list() == ["\(new) demo-app demo-app file", "\(old) demo-app demo-app file"])
        #expect(try await setup.keyring.keys().filter { $0.service.hasPrefix(setup.prefix) } == [])
        #expect(await setup.file.session(service: new, account: "demo-app") == Self.session("keyring-SECRET-1"))
        #expect(await setup.file.session(service: old, account: "demo-app") == Self.session("file-SECRET-1"))

        let again = try await setup.run(["profiles", "migrate", "--to", "file", new])
        #expect(again.status == 0)
        #expect(again.stdout == "Profile '\(new)' is in the file already.\n")
        let unknown = try await setup.run(["profiles", "migrate", "--to", "keyring", setup.prefix + "-none"])
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr
                == "remote-auth: unknown profile: '\(setup.prefix)-none' (see 'remote-auth profiles list'); nothing was moved\n"
        )
        await setup.remove()
    }

    /// A move cut short after the write leaves the profile in both: it is used from the keyring,
    /// shown as keyring+file, and migrate run again finishes the move either way.
    @Test func aProfileInBothIsUsedFromTheKeyringAndMigrateFinishes() async throws {
        let setup = try Setup()
        let both = setup.prefix + "-both"
        for target in ["file", "keyring"] {
            try await setup.file.save(Self.session("file-SECRET-2"), service: both, account: "demo-app")
            try await setup.keyring.save(Self.session("keyring-SECRET-2"), service: both, account: "demo-app")
            #expect(try await setup.list() == ["\(both) demo-app demo-app keyring+file"])
            let token = try await setup.run(["token", "--profile", both])
            #expect(token.stdout == "keyring-SECRET-2\n", "\(token.stderr)")
            let migrate = try await setup.run(["profiles", "migrate", "--to", target])
            #expect(migrate.status == 0, "\(migrate.stderr)")
            #expect(migrate.stdout.contains("Moved profile '\(both)' to the \(target).\n"), "\(migrate.stdout)")
            #expect(try await setup.list() == ["\(both) demo-app demo-app \(target)"])
            let after = try await setup.run(["token", "--profile", both])
            #expect(after.stdout == "keyring-SECRET-2\n", "\(after.stderr)")
            let remove = try await setup.run(["profiles", "remove", both])
            #expect(remove.stdout == "Removed profile '\(both)'.\n")
        }
        await setup.remove()
    }

    /// Another program's item under a profile's attributes, and an item of the tool's schema that
    /// does not decode: migrate names the profile, exits 1, and changes nothing anywhere.
    @Test func migrateOverwritesNothingItDoesNotOwn() async throws {
        let setup = try Setup()
        let (foreign, broken) = (setup.prefix + "-foreign", setup.prefix + "-broken")
        try await setup.file.save(Self.session("file-SECRET-3"), service: foreign, account: "demo-app")
        let stored = try await Self.secretTool(
            [
                "store", "--label", "someone else", "application", "remote-auth", "service", foreign, "account",
                "demo-app",
            ],
            input: "not-ours"
        )
        #expect(stored.status == 0, "\(stored.output)")
        let before = try Data(contentsOf: URL(fileURLWithPath: setup.home + "/tokens.json"))
        let toKeyring = try await setup.run(["profiles", "migrate", "--to", "keyring", foreign])
        #expect(toKeyring.status == 1)
        #expect(toKeyring.stdout == "")
        let lines = toKeyring.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.hasPrefix("remote-auth: profile '\(foreign)' was not moved: the keyring item ") == true)
        #expect(lines.first?.contains("was not written by remote-auth") == true, "\(lines)")
        #expect(lines.last == "remote-auth: 1 of 1 profiles not moved ('\(foreign)'): each is where it was")
        #expect(try Data(contentsOf: URL(fileURLWithPath: setup.home + "/tokens.json")) == before)
        let lookup = ["lookup", "application", "remote-auth", "service", foreign, "account", "demo-app"]
        #expect(try await Self.secretTool(lookup).output == "not-ours")

        let written = try await Self.secretTool(
            [
                "store", "--label", "broken", "application", "remote-auth", "service", broken, "account", "demo-app",
                "xdg:schema", SecretServiceTokenStore.schema,
            ],
            input: "{not json"
        )
        #expect(written.status == 0, "\(written.output)")
        let toFile = try await setup.run(["profiles", "migrate", "--to", "file", broken])
        #expect(toFile.status == 1)
        #expect(
            toFile.stderr.contains("remote-auth: profile '\(broken)' was not moved: the keyring item "),
            "\(toFile.stderr)"
        )
        #expect(toFile.stderr.contains("does not hold a session remote-auth can read"), "\(toFile.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: setup.home + "/tokens.json")) == before)
        let brokenLookup = ["lookup", "application", "remote-auth", "service", broken, "account", "demo-app"]
        #expect(try await Self.secretTool(brokenLookup).output == "{not json")
        for service in [foreign, broken] {
            _ = try await Self.secretTool(["clear", "application", "remote-auth", "service", service])
        }
        await setup.remove()
    }

    /// The test with the keyring store: signed in into the keyring (by default, a
    /// Secret Service answering), then 4 processes × 50 requests over 3 expiries: one refresh per
    /// expiry, no failure; the rotated tokens are in the keyring, and no file was written.
    @Test func fourProcessesOfFiftyRequestsRefreshThroughTheKeyring() async throws {
        let setup = try Setup()
        let shared = setup.prefix + "-shared"
        var first: StoredSession? = nil
        try await SharedTokenCLITests.fourProcessesOfFiftyRequests(
            profile: shared,
            environment: setup.environment,
            store: "keyring"
        ) {
            #expect(try await setup.list() == ["\(shared) demo-app demo-app keyring"])
            first = try await setup.keyring.session(service: shared, account: "demo-app")
        }
        let last = try await setup.keyring.session(service: shared, account: "demo-app")
        let (before, after) = (first?.oauth2?.tokens, last?.oauth2?.tokens)
        #expect(before != nil && after != nil)
        #expect(before?.refreshToken != after?.refreshToken)
        #expect(before?.accessToken != after?.accessToken)
        #expect(!FileManager.default.fileExists(atPath: setup.home + "/tokens.json"))
        await setup.remove()
    }

    /// A collection that is locked (unlocking it would need a password at a prompt): the default
    /// falls back to the file, saying why in one line; `--store keyring` refuses.
    @Test func aLockedKeyringFallsBackToTheFile() async throws {
        let setup = try Setup()
        let old = setup.prefix + "-old"
        try await setup.file.save(Self.session("file-SECRET-4"), service: old, account: "demo-app")
        let address = try #require(ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"])
        let bus = try await SecretService.open(address: address, timeout: .seconds(10))
        let internalInterface = "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface"
        let master = DBusValue.structure([
            .objectPath(bus.session), .bytes([]), .bytes(Array("remote-auth-test".utf8)), .string("text/plain"),
        ])
        let reply = try await bus.call(
            SecretService.servicePath,
            internalInterface,
            "CreateWithMasterPassword",
            [.properties([("org.freedesktop.Secret.Collection.Label", .string(setup.prefix))]), master],
            returning: "o"
        )
        let collection = try #require(reply[0].objectPath)
        try await bus.lock([collection])
        var environment = setup.environment
        environment["REMOTE_AUTH_KEYRING_COLLECTION"] = collection
        let list = try await CLI.run(["profiles", "list"], environment: environment)
        #expect(list.status == 0)
        #expect(
            list.stdout.split(separator: "\n").filter { $0.hasPrefix(setup.prefix) } == [
                "\(old) demo-app demo-app file"
            ]
        )
        #expect(
            list.stderr
                == "remote-auth: the keyring is locked (unlock it to keep profiles there): keeping profiles in \(setup.home)/tokens.json (REMOTE_AUTH_STORE=file or --store file chooses the file without asking)\n"
        )
        let required = try await CLI.run(["profiles", "list", "--store", "keyring"], environment: environment)
        #expect(required.status == 1)
        #expect(
            required.stderr
                == "remote-auth: the keyring cannot be used: the keyring's collection \(collection) is locked and unlocking it needs a password at a prompt: unlock the keyring and try again; nothing was written\n"
        )
        _ = try? await bus.call(
            SecretService.servicePath,
            internalInterface,
            "UnlockWithMasterPassword",
            [.objectPath(collection), master],
            returning: ""
        )
        _ = try? await bus.call(collection, SecretService.collectionInterface, "Delete", returning: "o")
        await bus.close()
        await setup.remove()
    }

    /// `profiles migrate` killed (SIGKILL) at random moments, back and forth: after every kill each
    /// profile is in the keyring or the file (or both) with its session unchanged, never in
    /// neither; a last run finishes the move.
    @Test func migrateKilledAtRandomLosesNoProfile() async throws {
        let setup = try Setup()
        let names = (0..<12).map { "\(setup.prefix)-m\($0)" }
        for name in names {
            try await setup.file.save(Self.session("file-SECRET-\(name)"), service: name, account: "demo-app")
        }
        var generator = SystemRandomNumberGenerator()
        var killed = 0
        var inBoth = 0
        for round in 0..<8 {
            let process = Process()
            process.executableURL = try CLI.binary()
            process.arguments = ["profiles", "migrate", "--to", round % 2 == 0 ? "keyring" : "file"] + names
            process.environment = CLI.environment.merging(setup.environment) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try await Task.sleep(for: .milliseconds(Int.random(in: 30...400, using: &generator)))
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killed += 1
            }
            await CLI.exited(process)
            for name in names {
                let inKeyring = try await setup.keyring.session(service: name, account: "demo-app")
                let inFile = await setup.file.session(service: name, account: "demo-app")
                #expect(inKeyring != nil || inFile != nil, "round \(round): \(name) is in neither")
                if inKeyring != nil, inFile != nil { inBoth += 1 }
                for copy in [inKeyring, inFile] where copy != nil {
                    #expect(copy == Self.session("file-SECRET-\(name)"), "round \(round): \(name) changed")
                }
            }
        }
        let finish = try await setup.run(["profiles", "migrate", "--to", "keyring"] + names)
        #expect(finish.status == 0, "\(finish.stderr)")
        #expect(try await setup.list() == names.sorted().map { "\($0) demo-app demo-app keyring" })
        #expect(await setup.file.keys().filter { $0.service.hasPrefix(setup.prefix) } == [])
        print(
            "migrate killed: \(killed) of 8 runs killed with SIGKILL at random, \(inBoth) times a profile left in both; no profile lost"
        )
        await setup.remove()
    }
}
