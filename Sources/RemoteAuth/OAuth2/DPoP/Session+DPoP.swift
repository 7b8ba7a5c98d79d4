extension OAuth2.Session {
    /// A prover for ``dpopKey``, or `nil` when the session has no DPoP key.
    ///
    /// - Throws: ``JOSE/Error/Code/invalidKey`` when the stored key is not a private key;
    ///   ``OAuth2/DPoP/Error/Code/invalidKey`` when it cannot sign proofs.
    public func dpopProver(
        now: @escaping @Sendable () -> Int64,
        random: RandomSource = .system
    ) throws -> OAuth2.DPoP.Prover? {
        guard let dpopKey else { return nil }
        return try OAuth2.DPoP.Prover(jwk: dpopKey, now: now, random: random)
    }
}
