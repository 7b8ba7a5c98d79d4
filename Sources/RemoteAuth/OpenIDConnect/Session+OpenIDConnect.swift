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
        /// `userinfo_endpoint` ([Core §5.3](https://openid.net/specs/openid-connect-core-1_0.html#UserInfo)),
        /// so that a restored session can call UserInfo. A file written before it has none and
        /// still decodes.
        public var userInfoEndpoint: String?

        /// The provider details a session keeps: `jwks_uri`, the ID token algorithms allowed (default
        /// `ES256` and `RS256`), and the `end_session_endpoint` and `userinfo_endpoint` when known.
        public init(
            jwksURI: String,
            idTokenSigningAlgorithms: [String] = ["ES256", "RS256"],
            endSessionEndpoint: String? = nil,
            userInfoEndpoint: String? = nil
        ) {
            self.jwksURI = jwksURI
            self.idTokenSigningAlgorithms = idTokenSigningAlgorithms
            self.endSessionEndpoint = endSessionEndpoint
            self.userInfoEndpoint = userInfoEndpoint
        }

        /// What `relyingParty` was made with, when its keys come from a `jwks_uri`
        /// (``OpenIDConnect/IDTokenValidator/Keys/keySetCache(_:)``); `nil` for fixed keys.
        public init?(relyingParty: OpenIDConnect.RelyingParty) {
            guard case .keySetCache(let cache) = relyingParty.validator.keys else { return nil }
            self.init(
                jwksURI: cache.url,
                idTokenSigningAlgorithms: relyingParty.validator.allowedAlgorithms.map(\.rawValue).sorted(),
                endSessionEndpoint: relyingParty.endSessionEndpoint,
                userInfoEndpoint: relyingParty.userInfoEndpoint
            )
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
                endSessionEndpoint: relyingParty.endSessionEndpoint,
                userInfoEndpoint: relyingParty.userInfoEndpoint ?? metadata.userinfoEndpoint
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
            userInfoEndpoint: provider.userInfoEndpoint,
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

extension OAuth2.TokenSession {
    /// UserInfo about this session's user ([Core §5.3](https://openid.net/specs/openid-connect-core-1_0.html#UserInfo)),
    /// asked with the session's token (renewed first when needed; `DPoP` with a proof for a
    /// DPoP-bound token), at the stored provider's `userinfo_endpoint`; its `sub` must be the
    /// ID token's (§5.3.2).
    ///
    /// - Throws: ``OpenIDConnect/Error/Code/invalidConfiguration`` for a session that keeps no
    ///   `userinfo_endpoint` or ID token (not signed in with OpenID Connect); the errors of
    ///   ``OpenIDConnect/UserInfo/fetch(from:expectedSubject:authenticator:transport:)``.
    public func userInfo(over transport: any HTTPTransport) async throws -> OpenIDConnect.UserInfo {
        let session = self.session
        guard let endpoint = session.openIDProvider?.userInfoEndpoint, let idToken = session.tokens.idToken else {
            throw OpenIDConnect.Error(
                .invalidConfiguration,
                "the session keeps no userinfo_endpoint or ID token: sign in with OpenID Connect"
            )
        }
        let claims = try OpenIDConnect.IDTokenValidator.claims(of: OpenIDConnect.IDTokenValidator.parse(idToken))
        return try await OpenIDConnect.UserInfo.fetch(
            from: endpoint,
            expectedSubject: try OpenIDConnect.IDToken(claims: claims, token: idToken).subject,
            authenticator: self,
            transport: transport
        )
    }
}
