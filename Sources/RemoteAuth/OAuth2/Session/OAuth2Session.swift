extension OAuth2 {
    /// A signed-in OAuth 2 session, as a ``TokenStore`` keeps it: the configuration it was
    /// signed in with, apart from its tokens, so that it renews, revokes and is used at the next
    /// start without a new sign-in.
    ///
    /// - ``server``: the authorization server, every endpoint it named (PAR, device, mTLS
    ///   aliases, whether redirects carry `iss`), and its metadata document as fetched when it
    ///   was discovered ([RFC 8414 §2](https://www.rfc-editor.org/rfc/rfc8414#section-2)).
    /// - ``registration``: the client's registration there: its id, how it authenticates, its secret,
    ///   an opaque reference to its signing key ([RFC 7591 §2](https://www.rfc-editor.org/rfc/rfc7591#section-2)).
    /// - ``tokens``, ``grant`` (how they are renewed), ``scope``, ``resources`` and
    ///   ``resourceOrigins`` (where the access token may go), ``binding`` (the DPoP key or TLS
    ///   certificate the tokens are bound to) and ``openIDProvider``.
    ///
    /// ``OAuth2/Flow/session(for:resources:store:service:account:dpop:grant:)`` makes one from a
    /// flow; the flat properties (``tokenEndpoint``, ``clientID``, ``clientSecret``, ...) are views
    /// of these parts. Files written before the parts existed (every member at the top level)
    /// still decode; they are written back in the new shape.
    ///
    /// The access token, refresh token, ID token and client secret are ``Secret``s:
    /// `description`, `debugDescription` and the mirror (`dump`) never show them.
    public struct Session: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        /// The authorization server the session was signed in at; its ``AuthorizationServer/metadata``
        /// is the document as fetched, when it was discovered.
        public var server: AuthorizationServer
        /// The client's registration at ``server``: ``client()`` makes the ``OAuth2/Client`` of it.
        public var registration: ClientRegistration
        /// The tokens of the last token response, with the refresh token kept across refresh
        /// responses that omit it ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)).
        public var tokens: Tokens
        /// The grant that got the tokens, when it was not the authorization code grant: a
        /// `client_credentials` session is renewed with a new client credentials grant at expiry
        /// (``tokenSource(flow:)``). A file written before it has none and still decodes.
        public var grant: GrantType?
        /// The scope requested, split on spaces; the granted scope is ``Tokens/scope``.
        /// [RFC 6749 §3.3](https://www.rfc-editor.org/rfc/rfc6749#section-3.3)
        public var scope: [String]?
        /// The `resource` values (RFC 8707) the tokens were requested for, sent again when a
        /// grant other than `refresh_token` renews them.
        /// [RFC 8707 §2](https://www.rfc-editor.org/rfc/rfc8707#section-2)
        public var resources: [String]?
        /// The origins (`https://api.example.com`) the access token may be sent to, and only
        /// those: the resource servers the caller named (RFC 8707 `resource` values, or the API's
        /// origin). An entry with a path (`https://api.example.com/v1`) narrows its origin to
        /// that path and below (``resourceTargets()``).
        /// [RFC 6750 §5.3](https://www.rfc-editor.org/rfc/rfc6750#section-5.3)
        public var resourceOrigins: [String]
        /// What the tokens are bound to: a DPoP key, a TLS client certificate.
        public var binding: Binding
        /// The OpenID provider of a session signed in with OpenID Connect: where its keys are,
        /// for the ID tokens of refreshes ([Core §12.2](https://openid.net/specs/openid-connect-core-1_0.html#RefreshTokenResponse)),
        /// its `userinfo_endpoint` and `end_session_endpoint`.
        public var openIDProvider: OpenIDProvider?

        /// A session of its parts.
        public init(
            server: AuthorizationServer,
            registration: ClientRegistration,
            tokens: Tokens,
            grant: GrantType? = nil,
            scope: [String]? = nil,
            resources: [String]? = nil,
            resourceOrigins: [String] = [],
            binding: Binding = .init(),
            openIDProvider: OpenIDProvider? = nil
        ) {
            self.server = server
            self.registration = registration
            self.tokens = tokens
            self.grant = grant
            self.scope = scope
            self.resources = resources
            self.resourceOrigins = resourceOrigins
            self.binding = binding
            self.openIDProvider = openIDProvider
        }

        /// A session of endpoints configured by hand (no metadata document), every member
        /// named at the top level.
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
            self.init(
                server: AuthorizationServer(
                    issuer: issuer,
                    tokenEndpoint: tokenEndpoint,
                    revocationEndpoint: revocationEndpoint,
                    introspectionEndpoint: introspectionEndpoint
                ),
                registration: ClientRegistration(
                    clientID: clientID,
                    authenticationMethod: clientAuthentication,
                    clientSecret: clientSecret,
                    keyReference: clientKeyReference
                ),
                tokens: tokens,
                grant: grant,
                scope: scope,
                resources: resources,
                resourceOrigins: resourceOrigins,
                binding: Binding(dpopKey: dpopKey, certificate: clientCertificate),
                openIDProvider: openIDProvider
            )
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

        /// ``resourceOrigins`` as scopes, for ``InMemoryCredentialStore/add(_:for:allowingPlainHTTP:persistence:)``.
        ///
        /// - Throws: ``ClientError/Code/invalidURL`` for an origin that is not an absolute
        ///   `http`/`https` URL.
        public func resourceScopes() throws -> [AuthScope] {
            try resourceOrigins.map { try AuthScope(url: $0) }
        }

        /// Where the token goes: each of ``resourceOrigins``, limited to the paths of the
        /// resource indicators on that origin when every one of them names a path
        /// (`https://api.example/v1`: `/v1` and below, never `/files` on the same origin;
        /// [RFC 8707 §2](https://www.rfc-editor.org/rfc/rfc8707#section-2),
        /// [RFC 9728 §1.2](https://www.rfc-editor.org/rfc/rfc9728#section-1.2)). An origin
        /// with no indicator, or one naming the origin itself, is covered whole.
        public func resourceTargets() throws -> [(scope: AuthScope, pathPrefix: String?)] {
            var targets: [(scope: AuthScope, pathPrefix: String?)] = []
            for entry in resourceOrigins {
                let origin = try AuthScope(url: entry).origin
                // An entry with its own path is narrowed to it.
                var own = Substring(URIReference(parsing: entry).path)
                while own.hasSuffix("/") { own = own.dropLast() }
                if !own.isEmpty {
                    targets.append((origin, String(own)))
                    continue
                }
                // Indicators that are not http(s) URLs (a URN) say nothing about where to send.
                let paths = (resources ?? []).compactMap { indicator -> String? in
                    guard let scope = try? AuthScope(url: indicator), scope.origin == origin.origin else { return nil }
                    var path = Substring(URIReference(parsing: indicator).path)
                    while path.hasSuffix("/") { path = path.dropLast() }
                    return String(path)
                }
                if paths.isEmpty || paths.contains("") {
                    targets.append((origin, nil))
                } else {
                    for path in Set(paths).sorted() { targets.append((origin, path)) }
                }
            }
            return targets
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

