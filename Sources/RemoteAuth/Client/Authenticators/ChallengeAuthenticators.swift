public import HTTPTypes

/// HTTP Basic as a ``RequestAuthenticator`` ([RFC 7617](https://www.rfc-editor.org/rfc/rfc7617)):
/// sent up front when `preemptive`, else in answer to a `401` with a `Basic` challenge (one
/// retry); a `401` to the credentials is ``ClientError/Code/authenticationFailed``, never a
/// loop. The rules are ``CredentialStoreAuthenticator``'s, over this one credential.
public struct BasicAuthenticator: RequestAuthenticator, CustomStringConvertible {
    let answers: CredentialStoreAuthenticator
    /// Whether the credentials go on the first attempt, saving the `401` round trip.
    public var preemptive: Bool { answers.preemptive }

    /// - Throws: ``BasicError`` for a user-id with a colon or a control character.
    public init(user: String, password: Secret, preemptive: Bool = false) throws {
        _ = try BasicCredentials(user: user, password: password)
        answers = CredentialStoreAuthenticator(
            credentials: OneCredential(.basic(user: user, password: password)),
            preemptive: preemptive
        )
    }

    public var writtenFields: [HTTPField.Name] { [.authorization] }

    public func authenticate(_ attempt: inout AuthenticationAttempt) async throws {
        try await answers.authenticate(&attempt)
    }

    /// - Throws: ``ClientError/Code/authenticationFailed`` when the credentials were refused.
    public func judge(_ response: HTTPResponse, to attempt: inout AuthenticationAttempt) async throws
        -> AuthenticationVerdict
    {
        try await answers.judge(response, to: &attempt)
    }

    public var description: String { "BasicAuthenticator(\(preemptive ? "preemptive" : "on challenge"), <redacted>)" }
}

/// HTTP Digest as a ``RequestAuthenticator`` ([RFC 7616](https://www.rfc-editor.org/rfc/rfc7616)):
/// answers a `401` `Digest` challenge (one retry), then reuses the server's nonce with a
/// growing `nc` for later requests in the protection space, so N requests cost N+1 round trips
/// ([§3.3–§3.4](https://www.rfc-editor.org/rfc/rfc7616#section-3.3)); a `stale=true` challenge is
/// answered with the new nonce once more; `Authentication-Info`'s `nextnonce` is taken and its
/// `rspauth` checked ([§3.5](https://www.rfc-editor.org/rfc/rfc7616#section-3.5)). The rules
/// are ``CredentialStoreAuthenticator``'s, over this one credential; the nonces live in it, so
/// copies of this value (in several clients, or middleware calls) share them.
public struct DigestAuthenticator: RequestAuthenticator, CustomStringConvertible {
    let answers: CredentialStoreAuthenticator
    let user: String

    /// An authenticator answering `Digest` challenges as `user` with `password`, taking cnonces from
    /// `cnonceGenerator` and preferring `qop` when offered several (`nil`: `auth`).
    public init(
        user: String,
        password: Secret,
        cnonceGenerator: DigestCnonceGenerator = .system,
        qop: DigestQOP? = nil
    ) {
        self.user = user
        answers = CredentialStoreAuthenticator(
            credentials: OneCredential(.digest(user: user, password: password)),
            cnonceGenerator: cnonceGenerator,
            qop: qop
        )
    }

    public var writtenFields: [HTTPField.Name] { [.authorization] }

    /// Answers with the nonce known for the request's space, if there is one.
    public func authenticate(_ attempt: inout AuthenticationAttempt) async throws {
        try await answers.authenticate(&attempt)
    }

    /// - Throws: ``ClientError/Code/authenticationFailed`` when the answer was refused (and the
    ///   challenge is not `stale`); ``ClientError/Code/invalidServerProof`` for a wrong `rspauth`.
    public func judge(_ response: HTTPResponse, to attempt: inout AuthenticationAttempt) async throws
        -> AuthenticationVerdict
    {
        try await answers.judge(response, to: &attempt)
    }

    public var description: String { "DigestAuthenticator(\(user), <redacted>)" }
}

/// One credential for whatever origin and realm is asked: the store of an authenticator that
/// ``ScopedAuthenticator`` already limits to its origin (and to https, or its opt-in).
struct OneCredential: CredentialStore {
    let credential: Credential

    init(_ credential: Credential) { self.credential = credential }

    func credential(for origin: AuthScope, realm: String?) -> ScopedCredential? {
        ScopedCredential(scope: origin, credential: credential, allowsPlainHTTP: true)
    }
}
