import Hummingbird
import RemoteAuth

/// `GET /.well-known/oauth-authorization-server`
/// ([RFC 8414 §3](https://www.rfc-editor.org/rfc/rfc8414#section-3)) and
/// `GET /.well-known/openid-configuration` (the same document, where OpenID Connect clients
/// look first): the issuer is the sandbox's base URL, and every endpoint hangs off it.
struct MetadataRoutes: Sendable {
    let configuration: SandboxConfiguration
    let issuer: OAuth2Issuer

    var collection: RouteCollection<SandboxRequestContext> {
        let routes = RouteCollection(context: SandboxRequestContext.self)
        routes.get("oauth-authorization-server") { _, _ in OAuth2JSON.response(metadata(issuer.url)) }
        routes.get("openid-configuration") { _, _ in OAuth2JSON.response(metadata(issuer.url)) }
        // RFC 9728 §3.1: each resource's document at its path-inserted well-known URL.
        for resource in ProtectedResource.all {
            routes.get(RouterPath("oauth-protected-resource" + resource.path)) { _, _ in
                OAuth2JSON.response(
                    resource.metadata(
                        base: issuer.url,
                        configuration: configuration,
                        algorithms: OAuth2.DPoP.ProofVerifier().allowedAlgorithms.map(\.rawValue).sorted()
                    )
                )
            }
        }
        return routes
    }

    struct Metadata: Encodable {
        let issuer: String
        let authorizationEndpoint: String
        let tokenEndpoint: String
        let deviceAuthorizationEndpoint: String
        let revocationEndpoint: String
        let introspectionEndpoint: String
        let scopesSupported: [String]
        let responseTypesSupported: [String]
        let responseModesSupported: [String]
        let grantTypesSupported: [String]
        let codeChallengeMethodsSupported: [String]
        let tokenEndpointAuthMethodsSupported: [String]
        let revocationEndpointAuthMethodsSupported: [String]
        let introspectionEndpointAuthMethodsSupported: [String]
        let authorizationResponseIssParameterSupported: Bool
        let pushedAuthorizationRequestEndpoint: String
        let requirePushedAuthorizationRequests: Bool
        /// Dynamic client registration ([RFC 7591 §3](https://www.rfc-editor.org/rfc/rfc7591#section-3),
        /// [RFC 8414 §2](https://www.rfc-editor.org/rfc/rfc8414#section-2)).
        let registrationEndpoint: String
        /// [RFC 9449 §5.1](https://www.rfc-editor.org/rfc/rfc9449#section-5.1).
        var dpopSigningAlgValuesSupported = OAuth2.DPoP.ProofVerifier().allowedAlgorithms.map(\.rawValue).sorted()
        /// Over TLS: tokens issued to a connection with a client certificate are bound to it
        /// ([RFC 8705 §3.3](https://www.rfc-editor.org/rfc/rfc8705#section-3.3)); absent over http.
        var tlsClientCertificateBoundAccessTokens: Bool? = nil
        /// `true` when a `client_id` may be the URL of a client ID metadata document
        /// ([draft §6](https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document#section-6));
        /// absent when ``SandboxConfiguration/clientIDMetadataDocuments`` is off.
        var clientIDMetadataDocumentSupported: Bool? = nil
        // OpenID Connect Discovery 1.0 §3.
        let jwksURI: String
        let userinfoEndpoint: String
        /// [RP-Initiated Logout 1.0 §2.1](https://openid.net/specs/openid-connect-rpinitiated-1_0.html#OPMetadata).
        let endSessionEndpoint: String
        let subjectTypesSupported = ["public"]
        let idTokenSigningAlgValuesSupported = ["RS256", "ES256"]
        let tokenEndpointAuthSigningAlgValuesSupported = Self.assertionAlgorithms
        /// Required once `private_key_jwt` or `client_secret_jwt` is listed for revocation or
        /// introspection ([RFC 8414 §2](https://www.rfc-editor.org/rfc/rfc8414#section-2)): the
        /// same algorithms as at the token endpoint, which checks client assertions the same way.
        let revocationEndpointAuthSigningAlgValuesSupported = Self.assertionAlgorithms
        let introspectionEndpointAuthSigningAlgValuesSupported = Self.assertionAlgorithms
        static let assertionAlgorithms = ["RS256", "PS256", "ES256", "EdDSA", "HS256"]
        let claimsSupported = [
            "sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "at_hash", "acr", "name",
            "preferred_username", "email", "email_verified", "sid",
        ]
        /// The authentication classes a sign-in can ask for with `acr_values`
        /// ([Discovery §3](https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderMetadata)):
        /// the baseline, and the step-up class with `--step-up` (RFC 9470).
        var acrValuesSupported = [StepUpPolicy.baselineACR]

