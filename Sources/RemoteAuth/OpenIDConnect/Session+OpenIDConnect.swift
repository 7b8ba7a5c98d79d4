extension OAuth2.Session {
    /// What a stored OpenID Connect session keeps of its provider, so that a later process can
    /// validate the ID token of a refresh ([Core §12.2](https://openid.net/specs/openid-connect-core-1_0.html#RefreshTokenResponse))
    /// and build the logout URL ([RP-Initiated Logout 1.0 §2](https://openid.net/specs/openid-connect-rpinitiated-1_0.html#RPLogout))
    /// without discovering it again. The issuer and the client are the session's own
    /// (``OAuth2/Session/issuer``, ``OAuth2/Session/clientID``); the original ID token is
    /// ``OAuth2/Tokens/idToken``.
    public struct OpenIDProvider: Sendable, Hashable, Codable {
        /// `jwks_uri` ([Discovery §3](https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderMetadata)).
        public var jwksURI: String
        /// The algorithms an ID token may be signed with (the allow-list the sign-in used).
        public var idTokenSigningAlgorithms: [String]
        /// `end_session_endpoint` (RP-Initiated Logout §2.1).
        public var endSessionEndpoint: String?

        public init(
            jwksURI: String,
            idTokenSigningAlgorithms: [String] = ["ES256", "RS256"],
            endSessionEndpoint: String? = nil
        ) {
            self.jwksURI = jwksURI
            self.idTokenSigningAlgorithms = idTokenSigningAlgorithms
            self.endSessionEndpoint = endSessionEndpoint
        }

        /// What `relyingParty` was made with: its JWK Set's URL, algorithms and logout endpoint.
        ///
        /// - Throws: ``OpenIDConnect/Error/Code/invalidConfiguration`` when the metadata has no
        ///   `jwks_uri`; ``OpenIDConnect/Error/Code/malformed`` for a malformed `end_session_endpoint`.
        public init(metadata: OAuth2.ServerMetadata, relyingParty: OpenIDConnect.RelyingParty) throws {
            guard let jwksURI = metadata.jwksURI else {
                throw OpenIDConnect.Error(.invalidConfiguration, "the provider's metadata has no jwks_uri")
            }
            self.init(
                jwksURI: jwksURI,
                idTokenSigningAlgorithms: relyingParty.validator.allowedAlgorithms.map(\.rawValue).sorted(),
                endSessionEndpoint: relyingParty.endSessionEndpoint
            )
        }
    }

    /// The relying party that validates this session's refreshed ID tokens: the stored
    /// provider's keys (fetched through `transport`, cached), its algorithms, the session's
    /// issuer and client; `nil` for a session that is not OpenID Connect (no
    /// ``openIDProvider``, issuer or ID token).
    ///
    /// - Throws: ``OpenIDConnect/Error/Code/invalidConfiguration`` when no algorithm is left;
    ///   ``OAuth2/Error/Code/insecureEndpoint`` for a `jwks_uri` over plain http elsewhere
    ///   than loopback.
    public func relyingParty(
        over transport: any HTTPTransport,
        now: @escaping @Sendable () -> Int64
    ) throws -> OpenIDConnect.RelyingParty? {
        guard let provider = openIDProvider, let issuer, tokens.idToken != nil else { return nil }
        return OpenIDConnect.RelyingParty(
            validator: try OpenIDConnect.IDTokenValidator(
                issuer: issuer,
                clientID: clientID,
                keys: .keySetCache(try JOSE.KeySetCache(url: provider.jwksURI, transport: transport, now: now)),
                allowedAlgorithms: Set(provider.idTokenSigningAlgorithms.map { JOSE.Algorithm(rawValue: $0) }),
                clientSecret: clientSecret
            ),
            endSessionEndpoint: provider.endSessionEndpoint
        )
    }

    /// The RP-initiated logout URL of this session: its ID token as `id_token_hint`, its client
    /// as `client_id`, at the stored `end_session_endpoint`
    /// ([RP-Initiated Logout 1.0 §2](https://openid.net/specs/openid-connect-rpinitiated-1_0.html#RPLogout)).
    ///
    /// - Throws: ``OpenIDConnect/Error/Code/invalidConfiguration`` when the session keeps no
    ///   `end_session_endpoint`; the errors of ``OpenIDConnect/LogoutRequest``.
    public func logoutRequest(
        postLogoutRedirectURI: String? = nil,
        state: String? = nil
    ) throws
        -> OpenIDConnect.LogoutRequest
    {
        guard let endpoint = openIDProvider?.endSessionEndpoint else {
            throw OpenIDConnect.Error(.invalidConfiguration, "the session keeps no end_session_endpoint")
        }
        return try OpenIDConnect.LogoutRequest(
            endSessionEndpoint: endpoint,
            idTokenHint: tokens.idToken,
            clientID: clientID,
            postLogoutRedirectURI: postLogoutRedirectURI,
            state: state
        )
    }
}
