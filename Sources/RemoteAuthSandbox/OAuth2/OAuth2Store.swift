import RemoteAuth

/// The OAuth 2 authorization server's state, in one actor: pending authorization requests,
/// authorization codes, access and refresh tokens (in families, for rotation), device codes.
///
/// Codes, access and refresh tokens are written to the `--state` file (when there is one)
/// before the answer that changed them (``StateFile``); pending and pushed requests and device
/// codes stay in memory. Every table is bounded (``BoundedTable``). Every token, code and identifier comes from the configuration's ``RandomSource``, drawn
/// when a request needs one (never at start, so seeded runs of the OAuth 1.0a routes repeat).
actor OAuth2Store {
    /// An authorization request waiting for the resource owner's answer
    /// ([RFC 6749 §4.1.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.1)).
    struct PendingRequest: Codable, Sendable, Equatable {
        var id: String
        var clientID: String
        var redirectURI: String
        /// Whether `redirect_uri` was in the request: then the token request must repeat it
        /// ([RFC 6749 §4.1.3](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.3)).
        var redirectURIGiven: Bool
        var scope: [String]
        var state: String?
        var codeChallenge: String?
        /// OpenID Connect `nonce`, repeated in the ID token.
        var nonce: String? = nil
        /// `true` for the implicit grant (`response_type=token`), answered in the fragment.
        var implicit: Bool
        /// `dpop_jkt`: the DPoP key the code is bound to; redeemed only with a proof of it
        /// ([RFC 9449 §10](https://www.rfc-editor.org/rfc/rfc9449#section-10)).
        var dpopJKT: String? = nil
        /// `resource`: the resources the grant is for ([RFC 8707 §2.1](https://www.rfc-editor.org/rfc/rfc8707#section-2.1)).
        var resources: [String]? = nil
        /// The authentication class the sign-in performs: the step-up class when `acr_values`
        /// asked for it, else the baseline ([RFC 9470 §4](https://www.rfc-editor.org/rfc/rfc9470#section-4)).
        var acr: String? = nil
    }

    /// How and when the user signed in for a grant: kept with its access and refresh tokens, so
    /// that a resource can ask for more ([RFC 9470 §3](https://www.rfc-editor.org/rfc/rfc9470#section-3))
    /// and a refresh carries the original sign-in, not a new one.
    struct UserAuthentication: Codable, Sendable, Hashable {
        var acr: String
        var authTime: Int64
    }

    struct AuthorizationCode: Codable, Sendable, Equatable {
        var request: PendingRequest
        var user: String
        var expiresAt: Int64
        var used: Bool
        /// The family of the tokens it was exchanged for, revoked if the code is replayed.
        var family: String?
    }

    struct AccessToken: Codable, Sendable, Equatable {
        var clientID: String
        var user: String?
        var scope: [String]
        var issuedAt: Int64
        var expiresAt: Int64
        var family: String?
        /// `cnf.jkt`: the DPoP key the token is bound to ([RFC 9449 §6](https://www.rfc-editor.org/rfc/rfc9449#section-6)).
        var jkt: String? = nil
        /// `cnf` `x5t#S256`: the TLS client certificate the token is bound to
        /// ([RFC 8705 §3](https://www.rfc-editor.org/rfc/rfc8705#section-3)).
        var x5t: String? = nil
        /// The audience: the resources it was issued for (`resource`,
        /// [RFC 8707 §2](https://www.rfc-editor.org/rfc/rfc8707#section-2)); `nil` without one.
        var resources: [String]? = nil
        /// The sign-in behind the grant; `nil` for grants without a user's sign-in.
        var authentication: UserAuthentication? = nil
    }

    struct RefreshToken: Codable, Sendable, Equatable {
        var clientID: String
        var user: String?
        var scope: [String]
        var issuedAt: Int64
        var family: String
        /// Replaced by a newer refresh token: presenting it again revokes the family.
        var rotated: Bool
        /// The DPoP key a refresh must prove ([RFC 9449 §5](https://www.rfc-editor.org/rfc/rfc9449#section-5)).
        var jkt: String? = nil
        /// The TLS client certificate a refresh must present: a public client's, issued over
        /// mutual TLS ([RFC 8705 §4](https://www.rfc-editor.org/rfc/rfc8705#section-4)).
        var x5t: String? = nil
        /// The resources of the grant: a refresh may ask for fewer, never others (RFC 8707 §2.2).
        var resources: [String]? = nil
        /// The sign-in behind the grant, passed on to every refreshed access token.
        var authentication: UserAuthentication? = nil
    }

    struct DeviceCode: Sendable {
        enum State: Sendable {
            case pending
            case approved(user: String)
            case denied, used
        }
        var clientID: String
        var scope: [String]
        var userCode: String
        var expiresAt: Int64
        var interval: Int64
        var lastPoll: Int64?
        var state: State
    }

    /// An authorization request pushed to the PAR endpoint, under its `request_uri`
    /// ([RFC 9126 §2](https://www.rfc-editor.org/rfc/rfc9126#section-2)).
    struct PushedRequest: Sendable {
        var clientID: String
        var parameters: OAuth2Parameters
        var expiresAt: Int64
    }

    /// What the state file keeps (its `oauth2` member).
    struct Persisted: Codable, Sendable {
        var codes: [String: AuthorizationCode]
        var accessTokens: [String: AccessToken]
        var refreshTokens: [String: RefreshToken]
    }

    private var pending: BoundedTable<PendingRequest>
    private var pushed: BoundedTable<PushedRequest>
    private var codes: BoundedTable<AuthorizationCode>
    private var accessTokens: BoundedTable<AccessToken>
    private var refreshTokens: BoundedTable<RefreshToken>
    private var deviceCodes: BoundedTable<DeviceCode>
    /// Normalized user code (letters only) → device code.
    private var userCodes: BoundedTable<String>
    private let random: RandomSource
    private let stateFile: StateFile?
    /// DPoP proofs' replay cache and nonces.
    let dpop: SandboxDPoP
    /// The configured clients and those registered through RFC 7591.
    let clients: OAuth2ClientRegistry

    /// A store holding what `stateFile` kept, if anything, at most `capacity` entries per table;
    /// `clients` are the configured OAuth 2 clients; `documents`, those known by their client
    /// ID metadata document.
    init(
        random: RandomSource,
        stateFile: StateFile? = nil,
        capacity: Int = 100_000,
        clients: [SandboxConfiguration.OAuth2Client] = [],
        documents: ClientMetadataDocuments? = nil
    ) {
        self.random = random
        self.stateFile = stateFile
        self.dpop = SandboxDPoP(random: random)
        self.clients = OAuth2ClientRegistry(configured: clients, stateFile: stateFile, documents: documents)
        let kept = stateFile?.current.oauth2
        pending = BoundedTable(capacity: capacity)
        pushed = BoundedTable(capacity: capacity)
        codes = BoundedTable(capacity: capacity, entries: kept?.codes ?? [:]) { $0.expiresAt }
        accessTokens = BoundedTable(capacity: capacity, entries: kept?.accessTokens ?? [:]) { $0.issuedAt }
        refreshTokens = BoundedTable(capacity: capacity, entries: kept?.refreshTokens ?? [:]) { $0.issuedAt }
        deviceCodes = BoundedTable(capacity: capacity)
        userCodes = BoundedTable(capacity: capacity)
    }

    /// Writes the codes and tokens to the state file, if there is one, before the change is
    /// answered.
    private func persist() throws(SandboxError) {
        guard let stateFile else { return }
        let persisted = Persisted(
            codes: codes.entries,
            accessTokens: accessTokens.entries,
            refreshTokens: refreshTokens.entries
        )
        try stateFile.update { $0.oauth2 = persisted }
    }

    func token() -> String { random.alphanumeric(bytes: 32) }

    // MARK: Authorization requests and codes

    func addPending(_ request: PendingRequest) { pending[request.id] = request }

    /// Keeps a pushed request and returns its `request_uri`; expired ones are dropped first,
    /// so the table holds only live requests.
    func addPushed(_ request: PushedRequest, now: Int64) -> String {
        pushed.removeAll { $0.expiresAt <= now }
        let uri = "urn:ietf:params:oauth:request_uri:" + token()
        pushed[uri] = request
        return uri
    }

    /// Takes a pushed request out (a `request_uri` is used once, RFC 9126 §4); `nil` when it is
    /// unknown, used or expired.
    func takePushed(_ uri: String, now: Int64) -> PushedRequest? {
        guard let request = pushed.remove(uri), request.expiresAt > now else { return nil }
        return request
    }
    func pendingRequest(_ id: String) -> PendingRequest? { pending[id] }
    func removePending(_ id: String) -> PendingRequest? { pending.remove(id) }

    func issueCode(for request: PendingRequest, user: String, expiresAt: Int64) throws(SandboxError) -> String {
        let code = token()
        codes[code] = AuthorizationCode(request: request, user: user, expiresAt: expiresAt, used: false, family: nil)
        try persist()
        return code
    }

    enum CodeOutcome: Sendable {
        case valid(AuthorizationCode)
        case invalid(String)
    }

    /// Uses up `code` for `clientID`: any attempt by its client consumes it, so a wrong
    /// verifier cannot be retried; a replay revokes what the first exchange issued
    /// ([RFC 6749 §4.1.2](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2)).
    func redeemCode(_ code: String, clientID: String, now: Int64) throws(SandboxError) -> CodeOutcome {
        guard var record = codes[code], record.request.clientID == clientID else {
            return .invalid("the authorization code is unknown or was issued to another client")
        }
        if record.used {
            if let family = record.family { try revokeFamily(family) }
            return .invalid("the authorization code was already used; the tokens issued for it are revoked")
        }
        record.used = true
        codes[code] = record
        try persist()
        if now >= record.expiresAt { return .invalid("the authorization code has expired") }
        return .valid(record)
    }

    func bindCode(_ code: String, family: String) throws(SandboxError) {
        codes[code]?.family = family
        try persist()
    }

    // MARK: Tokens

    /// Issues an access token and, with `refresh`, a refresh token in `family` (a new family
    /// when `nil`).
    func issueTokens(
        clientID: String,
        user: String?,
        scope: [String],
        refresh: Bool,
        family: String? = nil,
        now: Int64,
        lifetime: Int64,
        jkt: String? = nil,
        x5t: String? = nil,
        refreshX5t: String? = nil,
        resources: [String]? = nil,
        grantResources: [String]? = nil,
        authentication: UserAuthentication? = nil
    ) throws(SandboxError) -> (access: String, refresh: String?, family: String) {
        let family = family ?? token()
        let access = token()
        accessTokens[access] = AccessToken(
            clientID: clientID,
            user: user,
            scope: scope,
            issuedAt: now,
            expiresAt: now + lifetime,
            family: refresh ? family : nil,
            jkt: jkt,
            x5t: x5t,
            resources: resources,
            authentication: authentication
        )
        var refreshToken: String? = nil
        if refresh {
            let value = token()
            refreshTokens[value] = RefreshToken(
                clientID: clientID,
                user: user,
                scope: scope,
                issuedAt: now,
                family: family,
                rotated: false,
                jkt: jkt,
                x5t: refreshX5t,
                resources: grantResources ?? resources,
                authentication: authentication
            )
            refreshToken = value
        }
        try persist()
        return (access, refreshToken, family)
    }

    enum RefreshOutcome: Sendable {
        case valid(RefreshToken)
        case invalid(String)
    }

    /// Rotates a refresh token: the old one is marked rotated; a rotated one presented again
    /// revokes its whole family (the replay of a stolen token, as production servers treat it).
    func rotate(_ value: String, clientID: String) throws(SandboxError) -> RefreshOutcome {
        guard var record = refreshTokens[value], record.clientID == clientID else {
            return .invalid("the refresh token is unknown, revoked, or was issued to another client")
        }
        if record.rotated {
            try revokeFamily(record.family)
            return .invalid("the refresh token was already used; its whole family is revoked")
        }
        record.rotated = true
        refreshTokens[value] = record
        try persist()
        return .valid(record)
    }

    func accessToken(_ value: String, now: Int64) -> AccessToken? {
        guard let record = accessTokens[value], now < record.expiresAt else { return nil }
        return record
    }

    func refreshToken(_ value: String) -> RefreshToken? {
        guard let record = refreshTokens[value], !record.rotated else { return nil }
        return record
    }

    /// Invalidates everything issued to `clientID`: codes, access and refresh tokens, as a
    /// deleted registration asks ([RFC 7592 §2.3](https://www.rfc-editor.org/rfc/rfc7592#section-2.3)).
    func revokeClient(_ clientID: String) throws(SandboxError) {
        codes.removeAll { $0.request.clientID == clientID }
        accessTokens.removeAll { $0.clientID == clientID }
        refreshTokens.removeAll { $0.clientID == clientID }
        try persist()
    }

    func revokeFamily(_ family: String) throws(SandboxError) {
        accessTokens.removeAll { $0.family == family }
        refreshTokens.removeAll { $0.family == family }
        try persist()
    }

    /// Revokes `value` if `clientID` owns it: a refresh token with its family, an access token
    /// alone ([RFC 7009 §2.1](https://www.rfc-editor.org/rfc/rfc7009#section-2.1)). The state
    /// file is written only when something was revoked: an unknown token, or one another client
    /// owns, changes nothing (RFC 7009 §2.2 answers 200 either way).
    func revoke(_ value: String, clientID: String, refreshFirst: Bool) throws(SandboxError) {
        /// nil: not a refresh token; otherwise whether it was revoked.
        func refresh() -> Bool? {
            guard let record = refreshTokens[value] else { return nil }
            guard record.clientID == clientID else { return false }
            accessTokens.removeAll { $0.family == record.family }
            refreshTokens.removeAll { $0.family == record.family }
            return true
        }
        /// nil: not an access token; otherwise whether it was revoked.
        func access() -> Bool? {
            guard let record = accessTokens[value] else { return nil }
            guard record.clientID == clientID else { return false }
            accessTokens[value] = nil
            return true
        }
        let revoked = refreshFirst ? (refresh() ?? access()) : (access() ?? refresh())
        if revoked == true { try persist() }
    }

    // MARK: Device authorization (RFC 8628)

    func addDeviceCode(_ record: DeviceCode) -> String {
        let code = token()
        deviceCodes[code] = record
        userCodes[Self.normalize(record.userCode)] = code
        return code
    }

    /// The user code typed in, compared without case, dashes and spaces
    /// ([RFC 8628 §6.1](https://www.rfc-editor.org/rfc/rfc8628#section-6.1)).
    static func normalize(_ userCode: String) -> String {
        String(userCode.uppercased().filter { $0.isLetter || $0.isNumber })
    }

    func pendingDevice(userCode: String, now: Int64) -> DeviceCode? {
        guard let code = userCodes[Self.normalize(userCode)], let record = deviceCodes[code],
            case .pending = record.state, now < record.expiresAt
        else { return nil }
        return record
    }

    /// Approves (`user`) or denies (`nil`) a pending device code; `false` when none matches.
    func answerDevice(userCode: String, user: String?, now: Int64) -> Bool {
        guard let code = userCodes[Self.normalize(userCode)], var record = deviceCodes[code],
            case .pending = record.state, now < record.expiresAt
        else { return false }
        record.state = user.map { .approved(user: $0) } ?? .denied
        deviceCodes[code] = record
        return true
    }

    enum PollOutcome: Sendable {
        case approved(DeviceCode, user: String)
        case error(OAuth2.ErrorCode, String)
    }

    /// One poll of the token endpoint ([RFC 8628 §3.5](https://www.rfc-editor.org/rfc/rfc8628#section-3.5)):
    /// polling sooner than the interval answers `slow_down` and adds 5 seconds to it.
    func poll(_ deviceCode: String, clientID: String, now: Int64) -> PollOutcome {
        guard var record = deviceCodes[deviceCode], record.clientID == clientID else {
            return .error(.invalidGrant, "the device code is unknown or was issued to another client")
        }
        if now >= record.expiresAt { return .error(.expiredToken, "the device code has expired") }
        let previous = record.lastPoll
        record.lastPoll = now
        defer { deviceCodes[deviceCode] = record }
        switch record.state {
        case .used:
            return .error(.invalidGrant, "the device code was already exchanged")
        case .denied:
            return .error(.accessDenied, "the user denied the request")
        case .approved(let user):
            record.state = .used
            return .approved(record, user: user)
        case .pending:
            if let previous, now - previous < record.interval {
                record.interval += 5
                return .error(.slowDown, "polled sooner than the interval; it is now \(record.interval) seconds")
            }
            return .error(.authorizationPending, "the user has not answered yet")
        }
    }
}