        enum CodingKeys: String, CodingKey {
            case issuer
            case authorizationEndpoint = "authorization_endpoint"
            case tokenEndpoint = "token_endpoint"
            case deviceAuthorizationEndpoint = "device_authorization_endpoint"
            case revocationEndpoint = "revocation_endpoint"
            case introspectionEndpoint = "introspection_endpoint"
            case scopesSupported = "scopes_supported"
            case responseTypesSupported = "response_types_supported"
            case responseModesSupported = "response_modes_supported"
            case grantTypesSupported = "grant_types_supported"
            case codeChallengeMethodsSupported = "code_challenge_methods_supported"
            case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
            case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
            case introspectionEndpointAuthMethodsSupported = "introspection_endpoint_auth_methods_supported"
            case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
            case pushedAuthorizationRequestEndpoint = "pushed_authorization_request_endpoint"
            case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
            case registrationEndpoint = "registration_endpoint"
            case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
            case tlsClientCertificateBoundAccessTokens = "tls_client_certificate_bound_access_tokens"
            case jwksURI = "jwks_uri"
            case userinfoEndpoint = "userinfo_endpoint"
            case endSessionEndpoint = "end_session_endpoint"
            case subjectTypesSupported = "subject_types_supported"
            case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
            case tokenEndpointAuthSigningAlgValuesSupported = "token_endpoint_auth_signing_alg_values_supported"
            case revocationEndpointAuthSigningAlgValuesSupported =
                "revocation_endpoint_auth_signing_alg_values_supported"
            case introspectionEndpointAuthSigningAlgValuesSupported =
                "introspection_endpoint_auth_signing_alg_values_supported"
            case claimsSupported = "claims_supported"
            case acrValuesSupported = "acr_values_supported"
            case clientIDMetadataDocumentSupported = "client_id_metadata_document_supported"
        }
    }

    static let deviceCodeGrant = "urn:ietf:params:oauth:grant-type:device_code"

    func metadata(_ issuer: String) -> Metadata {
        let tls = configuration.tls != nil
        // RFC 8705 §2: the certificate methods only where there is TLS.
        let certificateMethods = tls ? [MutualTLS.tlsClientAuth, MutualTLS.selfSignedTLSClientAuth] : []
        let methods =
            ["client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt", "none"]
            + certificateMethods
        let implicit = configuration.implicitGrant
        var metadata = Metadata(
            issuer: issuer,
            authorizationEndpoint: issuer + "/oauth2/authorize",
            tokenEndpoint: issuer + "/oauth2/token",
            deviceAuthorizationEndpoint: issuer + "/oauth2/device_authorization",
            revocationEndpoint: issuer + "/oauth2/revoke",
            introspectionEndpoint: issuer + "/oauth2/introspect",
            scopesSupported: configuration.oauth2Scopes + OpenIDProvider.scopes,
            responseTypesSupported: implicit ? ["code", "token"] : ["code"],
            responseModesSupported: implicit ? ["query", "fragment"] : ["query"],
            grantTypesSupported: ["authorization_code", "refresh_token", "client_credentials", Self.deviceCodeGrant]
                + (implicit ? ["implicit"] : []),
            codeChallengeMethodsSupported: ["S256"],
            tokenEndpointAuthMethodsSupported: methods,
            revocationEndpointAuthMethodsSupported: methods,
            // RFC 7662 §2.1: introspection authorizes its caller, so a public client (none) cannot.
            introspectionEndpointAuthMethodsSupported: methods.filter { $0 != "none" },
            authorizationResponseIssParameterSupported: true,
            pushedAuthorizationRequestEndpoint: issuer + "/oauth2/par",
            requirePushedAuthorizationRequests: configuration.requirePushedAuthorizationRequests,
            registrationEndpoint: issuer + "/oauth2/register",
            jwksURI: issuer + "/oauth2/jwks",
            userinfoEndpoint: issuer + "/oauth2/userinfo",
            endSessionEndpoint: issuer + "/oauth2/logout"
        )
        if tls { metadata.tlsClientCertificateBoundAccessTokens = true }
        if let stepUp = configuration.stepUp { metadata.acrValuesSupported.append(stepUp.acr) }
        if configuration.clientIDMetadataDocuments { metadata.clientIDMetadataDocumentSupported = true }
        return metadata
    }
}
