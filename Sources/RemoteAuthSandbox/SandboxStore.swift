import Foundation
import RemoteAuth

/// The sandbox's mutable state, in one actor: tokens, statuses, nonces, sessions.
///
/// Tokens and statuses are written to the state file (when there is one) before the request
/// that changed them is answered, atomically (see ``StateFile``), so a killed process loses
/// nothing it has confirmed. Every table is bounded (``BoundedTable``, the configuration's
/// `tableCapacity`).
actor SandboxStore {
    /// A temporary credential (RFC 5849 §2.1) and what happened to it.
    struct RequestToken: Codable, Sendable, Equatable {
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
    struct AccessToken: Codable, Sendable, Equatable {
        var token: String
        var secret: String
        var consumerKey: String
        var user: String
    }

    struct Status: Codable, Sendable, Equatable {
        var id: Int64
        var text: String
        var user: String
        var createdAt: Int64
    }

    private var requestTokens: BoundedTable<RequestToken>
    private var accessTokens: BoundedTable<AccessToken>
    /// The configuration's tokens: never dropped, never written to the state file.
    private let seededTokens: [String: AccessToken]
    private var statuses: [Status] = []
    private var nextStatusID: Int64 = 1
    private let statusCapacity: Int
    /// Per consumer: the nonces seen in the timestamp window, bounded (RFC 5849 §3.3).
    private var nonces: [String: NonceWindow] = [:]
    /// Digest nonces: the protection space (route) they were issued for, issue time, and the
    /// highest `nc` of a verified answer.
    private var digestNonces: [String: (space: String, issuedAt: Int64, highestCount: UInt32)] = [:]
    /// Consent-page sessions: cookie value → user name.
    private var sessions: [String: String] = [:]
    private let stateFile: StateFile?
    /// Token values, secrets and session identifiers come from here.
    private let random: RandomSource

    /// Takes up what the state file holds, when there is one.
    init(
        stateFile: StateFile?,
        seededTokens: [SandboxConfiguration.SeededToken],
        capacity: Int = 100_000,
        random: RandomSource = .system
    ) {
        self.stateFile = stateFile
        self.random = random
        let contents = stateFile?.current ?? StateFile.Contents()
        requestTokens = BoundedTable(capacity: capacity, entries: contents.requestTokens) { $0.createdAt }
        // Access tokens carry no time: the oldest of a file read back are not known, so any go.
        accessTokens = BoundedTable(capacity: capacity, entries: contents.accessTokens) { _ in 0 }
        statusCapacity = capacity
        statuses = Array(contents.statuses.suffix(capacity))
        nextStatusID = contents.nextStatusID
        var seeded: [String: AccessToken] = [:]
        for token in seededTokens {
            seeded[token.token] = AccessToken(
                token: token.token,
                secret: token.secret,
                consumerKey: token.consumerKey,
                user: token.user
            )
            accessTokens.remove(token.token)
        }
        self.seededTokens = seeded
    }

    // MARK: Persistence

    /// Writes the OAuth 1.0a tokens and the statuses to the state file, if there is one, before
    /// the change is answered.
    private func persist() throws(SandboxError) {
        guard let stateFile else { return }
        let (requestTokens, accessTokens, statuses, nextStatusID) = (
            requestTokens.entries, accessTokens.entries, statuses, nextStatusID
        )
        try stateFile.update {
            $0.requestTokens = requestTokens
            $0.accessTokens = accessTokens
            $0.statuses = statuses
            $0.nextStatusID = nextStatusID
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

    func accessToken(_ token: String) -> AccessToken? { seededTokens[token] ?? accessTokens[token] }

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
        // The newest `statusCapacity` are kept, trimmed in batches of an eighth (O(1) amortised).
        if statuses.count > statusCapacity + max(1, statusCapacity / 8) {
            statuses.removeFirst(statuses.count - statusCapacity)
        }
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
