package import HTTPTypes

/// The authentication of one request towards one party that may challenge: the origin server
/// (`401`, `WWW-Authenticate`, `Authorization`) or the proxy (`407`, `Proxy-Authenticate`,
/// `Proxy-Authorization`). A value that takes events (a response, the credentials found, an
/// returns actions (answer with Digest or Basic, hand the response back, fail), like
/// async-http-client's `HTTPRequestStateMachine`; the lookups and header building are
/// ``CredentialStoreAuthenticator``'s.
///
/// It answers a challenge once and never loops (URLSession's `previousFailureCount` rule): per
/// request at most a credential sent up front (a reused Digest nonce, preemptive Basic), one
/// `stale=true` renewal, and one answer.
/// [RFC 9110 §11.6](https://www.rfc-editor.org/rfc/rfc9110#section-11.6),
/// [RFC 9110 §11.7](https://www.rfc-editor.org/rfc/rfc9110#section-11.7)
package struct ChallengeStateMachine: Sendable {
    /// What was last sent to the party.
    package enum Sent: Sendable {
        case basic(Credential)
        case digest(DigestProtectionSpaces.Key, DigestResponse, ScopedCredential)
    }

    package enum Action: Sendable {
        /// Nothing to do: send (or return) as is.
        case none
        /// Look up a credential for each challenge's realm, then call ``found(_:in:)``.
        case lookUpCredentials([AuthenticationChallenge])
        /// Answer with Digest: with `nonceCount`, reusing a saved nonce; with `nil`, from a
        /// fresh challenge (record it in the protection spaces first).
        case answerDigest(DigestChallenge, ScopedCredential, nonceCount: UInt32?)
        /// Answer with Basic.
        case answerBasic(ScopedCredential)
        /// The challenge cannot be answered: return the response.
        case handBack
        /// Throw `error`, after forgetting the Digest spaces whose answer failed.
        case fail(ClientError, forgetting: [DigestProtectionSpaces.Key])
    }

    /// What may be sent before any challenge, looked up by the client in this order.
    package enum Preparation: Sendable {
        case digest(DigestProtectionSpaces.Use)
        case basic(ScopedCredential)
        case nothing
    }

    package let party: Party
    /// `false` when the caller set the authorization field, or after a redirect to another
    /// origin: the request goes as the caller built it.
    package let isEnabled: Bool
    package private(set) var sent: Sent?
    /// The authorization field value to send.
    package private(set) var authorization: String?
    /// The challenges of the last response that were found malformed.
    package private(set) var parseErrors: [ChallengeError] = []
    private var challenges: [AuthenticationChallenge] = []
    private var answered = false
    private var renewedStale = false

    package init(party: Party, isEnabled: Bool) {
        self.party = party
        self.isEnabled = isEnabled
    }

    /// Before the first send: what to add up front.
    package func prepare(_ preparation: Preparation) -> Action {
        switch preparation {
        case .digest(let use):
            if let refusal = plainHTTPRefusal(use.entry.allowsPlainHTTP) { return .fail(refusal, forgetting: []) }
            return .answerDigest(use.challenge, use.entry, nonceCount: use.nonceCount)
        case .basic(let entry):
            guard entry.credential.schemes.contains(.basic) else { return .none }
            if let refusal = plainHTTPRefusal(entry.allowsPlainHTTP) { return .fail(refusal, forgetting: []) }
            return .answerBasic(entry)
        case .nothing:
            return .none
        }
    }

    /// The client is about to send `authorization` (built for the last action) to the party.
    package mutating func willSend(_ sent: Sent, authorization: String) {
        self.sent = sent
        self.authorization = authorization
    }

    /// Whether `response` is this party's challenge.
    package func isChallenged(by response: HTTPResponse) -> Bool {
        isEnabled && response.status == party.status
    }

    /// A response arrived that ``isChallenged(by:)``.
    package mutating func received(_ response: HTTPResponse) -> Action {
        let parsed = AuthenticationChallenge.parseEachField(response.headerFields, name: party.challengeField)
        challenges = parsed.challenges
        parseErrors = parsed.errors
        return .lookUpCredentials(challenges)
    }

    /// The credentials found for ``Action/lookUpCredentials(_:)``: the challenges with a
    /// credential that may answer their scheme, in challenge order.
    package mutating func found(
        _ candidates: [(challenge: AuthenticationChallenge, entry: ScopedCredential)],
        in response: HTTPResponse
    ) -> Action {
        guard let pick = AuthenticationChallenge.preferred(candidates.map(\.challenge)),
            let entry = candidates.first(where: { $0.challenge == pick })?.entry
        else {
            guard sent != nil else { return .handBack }  // Nothing sent, nothing to answer with.
            var reason = "\(party.name) refused the credential and asks for nothing it can answer"
            if challenges.isEmpty, let first = parseErrors.first {
                reason += " (every \(party.challengeField.rawName) field is malformed; the first: \(first.reason))"
            }
            return failure(reason, challenges.first, response)
        }
        if pick.hasScheme("Digest") {
            guard let digest = try? DigestChallenge(pick) else { return .handBack }  // preferred() decoded it.
            let key = DigestProtectionSpaces.Key(origin: party.scope, challenge: digest)
            if digest.stale, case .digest = sent, !renewedStale {
                // RFC 7616 §3.3: the answer was right, only the nonce had expired.
                renewedStale = true
            } else if answered {
                return failure(
                    "\(party.name) refused the Digest answer for realm \"\(digest.realm)\"",
                    pick,
                    response,
                    forgetting: [key]
                )
            } else {
                answered = true
            }
            if let refusal = plainHTTPRefusal(entry.allowsPlainHTTP) { return .fail(refusal, forgetting: []) }
            return .answerDigest(digest, entry, nonceCount: nil)
        }
        // Basic: once per request, and never the credential that was just refused up front.
        if answered { return failure(basicRefusal(pick), pick, response) }
        if case .basic(let credential) = sent, credential == entry.credential {
            return failure(basicRefusal(pick), pick, response)
        }
        answered = true
        if let refusal = plainHTTPRefusal(entry.allowsPlainHTTP) { return .fail(refusal, forgetting: []) }
        return .answerBasic(entry)
    }

    private func basicRefusal(_ challenge: AuthenticationChallenge) -> String {
        "\(party.name) refused the Basic credential for realm \"\(challenge.parameter("realm") ?? "")\""
    }

    private func failure(
        _ reason: String,
        _ challenge: AuthenticationChallenge?,
        _ response: HTTPResponse,
        forgetting keys: [DigestProtectionSpaces.Key] = []
    ) -> Action {
        var keys = keys
        if case .digest(let sentKey, _, _) = sent, !keys.contains(sentKey) { keys.append(sentKey) }
        return .fail(
            ClientError(.authenticationFailed, reason, challenge: challenge, response: response),
            forgetting: keys
        )
    }

    /// A credential goes over plain `http` only to loopback or with its scope's opt-in.
    private func plainHTTPRefusal(_ allowsPlainHTTP: Bool) -> ClientError? {
        let scope = party.scope
        guard scope.scheme == "http", !scope.isLoopback, !allowsPlainHTTP else { return nil }
        return ClientError(
            .plainHTTPRefused,
            "refusing to send a credential to \(scope) over plain http, where anyone on the path can read it;"
                + " use https, or opt in to plain http for this scope"
        )
    }
}
