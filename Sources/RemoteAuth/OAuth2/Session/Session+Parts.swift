extension OAuth2.Session {
    /// Where a session's TLS client certificate is kept, as its owner names it (the CLI: the
    /// paths of `--cert` and `--key`, and `--cert-type`); never the private key.
    /// [RFC 8705 §2](https://www.rfc-editor.org/rfc/rfc8705#section-2)
    public struct ClientCertificateReference: Sendable, Hashable, Codable {
        /// The certificate (chain) file, PEM or PKCS#12.
        public var certificate: String
        /// The private key file, for a PEM certificate.
        public var key: String?
        /// `pem` or `p12`.
        public var format: String

        /// A reference to the certificate file `certificate`, its private key file `key` (for PEM) and
        /// its `format` (`pem` or `p12`).
        public init(certificate: String, key: String? = nil, format: String = "pem") {
            self.certificate = certificate
            self.key = key
            self.format = format
        }
    }

    /// How a client authenticates at the token endpoint, by its registered name
    /// (`token_endpoint_auth_method`): an open registry, so a method we have never seen still
    /// round-trips. [RFC 7591 §2](https://www.rfc-editor.org/rfc/rfc7591#section-2),
    /// [RFC 8414 §2](https://www.rfc-editor.org/rfc/rfc8414#section-2)
    public struct ClientAuthenticationMethod: RawRepresentable, Hashable, Sendable, Codable,
        CustomStringConvertible
    {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// HTTP Basic with the form-urlencoded id and secret.
        /// [RFC 6749 §2.3.1](https://www.rfc-editor.org/rfc/rfc6749#section-2.3.1)
        public static let clientSecretBasic = Self(rawValue: "client_secret_basic")
        /// `client_id` and `client_secret` in the form body.
        /// [RFC 6749 §2.3.1](https://www.rfc-editor.org/rfc/rfc6749#section-2.3.1)
        public static let clientSecretPost = Self(rawValue: "client_secret_post")
        /// A public client: `client_id` only. [RFC 6749 §2.1](https://www.rfc-editor.org/rfc/rfc6749#section-2.1)
        public static let none = Self(rawValue: "none")
        /// A JWT signed with HS256 keyed with the client secret.
        /// [RFC 7523 §2.2](https://www.rfc-editor.org/rfc/rfc7523#section-2.2)
        public static let clientSecretJWT = Self(rawValue: "client_secret_jwt")
        /// A JWT signed with the client's private key (not stored: see ``OAuth2/Session/clientKeyReference``).
        /// [RFC 7523 §2.2](https://www.rfc-editor.org/rfc/rfc7523#section-2.2)
        public static let privateKeyJWT = Self(rawValue: "private_key_jwt")
        /// The TLS client certificate, issued by a CA the server trusts (not stored: see
        /// ``OAuth2/Session/clientCertificate``).
        /// [RFC 8705 §2.1](https://www.rfc-editor.org/rfc/rfc8705#section-2.1)
        public static let tlsClientAuth = Self(rawValue: "tls_client_auth")
        /// A self-signed TLS client certificate the server has registered.
        /// [RFC 8705 §2.2](https://www.rfc-editor.org/rfc/rfc8705#section-2.2)
        public static let selfSignedTLSClientAuth = Self(rawValue: "self_signed_tls_client_auth")

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }
}
extension OAuth2.Session {
    /// What a session's tokens are bound to, so that its refreshes and resource requests prove
    /// the same key: a DPoP key ([RFC 9449 §5](https://www.rfc-editor.org/rfc/rfc9449#section-5))
    /// and the TLS client certificate the client presents
    /// ([RFC 8705 §3](https://www.rfc-editor.org/rfc/rfc8705#section-3); the same certificate
    /// authenticates a `tls_client_auth` client, §2).
    public struct Binding: Sendable, Hashable, Codable {
        /// The DPoP key, as a private JWK (its private members are ``Secret``s).
        public var dpopKey: JOSE.JWK?
        /// Where the TLS client certificate is kept, as its owner names it; never the key.
        public var certificate: ClientCertificateReference?

        /// A binding to the DPoP key `dpopKey` and the TLS client certificate at `certificate`, either
        /// optional.
        public init(dpopKey: JOSE.JWK? = nil, certificate: ClientCertificateReference? = nil) {
            self.dpopKey = dpopKey
            self.certificate = certificate
        }
    }
}

extension OAuth2 {
    /// A client's registration at one authorization server: its `client_id`, how it
    /// authenticates at the token endpoint, its secret, and an opaque reference to its signing
    /// key ([RFC 7591 §2, §3.2.1](https://www.rfc-editor.org/rfc/rfc7591#section-3.2.1)). It
    /// belongs to that server only: a session never presents it to another issuer.
    public struct ClientRegistration: Sendable, Hashable, Codable, CustomStringConvertible {
        /// `client_id`. [RFC 6749 §2.2](https://www.rfc-editor.org/rfc/rfc6749#section-2.2)
        public var clientID: String
        /// `token_endpoint_auth_method`.
        public var authenticationMethod: Session.ClientAuthenticationMethod
        /// The client secret of a confidential client; `nil` for a public client.
        /// [RFC 6749 §2.3.1](https://www.rfc-editor.org/rfc/rfc6749#section-2.3.1)
        public var clientSecret: Secret?
        /// Where the `private_key_jwt` signing key is kept, as its owner names it (the CLI: the
        /// PEM file's path), never the key itself: an ``ClientKeyProvider`` resolves it.
        public var keyReference: String?
        /// For a client registered dynamically: the `registration_access_token` and
        /// `registration_client_uri` that read, change or delete the registration
        /// ([RFC 7592 §3](https://www.rfc-editor.org/rfc/rfc7592#section-3)).
        public var registrationAccessToken: Secret?
        /// The `registration_client_uri` of a client registered dynamically, where its registration is
        /// read, changed or deleted ([RFC 7592 §3](https://www.rfc-editor.org/rfc/rfc7592#section-3)).
        public var registrationClientURI: String?
        /// For a client registered dynamically: the `redirect_uris` it registered, so that a
        /// later sign-in can reuse the registration at the same URI.
        /// [RFC 7591 §2](https://www.rfc-editor.org/rfc/rfc7591#section-2)
        public var redirectURIs: [String]?
        /// `client_secret_expires_at`, seconds since 1970, `0` for never; `nil` when unknown.
        /// [RFC 7591 §3.2.1](https://www.rfc-editor.org/rfc/rfc7591#section-3.2.1)
        public var clientSecretExpiresAt: Int64?

