import RemoteAuth

/// `authorize oauth2 --dpop`: a fresh P-256 key per sign-in, proofs at the token endpoint
/// (with one retry on `use_dpop_nonce`), and the key kept with the profile as a private JWK in
/// the 0600 token file, so `request`, `token` and the refreshes prove the same key
/// ([RFC 9449 §5](https://www.rfc-editor.org/rfc/rfc9449#section-5)).
extension AuthorizeOAuth2 {
    /// The prover of a new key, or `nil` without `--dpop`.
    func dpopProver() throws -> OAuth2.DPoP.Prover? {
        guard dpop else { return nil }
        return try OAuth2.DPoP.Prover(key: .generateP256(), now: unixNow, random: .system)
    }

    /// Says on stderr what the key did: bound the tokens, or not (a server that returns a
    /// Bearer token chose not to bind it; the token is then sent as Bearer).
    func reportDPoP(_ session: OAuth2.Session, prover: OAuth2.DPoP.Prover?) {
        guard let prover else { return }
        if OAuth2.DPoP.isDPoPTokenType(session.tokens.tokenType) {
            Terminal.writeError("DPoP: the tokens are bound to key \(prover.thumbprint).\n")
        } else {
            Terminal.writeError(
                "DPoP: the server returned a \(session.tokens.tokenType) token, not bound to the key; it is sent as \(session.tokens.tokenType).\n"
            )
        }
    }
}
