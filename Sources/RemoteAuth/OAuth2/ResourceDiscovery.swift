import HTTPTypes

extension OAuth2 {
    /// From a protected resource's URL alone to the authorization server that guards it: the
    /// resource's `401` names its metadata ([RFC 9728 §5.1](https://www.rfc-editor.org/rfc/rfc9728#section-5.1)),
    /// else the well-known URL is tried (§3.1); the document must be about that resource
    /// (§3.3); one of its `authorization_servers` is discovered with the issuer check
    /// ([RFC 8414 §3.3](https://www.rfc-editor.org/rfc/rfc8414#section-3.3), or OpenID
    /// discovery when the RFC 8414 document is absent) and must support PKCE with `S256`.
    ///
    /// ```swift
    /// let found = try await OAuth2.ResourceDiscovery.discover(resource: "https://api.example.com/v1",
    ///                                                         transport: transport)
    /// // found.server: the authorization server's metadata; register there, then sign in with
    /// // resources: [found.resource.resource] (RFC 8707).
    /// ```
    public struct ResourceDiscovery: Sendable, Hashable {
        /// The resource's metadata.
        public let resource: ProtectedResourceMetadata
        /// The chosen authorization server's metadata, its issuer checked.
        public let server: ServerMetadata

        /// The `scope` of the resource's `Bearer` challenge, when its `401` named one
        /// ([RFC 6750 §3](https://www.rfc-editor.org/rfc/rfc6750#section-3)): what this request
        /// needs, which a sign-in asks for before the metadata's `scopes_supported`.
        public let challengedScope: [String]?

        /// A discovery result: the resource's metadata, its authorization server's, and the scope of the
        /// resource's challenge, when it named one.
        public init(resource: ProtectedResourceMetadata, server: ServerMetadata, challengedScope: [String]? = nil) {
            self.resource = resource
            self.server = server
            self.challengedScope = challengedScope
        }

        /// The scope a sign-in asks for when the caller names none: the challenge's, else the
        /// metadata's `scopes_supported` (the order of the Model Context Protocol's
        /// authorization specification, "Scope Selection Strategy"), else none.
        public var defaultScope: [String] { challengedScope ?? resource.scopesSupported ?? [] }

        /// Discovers `resource`'s authorization server.
        ///
        /// - Parameters:
        ///   - resource: the resource identifier (`https://api.example.com/v1`), requested with a
        ///     `GET` and no credentials to read its challenge.
        ///   - authorizationServer: the issuer to use; it must be one the metadata lists. `nil`
        ///     takes the first listed.
        ///   - match: how the document's `resource` must relate to `resource`: ``ProtectedResourceMetadata/ResourceMatch/exact``
        ///     (RFC 9728 §3.3), or ``ProtectedResourceMetadata/ResourceMatch/pathPrefix`` when
        ///     `resource` is a URL under the resource (a request's URL).
        ///   - probe: the method of the first request, sent with no body and no credentials:
        ///     the method the caller will use, so that a resource that serves only `POST` there
        ///     answers with its challenge rather than `404` or `405`. `GET` by default.
        ///   - signedMetadata: verifies and applies the document's `signed_metadata` (RFC 9728
        ///     §2.2) with these keys; `nil` ignores it, as §2.2 allows.
        ///   - now: the clock, seconds since 1970 (for signed metadata).
        ///   - transport: sends the discovery's requests.
        /// - Throws: ``OAuth2/Error/Code/resourceMismatch`` for a document about another
        ///   resource; ``OAuth2/Error/Code/unsuitableAuthorizationServer`` for a resource that
        ///   lists no authorization server, an issuer it does not list, or a server without
        ///   `S256`; ``OAuth2/Error/Code/issuerMismatch``; ``OAuth2/Error/Code/signedMetadataRefused``;
        ///   the errors of the fetches.
        public static func discover(
            resource: String,
            authorizationServer: String? = nil,
            match: ProtectedResourceMetadata.ResourceMatch = .exact,
            probe: HTTPRequest.Method = .get,
            signedMetadata: ProtectedResourceMetadata.SignedMetadataPolicy? = nil,
            now: @Sendable () -> Int64 = UnixTime.now,
            transport: any HTTPTransport
        ) async throws -> ResourceDiscovery {
            try OAuth2.checkEndpoint(resource)
            // §5.1: the resource's own answer names its metadata, when it is a 401 that says so.
            let (response, _) = try await transport.send(HTTPRequest(method: probe, absoluteURL: resource), body: nil)
            let named = response.status == .unauthorized ? ProtectedResourceMetadata.metadataURL(in: response) : nil
            let scope = response.status == .unauthorized ? challengedScope(in: response) : nil
            let metadata = try await ProtectedResourceMetadata.discover(
                resource: resource,
                metadataURL: named,
                match: match,
                signedMetadata: signedMetadata,
                now: now,
                transport: transport
            )
            let issuer = try choose(authorizationServer, from: metadata)
            let server = try await Flow.discover(
                issuer: issuer,
                transport: transport,
                fallingBackToOpenIDConfiguration: true
            )
            try requirePKCE(server)
            return ResourceDiscovery(resource: metadata, server: server, challengedScope: scope)
        }

        /// The `scope` of a `401`'s `Bearer` (or `DPoP`) challenge, when it names one.
        static func challengedScope(in response: HTTPResponse) -> [String]? {
            AuthenticationChallenge.parseEachField(response.headerFields, name: .wwwAuthenticate).challenges
                .first { ($0.hasScheme("Bearer") || $0.hasScheme(OAuth2.DPoP.scheme)) && $0.parameter("scope") != nil }?
                .parameter("scope")
                .map { $0.split(separator: " ").map(String.init) }
                .flatMap { $0.isEmpty ? nil : $0 }
        }

        /// The issuer to use: `wanted` when the metadata lists it, else the first listed.
        /// [RFC 9728 §7.6](https://www.rfc-editor.org/rfc/rfc9728#section-7.6)
        static func choose(_ wanted: String?, from metadata: ProtectedResourceMetadata) throws -> String {
            guard let first = metadata.authorizationServers.first else {
                throw OAuth2.Error(
                    .unsuitableAuthorizationServer,
                    "the metadata of \(metadata.resource) lists no authorization_servers (RFC 9728 §2)"
                )
            }
            guard let wanted else { return first }
            guard metadata.authorizationServers.contains(wanted) else {
                throw OAuth2.Error(
                    .unsuitableAuthorizationServer,
                    "\(wanted) is not among the authorization servers of \(metadata.resource): \(metadata.authorizationServers.joined(separator: ", ")) (RFC 9728 §7.6)"
                )
            }
            return wanted
        }

        /// A server that does not list `S256` cannot be relied on to check PKCE: refused.
        /// [RFC 8414 §2](https://www.rfc-editor.org/rfc/rfc8414#section-2) (`code_challenge_methods_supported`),
        /// [RFC 9700 §2.1.1](https://www.rfc-editor.org/rfc/rfc9700#section-2.1.1)
        static func requirePKCE(_ server: ServerMetadata) throws {
            guard server.codeChallengeMethodsSupported?.contains("S256") == true else {
                throw OAuth2.Error(
                    .unsuitableAuthorizationServer,
                    "\(server.issuer) does not list S256 in code_challenge_methods_supported: PKCE cannot be relied on (RFC 9700 §2.1.1)"
                )
            }
        }
    }
}
