import HTTPTypes
import Logging

/// One request's authentication round trips: the lookups, header building and sending that
/// the ``ChallengeStateMachine`` of each party asks for.
extension AuthenticatingClient {
    /// One request with its authentication round trips, driving a ``ChallengeStateMachine``
    /// for the origin and one for the proxy.
    func exchange(
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
            let preparation = try await lookUpPreparation(
                for: parties[index].party,
                request: request,
                preemptive: preemptive
            )
            try await perform(parties[index].prepare(preparation), on: &parties[index], request: request, body: body)
        }
        let chain = try authenticators(for: request, credentialsAllowed: credentialsAllowed)
        var (response, responseBody) = try await authenticatedRoundTrip(
            Self.outgoing(request, parties),
            body: body,
            chain: chain
        )
        while let index = parties.firstIndex(where: { $0.isChallenged(by: response) }) {
            var action = parties[index].received(response)
            if case .lookUpCredentials(let challenges) = action {
                action = parties[index].found(
                    await candidates(challenges, at: parties[index].party.scope),
                    in: response
                )
            }
            if case .askAuthorizer(let scoped, let challenge) = action {
                let refused = RequestAuthorization(
                    credentials: parties[index].authorization ?? "",
                    additionalFields: parties[index].additionalFields
                )
                let reaction = try await scoped.authorizer.reaction(to: challenge, in: response, refusing: refused)
                action = parties[index].authorizerReacted(reaction, to: challenge, in: response)
            }
            switch action {
            case .none, .handBack, .lookUpCredentials, .askAuthorizer:
                // Nothing (more) to answer with: the response goes back to the caller.
                if !parties[index].parseErrors.isEmpty {
                    configuration.logger.debug(
                        "malformed challenge",
                        metadata: ["errors": .array(parties[index].parseErrors.map { "\($0)" })]
                    )
                }
                return try await finish(response, responseBody, parties)
            case .authorize, .answerBasic, .answerDigest, .fail:
                break
            }
            try await perform(action, on: &parties[index], request: request, body: body)
            (response, responseBody) = try await authenticatedRoundTrip(
                Self.outgoing(request, parties),
                body: body,
                chain: chain
            )
        }
        return try await finish(response, responseBody, parties)
    }

    /// The response that ended the exchange: Digest `Authentication-Info` for the parties that
    /// did not challenge it, and every authorizer that was sent sees it.
    private func finish(
        _ response: HTTPResponse,
        _ responseBody: [UInt8],
        _ parties: [ChallengeStateMachine]
    ) async throws -> (HTTPResponse, [UInt8]) {
        for party in parties where party.isEnabled && !party.isChallenged(by: response) {
            switch party.completed(response, body: responseBody) {
            case .none: break
            case .renew(let key, let nextnonce): await state.withSpaces { $0.renew(key, nextnonce: nextnonce) }
            case .fail(let error, let key):
                await state.withSpaces { $0.remove(key) }
                throw error
            }
        }
        for party in parties {
            guard case .authorizer(let scoped)? = party.sent else { continue }
            let sent = RequestAuthorization(
                credentials: party.authorization ?? "",
                additionalFields: party.additionalFields
            )
            await scoped.authorizer.received(response, answering: sent)
        }
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
            if !keys.isEmpty {
                await state.withSpaces { spaces in
                    for key in keys { spaces.remove(key) }
                }
            }
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
            machine.willSend(
                .basic(entry.credential),
                authorization: try entry.credential.basicCredentials.authorization
            )
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

    func roundTrip(
        _ request: HTTPRequest,
        body: [UInt8]?,
        sensitive: [HTTPField.Name] = []
    ) async throws -> (HTTPResponse, [UInt8]) {
        await state.countRoundTrip()
        let logger = configuration.logger
        logger.debug(
            "request",
            metadata: ["method": "\(request.method)", "url": "\(Redaction.redactedURL(request.absoluteURL))"]
        )
        logger.trace(
            "request fields",
            metadata: ["fields": .array(Redaction.redacted(request.headerFields, also: sensitive).map { "\($0)" })]
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
