extension AuthenticationChallenge {
    /// The strongest challenge this package can answer: Digest SHA-512-256, then SHA-256, then
    /// MD5 (each `-sess` variant right after its base), then Basic. Other schemes, Digest
    /// challenges that do not decode, unsupported Digest algorithms, and Digest challenges
    /// offering only unknown `qop` values are skipped. Among equals the first wins.
    /// [RFC 7616 §3.7](https://www.rfc-editor.org/rfc/rfc7616#section-3.7) (the client uses
    /// the first challenge with an algorithm it supports, servers list preferred ones first),
    /// [RFC 9110 §11.6.1](https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1)
    ///
    /// - Warning: Basic sends the password in the clear and Digest MD5 is weak; check
    ///   ``scheme`` of the result if your policy excludes them.
    public static func preferred(_ challenges: [AuthenticationChallenge]) -> AuthenticationChallenge? {
        var best: (challenge: AuthenticationChallenge, rank: Int)?
        for challenge in challenges {
            let rank: Int
            if challenge.hasScheme("Digest") {
                guard let digest = try? DigestChallenge(challenge), let strength = digest.strength else { continue }
                rank = strength
            } else if challenge.hasScheme("Basic") {
                rank = 0
            } else {
                continue
            }
            if best.map({ rank > $0.rank }) ?? true { best = (challenge, rank) }
        }
        return best?.challenge
    }
}

extension DigestChallenge {
    /// Rank for ``AuthenticationChallenge/preferred(_:)``: `nil` when this package cannot
    /// answer the challenge (unknown algorithm, or only unknown qop values).
    var strength: Int? {
        guard qop.isEmpty || qop.contains(.auth) || qop.contains(.authInt) else { return nil }
        return effectiveAlgorithm.strength
    }
}