        /// A registration of `clientID` authenticating with `authenticationMethod` (default: none, a
        /// public client), with the secret, key reference and dynamic registration details it has.
        public init(
            clientID: String,
            authenticationMethod: Session.ClientAuthenticationMethod = .none,
            clientSecret: Secret? = nil,
            keyReference: String? = nil,
            registrationAccessToken: Secret? = nil,
            registrationClientURI: String? = nil,
            redirectURIs: [String]? = nil,
            clientSecretExpiresAt: Int64? = nil
        ) {
            self.clientID = clientID
            self.authenticationMethod = authenticationMethod
            self.clientSecret = clientSecret
            self.keyReference = keyReference
            self.registrationAccessToken = registrationAccessToken
            self.registrationClientURI = registrationClientURI
            self.redirectURIs = redirectURIs
            self.clientSecretExpiresAt = clientSecretExpiresAt
        }

        /// Whether the client secret has expired at `now`: a secret whose
        /// `client_secret_expires_at` is not `0` and not after `now`
        /// ([RFC 7591 §3.2.1](https://www.rfc-editor.org/rfc/rfc7591#section-3.2.1)). Such a
        /// registration cannot authenticate; a client registers again.
        public func secretExpired(at now: Int64) -> Bool {
            guard clientSecret != nil, let expiresAt = clientSecretExpiresAt, expiresAt != 0 else { return false }
            return now >= expiresAt
        }

        /// The registration of a flow's `client`: its id, its method and its secret (a
        /// `client_secret_*` method's; the key of `private_key_jwt` is never kept).
        public init(_ client: OAuth2.Client, keyReference: String? = nil) {
            self.init(
                clientID: client.id,
                authenticationMethod: .init(rawValue: client.authentication.methodName),
                clientSecret: client.authentication.secret,
                keyReference: keyReference
            )
        }

        public var description: String {
            var parts = [clientID, authenticationMethod.rawValue]
            if clientSecret != nil { parts.append("secret: <redacted>") }
            if let registrationClientURI { parts.append("registration: \(registrationClientURI)") }
            if registrationAccessToken != nil { parts.append("registration token: <redacted>") }
            return "OAuth2.ClientRegistration(\(parts.joined(separator: ", ")))"
        }
    }
}

extension OAuth2.Session {
    /// ``server``'s `issuer`, when known (discovery, RFC 9207 `iss`).
    /// [RFC 8414 §2](https://www.rfc-editor.org/rfc/rfc8414#section-2)
    public var issuer: String? {
        get { server.issuer }
        set { server.issuer = newValue }
    }
    /// ``server``'s `token_endpoint`, where renewals go (empty when the server has none).
    /// [RFC 6749 §3.2](https://www.rfc-editor.org/rfc/rfc6749#section-3.2)
    public var tokenEndpoint: String {
        get { server.tokenEndpoint ?? "" }
        set { server.tokenEndpoint = newValue }
    }
    /// ``server``'s `revocation_endpoint`. [RFC 7009 §2](https://www.rfc-editor.org/rfc/rfc7009#section-2)
    public var revocationEndpoint: String? {
        get { server.revocationEndpoint }
        set { server.revocationEndpoint = newValue }
    }
    /// ``server``'s `introspection_endpoint`. [RFC 7662 §2](https://www.rfc-editor.org/rfc/rfc7662#section-2)
    public var introspectionEndpoint: String? {
        get { server.introspectionEndpoint }
        set { server.introspectionEndpoint = newValue }
    }
    /// ``registration``'s `client_id`.
    public var clientID: String {
        get { registration.clientID }
        set { registration.clientID = newValue }
    }
    /// ``registration``'s authentication method.
    public var clientAuthentication: ClientAuthenticationMethod {
        get { registration.authenticationMethod }
        set { registration.authenticationMethod = newValue }
    }
    /// ``registration``'s secret.
    public var clientSecret: Secret? {
        get { registration.clientSecret }
        set { registration.clientSecret = newValue }
    }
    /// ``registration``'s key reference (``ClientKeyProvider``).
    public var clientKeyReference: String? {
        get { registration.keyReference }
        set { registration.keyReference = newValue }
    }
    /// ``binding``'s DPoP key.
    public var dpopKey: JOSE.JWK? {
        get { binding.dpopKey }
        set { binding.dpopKey = newValue }
    }
    /// ``binding``'s TLS client certificate.
    public var clientCertificate: ClientCertificateReference? {
        get { binding.certificate }
        set { binding.certificate = newValue }
    }
}
