extension OAuth2.ProtectedResourceMetadata {
    /// How `signed_metadata` is checked ([RFC 9728 §2.2](https://www.rfc-editor.org/rfc/rfc9728#section-2.2)):
    /// the keys of the parties whose attestation the client trusts, the algorithms it allows,
    /// the `iss` values it trusts, and whether a document without signed metadata is refused.
    ///
    /// A client that has no such key configured ignores `signed_metadata`, as §2.2 allows;
    /// one that has verifies it, and its claims then take precedence over the plain members.
    public struct SignedMetadataPolicy: Sendable {
        /// The keys the signature may verify with (a `kid` in the header selects among them).
        public var keys: [JOSE.VerificationKey]
        /// The algorithms allowed; never `none`. Asymmetric ones by default.
        public var algorithms: Set<JOSE.Algorithm>
        /// The `iss` values trusted; `nil` takes any `iss` the keys verified.
        public var issuers: [String]?
        /// Refuse a document that has no `signed_metadata`.
        public var required: Bool
        /// Seconds of clock skew allowed on `exp` and `nbf`.
        public var leeway: Int64

        /// A policy verifying with `keys` under `algorithms` (asymmetric ones by default), trusting
        /// `issuers` (`nil`: any), refusing unsigned documents when `required`, with `leeway` seconds of skew.
        public init(
            keys: [JOSE.VerificationKey],
            algorithms: Set<JOSE.Algorithm> = JOSE.Algorithm.asymmetric,
            issuers: [String]? = nil,
            required: Bool = false,
            leeway: Int64 = 60
        ) {
            self.keys = keys
            self.algorithms = algorithms
            self.issuers = issuers
            self.required = required
            self.leeway = leeway
        }
    }

    /// This metadata with its `signed_metadata` verified and applied
    /// ([RFC 9728 §2.2](https://www.rfc-editor.org/rfc/rfc9728#section-2.2)): a JWS (compact
    /// serialization) signed with one of `policy`'s keys under its algorithms, whose claims
    /// hold an `iss` (trusted, when `policy` names issuers) and are within `exp` and `nbf`.
    /// The claims, `iss` and the JWT's time claims aside, take precedence over the plain
    /// members; the result is read again, so a signed `resource` must pass the same §3.3 check.
    ///
    /// - Returns: this metadata when it has no `signed_metadata` and `policy` does not
    ///   require one.
    /// - Throws: ``OAuth2/Error/Code/signedMetadataRefused``; ``OAuth2/Error/Code/resourceMismatch``
    ///   for a signed `resource` about another resource; ``OAuth2/Error/Code/malformedResponse``.
    public func verifyingSignedMetadata(
        _ policy: SignedMetadataPolicy,
        expectedResource: String,
        match: ResourceMatch = .exact,
        now: Int64
    ) throws -> OAuth2.ProtectedResourceMetadata {
        guard let value = members["signed_metadata"] else {
            guard !policy.required else {
                throw OAuth2.Error(
                    .signedMetadataRefused,
                    "the metadata of \(resource) has no signed_metadata, and signed metadata is required (RFC 9728 §2.2)"
                )
            }
            return self
        }
        func refuse(_ reason: String) -> OAuth2.Error {
            OAuth2.Error(.signedMetadataRefused, "the signed_metadata of \(resource) \(reason) (RFC 9728 §2.2)")
        }
        guard case .string(let compact) = value else { throw refuse("is not a string (a JWT)") }
        let claims: [String: JSONValue]
        do {
            let jws = try JOSE.CompactJWS(compact)
            try jws.verify(with: policy.keys, allowing: policy.algorithms)
            claims = try jws.claims()
            try JOSE.CompactJWS.checkTimes(of: claims, now: now, leeway: policy.leeway)
        } catch let error as JOSE.Error {
            throw refuse("does not verify: \(error.reason)")
        }
        guard case .string(let issuer)? = claims["iss"] else { throw refuse("has no iss claim") }
        if let issuers = policy.issuers, !issuers.contains(issuer) {
            throw refuse("is attested by \(PeerText.printable(issuer, limit: 200)), not a trusted issuer")
        }
        var merged = members
        merged["signed_metadata"] = nil
        for (name, claim) in claims where !Self.jwtClaims.contains(name) { merged[name] = claim }
        return try Self.parse(members: merged, status: nil, expectedResource: expectedResource, match: match)
    }

    /// The JWT's own claims, which are not metadata: `iss` names the attesting party, the
    /// others bound the JWT ([RFC 7519 §4.1](https://www.rfc-editor.org/rfc/rfc7519#section-4.1)).
    static let jwtClaims: Set<String> = ["iss", "sub", "aud", "exp", "nbf", "iat", "jti"]
}
