import ArgumentParser
import Foundation
import RemoteAuth
import RemoteAuthFileStore
import RemoteAuthKeyring

/// Where profiles are kept: the desktop keyring (the freedesktop Secret Service) or the 0600
/// file `tokens.json`.
enum StoreKind: String, CaseIterable, ExpressibleByArgument, Sendable {
    case keyring, file
}

/// `--store keyring|file` (else `REMOTE_AUTH_STORE`): on every command that reads or writes
/// profiles.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .customLong("store"),
        help: ArgumentHelp(
            "Where profiles are kept: keyring (the desktop's Secret Service) or file (tokens.json); default: REMOTE_AUTH_STORE, else the keyring when one answers, else the file.",
            valueName: "keyring|file"
        )
    )
    var store: StoreKind?

    /// Opens the store this command uses, once (the fallback notice is said at most once).
    func open(environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> ProfileStore {
        try await ProfileStore.open(store, environment: environment)
    }
}

/// The tool's profiles, in the keyring and in `tokens.json` at once.
///
/// - `--store file` (or `REMOTE_AUTH_STORE=file`): the file alone; D-Bus is never touched.
/// - `--store keyring`: new profiles go to the keyring, which must answer; the file is still
///   read, so a profile kept there before stays usable where it is.
/// - neither: the keyring when a Secret Service answers within the probe's deadline and its
///   collection is unlocked, as with `keyring`; else the file, and one line on stderr says why and
///   where the file is.
///
/// A profile in both (a `profiles migrate` cut short) is read from the keyring, and changed
/// there: the keyring's copy wins; `profiles migrate` run again finishes the move. An existing
/// profile is changed where it lives; a new one goes to ``primary``.
///
/// Across processes: ``withExclusiveAccess(service:account:_:)`` holds the keyring's lock and
/// then the file's (always in that order, so no two processes wait for each other), and saves
/// the changed session where it lives before releasing them.
actor ProfileStore: CoordinatedTokenStore {
    /// The keyring, when it is used.
    let keyring: SecretServiceTokenStore?
    let file: FileTokenStore
    /// Where a new profile goes.
    let primary: StoreKind
    private let listeners = TokenStoreListeners()

    init(keyring: SecretServiceTokenStore?, file: FileTokenStore) {
        self.keyring = keyring
        self.file = file
        self.primary = keyring == nil ? .file : .keyring
    }

    /// How long the default choice waits for a Secret Service to answer, each call.
    static let probeTimeout: Duration = .seconds(2)

    /// The store `choice` (else `REMOTE_AUTH_STORE`, else the default) names.
    static func open(_ choice: StoreKind?, environment: [String: String]) async throws -> ProfileStore {
        let named: StoreKind?
        if let choice {
            named = choice
        } else if let variable = environment["REMOTE_AUTH_STORE"], !variable.isEmpty {
            guard let kind = StoreKind(rawValue: variable) else {
                throw CLIFailure(
                    "REMOTE_AUTH_STORE must be 'keyring' or 'file', not '\(PeerText.printable(variable, limit: 40))'"
                )
            }
            named = kind
        } else {
            named = nil
        }
        let file = try openFileStore(environment: environment)
        switch named {
        case .file:
            return ProfileStore(keyring: nil, file: file)
        case .keyring:
            return ProfileStore(keyring: try await requireKeyring(environment: environment), file: file)
        case nil:
            do {
                try await probe(environment: environment)
            } catch let error as KeyringError {
                Terminal.writeError(
                    "remote-auth: \(Terminal.safe(fallbackReason(error))): keeping profiles in \(FileTokenStore.defaultPath(environment: environment)) (REMOTE_AUTH_STORE=file or --store file chooses the file without asking)\n"
                )
                return ProfileStore(keyring: nil, file: file)
            }
            return ProfileStore(keyring: keyringStore(environment: environment), file: file)
        }
    }

    /// The keyring store: the collection `REMOTE_AUTH_KEYRING_COLLECTION` names by its object
    /// path, else the one the `default` alias names (the login keyring).
    static func keyringStore(environment: [String: String], timeout: Duration = .seconds(5)) -> SecretServiceTokenStore
    {
        let collection: SecretServiceTokenStore.Collection =
            environment["REMOTE_AUTH_KEYRING_COLLECTION"].flatMap { $0.isEmpty ? nil : .path($0) } ?? .alias("default")
        return SecretServiceTokenStore(collection: collection, environment: environment, timeout: timeout)
    }

    /// The keyring, which must answer now (`--store keyring`, `profiles migrate`).
    static func requireKeyring(environment: [String: String]) async throws -> SecretServiceTokenStore {
        let store = keyringStore(environment: environment)
        do {
            try await store.check()
        } catch let error as KeyringError {
            await store.close()
            throw CLIFailure("the keyring cannot be used: \(error.reason)", status: .failure)
        }
        return store
    }

    /// Whether a Secret Service answers with an unlocked collection, each call bounded by
    /// ``probeTimeout``: no session bus or a dead one fails at once.
    static func probe(environment: [String: String]) async throws {
        let store = keyringStore(environment: environment, timeout: probeTimeout)
        do {
            try await store.check()
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    /// The first half of the fallback line: why the keyring is not used.
    static func fallbackReason(_ error: KeyringError) -> String {
        switch error.code {
        case .locked: "the keyring is locked (unlock it to keep profiles there)"
        case .noCollection, .unavailable: error.reason
        default: "the keyring did not answer (\(error.reason))"
        }
    }

    /// Where the session under the key lives now: the keyring, the file, both, or neither.
    func places(service: String, account: String) async throws -> [StoreKind] {
        var places: [StoreKind] = []
        if let keyring, try await keyring.session(service: service, account: account) != nil {
            places.append(.keyring)
        }
        if await file.session(service: service, account: account) != nil { places.append(.file) }
        return places
    }

    /// Where the profile lives (any of its keys), the keyring first; `nil` for a new one.
    func place(ofProfile profile: String) async throws -> StoreKind? {
        if let keyring, try await keyring.keys().contains(where: { $0.service == profile }) { return .keyring }
        if await file.keys().contains(where: { $0.service == profile }) { return .file }
        return nil
    }

    /// The stores in use, the keyring first.
    var kinds: [StoreKind] { keyring == nil ? [.file] : [.keyring, .file] }

    func store(_ kind: StoreKind) -> any CoordinatedTokenStore {
        switch kind {
        case .keyring: keyring ?? file
        case .file: file
        }
    }

    func session(service: String, account: String) async throws -> StoredSession? {
        if let keyring, let found = try await keyring.session(service: service, account: account) { return found }
        return await file.session(service: service, account: account)
    }

    func save(_ session: StoredSession, service: String, account: String) async throws {
        let place = try await places(service: service, account: account).first ?? primary
        try await store(place).save(session, service: service, account: account)
        listeners.yield(.saved(TokenStoreKey(service: service, account: account), session))
    }

    /// Removes the session from both stores.
    func removeSession(service: String, account: String) async throws {
        for place in try await places(service: service, account: account) {
            try await store(place).removeSession(service: service, account: account)
        }
        listeners.yield(.removed(TokenStoreKey(service: service, account: account)))
    }

    /// Keeps `session` as the only one under `profile`: written where the profile lives (else to
    /// ``primary``) before its other keys and copies are removed, so a crash leaves it, old or new.
    func replace(profile: String, with session: StoredSession, account: String) async throws {
        let place = try await place(ofProfile: profile) ?? primary
        try await store(place).save(session, service: profile, account: account)
        for kind in kinds {
            for key in try await store(kind).keys() where key.service == profile {
                guard kind != place || key.account != account else { continue }
                try await store(kind).removeSession(service: key.service, account: key.account)
            }
        }
        listeners.yield(.saved(TokenStoreKey(service: profile, account: account), session))
    }

    func withExclusiveAccess<Result: Sendable>(
        service: String,
        account: String,
        _ body: @Sendable (_ session: inout StoredSession?) async throws -> Result
    ) async throws -> Result {
        let key = TokenStoreKey(service: service, account: account)
        guard let keyring else {
            return try await file.withExclusiveAccess(service: service, account: account, body)
        }
        let primary = self.primary
        let (result, change): (Result, StoredSession??) = try await keyring.withExclusiveAccess(
            service: service,
            account: account
        ) {
            inKeyring in
            let seen = inKeyring
            // What the keyring's item becomes (`nil`: not this key's place), and the file's.
            let (result, inKeyringNow, inFileNow): (Result, StoredSession??, StoredSession??) =
                try await file.withExclusiveAccess(service: service, account: account) { inFile in
                    // The keyring's copy wins; a new session goes to the primary store.
                    if seen != nil || (inFile == nil && primary == .keyring) {
                        var session = seen
                        let result = try await body(&session)
                        return (result, .some(session), nil)
                    }
                    let before = inFile
                    let result = try await body(&inFile)
                    return (result, nil, inFile == before ? nil : .some(inFile))
                }
            if let inKeyringNow {
                inKeyring = inKeyringNow
                return (result, inKeyringNow == seen ? nil : .some(inKeyringNow))
            }
            return (result, inFileNow)
        }
        if let change { listeners.yield(change.map { .saved(key, $0) } ?? .removed(key)) }
        return result
    }

    /// Every key in either store, sorted, once.
    func keys() async throws -> [TokenStoreKey] {
        var keys = Set(await file.keys())
        if let keyring { keys.formUnion(try await keyring.keys()) }
        return keys.sorted()
    }

    nonisolated func changes() -> AsyncStream<TokenStoreChange> { listeners.stream() }

    /// Closes the keyring's connection.
    func close() async {
        await keyring?.close()
    }
}

/// The token file at its default path, a file that cannot be used reported with its remedy.
func openFileStore(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> FileTokenStore {
    do {
        return try FileTokenStore(path: FileTokenStore.defaultPath(environment: environment))
    } catch let error as FileStoreError {
        throw CLIFailure(message(for: error))
    }
}
