extension OAuth2 {
    /// Where an authorization server's endpoints are, and what it promises: configured by hand
    /// or from its ``ServerMetadata``.
    public struct AuthorizationServer: Sendable, Hashable, Codable {
        /// The issuer identifier ([RFC 8414 §2](https://www.rfc-editor.org/rfc/rfc8414#section-2)),
        /// which `iss` in redirects must equal ([RFC 9207](https://www.rfc-editor.org/rfc/rfc9207)).
        public var issuer: String?
        /// Where the user's browser is sent to authorize (RFC 6749 §3.1).
        public var authorizationEndpoint: String?
        /// Where codes, refresh tokens and other grants are exchanged for tokens (RFC 6749 §3.2).
        public var tokenEndpoint: String?
        /// Where the device grant starts (RFC 8628 §3.1).
        public var deviceAuthorizationEndpoint: String?
        /// Where tokens are revoked (RFC 7009).
        public var revocationEndpoint: String?
        /// Where tokens are introspected (RFC 7662).
        public var introspectionEndpoint: String?
        /// `authorization_response_iss_parameter_supported`: every redirect must carry `iss`
        /// ([RFC 9207 §2.4](https://www.rfc-editor.org/rfc/rfc9207#section-2.4)).
        public var requiresIssuerParameter: Bool
        /// `pushed_authorization_request_endpoint` ([RFC 9126 §2](https://www.rfc-editor.org/rfc/rfc9126#section-2)).
        public var pushedAuthorizationRequestEndpoint: String?
        /// `require_pushed_authorization_requests`: authorization requests go through
        /// ``pushedAuthorizationRequestEndpoint`` only ([RFC 9126 §5](https://www.rfc-editor.org/rfc/rfc9126#section-5)).
        public var requiresPushedAuthorizationRequests: Bool
        /// `mtls_endpoint_aliases` ([RFC 8705 §5](https://www.rfc-editor.org/rfc/rfc8705#section-5)):
        /// a ``Flow`` whose client authenticates with its TLS certificate uses them
        /// (``usingMutualTLSAliases()``).
        public var mutualTLSEndpointAliases: ServerMetadata.MutualTLSEndpointAliases?
        /// The metadata document as fetched, every member kept (``ServerMetadata/additionalParameters``
        /// holds those not named there), for a server configured from discovery
        /// ([RFC 8414 §3.2](https://www.rfc-editor.org/rfc/rfc8414#section-3.2)); `nil` for one
        /// configured by hand. A stored session keeps it, so a restored one knows every endpoint
        /// the server named (`userinfo_endpoint`, `registration_endpoint`, `jwks_uri`, ...).
        public var metadata: ServerMetadata?

        /// A server configured by hand; every endpoint the client uses must be `https` (or `http` to a loopback host).
        public init(
            issuer: String? = nil,
            authorizationEndpoint: String? = nil,
            tokenEndpoint: String? = nil,
            deviceAuthorizationEndpoint: String? = nil,
            revocationEndpoint: String? = nil,
            introspectionEndpoint: String? = nil,
            requiresIssuerParameter: Bool = false,
            pushedAuthorizationRequestEndpoint: String? = nil,
            requiresPushedAuthorizationRequests: Bool = false,
            mutualTLSEndpointAliases: ServerMetadata.MutualTLSEndpointAliases? = nil,
            metadata: ServerMetadata? = nil
        ) {
            self.issuer = issuer
            self.authorizationEndpoint = authorizationEndpoint
            self.tokenEndpoint = tokenEndpoint
            self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
            self.revocationEndpoint = revocationEndpoint
            self.introspectionEndpoint = introspectionEndpoint
            self.requiresIssuerParameter = requiresIssuerParameter
            self.pushedAuthorizationRequestEndpoint = pushedAuthorizationRequestEndpoint
            self.requiresPushedAuthorizationRequests = requiresPushedAuthorizationRequests
            self.mutualTLSEndpointAliases = mutualTLSEndpointAliases
            self.metadata = metadata
        }

        private enum CodingKeys: String, CodingKey {
            case issuer, authorizationEndpoint, tokenEndpoint, deviceAuthorizationEndpoint, revocationEndpoint
            case introspectionEndpoint, requiresIssuerParameter, pushedAuthorizationRequestEndpoint
            case requiresPushedAuthorizationRequests, mutualTLSEndpointAliases, metadata
        }

