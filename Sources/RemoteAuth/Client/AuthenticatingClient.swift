public import HTTPTypes
import Logging

/// An HTTP client that answers `Basic` and `Digest` challenges with scoped credentials, adds
/// token authorizations (``RequestAuthorizer``: Bearer, later DPoP), and follows redirects
/// safely, over any ``HTTPTransport``.
///
/// - **Challenge mode**: a `401` whose `WWW-Authenticate` (or a `407` from
///   ``Configuration/proxy`` whose `Proxy-Authenticate`) offers a scheme the store holds a
///   credential for (matched by origin and realm) is answered once; when that answer is refused
///   the client throws ``ClientError/Code/authenticationFailed`` carrying the challenge, and
///   never loops (URLSession's `previousFailureCount` rule). A `401` nothing can answer is
///   returned as is. Each challenge field is parsed on its own, so a malformed field does not
///   hide a good challenge in another (``AuthenticationChallenge/parseEachField(_:name:)``).
/// - **Preemptive mode** (``Configuration/preemptive`` or per request): `Basic` is sent on the
///   first request to an origin with a realm-less credential, saving the `401` round trip.
/// - **Authorizers** (``CredentialStore/authorizer(for:)``) are sent on every request to their
///   origin; a challenge to them is offered to the authorizer once (a token refresh), never more.
/// - **Digest** state is kept per protection space (``DigestProtectionSpaces``): the server's
///   nonce is reused with a growing `nc`, so N requests cost N+1 round trips; `stale=true` is
///   answered with the new nonce without counting as a failure; `nextnonce` is honoured;
///   `rspauth` is checked; `auth-int` hashes the body.
///   [RFC 7616 §3.3–§3.5](https://www.rfc-editor.org/rfc/rfc7616#section-3.3)
/// - **Redirects** (301, 302, 303, 307, 308) are followed here (``RedirectState``), up to
///   ``Configuration/maximumRedirects``; caller-set `Authorization`, `Proxy-Authorization` and
///   `Cookie` fields are dropped as soon as the scheme, host or port changes, and credentials
///   are only ever added for the origin the request started at, so `https` → `http` never
///   carries them. [RFC 9110 §15.4](https://www.rfc-editor.org/rfc/rfc9110#section-15.4)
/// - **Plain http**: a credential is sent over `http` only to loopback hosts or when its scope
///   opted in (``ScopedCredential/allowsPlainHTTP``); otherwise
///   ``ClientError/Code/plainHTTPRefused`` is thrown instead of sending the credential.
///
/// A request that already carries an `Authorization` field is sent as the caller built it:
/// the client neither adds its own nor answers challenges for it.
public struct AuthenticatingClient: Sendable {
    public let transport: any HTTPTransport
    public let credentials: any CredentialStore
    public let configuration: Configuration
    private let state = ClientState()

    public init(transport: any HTTPTransport, credentials: any CredentialStore, configuration: Configuration = .init())
    {
        self.transport = transport
        self.credentials = credentials
        self.configuration = configuration
    }

    /// How many requests this client has put on the wire, retries and redirects included.
    public var roundTrips: Int {
        get async { await state.roundTrips }
    }

    /// Sends `request`, answering challenges and following redirects.
    ///
    /// - Parameter preemptive: overrides ``Configuration/preemptive`` for this request.
    /// - Returns: the final response and its body.
    /// - Throws: ``ClientError`` (authentication failed, too many or invalid redirects, plain
    ///   http refused, invalid URL), or what the transport throws.
    public func send(
        _ request: HTTPRequest,
        body: [UInt8]? = nil,
        preemptive: Bool? = nil
    ) async throws -> (HTTPResponse, [UInt8]) {
        var redirects = RedirectState(maximum: configuration.maximumRedirects, initialOrigin: try AuthScope(origin: request))
        let preemptive = preemptive ?? configuration.preemptive
        var current = (request: request, body: body)
        while true {
            let (response, responseBody) = try await exchange(
                current.request,
                body: current.body,
                credentialsAllowed: redirects.allowsCredentials,
                preemptive: preemptive
            )
            guard configuration.followsRedirects,
                let hop = try redirects.next(after: response, to: current.request, body: current.body)
            else { return (response, responseBody) }
            configuration.logger.debug(
                "redirect",
                metadata: [
                    "status": "\(response.status.code)", "to": "\(Redaction.redactedURL(hop.request.absoluteURL))",
                    "crossOrigin": "\(hop.crossesOrigin)",
                ]
            )
            current = (hop.request, hop.body)
        }
    }

