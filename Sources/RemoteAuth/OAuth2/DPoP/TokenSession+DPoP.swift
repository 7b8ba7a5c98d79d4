public import HTTPTypes

/// The DPoP side of ``OAuth2/TokenSession`` as a ``RequestAuthorizer``:
/// [RFC 9449 §7](https://www.rfc-editor.org/rfc/rfc9449#section-7) and
/// [§9](https://www.rfc-editor.org/rfc/rfc9449#section-9).
extension OAuth2.TokenSession {
    /// `DPoP <token>` and a proof over the request's method and URL with `ath`.
    static func dpopAuthorization(
        for request: HTTPRequest,
        tokens: OAuth2.Tokens,
        prover: OAuth2.DPoP.Prover
    ) throws -> RequestAuthorization {
        // The same b64token syntax as Bearer (RFC 9449 §7.1).
        let token = try BearerToken(tokens.accessToken).authorization(for: request, body: nil).credentials
            .dropFirst("Bearer ".count)
        let proof = try prover.proof(method: request.method, url: request.absoluteURL, accessToken: tokens.accessToken)
        var fields = HTTPFields()
        fields[.dpop] = proof
        return RequestAuthorization(credentials: OAuth2.DPoP.scheme + " " + token, additionalFields: fields)
    }

    /// A `401` to a request of this session: with a new `DPoP-Nonce` and a `DPoP` challenge
    /// `error="use_dpop_nonce"`, retry once with it (§9); with `error="invalid_token"` (DPoP or
    /// Bearer challenge), refresh once as for Bearer; else give up. The client asks this at most
    /// once per request, so a nonce retry is never repeated.
    func dpopReaction(
        in response: HTTPResponse,
        refusing authorization: RequestAuthorization,
        prover: OAuth2.DPoP.Prover
    ) async throws -> ChallengeReaction {
        let sent = authorization.credentials.split(separator: " ", maxSplits: 1)
        guard response.status == .unauthorized, sent.count == 2 else { return .giveUp }
        let sentProof = authorization.additionalFields[.dpop].flatMap(Self.proofClaims)
        if let url = sentProof?.htu {
            if OAuth2.DPoP.nonceChallenge(in: response, body: nil, sentNonce: sentProof?.nonce) != nil {
                prover.update(from: response.headerFields, for: url)
                return .retry
            }
            prover.update(from: response.headerFields, for: url)
        }
        guard Self.isInvalidToken(Self.firstChallenge(in: response, scheme: String(sent[0])), response) else {
            return .giveUp
        }
        _ = try await tokenRejected(Secret(String(sent[1])))
        return .retry
    }

    /// Remembers the resource server's `DPoP-Nonce` (§9: it may come with any response).
    public func received(_ response: HTTPResponse, answering authorization: RequestAuthorization) async {
        guard let dpop, let url = authorization.additionalFields[.dpop].flatMap(Self.proofClaims)?.htu else { return }
        dpop.update(from: response.headerFields, for: url)
    }

    /// The `htu` and `nonce` of a proof this session made.
    private static func proofClaims(_ proof: String) -> (htu: String, nonce: String?)? {
        guard let claims = try? JOSE.CompactJWS(proof).claims(), case .string(let htu)? = claims["htu"] else {
            return nil
        }
        return (htu, claims["nonce"]?.stringValue)
    }

    /// The first challenge of `scheme` (any scheme when `nil`) in the response's `WWW-Authenticate`.
    static func firstChallenge(in response: HTTPResponse, scheme: String? = nil) -> AuthenticationChallenge? {
        AuthenticationChallenge.parseEachField(response.headerFields, name: .wwwAuthenticate).challenges.first {
            scheme.map($0.hasScheme) ?? true
        }
    }
}
