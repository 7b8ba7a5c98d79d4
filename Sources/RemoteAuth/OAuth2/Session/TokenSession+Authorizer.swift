public import HTTPTypes

/// A ``OAuth2/TokenSession`` authorizes requests with `Authorization: Bearer <token>`
/// ([RFC 6750 §2.1](https://www.rfc-editor.org/rfc/rfc6750#section-2.1)) through an
/// ``AuthenticatingClient``: valid tokens up front (refreshed before expiry), one refresh and
/// one retry when a `401` says `error="invalid_token"`
/// ([RFC 6750 §3.1](https://www.rfc-editor.org/rfc/rfc6750#section-3.1)), and nothing more: any
/// other challenge (`insufficient_scope`, no error) gives up, and the client never asks twice
/// per request.
extension OAuth2.TokenSession: RequestAuthorizer {
    /// `Bearer`, or `DPoP` for a session with a DPoP prover.
    public nonisolated var scheme: String { dpop == nil ? "Bearer" : OAuth2.DPoP.scheme }

    /// `Bearer <access token>`, refreshing first when needed; with a ``dpop`` prover and a
    /// `DPoP` token, `DPoP <access token>` and a proof ([RFC 9449 §7.1](https://www.rfc-editor.org/rfc/rfc9449#section-7.1)).
    /// A `Bearer` token is sent as Bearer even when the session has a DPoP key: the
    /// authorization server chose not to bind it ([RFC 9449 §5](https://www.rfc-editor.org/rfc/rfc9449#section-5)).
    ///
    /// - Throws: ``OAuth2/Error/Code/unsupportedTokenType`` for a `token_type` other than
    ///   `Bearer`, or `DPoP` without a prover; ``ClientError/Code/invalidCredential`` for a
    ///   token that is not a `b64token`; the errors of ``validTokens()``.
    public func authorization(for request: HTTPRequest, body: [UInt8]?) async throws -> RequestAuthorization {
        let tokens = try await validTokens()
        if let dpop, OAuth2.DPoP.isDPoPTokenType(tokens.tokenType) {
            return try Self.dpopAuthorization(for: request, tokens: tokens, prover: dpop)
        }
        guard tokens.isBearer else {
            throw OAuth2.Error(
                .unsupportedTokenType,
                "token_type \"\(tokens.tokenType)\" cannot be sent as Bearer"
                    + (OAuth2.DPoP.isDPoPTokenType(tokens.tokenType)
                        ? " (a DPoP token needs the session's DPoP key, RFC 9449 §7.1, and this session has none)" : "")
            )
        }
        return try BearerToken(tokens.accessToken.reveal()).authorization(for: request, body: body)
    }

    /// Without the refused authorization: treats the current token as refused.
    public func reaction(
        to challenge: AuthenticationChallenge?,
        in response: HTTPResponse
    ) async throws
        -> ChallengeReaction
    {
        guard Self.isInvalidToken(dpop == nil ? challenge : Self.firstChallenge(in: response), response) else {
            return .giveUp
        }
        _ = try await tokenRejected(machineToken())
        return .retry
    }

    /// `error="invalid_token"` for the token that was sent: one refresh (or the newer token when
    /// another request already refreshed), then ``ChallengeReaction/retry``.
    ///
    /// - Throws: ``OAuth2/Error/Code/reauthorizationRequired`` when the refresh token is dead.
    public func reaction(
        to challenge: AuthenticationChallenge?,
        in response: HTTPResponse,
        refusing authorization: RequestAuthorization
    ) async throws -> ChallengeReaction {
        if let dpop { return try await dpopReaction(in: response, refusing: authorization, prover: dpop) }
        guard Self.isInvalidToken(challenge, response) else { return .giveUp }
        let sent = authorization.credentials.split(separator: " ", maxSplits: 1)
        guard sent.count == 2, sent[0].lowercased() == "bearer" else { return .giveUp }
        _ = try await tokenRejected(Secret(String(sent[1])))
        return .retry
    }

    /// Uses this session for every request to each of its ``resourceScopes``, and no other.
    ///
    /// - Parameter allowingPlainHTTP: opt in to sending the token over plain `http` to a host
    ///   that is not loopback. Off by default, and it should stay off.
    public nonisolated func register(in credentials: InMemoryCredentialStore, allowingPlainHTTP: Bool = false) async {
        for scope in resourceScopes { await credentials.add(self, for: scope, allowingPlainHTTP: allowingPlainHTTP) }
    }

    private func machineToken() -> Secret { session.tokens.accessToken }

    /// A `401` whose Bearer challenge has `error="invalid_token"` (error codes are
    /// case-sensitive, [RFC 6750 §3](https://www.rfc-editor.org/rfc/rfc6750#section-3)).
    static func isInvalidToken(_ challenge: AuthenticationChallenge?, _ response: HTTPResponse) -> Bool {
        response.status == .unauthorized && challenge?.parameter("error") == OAuth2.ErrorCode.invalidToken.rawValue
    }
}
