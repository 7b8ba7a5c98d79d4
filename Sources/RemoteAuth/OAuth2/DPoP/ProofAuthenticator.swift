public import HTTPTypes

extension OAuth2.DPoP {
    /// DPoP proofs as a ``RequestAuthenticator``: the one place the library writes a proof and
    /// answers a server's nonce. Alone, it proves the key on requests to an authorization
    /// server (the token and PAR endpoints of a flow bound with ``OAuth2/Flow/binding(to:)``,
    /// [RFC 9449 §5](https://www.rfc-editor.org/rfc/rfc9449#section-5)); the token
    /// authenticators (``OAuth2/TokenSession``, ``OAuth2/AccessTokenAuthenticator``) use it with
    /// the access token's hash, `ath` ([§7.1](https://www.rfc-editor.org/rfc/rfc9449#section-7.1)).
    ///
    /// Nonces: every response's `DPoP-Nonce` is remembered for its origin
    /// ([§8.2](https://www.rfc-editor.org/rfc/rfc9449#section-8.2)); a `400` with
    /// `error=use_dpop_nonce` (an authorization server, §8) or a `401` whose `DPoP` challenge says
    /// so (a resource server, [§9](https://www.rfc-editor.org/rfc/rfc9449#section-9)), with a
    /// nonce the proof did not carry, is retried once with it.
    public struct ProofAuthenticator: RequestAuthenticator, CustomStringConvertible {
        /// The key that proves, and the nonces servers gave.
        public let prover: Prover

        /// Proofs of `prover`'s key.
        public init(prover: Prover) {
            self.prover = prover
        }

        public var writtenFields: [HTTPField.Name] { [.dpop] }

        public func authenticate(_ attempt: inout AuthenticationAttempt) async throws {
            try Self.prove(&attempt, prover: prover, accessToken: nil)
        }

        public func judge(
            _ response: HTTPResponse,
            to attempt: inout AuthenticationAttempt
        ) async throws
            -> AuthenticationVerdict
        {
            Self.answersNonce(response, attempt: &attempt, prover: prover) ? .retry : .accept
        }

        public var description: String { "OAuth2.DPoP.ProofAuthenticator(jkt: \(prover.thumbprint))" }

        /// The proof an attempt carried: the URL it names and its nonce.
        struct Sent: Sendable {
            let url: String
            let nonce: String?
        }

        private static let sent = AuthenticationAttempt.Key<Sent>("RemoteAuth.DPoP.proof")
        private static let retried = AuthenticationAttempt.Key<Bool>("RemoteAuth.DPoP.nonceRetried")

        /// Writes a proof over the attempt's method and URL (with `ath` for `accessToken`).
        static func prove(_ attempt: inout AuthenticationAttempt, prover: Prover, accessToken: Secret?) throws {
            let url = attempt.request.absoluteURL
            let (proof, nonce) = try prover.proofAndNonce(
                method: attempt.request.method,
                url: url,
                accessToken: accessToken
            )
            attempt.request.headerFields[.dpop] = proof
            attempt[sent] = Sent(url: url, nonce: nonce)
        }

        /// Remembers the response's nonce; `true` once per request when the server asks for a
        /// retry with a nonce the proof did not carry.
        static func answersNonce(
            _ response: HTTPResponse,
            attempt: inout AuthenticationAttempt,
            prover: Prover?
        )
            -> Bool
        {
            guard let prover, let sent = attempt[sent] else { return false }
            let asks =
                attempt[retried] != true
                && nonceChallenge(in: response, body: attempt.responseBody, sentNonce: sent.nonce) != nil
            prover.update(from: response.headerFields, for: sent.url)
            if asks {
                attempt[retried] = true
                attempt.record(AuthenticationDecision(scheme: "DPoP", action: .dpopNonceAdopted, reason: "use_dpop_nonce"))
            }
            return asks
        }
    }
}
