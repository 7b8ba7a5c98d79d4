extension OAuth2.Session {
    private enum CodingKeys: String, CodingKey {
        case server, registration, tokens, grant, scope, resources, resourceOrigins, binding, openIDProvider
    }

    /// The members of a session file written before the parts existed: every member at the top
    /// level, the server's endpoints and the client's registration among them.
    private enum FlatKeys: String, CodingKey {
        case tokens, issuer, tokenEndpoint, revocationEndpoint, introspectionEndpoint, clientID
        case clientAuthentication, clientSecret, scope, resourceOrigins, dpopKey, clientKeyReference
        case clientCertificate, openIDProvider, grant, resources
    }

    /// Reads what ``encode(to:)`` writes, and the flat shape of earlier releases.
    ///
    /// - Throws: `DecodingError.dataCorrupted` for a server without a token endpoint, which a
    ///   session cannot be renewed without.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.server) else {
            self = try Self(flat: decoder.container(keyedBy: FlatKeys.self))
            return
        }
        let server = try container.decode(OAuth2.AuthorizationServer.self, forKey: .server)
        guard server.tokenEndpoint != nil else {
            throw DecodingError.dataCorruptedError(
                forKey: .server,
                in: container,
                debugDescription: "the session's server has no token endpoint"
            )
        }
        self.init(
            server: server,
            registration: try container.decode(OAuth2.ClientRegistration.self, forKey: .registration),
            tokens: try container.decode(OAuth2.Tokens.self, forKey: .tokens),
            grant: try container.decodeIfPresent(OAuth2.GrantType.self, forKey: .grant),
            scope: try container.decodeIfPresent([String].self, forKey: .scope),
            resources: try container.decodeIfPresent([String].self, forKey: .resources),
            resourceOrigins: try container.decodeIfPresent([String].self, forKey: .resourceOrigins) ?? [],
            binding: try container.decodeIfPresent(Binding.self, forKey: .binding) ?? .init(),
            openIDProvider: try container.decodeIfPresent(OpenIDProvider.self, forKey: .openIDProvider)
        )
    }

    private init(flat container: KeyedDecodingContainer<FlatKeys>) throws {
        self.init(
            tokens: try container.decode(OAuth2.Tokens.self, forKey: .tokens),
            issuer: try container.decodeIfPresent(String.self, forKey: .issuer),
            tokenEndpoint: try container.decode(String.self, forKey: .tokenEndpoint),
            revocationEndpoint: try container.decodeIfPresent(String.self, forKey: .revocationEndpoint),
            introspectionEndpoint: try container.decodeIfPresent(String.self, forKey: .introspectionEndpoint),
            clientID: try container.decode(String.self, forKey: .clientID),
            clientAuthentication: try container.decodeIfPresent(ClientAuthenticationMethod.self, forKey: .clientAuthentication)
                ?? .none,
            clientSecret: try container.decodeIfPresent(Secret.self, forKey: .clientSecret),
            scope: try container.decodeIfPresent([String].self, forKey: .scope),
            resourceOrigins: try container.decodeIfPresent([String].self, forKey: .resourceOrigins) ?? [],
            dpopKey: try container.decodeIfPresent(JOSE.JWK.self, forKey: .dpopKey),
            clientKeyReference: try container.decodeIfPresent(String.self, forKey: .clientKeyReference),
            clientCertificate: try container.decodeIfPresent(ClientCertificateReference.self, forKey: .clientCertificate),
            openIDProvider: try container.decodeIfPresent(OpenIDProvider.self, forKey: .openIDProvider),
            grant: try container.decodeIfPresent(OAuth2.GrantType.self, forKey: .grant),
            resources: try container.decodeIfPresent([String].self, forKey: .resources)
        )
    }

    /// Writes the parts: `server`, `registration`, `tokens`, then the members that are set.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(server, forKey: .server)
        try container.encode(registration, forKey: .registration)
        try container.encode(tokens, forKey: .tokens)
        try container.encodeIfPresent(grant, forKey: .grant)
        try container.encodeIfPresent(scope, forKey: .scope)
        try container.encodeIfPresent(resources, forKey: .resources)
        try container.encode(resourceOrigins, forKey: .resourceOrigins)
        if binding != Binding() { try container.encode(binding, forKey: .binding) }
        try container.encodeIfPresent(openIDProvider, forKey: .openIDProvider)
    }
}
