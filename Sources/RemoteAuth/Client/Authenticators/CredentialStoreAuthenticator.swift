public import HTTPTypes
public import Logging

/// Answers `Basic` and `Digest` challenges with the credentials of a ``CredentialStore``, as a
/// ``RequestAuthenticator``: the store picks the credential by origin and realm, so one
/// authenticator serves every origin the store knows. ``AuthenticatingClient`` runs one for the
/// origin of each request (the `credentials` it was made with) and one for its
/// ``AuthenticatingClient/Configuration/proxy``.
///
/// - **On a challenge**: a `401` whose `WWW-Authenticate` (`407` and `Proxy-Authenticate` for
///   the proxy) offers a scheme the store holds a credential for is answered once; when that
///   answer is refused the request fails with ``ClientError/Code/authenticationFailed``
///   carrying the challenge, and never loops (URLSession's `previousFailureCount` rule). A
///   challenge nothing can answer is accepted as is, for the caller. Each challenge field is
///   parsed on its own, so a malformed field does not hide a good challenge in another
///   (``AuthenticationChallenge/parseEachField(_:name:)``); when every field is malformed and a
///   credential was refused, the error names the first parse error.
///   [RFC 9110 §11.6](https://www.rfc-editor.org/rfc/rfc9110#section-11.6),
///   [§11.7](https://www.rfc-editor.org/rfc/rfc9110#section-11.7)
/// - **Up front**: a saved Digest nonce for the request's protection space, with a growing
///   `nc` (N requests cost N+1 round trips); else, when preemptive, `Basic` with a realm-less
///   credential. `stale=true` is answered with the new nonce without counting as a failure,
///   `nextnonce` is honoured, `rspauth` is checked (`auth-int`'s over the response body).
///   [RFC 7616 §3.3–§3.5](https://www.rfc-editor.org/rfc/rfc7616#section-3.3)
/// - **Plain http**: a credential goes over `http` only to loopback or when its scope opted in
///   (``ScopedCredential/allowsPlainHTTP``); otherwise ``ClientError/Code/plainHTTPRefused``.
///
/// The Digest protection spaces live in this actor: share one instance to share them.
public actor CredentialStoreAuthenticator: RequestAuthenticator, CustomStringConvertible {
    /// Whom the authenticator answers.
    public enum Party: Sendable, Hashable {
        /// The origin server of each request: `401`, `WWW-Authenticate`, `Authorization`.
        case origin
        /// The proxy at this scope: `407`, `Proxy-Authenticate`, `Proxy-Authorization`.
        case proxy(AuthScope)
    }

    /// The store the credentials that answer challenges come from.
    public nonisolated let credentials: any CredentialStore
    /// Whom the authenticator answers: the origin server, or the proxy at a scope.
    public nonisolated let party: Party
    /// Whether `Basic` is sent on the first attempt with a realm-less credential, before any
    /// challenge (the client's own authenticators take the request's setting instead).
    public nonisolated let preemptive: Bool
    nonisolated let cnonceGenerator: DigestCnonceGenerator
    nonisolated let preferredQOP: DigestQOP?
    nonisolated let logger: Logger
    private var spaces = DigestProtectionSpaces()

    /// - Parameters:
    ///   - preemptive: send `Basic` with a realm-less credential on the first attempt, saving
    ///     the challenge's round trip (``AuthenticatingClient/send(_:body:preemptive:)`` may
    ///     override it per request).
    ///   - qop: the Digest `qop` to prefer when several are offered (`nil`: `auth`).
    ///   - logger: where malformed challenges are logged, at `debug`.
    ///   - credentials: where the credential for an origin and realm is found.
    ///   - party: whom it answers: the origin (`401`) or a proxy (`407`).
    ///   - cnonceGenerator: where Digest cnonces come from.
    public init(
        credentials: any CredentialStore,
        party: Party = .origin,
        preemptive: Bool = false,
        cnonceGenerator: DigestCnonceGenerator = .system,
        qop: DigestQOP? = nil,
        logger: Logger = Logger(label: "RemoteAuth.CredentialStoreAuthenticator")
    ) {
        self.init(
            credentials: credentials,
            party: party,
            preemptive: preemptive,
            cnonceGenerator: cnonceGenerator,
            qop: qop,
            logger: logger,
            followsPreemptiveOverride: false
        )
    }

    package init(
        credentials: any CredentialStore,
        party: Party,
        preemptive: Bool,
        cnonceGenerator: DigestCnonceGenerator,
        qop: DigestQOP?,
        logger: Logger,
        followsPreemptiveOverride: Bool
    ) {
        self.followsPreemptiveOverride = followsPreemptiveOverride
        stateKey = AuthenticationAttempt.Key("RemoteAuth.CredentialStore.\(ObjectIdentifier(identity))")
        self.credentials = credentials
        self.party = party
        self.preemptive = preemptive
        self.cnonceGenerator = cnonceGenerator
        self.preferredQOP = qop
        self.logger = logger
    }

    public nonisolated var writtenFields: [HTTPField.Name] {
        switch party {
        case .origin: [.authorization]
        case .proxy: [.proxyAuthorization]
        }
    }

    /// The request's state machine and the answer it chose for the next attempt.
    struct State: Sendable {
        var machine: ChallengeStateMachine
        var pending: ChallengeStateMachine.Action?
    }

    /// This instance's state in an attempt: two in one chain (the client's and a
    /// ``BasicAuthenticator``) keep theirs apart.
    private nonisolated let stateKey: AuthenticationAttempt.Key<State>
    /// What makes ``stateKey`` unique while this instance lives.
    private final class Identity: Sendable {}
    private nonisolated let identity = Identity()

    /// The request's `preemptive`, set by ``AuthenticatingClient`` for its own authenticators
    /// (``AuthenticatingClient/send(_:body:preemptive:)``); others keep theirs.
    package static let preemptiveOverride = AuthenticationAttempt.Key<Bool>("RemoteAuth.CredentialStore.preemptive")
    /// Whether ``preemptiveOverride`` applies: the client's own authenticators only.
    package nonisolated let followsPreemptiveOverride: Bool

    public func authenticate(_ attempt: inout AuthenticationAttempt) async throws {
        var state: State
        if let known = attempt[stateKey] {
            state = known
            if let pending = state.pending {
                state.pending = nil
                if let decision = decision(answering: pending) { attempt.record(decision) }
                try await perform(
                    pending,
                    on: &state.machine,
                    request: attempt.request,
                    body: attempt.body,
                    streamed: attempt.streamedBody != nil
                )
            }
        } else {
            state = State(
                machine: ChallengeStateMachine(party: try machineParty(for: attempt.request), isEnabled: true)
            )
            let preparation = await lookUpPreparation(
                for: state.machine.party,
                request: attempt.request,
                preemptive: followsPreemptiveOverride ? attempt[Self.preemptiveOverride] ?? preemptive : preemptive
            )
            switch preparation {
            case .basic: attempt.record(AuthenticationDecision(scheme: "Basic", action: .sentPreemptively, reason: reasonParty))
            case .digest:
                attempt.record(
                    AuthenticationDecision(scheme: "Digest", action: .sentPreemptively, reason: "the protection space's last nonce")
                )
            case .nothing: break
            }
            try await perform(
                state.machine.prepare(preparation),
                on: &state.machine,
                request: attempt.request,
                body: attempt.body,
                streamed: attempt.streamedBody != nil
            )
            // Nothing sent up front: judge starts afresh if a challenge comes.
            guard state.machine.authorization != nil else { return }
        }
        if let authorization = state.machine.authorization {
            attempt.request.headerFields[state.machine.party.authorizationField] = authorization
        }
        attempt[stateKey] = state
    }

    /// What an answer chosen on a challenge is, for ``AuthenticationAttempt/decisions``.
    private nonisolated func decision(answering action: ChallengeStateMachine.Action) -> AuthenticationDecision? {
        switch action {
        case .answerBasic: AuthenticationDecision(scheme: "Basic", action: .challengeAnswered, reason: reasonParty)
        case .answerDigest(let challenge, _, _) where challenge.stale:
            AuthenticationDecision(scheme: "Digest", action: .nonceRenewed, reason: "stale=true")
        case .answerDigest: AuthenticationDecision(scheme: "Digest", action: .challengeAnswered, reason: reasonParty)
        default: nil
        }
    }

    /// The proxy's decisions say so; the origin's need no reason.
    private nonisolated var reasonParty: String? {
        switch party {
        case .origin: nil
        case .proxy(let scope): "proxy \(scope)"
        }
    }

    private nonisolated func machineParty(for request: HTTPRequest) throws -> ChallengeStateMachine.Party {
        switch party {
        case .origin: .origin(try AuthScope(origin: request))
        case .proxy(let proxy): .proxy(proxy)
        }
    }

    /// - Throws: ``ClientError/Code/authenticationFailed`` when the credential was refused;
    ///   ``ClientError/Code/invalidServerProof`` for a wrong `rspauth`;
    ///   ``ClientError/Code/plainHTTPRefused``.
    public func judge(
        _ response: HTTPResponse,
        to attempt: inout AuthenticationAttempt
    ) async throws
        -> AuthenticationVerdict
    {
        var state: State
        if let known = attempt[stateKey] {
            state = known
        } else {
            // Nothing was sent up front: only a challenge concerns this authenticator.
            guard response.status == (party == .origin ? .unauthorized : .proxyAuthenticationRequired) else {
                return .accept
            }
            state = State(
                machine: ChallengeStateMachine(party: try machineParty(for: attempt.request), isEnabled: true)
            )
        }
        defer { attempt[stateKey] = state }
        guard state.machine.isChallenged(by: response) else {
            try completed(state.machine, response, body: attempt.responseBody)
            return .accept
        }
        var action = state.machine.received(response)
        if case .lookUpCredentials(let challenges) = action {
            action = state.machine.found(await candidates(challenges, at: state.machine.party.scope), in: response)
        }
        switch action {
        case .none, .handBack, .lookUpCredentials:
            if !state.machine.parseErrors.isEmpty {
                logger.debug(
                    "malformed challenge",
                    metadata: ["errors": .array(state.machine.parseErrors.map { "\($0)" })]
                )
            }
            return .accept
        case .fail:
            try await perform(
                action,
                on: &state.machine,
                request: attempt.request,
                body: attempt.body,
                streamed: attempt.streamedBody != nil
            )
            return .accept
        case .answerBasic, .answerDigest:
            // Built on the next attempt, from the request as the caller made it.
            state.pending = action
            return .retry
        }
    }

    /// What may go up front: a saved Digest nonce, else (when preemptive) Basic with a
    /// realm-less credential.
    private func lookUpPreparation(
        for party: ChallengeStateMachine.Party,
        request: HTTPRequest,
        preemptive: Bool
    ) async -> ChallengeStateMachine.Preparation {
        if let use = spaces.nextUse(origin: party.scope, path: request.path ?? "/") { return .digest(use) }
        if preemptive, let entry = await credentials.credential(for: party.scope, realm: nil) { return .basic(entry) }
        return .nothing
    }

    /// The challenges for which the store holds a credential allowed to answer their scheme.
    private func candidates(
        _ challenges: [AuthenticationChallenge],
        at scope: AuthScope
    ) async -> [(challenge: AuthenticationChallenge, entry: ScopedCredential)] {
        var candidates: [(challenge: AuthenticationChallenge, entry: ScopedCredential)] = []
        for challenge in challenges {
            guard let entry = await credentials.credential(for: scope, realm: challenge.parameter("realm")),
                entry.credential.allows(scheme: challenge.scheme)
            else { continue }
            candidates.append((challenge, entry))
        }
        return candidates
    }

    /// Carries out an action of the machine: builds the authorization it asks for and records
    /// it, or throws.
    private func perform(
        _ action: ChallengeStateMachine.Action,
        on machine: inout ChallengeStateMachine,
        request: HTTPRequest,
        body: [UInt8]?,
        streamed: Bool
    ) async throws {
        switch action {
        case .none, .handBack, .lookUpCredentials:
            return
        case .fail(let error, let keys):
            for key in keys { spaces.remove(key) }
            if error.code == .authenticationFailed {
                logger.debug("authentication failed", metadata: ["scope": "\(machine.party.scope)"])
            }
            throw error
        case .answerBasic(let entry):
            machine.willSend(
                .basic(entry.credential),
                authorization: try entry.credential.basicCredentials.authorization
            )
        case .answerDigest(let challenge, let entry, let reusedCount):
            let key = DigestProtectionSpaces.Key(origin: machine.party.scope, challenge: challenge)
            let path = request.path ?? "/"
            let nonceCount = reusedCount ?? spaces.start(key, challenge: challenge, entry: entry, path: path)
            let answer = try DigestResponse(
                challenge: challenge,
                credentials: entry.credential.digestCredentials,
                method: request.method,
                uri: path,
                body: body ?? [],
                nonceCount: nonceCount,
                cnonce: cnonceGenerator.next(),
                qop: preferredQOP
            )
            // RFC 7616 §3.4.3: auth-int hashes the entity body, which a stream does not hold.
            if answer.qop == .authInt, streamed {
                throw ClientError(
                    .invalidBody,
                    "\(machine.party.name) asks for Digest auth-int, which hashes the body: send it in memory, not streamed"
                )
            }
            machine.willSend(.digest(key, answer, entry), authorization: answer.authorization)
        }
    }

    /// `Authentication-Info` after an accepted answer.
    private func completed(_ machine: ChallengeStateMachine, _ response: HTTPResponse, body: [UInt8]?) throws {
        switch machine.completed(response, body: body) {
        case .none: break
        case .renew(let key, let nextnonce): spaces.renew(key, nextnonce: nextnonce)
        case .fail(let error, let key):
            spaces.remove(key)
            throw error
        }
    }

    public nonisolated var description: String {
        switch party {
        case .origin: "CredentialStoreAuthenticator(origin)"
        case .proxy(let scope): "CredentialStoreAuthenticator(proxy \(scope))"
        }
    }
}
