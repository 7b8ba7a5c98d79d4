extension OAuth2 {
    /// A signed-in OAuth 2 session, as a ``TokenStore`` keeps it: the tokens, and everything
    /// needed to renew, revoke and use them at the next start without a new sign-in: where the
    /// token endpoint is, who the client is, and which resource origins the access token may be
    /// sent to.
    ///
    /// The access token, refresh token, ID token and client secret are ``Secret``s:
    /// `description`, `debugDescription` and the mirror (`dump`) never show them.
    public struct Session: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        /// The tokens of the last token response, with the refresh token kept across refresh
        /// responses that omit it ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)).
        public var tokens: Tokens
        /// The authorization server's `issuer` identifier, when known (discovery, RFC 9207 `iss`).
        /// [RFC 8414 §2](https://www.rfc-editor.org/rfc/rfc8414#section-2)
        public var issuer: String?
        /// `token_endpoint`, where refreshes go.
        /// [RFC 6749 §3.2](https://www.rfc-editor.org/rfc/rfc6749#section-3.2)
        public var tokenEndpoint: String
        /// `revocation_endpoint`. [RFC 7009 §2](https://www.rfc-editor.org/rfc/rfc7009#section-2)
        public var revocationEndpoint: String?
        /// `introspection_endpoint`. [RFC 7662 §2](https://www.rfc-editor.org/rfc/rfc7662#section-2)
        public var introspectionEndpoint: String?
        /// `client_id`. [RFC 6749 §2.2](https://www.rfc-editor.org/rfc/rfc6749#section-2.2)
        public var clientID: String
        /// How the client authenticates at the token endpoint.
        public var clientAuthentication: ClientAuthenticationMethod
        /// The client secret of a confidential client; `nil` for a public client.
        /// [RFC 6749 §2.3.1](https://www.rfc-editor.org/rfc/rfc6749#section-2.3.1)
        public var clientSecret: Secret?
        /// The scope requested, split on spaces; the granted scope is ``Tokens/scope``.
        /// [RFC 6749 §3.3](https://www.rfc-editor.org/rfc/rfc6749#section-3.3)
        public var scope: [String]?
        /// The origins (`https://api.example.com`) the access token may be sent to, and only
        /// those: the resource servers the caller named (RFC 8707 `resource` values, or the API's
        /// origin). [RFC 6750 §5.3](https://www.rfc-editor.org/rfc/rfc6750#section-5.3)
        public var resourceOrigins: [String]
        /// The session's DPoP key, as a private JWK (its private members are ``Secret``s), when
        /// its tokens are bound to a key: proofs for its refreshes and resource requests are
        /// signed with it ([RFC 9449 §5](https://www.rfc-editor.org/rfc/rfc9449#section-5)). A
        /// file written before DPoP has none and still decodes.
        public var dpopKey: JOSE.JWK?
        /// Where the `private_key_jwt` signing key is kept (the CLI: the PEM file's path), never
        /// the key itself; whoever restores the session loads it from there
        /// (``client(assertionKey:now:random:)``).
        public var clientKeyReference: String?
        /// Where the TLS client certificate is kept (the CLI: file paths), never the key itself,
        /// for a session whose client authenticates with it (`tls_client_auth`,
        /// `self_signed_tls_client_auth`, [RFC 8705 §2](https://www.rfc-editor.org/rfc/rfc8705#section-2))
        /// or whose tokens are bound to it ([RFC 8705 §3](https://www.rfc-editor.org/rfc/rfc8705#section-3)):
        /// refreshes and resource requests must present the same certificate. A file written
        /// before it has none and still decodes.
        public var clientCertificate: ClientCertificateReference?
        /// The OpenID provider of a session signed in with OpenID Connect: where its keys are,
        /// for the ID tokens of refreshes ([Core §12.2](https://openid.net/specs/openid-connect-core-1_0.html#RefreshTokenResponse)),
        /// and its `end_session_endpoint`. A file written before it has none and still decodes.
        public var openIDProvider: OpenIDProvider?
        /// The grant that got the tokens, when it was not the authorization code grant: a
        /// `client_credentials` session is renewed with a new client credentials grant at expiry
        /// (``tokenSource(flow:)``). A file written before it has none and still decodes.
        public var grant: GrantType?
        /// The `resource` values (RFC 8707) the tokens were requested for, sent again when a
        /// grant other than `refresh_token` renews them.
        /// [RFC 8707 §2](https://www.rfc-editor.org/rfc/rfc8707#section-2)
        public var resources: [String]?

        public init(
            tokens: Tokens,
            issuer: String? = nil,
            tokenEndpoint: String,
            revocationEndpoint: String? = nil,
            introspectionEndpoint: String? = nil,
            clientID: String,
            clientAuthentication: ClientAuthenticationMethod = .none,
            clientSecret: Secret? = nil,
            scope: [String]? = nil,
            resourceOrigins: [String] = [],
            dpopKey: JOSE.JWK? = nil,
            clientKeyReference: String? = nil,
            clientCertificate: ClientCertificateReference? = nil,
            openIDProvider: OpenIDProvider? = nil,
            grant: GrantType? = nil,
            resources: [String]? = nil
        ) {
            self.tokens = tokens
            self.issuer = issuer
            self.tokenEndpoint = tokenEndpoint
            self.revocationEndpoint = revocationEndpoint
            self.introspectionEndpoint = introspectionEndpoint
            self.clientID = clientID
            self.clientAuthentication = clientAuthentication
            self.clientSecret = clientSecret
            self.scope = scope
            self.resourceOrigins = resourceOrigins
            self.dpopKey = dpopKey
            self.clientKeyReference = clientKeyReference
            self.clientCertificate = clientCertificate
            self.openIDProvider = openIDProvider
            self.grant = grant
            self.resources = resources
        }

        /// How this session's tokens are renewed through `flow`: a new client credentials grant
        /// for a ``grant`` of `client_credentials` (with the stored ``scope`` and ``resources``),
        /// else the refresh token ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)).
        public func tokenSource(flow: Flow) -> any TokenSource {
            switch grant {
            case .clientCredentials?:
                return ClientCredentialsSource(flow: flow, scope: scope ?? [], resources: resources ?? [])
            default:
                return RefreshTokenSource(flow: flow)
            }
        }

        /// ``resourceOrigins`` as scopes, for ``InMemoryCredentialStore/add(_:for:allowingPlainHTTP:)``.
        ///
        /// - Throws: ``ClientError/Code/invalidURL`` for an origin that is not an absolute
        ///   `http`/`https` URL.
        public func resourceScopes() throws -> [AuthScope] {
            try resourceOrigins.map { try AuthScope(url: $0) }
        }

        public var description: String {
            var parts = ["clientID: \(clientID)", "tokenEndpoint: \(tokenEndpoint)"]
            if let grant { parts.append("grant: \(grant)") }
            if let issuer { parts.append("issuer: \(issuer)") }
            parts.append("clientAuthentication: \(clientAuthentication)")
            if clientSecret != nil { parts.append("clientSecret: <redacted>") }
            if !resourceOrigins.isEmpty { parts.append("resourceOrigins: \(resourceOrigins)") }
            if let dpopKey {
                parts.append("dpopKey: \((try? dpopKey.thumbprint()).map { "jkt \($0)" } ?? "<redacted>")")
            }
            if let clientKeyReference { parts.append("clientKeyReference: \(clientKeyReference)") }
            if let clientCertificate { parts.append("clientCertificate: \(clientCertificate.certificate)") }
            return "OAuth2.Session(\(parts.joined(separator: ", ")), tokens: \(tokens))"
        }

        public var debugDescription: String { description }

        /// Shows the same fields as ``description``: never a token or the client secret.
        public var customMirror: Mirror {
            Mirror(
                self,
                children: [
                    "clientID": clientID, "tokenEndpoint": tokenEndpoint, "issuer": issuer as Any,
                    "clientAuthentication": clientAuthentication.rawValue, "resourceOrigins": resourceOrigins,
                    "tokens": "\(tokens)",
                ],
                displayStyle: .struct
            )
        }
    }
}

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
