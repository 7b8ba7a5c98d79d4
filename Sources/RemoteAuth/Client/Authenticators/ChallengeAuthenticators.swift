public import HTTPTypes

/// HTTP Basic as a ``RequestAuthenticator`` ([RFC 7617](https://www.rfc-editor.org/rfc/rfc7617)):
/// sent up front when ``preemptive``, else in answer to a `401` with a `Basic` challenge
/// (one retry); a `401` to the credentials is ``ClientError/Code/authenticationFailed``, never
/// a loop.
public struct BasicAuthenticator: RequestAuthenticator, CustomStringConvertible {
    let credentials: BasicCredentials
    /// Send the credentials on the first attempt, saving the `401` round trip.
    public var preemptive: Bool

    /// - Throws: ``BasicError`` for a user-id with a colon or a control character.
    public init(user: String, password: Secret, preemptive: Bool = false) throws {
        credentials = try BasicCredentials(user: user, password: password)
        self.preemptive = preemptive
    }

    public var writtenFields: [HTTPField.Name] { [.authorization] }

    private static let challenged = AuthenticationAttempt.Key<Bool>("RemoteAuth.Basic.challenged")
    private static let sent = AuthenticationAttempt.Key<Bool>("RemoteAuth.Basic.sent")

    public func authenticate(_ attempt: inout AuthenticationAttempt) async throws {
        guard preemptive || attempt[Self.challenged] == true else { return }
        attempt.request.headerFields[.authorization] = credentials.authorization
        attempt[Self.sent] = true
    }

    /// - Throws: ``ClientError/Code/authenticationFailed`` when the credentials were refused.
    public func judge(_ response: HTTPResponse, to attempt: inout AuthenticationAttempt) async throws
        -> AuthenticationVerdict
    {
        guard response.status == .unauthorized,
            let challenge = AuthenticationChallenge.parseEachField(response.headerFields, name: .wwwAuthenticate)
                .challenges.first(where: { $0.hasScheme("Basic") })
        else { return .accept }
        if attempt[Self.sent] == true {
            throw ClientError(
                .authenticationFailed,
                "the server refused the Basic credentials for realm \"\(challenge.parameter("realm") ?? "")\"",
                challenge: challenge,
                response: response
            )
        }
        attempt[Self.challenged] = true
        return .retry
    }

    public var description: String { "BasicAuthenticator(\(preemptive ? "preemptive" : "on challenge"), <redacted>)" }
}

/// HTTP Digest as a ``RequestAuthenticator`` ([RFC 7616](https://www.rfc-editor.org/rfc/rfc7616)):
/// answers a `401` `Digest` challenge (one retry), then reuses the server's nonce with a
/// growing `nc` for later requests in the protection space, so N requests cost N+1 round trips
/// ([§3.3–§3.4](https://www.rfc-editor.org/rfc/rfc7616#section-3.3)); a `stale=true` challenge is
/// answered with the new nonce once more; `Authentication-Info`'s `nextnonce` is taken and its
/// `rspauth` checked ([§3.5](https://www.rfc-editor.org/rfc/rfc7616#section-3.5)). The nonces live
/// in this actor: share one instance between clients (or middleware calls) to share them.
public actor DigestAuthenticator: RequestAuthenticator, CustomStringConvertible {
    nonisolated let credential: Credential
    nonisolated let cnonceGenerator: DigestCnonceGenerator
    nonisolated let preferredQOP: DigestQOP?
    private var spaces = DigestProtectionSpaces()

    public init(
        user: String,
        password: Secret,
        cnonceGenerator: DigestCnonceGenerator = .system,
        qop: DigestQOP? = nil
    ) {
        credential = .digest(user: user, password: password)
        self.cnonceGenerator = cnonceGenerator
        preferredQOP = qop
    }

    public nonisolated var writtenFields: [HTTPField.Name] { [.authorization] }

    struct Sent: Sendable {
        let key: DigestProtectionSpaces.Key
        let answer: DigestResponse
    }

    private static let sent = AuthenticationAttempt.Key<Sent>("RemoteAuth.Digest.sent")
    private static let renewedStale = AuthenticationAttempt.Key<Bool>("RemoteAuth.Digest.renewedStale")

    /// Answers with the nonce known for the request's space, if there is one.
    public func authenticate(_ attempt: inout AuthenticationAttempt) async throws {
        let origin = try AuthScope(origin: attempt.request)
        let path = attempt.request.path ?? "/"
        guard let use = spaces.nextUse(origin: origin, path: path) else { return }
        let answer = try DigestResponse(
            challenge: use.challenge,
            credentials: credential.digestCredentials,
            method: attempt.request.method,
            uri: path,
            body: attempt.body ?? [],
            nonceCount: use.nonceCount,
            cnonce: cnonceGenerator.next(),
            qop: preferredQOP
        )
        attempt.request.headerFields[.authorization] = answer.authorization
        attempt[Self.sent] = Sent(key: use.key, answer: answer)
    }

    /// - Throws: ``ClientError/Code/authenticationFailed`` when the answer was refused (and the
    ///   challenge is not `stale`); ``ClientError/Code/invalidServerProof`` for a wrong `rspauth`.
    public func judge(_ response: HTTPResponse, to attempt: inout AuthenticationAttempt) async throws
        -> AuthenticationVerdict
    {
        let origin = try AuthScope(origin: attempt.request)
        let sent = attempt[Self.sent]
        guard response.status == .unauthorized else {
            try completed(response, sent: sent)
            return .accept
        }
        let challenges = AuthenticationChallenge.parseEachField(response.headerFields, name: .wwwAuthenticate)
            .challenges.filter { $0.hasScheme("Digest") }
        guard let (challenge, digest) = challenges.lazy.compactMap({ c in (try? DigestChallenge(c)).map { (c, $0) } })
            .first(where: { $0.1.effectiveAlgorithm.isSupported })
        else { return .accept }
        let key = DigestProtectionSpaces.Key(origin: origin, challenge: digest)
        let entry = ScopedCredential(scope: origin, credential: credential)
        if let sent {
            guard digest.stale, attempt[Self.renewedStale] != true else {
                spaces.remove(sent.key)
                throw ClientError(
                    .authenticationFailed,
                    "the server refused the Digest answer for realm \"\(digest.realm)\"",
                    challenge: challenge,
                    response: response
                )
            }
            attempt[Self.renewedStale] = true
        }
        _ = spaces.start(key, challenge: digest, entry: entry, path: attempt.request.path ?? "/")
        return .retry
    }

    /// `Authentication-Info` after an accepted answer: `rspauth` checked (not for `auth-int`,
    /// whose proof covers the response body), `nextnonce` taken.
    private func completed(_ response: HTTPResponse, sent: Sent?) throws {
        guard let sent, let value = response.headerFields[.authenticationInfo],
            let info = try? DigestAuthenticationInfo(headerValue: value)
        else { return }
        if info.rspauth != nil, sent.answer.qop != .authInt,
            !sent.answer.isValid(info, credentials: credential.digestCredentials)
        {
            spaces.remove(sent.key)
            throw ClientError(
                .invalidServerProof,
                "the rspauth of \(sent.key.origin) does not match the credential",
                response: response
            )
        }
        if let nextnonce = info.nextnonce { spaces.renew(sent.key, nextnonce: nextnonce) }
    }

    public nonisolated var description: String { "DigestAuthenticator(\(credential.user), <redacted>)" }
}