        /// Reads what ``encode(to:)`` wrote, including encodings from before PAR's members and ``metadata``.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                issuer: try container.decodeIfPresent(String.self, forKey: .issuer),
                authorizationEndpoint: try container.decodeIfPresent(String.self, forKey: .authorizationEndpoint),
                tokenEndpoint: try container.decodeIfPresent(String.self, forKey: .tokenEndpoint),
                deviceAuthorizationEndpoint: try container.decodeIfPresent(
                    String.self, forKey: .deviceAuthorizationEndpoint),
                revocationEndpoint: try container.decodeIfPresent(String.self, forKey: .revocationEndpoint),
                introspectionEndpoint: try container.decodeIfPresent(String.self, forKey: .introspectionEndpoint),
                requiresIssuerParameter: try container.decodeIfPresent(Bool.self, forKey: .requiresIssuerParameter)
                    ?? false,
                pushedAuthorizationRequestEndpoint: try container.decodeIfPresent(
                    String.self, forKey: .pushedAuthorizationRequestEndpoint),
                requiresPushedAuthorizationRequests: try container.decodeIfPresent(
                    Bool.self, forKey: .requiresPushedAuthorizationRequests) ?? false,
                metadata: try container.decodeIfPresent(ServerMetadata.self, forKey: .metadata)
            )
            if let aliases = try container.decodeIfPresent(
                [String: JSONValue].self,
                forKey: .mutualTLSEndpointAliases
            ) {
                var object = OAuth2.JSONObject(members: aliases, status: 200)
                mutualTLSEndpointAliases = try ServerMetadata.MutualTLSEndpointAliases(reading: &object)
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(issuer, forKey: .issuer)
            try container.encodeIfPresent(authorizationEndpoint, forKey: .authorizationEndpoint)
            try container.encodeIfPresent(tokenEndpoint, forKey: .tokenEndpoint)
            try container.encodeIfPresent(deviceAuthorizationEndpoint, forKey: .deviceAuthorizationEndpoint)
            try container.encodeIfPresent(revocationEndpoint, forKey: .revocationEndpoint)
            try container.encodeIfPresent(introspectionEndpoint, forKey: .introspectionEndpoint)
            try container.encode(requiresIssuerParameter, forKey: .requiresIssuerParameter)
            try container.encodeIfPresent(
                pushedAuthorizationRequestEndpoint,
                forKey: .pushedAuthorizationRequestEndpoint
            )
            try container.encode(requiresPushedAuthorizationRequests, forKey: .requiresPushedAuthorizationRequests)
            try container.encodeIfPresent(mutualTLSEndpointAliases?.members, forKey: .mutualTLSEndpointAliases)
            try container.encodeIfPresent(metadata, forKey: .metadata)
        }

        /// The same server with each endpoint that has an `mtls_endpoint_aliases` entry replaced
        /// by its alias: where a client using mutual TLS sends its requests
        /// ([RFC 8705 §5](https://www.rfc-editor.org/rfc/rfc8705#section-5)). The alias is
        /// used only where the server gives one; the authorization endpoint never changes.
        public func usingMutualTLSAliases() -> Self {
            guard let aliases = mutualTLSEndpointAliases else { return self }
            var server = self
            server.tokenEndpoint = aliases.tokenEndpoint ?? tokenEndpoint
            server.revocationEndpoint = aliases.revocationEndpoint ?? revocationEndpoint
            server.introspectionEndpoint = aliases.introspectionEndpoint ?? introspectionEndpoint
            server.deviceAuthorizationEndpoint = aliases.deviceAuthorizationEndpoint ?? deviceAuthorizationEndpoint
            server.pushedAuthorizationRequestEndpoint =
                aliases.pushedAuthorizationRequestEndpoint ?? pushedAuthorizationRequestEndpoint
            return server
        }

        /// The endpoints and the issuer of discovered metadata, and the document itself (``metadata``).
        public init(metadata: ServerMetadata) {
            self.init(
                issuer: metadata.issuer,
                authorizationEndpoint: metadata.authorizationEndpoint,
                tokenEndpoint: metadata.tokenEndpoint,
                deviceAuthorizationEndpoint: metadata.deviceAuthorizationEndpoint,
                revocationEndpoint: metadata.revocationEndpoint,
                introspectionEndpoint: metadata.introspectionEndpoint,
                requiresIssuerParameter: metadata.authorizationResponseIssParameterSupported,
                pushedAuthorizationRequestEndpoint: metadata.pushedAuthorizationRequestEndpoint,
                requiresPushedAuthorizationRequests: metadata.requirePushedAuthorizationRequests,
                mutualTLSEndpointAliases: metadata.mutualTLSEndpointAliases,
                metadata: metadata
            )
        }

        /// The endpoint, or ``OAuth2/Error/Code/invalidConfiguration`` naming what is missing.
        func endpoint(_ value: String?, _ name: String) throws -> String {
            guard let value else {
                throw OAuth2.Error(.invalidConfiguration, "the authorization server has no \(name) configured")
            }
            return value
        }
    }
}
