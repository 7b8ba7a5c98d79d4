extension OAuth2 {
    /// Where an authorization server's endpoints are, and what it promises: configured by hand
    /// or from its ``ServerMetadata``.
    public struct AuthorizationServer: Sendable, Hashable, Codable {
        /// The issuer identifier ([RFC 8414 §2](https://www.rfc-editor.org/rfc/rfc8414#section-2)),
        /// which `iss` in redirects must equal ([RFC 9207](https://www.rfc-editor.org/rfc/rfc9207)).
        public var issuer: String?
        public var authorizationEndpoint: String?
        public var tokenEndpoint: String?
        public var deviceAuthorizationEndpoint: String?
        public var revocationEndpoint: String?
        public var introspectionEndpoint: String?
        /// `authorization_response_iss_parameter_supported`: every redirect must carry `iss`
        /// ([RFC 9207 §2.4](https://www.rfc-editor.org/rfc/rfc9207#section-2.4)).
        public var requiresIssuerParameter: Bool

        public init(
            issuer: String? = nil,
            authorizationEndpoint: String? = nil,
            tokenEndpoint: String? = nil,
            deviceAuthorizationEndpoint: String? = nil,
            revocationEndpoint: String? = nil,
            introspectionEndpoint: String? = nil,
            requiresIssuerParameter: Bool = false
        ) {
            self.issuer = issuer
            self.authorizationEndpoint = authorizationEndpoint
            self.tokenEndpoint = tokenEndpoint
            self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
            self.revocationEndpoint = revocationEndpoint
            self.introspectionEndpoint = introspectionEndpoint
            self.requiresIssuerParameter = requiresIssuerParameter
        }

        /// The endpoints and the issuer of discovered metadata.
        public init(metadata: ServerMetadata) {
            self.init(
                issuer: metadata.issuer,
                authorizationEndpoint: metadata.authorizationEndpoint,
                tokenEndpoint: metadata.tokenEndpoint,
                deviceAuthorizationEndpoint: metadata.deviceAuthorizationEndpoint,
                revocationEndpoint: metadata.revocationEndpoint,
                introspectionEndpoint: metadata.introspectionEndpoint,
                requiresIssuerParameter: metadata.authorizationResponseIssParameterSupported
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
