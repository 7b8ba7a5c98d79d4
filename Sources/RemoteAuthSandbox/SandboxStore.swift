import Foundation
import RemoteAuth

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The sandbox's mutable state, in one actor: tokens, statuses, nonces, sessions.
///
/// Tokens and statuses are written to the state file (when there is one) before the request
/// that changed them is answered, atomically (a temporary file renamed over the old one), so
/// a killed process loses nothing it has confirmed.
actor SandboxStore {
    /// A temporary credential (RFC 5849 §2.1) and what happened to it.
    struct RequestToken: Codable, Sendable {
        enum State: String, Codable, Sendable { case pending, authorized, denied, used }
        var token: String
        var secret: String
        var consumerKey: String
        var callback: String
        var verifier: String?
        var user: String?
        var state: State
        var createdAt: Int64
    }

    /// Token credentials (RFC 5849 §2.3).
    struct AccessToken: Codable, Sendable {
        var token: String
        var secret: String
        var consumerKey: String
        var user: String
    }

    struct Status: Codable, Sendable {
        var id: Int64
        var text: String
        var user: String
        var createdAt: Int64
    }

    struct Persisted: Codable {
        var requestTokens: [String: RequestToken]
        var accessTokens: [String: AccessToken]
        var statuses: [Status]
        var nextStatusID: Int64
    }

    private var requestTokens: [String: RequestToken] = [:]
    private var accessTokens: [String: AccessToken] = [:]
    private var statuses: [Status] = []
    private var nextStatusID: Int64 = 1
    /// Per consumer: the nonces seen in the timestamp window, bounded (RFC 5849 §3.3).
    private var nonces: [String: NonceWindow] = [:]
    /// Digest nonces: the protection space (route) they were issued for, issue time, and the
    /// highest `nc` of a verified answer.
    private var digestNonces: [String: (space: String, issuedAt: Int64, highestCount: UInt32)] = [:]
    /// Consent-page sessions: cookie value → user name.
    private var sessions: [String: String] = [:]
    private let statePath: String?
    /// Token values, secrets and session identifiers come from here.
    private let random: RandomSource

    /// Loads the state file when there is one, then writes it back, so that a path that cannot
    /// be written fails here, at start-up, rather than as a `500` on the first token.
    ///
    /// - Throws: ``SandboxError`` when the state file cannot be read or written.
    init(statePath: String?, seededTokens: [SandboxConfiguration.SeededToken], random: RandomSource = .system) throws {
        self.statePath = statePath
        self.random = random
        if let statePath, FileManager.default.fileExists(atPath: statePath) {
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: statePath))
                let persisted = try JSONDecoder().decode(Persisted.self, from: data)
                requestTokens = persisted.requestTokens
                accessTokens = persisted.accessTokens
                statuses = persisted.statuses
                nextStatusID = persisted.nextStatusID
            } catch {
                throw SandboxError("the state file '\(statePath)' cannot be read: \(error)")
            }
        }
        for seeded in seededTokens {
            accessTokens[seeded.token] = AccessToken(
                token: seeded.token,
                secret: seeded.secret,
                consumerKey: seeded.consumerKey,
                user: seeded.user
            )
        }
        if let statePath {
            let current = Persisted(
                requestTokens: requestTokens,
                accessTokens: accessTokens,
                statuses: statuses,
                nextStatusID: nextStatusID
            )
            try Self.save(current, to: statePath, random: random)
        }
    }

    // MARK: Persistence

    private var persisted: Persisted {
        Persisted(
            requestTokens: requestTokens,
            accessTokens: accessTokens,
            statuses: statuses,
            nextStatusID: nextStatusID
        )
    }

    private func persist() throws(SandboxError) {
        guard let statePath else { return }
        try Self.save(persisted, to: statePath, random: random)
    }

    /// Writes the state as sorted JSON to a temporary file beside `statePath`, created 0600
    /// before any secret is written and flushed to disk, then renamed into place (atomic on
    /// POSIX).
    ///
    /// - Throws: ``SandboxError`` naming the file and the system's reason.
    private static func save(_ persisted: Persisted, to statePath: String, random: RandomSource) throws(SandboxError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(persisted) else {
            throw SandboxError("cannot encode the state for '\(statePath)'")
        }
        let url = URL(fileURLWithPath: statePath)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(random.hex(byteCount: 6)).tmp").path
        func failure(_ code: Int32) -> SandboxError {
            SandboxError("cannot write the state file '\(statePath)': \(String(cString: strerror(code)))")
        }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(errno) }
        var written = 0
        var code: Int32 = 0
        data.withUnsafeBytes { bytes in
            while written < bytes.count {
                let count = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    code = errno
                    return
                }
                written += count
            }
        }
        if code == 0, fsync(descriptor) != 0 { code = errno }
        if close(descriptor) != 0, code == 0 { code = errno }
        if code == 0, rename(temporary, statePath) != 0 { code = errno }
        if code != 0 {
            unlink(temporary)
            throw failure(code)
        }
    }

    // MARK: Request tokens

    func addRequestToken(_ token: RequestToken) throws {
        requestTokens[token.token] = token
        try persist()
    }

    func requestToken(_ token: String) -> RequestToken? { requestTokens[token] }

    /// Marks a pending request token authorized by `user` with `verifier`.
    func authorize(_ token: String, user: String, verifier: String) throws -> RequestToken? {
        guard var record = requestTokens[token], record.state == .pending else { return nil }
        record.state = .authorized
        record.user = user
        record.verifier = verifier
        requestTokens[token] = record
        try persist()
        return record
    }

    func deny(_ token: String) throws -> RequestToken? {
        guard var record = requestTokens[token], record.state == .pending else { return nil }
        record.state = .denied
        requestTokens[token] = record
        try persist()
        return record
    }

    enum ExchangeOutcome: Sendable {
        case exchanged(AccessToken)
        case unknownToken, notAuthorized, used, wrongVerifier
    }

    /// Exchanges an authorized request token and its verifier for an access token, once.
    /// The verifier is compared in constant time; a wrong one does not use the token up.
    func exchange(_ token: String, verifier: String, consumerKey: String) throws -> ExchangeOutcome {
        guard var record = requestTokens[token], record.consumerKey == consumerKey else { return .unknownToken }
        switch record.state {
        case .used: return .used
        case .pending, .denied: return .notAuthorized
        case .authorized: break
        }
        guard let expected = record.verifier, constantTimeEquals(expected, verifier), let user = record.user else {
            return .wrongVerifier
        }
        record.state = .used
        requestTokens[token] = record
        let access = issueAccessTokenRecord(consumerKey: consumerKey, user: user)
        try persist()
        return .exchanged(access)
    }

    /// A new access token for `user` and `consumerKey` (reverse auth), persisted.
    func issueAccessToken(consumerKey: String, user: String) throws -> AccessToken {
        let access = issueAccessTokenRecord(consumerKey: consumerKey, user: user)
        try persist()
        return access
    }

    /// Uses up a reverse-auth request token: `false` when unknown or already used.
    func consumeReverseAuthToken(_ token: String, consumerKey: String) throws -> Bool {
        guard var record = requestTokens[token], record.consumerKey == consumerKey, record.state == .authorized,
            record.callback == "reverse_auth"
        else { return false }
        record.state = .used
        requestTokens[token] = record
        try persist()
        return true
    }

    private func issueAccessTokenRecord(consumerKey: String, user: String) -> AccessToken {
        let access = AccessToken(
            token: "\(user)-" + random.hex(byteCount: 16),
            secret: random.alphanumeric(bytes: 24),
            consumerKey: consumerKey,
            user: user
        )
        accessTokens[access.token] = access
        return access
    }

    func accessToken(_ token: String) -> AccessToken? { accessTokens[token] }

    // MARK: Nonces

    /// Records `nonce` for `consumerKey` at `timestamp`: ``NonceWindow/Outcome/replayed`` when it
    /// was already used within the window (RFC 5849 §3.3), ``NonceWindow/Outcome/tooOld`` when
    /// the consumer's window is full and the timestamp is older than what it still remembers.
    func useNonce(_ nonce: String, timestamp: String, consumerKey: String, now: Int64, window: Int64)
        -> NonceWindow.Outcome
    {
        nonces[consumerKey, default: NonceWindow()].use(
            nonce, timestamp: Int64(timestamp) ?? now, now: now, window: window)
    }

    // MARK: Statuses

    func addStatus(text: String, user: String, now: Int64) throws -> Status {
        let status = Status(id: nextStatusID, text: text, user: user, createdAt: now)
        nextStatusID += 1
        statuses.append(status)
        try persist()
        return status
    }

    /// Newest first.
    func timeline(limit: Int) -> [Status] { Array(statuses.reversed().prefix(limit)) }

    // MARK: Digest nonces

    func issueDigestNonce(space: String, now: Int64) -> String {
        if digestNonces.count > 4096 { digestNonces = digestNonces.filter { now - $0.value.issuedAt < 3600 } }
        let nonce = random.alphanumeric(bytes: 18)
        digestNonces[nonce] = (space, now, 0)
        return nonce
    }

    enum DigestNonceCheck: Sendable {
        case fresh(issuedAt: Int64)
        case stale, unknown, replayed
    }

    /// Checks a nonce and its count for the space it was issued for: unknown nonces (or ones
    /// of another space) and counts not above the last verified one are refused (replay);
    /// expired nonces are stale (RFC 7616 §3.3 `stale`). Nothing is recorded here.
    func checkDigestNonce(
        _ nonce: String,
        space: String,
        count: UInt32?,
        now: Int64,
        lifetime: Int64
    ) -> DigestNonceCheck {
        guard let entry = digestNonces[nonce], entry.space == space else { return .unknown }
        if now - entry.issuedAt > lifetime { return .stale }
        if let count, count <= entry.highestCount { return .replayed }
        return .fresh(issuedAt: entry.issuedAt)
    }

    /// Records the `nc` of a verified answer, so a replay of it is refused; `false` when a
    /// concurrent answer got there first with the same or a higher count.
    func recordDigestCount(_ nonce: String, count: UInt32?) -> Bool {
        guard let count else { return true }
        guard let entry = digestNonces[nonce], count > entry.highestCount else { return false }
        digestNonces[nonce] = (entry.space, entry.issuedAt, count)
        return true
    }

    // MARK: Sessions

    func startSession(user: String) -> String {
        let id = random.alphanumeric(bytes: 24)
        sessions[id] = user
        return id
    }

    func sessionUser(_ id: String) -> String? { sessions[id] }

    func endSession(_ id: String) { sessions[id] = nil }
}

extension RandomSource {
    /// Letters and digits only (no escaping anywhere), about 5.95 bits per character: as many
    /// characters as `bytes` random bytes would take in base64, each drawn without bias.
    func alphanumeric(bytes count: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        let length = (count * 8 + 5) / 6
        var output: [UInt8] = []
        output.reserveCapacity(length)
        while output.count < length {
            // 248 = 4 × 62: a byte below it maps to the alphabet evenly.
            for byte in self.bytes(length - output.count) where byte < 248 && output.count < length {
                output.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A 7-digit PIN for the `oob` flow, without bias.
    func pin() -> String {
        while true {
            let value = self.bytes(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            // The largest multiple of 9,000,000 that fits in a UInt32.
            if value < 4_293_000_000 { return String(1_000_000 + value % 9_000_000) }
        }
    }
}
