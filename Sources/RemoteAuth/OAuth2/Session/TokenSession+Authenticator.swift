public import HTTPTypes

/// A ``OAuth2/TokenSession`` is a ``RequestAuthenticator``: valid tokens on every attempt
/// (renewed first when they expire within the skew), `Bearer` or `DPoP` with a proof
/// ([RFC 6750 §2.1](https://www.rfc-editor.org/rfc/rfc6750#section-2.1),
/// [RFC 9449 §7.1](https://www.rfc-editor.org/rfc/rfc9449#section-7.1)). Judging the response:
/// a resource server's `use_dpop_nonce` is retried once with its nonce (§9); a `401` whose
/// challenge says `error="invalid_token"` ([RFC 6750 §3.1](https://www.rfc-editor.org/rfc/rfc6750#section-3.1))
/// renews the token once per request (or takes the newer one when another request already
/// did) and retries; anything else is accepted as is, for the caller.
extension OAuth2.TokenSession: RequestAuthenticator {
    public nonisolated var writtenFields: [HTTPField.Name] { [.authorization, .dpop] }

    public func authenticate(_ attempt: inout AuthenticationAttempt) async throws {
        let (before, refreshes) = (machineTokens.accessToken, refreshCount)
        let tokens = try await validTokens()
        if tokens.accessToken != before {
            attempt.record(renewal(since: refreshes, tokens: tokens, reason: "expiry"))
        }
        try OAuth2.AccessTokenAuthenticator.write(tokens, dpop: dpop, into: &attempt)
    }

    /// A renewal as a decision: refreshed here, or taken from a refresh that another request
    /// (or, through a shared store, another process) made.
    private func renewal(since refreshes: Int, tokens: OAuth2.Tokens, reason: String) -> AuthenticationDecision {
        let scheme = tokens.tokenType.lowercased() == "dpop" ? "DPoP" : "Bearer"
        return AuthenticationDecision(
            scheme: scheme,
            action: refreshCount > refreshes ? .tokenRefreshed : .newerTokenTaken,
            reason: reason
        )
    }

    /// - Throws: ``OAuth2/Error/Code/reauthorizationRequired`` when the token was refused and
    ///   cannot be renewed.
    public func judge(_ response: HTTPResponse, to attempt: inout AuthenticationAttempt) async throws
        -> AuthenticationVerdict
    {
        if OAuth2.DPoP.ProofAuthenticator.answersNonce(response, attempt: &attempt, prover: dpop) { return .retry }
        guard response.status == .unauthorized, attempt[Self.renewed] != true,
            let sent = attempt[OAuth2.AccessTokenAuthenticator.sent],
            Self.isInvalidToken(Self.firstChallenge(in: response, scheme: sent.scheme), response)
        else { return .accept }
        attempt[Self.renewed] = true
        let refreshes = refreshCount
        let tokens = try await tokenRejected(sent.accessToken)
        attempt.record(renewal(since: refreshes, tokens: tokens, reason: OAuth2.ErrorCode.invalidToken.rawValue))
        return .retry
    }

    /// Set once a request's token was refused and renewed: a second refusal is the caller's.
    private static let renewed = AuthenticationAttempt.Key<Bool>("RemoteAuth.OAuth2.TokenSession.renewed")

    /// A `401` whose challenge has `error="invalid_token"` (error codes are case-sensitive,
    /// [RFC 6750 §3](https://www.rfc-editor.org/rfc/rfc6750#section-3)).
    static func isInvalidToken(_ challenge: AuthenticationChallenge?, _ response: HTTPResponse) -> Bool {
        response.status == .unauthorized && challenge?.parameter("error") == OAuth2.ErrorCode.invalidToken.rawValue
    }

    /// The first challenge of `scheme` (any scheme when `nil`) in the response's `WWW-Authenticate`.
    static func firstChallenge(in response: HTTPResponse, scheme: String? = nil) -> AuthenticationChallenge? {
        AuthenticationChallenge.parseEachField(response.headerFields, name: .wwwAuthenticate).challenges.first {
            scheme.map($0.hasScheme) ?? true
        }
    }

    /// This session as the authenticator of each of its ``resourceScopes``, and no other origin,
    /// limited to its resources' paths where they name one (``Session/resourceTargets()``), for
    /// ``AuthenticatingClient/init(transport:credentials:authenticators:configuration:)``.
    ///
    /// - Parameter allowingPlainHTTP: opt in to sending the token over plain `http` to a host
    ///   that is not loopback. Off by default, and it should stay off.
    public nonisolated func authenticators(allowingPlainHTTP: Bool = false) -> [ScopedAuthenticator] {
        resourceTargets.map {
            ScopedAuthenticator(self, for: $0.scope, pathPrefix: $0.pathPrefix, allowingPlainHTTP: allowingPlainHTTP)
        }
    }
}