    /// One request with its authentication round trips, driving a ``ChallengeStateMachine``
    /// for the origin and one for the proxy.
    private func exchange(
        _ request: HTTPRequest,
        body: [UInt8]?,
        credentialsAllowed: Bool,
        preemptive: Bool
    ) async throws -> (HTTPResponse, [UInt8]) {
        let origin = try AuthScope(origin: request)
        var parties = [
            ChallengeStateMachine(
                party: .origin(origin),
                isEnabled: credentialsAllowed && request.headerFields[.authorization] == nil
            )
        ]
        if let proxy = configuration.proxy {
            parties.append(
                ChallengeStateMachine(party: .proxy(proxy), isEnabled: request.headerFields[.proxyAuthorization] == nil)
            )
        }
        for index in parties.indices where parties[index].isEnabled {
            let preparation = try await lookUpPreparation(for: parties[index].party, request: request, preemptive: preemptive)
            try await perform(parties[index].prepare(preparation), on: &parties[index], request: request, body: body)
        }
        var (response, responseBody) = try await roundTrip(Self.outgoing(request, parties), body: body)
        while let index = parties.firstIndex(where: { $0.isChallenged(by: response) }) {
            var action = parties[index].received(response)
            if case .lookUpCredentials(let challenges) = action {
                action = parties[index].found(await candidates(challenges, at: parties[index].party.scope), in: response)
            }
            if case .askAuthorizer(let scoped, let challenge) = action {
                let reaction = try await scoped.authorizer.reaction(to: challenge, in: response)
                action = parties[index].authorizerReacted(reaction, to: challenge, in: response)
            }
            if case .handBack = action {
                if !parties[index].parseErrors.isEmpty {
                    configuration.logger.debug(
                        "malformed challenge",
                        metadata: ["errors": .array(parties[index].parseErrors.map { "\($0)" })]
                    )
                }
                break
            }
            try await perform(action, on: &parties[index], request: request, body: body)
            (response, responseBody) = try await roundTrip(Self.outgoing(request, parties), body: body)
        }
        for party in parties where party.isEnabled && !party.isChallenged(by: response) {
            switch party.completed(response, body: responseBody) {
            case .none: break
            case .renew(let key, let nextnonce): await state.withSpaces { $0.renew(key, nextnonce: nextnonce) }
            case .fail(let error, let key):
                await state.withSpaces { $0.remove(key) }
                throw error
            }
        }
        for case .authorizer(let scoped) in parties.compactMap(\.sent) { await scoped.authorizer.received(response) }
        return (response, responseBody)
    }

    /// What may go up front: the origin's authorizer, else a saved Digest nonce, else (in
    /// preemptive mode) Basic with a realm-less credential.
    private func lookUpPreparation(
        for party: ChallengeStateMachine.Party,
        request: HTTPRequest,
        preemptive: Bool
    ) async throws -> ChallengeStateMachine.Preparation {
        if let scoped = await credentials.authorizer(for: party.scope) { return .authorizer(scoped) }
        let path = request.path ?? "/"
        if let use = await state.withSpaces({ $0.nextUse(origin: party.scope, path: path) }) { return .digest(use) }
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

    /// Carries out an action of a ``ChallengeStateMachine``: builds the authorization it asks
    /// for and records it, or throws.
    private func perform(
        _ action: ChallengeStateMachine.Action,
        on machine: inout ChallengeStateMachine,
        request: HTTPRequest,
        body: [UInt8]?
    ) async throws {
        switch action {
        case .none, .handBack, .lookUpCredentials, .askAuthorizer:
            return
        case .fail(let error, let keys):
            if !keys.isEmpty { await state.withSpaces { spaces in keys.forEach { spaces.remove($0) } } }
            if error.code == .authenticationFailed {
                configuration.logger.debug("authentication failed", metadata: ["scope": "\(machine.party.scope)"])
            }
            throw error
        case .authorize(let scoped):
            let authorization = try await scoped.authorizer.authorization(for: request, body: body)
            machine.willSend(
                .authorizer(scoped),
                authorization: authorization.credentials,
                additionalFields: authorization.additionalFields
            )
        case .answerBasic(let entry):
            machine.willSend(.basic(entry.credential), authorization: try entry.credential.basicCredentials.authorization)
        case .answerDigest(let challenge, let entry, let reusedCount):
            let key = DigestProtectionSpaces.Key(origin: machine.party.scope, challenge: challenge)
            let path = request.path ?? "/"
            var nonceCount = reusedCount ?? 0
            if reusedCount == nil {
                nonceCount = await state.withSpaces { $0.start(key, challenge: challenge, entry: entry, path: path) }
            }
            let answer = try DigestResponse(
                challenge: challenge,
                credentials: entry.credential.digestCredentials,
                method: request.method,
                uri: path,
                body: body ?? [],
                nonceCount: nonceCount,
                cnonce: configuration.cnonceGenerator.next(),
                qop: configuration.digestQOP
            )
            machine.willSend(.digest(key, answer, entry), authorization: answer.authorization)
        }
    }

    /// `request` with each party's authorization and additional fields appended.
    private static func outgoing(_ request: HTTPRequest, _ parties: [ChallengeStateMachine]) -> HTTPRequest {
        var outgoing = request
        for party in parties {
            if let authorization = party.authorization {
                outgoing.headerFields.append(HTTPField(name: party.party.authorizationField, value: authorization))
            }
            outgoing.headerFields.append(contentsOf: party.additionalFields)
        }
        return outgoing
    }

    private func roundTrip(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        await state.countRoundTrip()
        let logger = configuration.logger
        logger.debug(
            "request",
            metadata: ["method": "\(request.method)", "url": "\(Redaction.redactedURL(request.absoluteURL))"]
        )
        logger.trace(
            "request fields",
            metadata: ["fields": .array(Redaction.redacted(request.headerFields).map { "\($0)" })]
        )
        let (response, responseBody) = try await transport.send(request, body: body)
        logger.debug("response", metadata: ["status": "\(response.status)", "bytes": "\(responseBody.count)"])
        logger.trace(
            "response fields",
            metadata: ["fields": .array(Redaction.redacted(response.headerFields).map { "\($0)" })]
        )
        return (response, responseBody)
    }
}
