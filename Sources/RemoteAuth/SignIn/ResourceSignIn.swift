extension OAuth2 {
    /// How a client identifies itself to an authorization server it found from a resource,
    /// tried in the order given (the Model Context Protocol's authorization specification:
    /// a pre-registered client, then a client ID metadata document, then dynamic registration).
    public enum ClientIdentity: Sendable {
        /// A client registered at the server by hand, used for that issuer only.
        case registered(OAuth2.Client, issuer: String)
        /// A client ID metadata document: the `client_id` is the `https` URL of the client's JSON
        /// document, for a server whose metadata says `client_id_metadata_document_supported`
        /// (draft-ietf-oauth-client-id-metadata-document). The client is public.
        case metadataDocument(url: String)
        /// A registration kept from an earlier sign-in at `issuer` (a dynamic registration with
        /// its `redirect_uris`), reused at that issuer only, while its secret has not expired
        /// ([RFC 7591 §3.2.1](https://www.rfc-editor.org/rfc/rfc7591#section-3.2.1)): the user
        /// agent receives at its first registered redirect URI. An expired secret passes to the
        /// next identity (a new registration), not to a failure.
        case stored(ClientRegistration, issuer: String)
        /// Dynamic registration ([RFC 7591](https://www.rfc-editor.org/rfc/rfc7591)) at the
        /// server's `registration_endpoint`, with `metadata` whose `redirect_uris` become the
        /// one the user agent receives at.
        case dynamicRegistration(DynamicRegistration.Metadata, initialAccessToken: Secret? = nil)
    }

    /// A sign-in from a resource URL alone: what ``ResourceDiscovery`` found, a client identity
    /// the server accepts, the authorization code grant with PKCE and the resource indicator
    /// ([RFC 8707 §2](https://www.rfc-editor.org/rfc/rfc8707#section-2)) through a user agent,
    /// and the session to keep: the server as discovered, the registration (with RFC 7592's
    /// registration access token when the client was registered here), the tokens, bound to
    /// the resource and sent only to its origin.
    ///
    /// ```swift
    /// let found = try await OAuth2.ResourceDiscovery.discover(resource: url, transport: transport)
    /// let signedIn = try await OAuth2.ResourceSignIn.signIn(
    ///     found, identities: [.dynamicRegistration(.init(redirectURIs: [], clientName: "My app"))],
    ///     agent: LoopbackUserAgent(), transport: transport)
    /// try await store.save(signedIn.session, service: "api", account: signedIn.session.clientID)
    /// ```
    public struct ResourceSignIn: Sendable {
        /// How the client identified itself.
        public enum Identification: Sendable, Hashable {
            /// A `ClientIdentity.registered` client, registered at the server by hand.
            case registered
            /// A ``ClientIdentity/stored(_:issuer:)`` registration, reused.
            case reused(ClientRegistration)
            /// A `ClientIdentity.metadataDocument`: the document's URL is the `client_id`.
            case metadataDocument
            /// A dynamic registration made during this sign-in ([RFC 7591](https://www.rfc-editor.org/rfc/rfc7591)),
            /// with what the server answered.
            case dynamicallyRegistered(DynamicRegistration.Registered)
        }

        /// What discovery found.
        public let discovery: ResourceDiscovery
        /// How the client identified itself.
        public let identification: Identification
        /// The session to keep.
        public let session: OAuth2.Session

        /// Signs in to the authorization server `discovery` found, for its resource.
        ///
        /// - Parameters:
        ///   - identities: tried in order; the first the server supports is used (a registered
        ///     client only for its own issuer, a metadata document only when the server says it
        ///     supports them, registration only where there is a `registration_endpoint`).
        ///   - redirectURI: for a registered client, its registered redirect URI; with a
        ///     registration, `nil` lets the agent choose and that URI is registered.
        ///   - scope: `nil` asks for ``ResourceDiscovery/defaultScope``.
        ///   - additionalParameters: more authorization request parameters.
        ///   - stepUp: the step-up a resource asked for: its `acr_values` and `max_age` go in
        ///     the authorization request ([RFC 9470 §4](https://www.rfc-editor.org/rfc/rfc9470#section-4));
        ///     with `openid` in the scope, the new ID token's `acr` must be one of them and its
        ///     `auth_time` within `max_age`.
        ///   - discovery: what resource discovery found.
        ///   - agent: where the user signs in.
        ///   - dpop: binds the tokens to this prover's key (RFC 9449); needed when the resource
        ///     says `dpop_bound_access_tokens_required`.
        ///   - clientKey: the client's private key, for `private_key_jwt`
        ///     ([RFC 7523 §2.2](https://www.rfc-editor.org/rfc/rfc7523#section-2.2)): a dynamic
        ///     registration registers its public JWK in `jwks` with `token_endpoint_auth_method`
        ///     `private_key_jwt` ([RFC 7591 §2](https://www.rfc-editor.org/rfc/rfc7591#section-2)),
        ///     and a kept registration or a client ID metadata document that uses that method signs
        ///     its assertions with it. `nil`: a public client (`none`).
        ///   - transport: sends the flow's requests.
        ///   - now: the clock, seconds since 1970.
        ///   - random: the source of `state`, PKCE and nonces.
        ///   - onIdentified: told how the client identified itself, before the user agent opens.
        ///
        /// With `openid` in `scope` the ID token is validated (OpenID Connect Core §3.1.3.7,
        /// the keys from the server's `jwks_uri`, the nonce sent).
        ///
        /// - Throws: ``OAuth2/Error/Code/unsuitableAuthorizationServer`` when no identity suits
        ///   the server, or the resource requires DPoP and no key is given;
        ///   ``OAuth2/Error/Code/registrationRefused`` when the server refused the registration
        ///   (its error in `serverError`); the agent's and the flow's errors.
        public static func signIn(
            _ discovery: ResourceDiscovery,
            identities: [ClientIdentity],
            agent: some SignInUserAgent,
            redirectURI: String? = nil,
            scope: [String]? = nil,
            additionalParameters: [(name: String, value: String)] = [],
            stepUp: StepUp? = nil,
            dpop: OAuth2.DPoP.Prover? = nil,
            clientKey: JOSE.SigningKey? = nil,
            transport: any HTTPTransport,
            now: @escaping @Sendable () -> Int64 = UnixTime.now,
            random: RandomSource = .system,
            onIdentified: @escaping @Sendable (Identification) -> Void = { _ in }
        ) async throws -> ResourceSignIn {
            let server = discovery.server
            let resource = discovery.resource.resource
            guard dpop != nil || !discovery.resource.dpopBoundAccessTokensRequired else {
                throw OAuth2.Error(
                    .unsuitableAuthorizationServer,
                    "\(resource) requires DPoP-bound access tokens (dpop_bound_access_tokens_required, RFC 9728 §2): sign in with a DPoP key"
                )
            }
            let identity = try choose(identities, for: server, now: now())
            let scope = scope ?? discovery.defaultScope
            var redirectURI = redirectURI
            if case .stored(let registration, _) = identity { redirectURI = registration.redirectURIs?.first }
            let state = Locked<(flow: Flow, pending: PendingAuthorization, identification: Identification)?>(nil)
            let tokens: Tokens = try await agent.signIn(
                redirectURI: redirectURI,
                authorizationURL: { redirectURI in
                    let (client, identification) = try await identify(
                        identity,
                        redirectURI: redirectURI,
                        at: server,
                        clientKey: clientKey.map { .init(key: $0, now: now, random: random) },
                        transport: transport
                    )
                    onIdentified(identification)
                    var flow = Flow(
                        server: AuthorizationServer(metadata: server),
                        client: client,
                        transport: transport,
                        now: now
                    )
                    if let dpop { flow = flow.binding(to: dpop) }
                    let request = try await flow.startAuthorization(
                        redirectURI: redirectURI,
                        scope: scope,
                        resources: [resource],
                        additionalParameters: additionalParameters + (stepUp?.authorizationParameters ?? []),
                        maxAge: stepUp?.maxAge.map(Int64.init),
                        random: random
                    )
                    state.withLock { $0 = (flow, request.pending, identification) }
                    return request.url
                },
                callback: { url in
                    guard let (flow, pending, _) = state.withLock({ $0 }) else {
                        return .ignore(reason: "no authorization request is pending")
                    }
                    let response: AuthorizationResponse
                    do {
                        response = try pending.parseCallback(url)
                    } catch let error as OAuth2.Error where error.code != .serverRefused {
                        return .ignore(reason: error.reason)
                    }
                    let tokens = try await flow.exchange(code: response.code, pending: pending, resources: [resource])
                        .tokens
                    if scope.contains("openid") {
                        try await checkIDToken(
                            tokens,
                            pending: pending,
                            code: response.code,
                            requiredACRValues: stepUp?.acrValues,
                            client: flow.client,
                            server: server,
                            transport: transport,
                            now: now
                        )
                    }
                    return .accept(tokens)
                }
            )
            guard let (flow, _, identification) = state.withLock({ $0 }) else {
                throw OAuth2.Error(.invalidConfiguration, "the user agent returned without an authorization request")
            }
            var registration = ClientRegistration(flow.client)
            switch identification {
            case .dynamicallyRegistered(let registered): registration = registered.registration
            case .reused(let reused): registration = reused
            case .registered, .metadataDocument: break
            }
            let session = OAuth2.Session(
                server: flow.server,
                registration: registration,
                tokens: tokens,
                grant: .authorizationCode,
                scope: tokens.scope ?? (scope.isEmpty ? nil : scope),
                resources: [resource],
                resourceOrigins: [try AuthScope(url: resource).origin.description],
                binding: .init(dpopKey: dpop?.privateJWK)
            )
            return ResourceSignIn(discovery: discovery, identification: identification, session: session)
        }

        /// Validates the ID token of a sign-in that asked for `openid`
        /// ([OpenID Connect Core §3.1.3.7](https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation)),
        /// with the nonce and `max_age` sent and, after a step-up, the `acr_values` it asked for.
        static func checkIDToken(
            _ tokens: Tokens,
            pending: PendingAuthorization,
            code: Secret,
            requiredACRValues: [String]?,
            client: OAuth2.Client,
            server: ServerMetadata,
            transport: any HTTPTransport,
            now: @escaping @Sendable () -> Int64
        ) async throws {
            guard let idToken = tokens.idToken else {
                throw OpenIDConnect.Error(.missingIDToken, "the token response has no id_token (Core §3.1.3.3)")
            }
            let relyingParty = try OpenIDConnect.RelyingParty(
                metadata: server,
                clientID: client.id,
                transport: transport,
                now: now
            )
            _ = try await relyingParty.validator.validate(
                idToken,
                expecting: .init(
                    nonce: pending.nonce,
                    maxAge: pending.maxAge,
                    accessToken: tokens.accessToken,
                    code: code,
                    requiredACRValues: requiredACRValues
                ),
                now: now()
            )
        }

        /// The first of `identities` that `server` supports.
        package static func choose(
            _ identities: [ClientIdentity],
            for server: ServerMetadata,
            now: Int64
        ) throws
            -> ClientIdentity
        {
            for identity in identities {
                switch identity {
                case .registered(_, let issuer) where issuer == server.issuer:
                    return identity
                case .stored(let registration, let issuer)
                where issuer == server.issuer && !registration.secretExpired(at: now)
                    && registration.redirectURIs?.isEmpty == false:
                    return identity
                case .metadataDocument
                where server.additionalParameters["client_id_metadata_document_supported"] == .bool(true):
                    return identity
                case .dynamicRegistration where server.registrationEndpoint != nil:
                    return identity
                default:
                    continue
                }
            }
            throw OAuth2.Error(
                .unsuitableAuthorizationServer,
                "\(server.issuer) offers this client no way to identify itself: no client registered for it, no client_id_metadata_document_supported, no registration_endpoint (RFC 7591); register a client there and give its id"
            )
        }

        /// The client's key for `private_key_jwt`, with the clock and randomness its assertions use.
        struct ClientKey {
            let key: JOSE.SigningKey
            let now: @Sendable () -> Int64
            let random: RandomSource

            /// `private_key_jwt` with this key ([RFC 7523 §2.2](https://www.rfc-editor.org/rfc/rfc7523#section-2.2)).
            func authentication() throws -> ClientAuthentication {
                try .privateKeyJWT(key, now: now, random: random)
            }
        }

        /// The client for `identity`, registering it for `redirectURI` when that is the way.
        static func identify(
            _ identity: ClientIdentity,
            redirectURI: String,
            at server: ServerMetadata,
            clientKey: ClientKey? = nil,
            transport: any HTTPTransport
        ) async throws -> (OAuth2.Client, Identification) {
            switch identity {
            case .registered(let client, _):
                return (client, .registered)
            case .stored(let registration, _):
                let authentication: ClientAuthentication
                if registration.authenticationMethod == .privateKeyJWT {
                    guard let clientKey else {
                        throw OAuth2.Error(
                            .invalidConfiguration,
                            "the registration kept for \(registration.clientID) uses private_key_jwt: sign in with its key"
                        )
                    }
                    authentication = try clientKey.authentication()
                } else {
                    authentication = try OAuth2.ClientAuthentication(
                        methodName: registration.authenticationMethod.rawValue,
                        secret: registration.clientSecret
                    )
                }
                return (OAuth2.Client(id: registration.clientID, authentication: authentication), .reused(registration))
            case .metadataDocument(let url):
                try OAuth2.checkEndpoint(url)
                // The document names the method; with a key it is private_key_jwt and lists the key.
                if let clientKey {
                    return (OAuth2.Client(id: url, authentication: try clientKey.authentication()), .metadataDocument)
                }
                return (.public(id: url), .metadataDocument)
            case .dynamicRegistration(var metadata, let initialAccessToken):
                guard let endpoint = server.registrationEndpoint else {
                    throw OAuth2.Error(
                        .unsuitableAuthorizationServer,
                        "\(server.issuer) has no registration_endpoint (RFC 7591)"
                    )
                }
                metadata.redirectURIs = [redirectURI]
                if let clientKey {
                    // RFC 7591 §2: `jwks` holds the client's public keys, by value.
                    metadata = try metadata.registeringKey(clientKey.key)
                }
                let registered: DynamicRegistration.Registered
                do {
                    registered = try await DynamicRegistration.register(
                        metadata,
                        at: endpoint,
                        initialAccessToken: initialAccessToken,
                        transport: transport
                    )
                } catch let error as OAuth2.Error where error.code == .serverRefused || error.code == .malformedResponse {
                    // The phase, typed: what failed is the registration, whatever the server said.
                    throw OAuth2.Error(
                        .registrationRefused,
                        error.reason,
                        serverError: error.serverError,
                        status: error.status
                    )
                }
                let client =
                    if let clientKey, registered.tokenEndpointAuthMethod == .privateKeyJWT {
                        OAuth2.Client(id: registered.clientID, authentication: try clientKey.authentication())
                    } else {
                        try registered.client()
                    }
                return (client, .dynamicallyRegistered(registered))
            }
        }
    }
}
