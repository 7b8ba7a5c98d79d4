public import HTTPTypes

extension OAuth2 {
    /// OAuth 2.0 Protected Resource Metadata ([RFC 9728](https://www.rfc-editor.org/rfc/rfc9728)):
    /// what a resource server says about itself: its resource identifier, the authorization
    /// servers that issue its tokens, its scopes, how it takes tokens. The first step of signing
    /// in from nothing but a resource URL.
    ///
    /// Members this library does not read are kept in ``members``.
    public struct ProtectedResourceMetadata: Sendable, Hashable {
        /// `resource`: the resource identifier (an `https` URL without a fragment), §2.
        public let resource: String
        /// `authorization_servers`: issuer identifiers (RFC 8414) of the servers it trusts.
        public let authorizationServers: [String]
        /// `jwks_uri`.
        public let jwksURI: String?
        /// `scopes_supported`.
        public let scopesSupported: [String]?
        /// `bearer_methods_supported`: `header`, `body`, `query`.
        public let bearerMethodsSupported: [String]?
        /// `resource_signing_alg_values_supported`.
        public let resourceSigningAlgorithms: [String]?
        /// `resource_name`.
        public let resourceName: String?
        /// `resource_documentation`.
        public let resourceDocumentation: String?
        /// `tls_client_certificate_bound_access_tokens` (RFC 8705); `false` when absent.
        public let tlsClientCertificateBoundAccessTokens: Bool
        /// `dpop_signing_alg_values_supported` (RFC 9449).
        public let dpopSigningAlgorithms: [String]?
        /// `dpop_bound_access_tokens_required` (RFC 9449 §5.2); `false` when absent.
        public let dpopBoundAccessTokensRequired: Bool
        /// Every member as sent, those above included.
        public let members: [String: JSONValue]

        /// The well-known URL of `resource`'s metadata: `/.well-known/oauth-protected-resource`
        /// inserted between the origin and the path, the path's trailing `/` dropped
        /// ([RFC 9728 §3.1](https://www.rfc-editor.org/rfc/rfc9728#section-3.1)).
        ///
        /// - Throws: ``OAuth2/Error/Code/invalidConfiguration`` for a resource with a query or
        ///   fragment; ``OAuth2/Error/Code/insecureEndpoint`` for plain http beyond loopback.
        public static func wellKnownURL(resource: String) throws -> String {
            try OAuth2.checkEndpoint(resource)
            guard !resource.contains("?"), !resource.contains("#") else {
                throw OAuth2.Error(.invalidConfiguration, "a resource identifier has no query or fragment (RFC 9728 §1.2): '\(resource)'")
            }
            let origin = try HTTPRequest(method: .get, absoluteURL: resource).originPrefix
            var path = Substring(URIReference(parsing: resource).path)
            while path.hasSuffix("/") { path = path.dropLast() }
            return origin + "/.well-known/oauth-protected-resource" + path
        }

        /// The `resource_metadata` URL of a `401`'s `Bearer` or `DPoP` challenge
        /// ([RFC 9728 §5.1](https://www.rfc-editor.org/rfc/rfc9728#section-5.1)), or `nil`.
        public static func metadataURL(in response: HTTPResponse) -> String? {
            AuthenticationChallenge.parseEachField(response.headerFields, name: .wwwAuthenticate).challenges
                .first { ($0.hasScheme("Bearer") || $0.hasScheme(OAuth2.DPoP.scheme)) && $0.parameter("resource_metadata") != nil }?
                .parameter("resource_metadata")
        }

        /// Fetches the metadata of `resource`: from `metadataURL` when a challenge named one
        /// (§5.1), else from the well-known URL (§3.1). Either way the document's `resource` must
        /// be `resource`, character for character (§3.3).
        ///
        /// - Throws: ``OAuth2/Error/Code/resourceMismatch``; ``OAuth2/Error/Code/malformedResponse``,
        ///   `.serverRefused` (a 404), `.insecureEndpoint`; the transport's errors.
        ///
        /// With `signedMetadata`, the document's `signed_metadata` is verified and applied
        /// (``verifyingSignedMetadata(_:expectedResource:match:now:)``, §2.2).
        public static func discover(
            resource: String,
            metadataURL: String? = nil,
            match: ResourceMatch = .exact,
            signedMetadata: SignedMetadataPolicy? = nil,
            now: @Sendable () -> Int64 = UnixTime.now,
            transport: any HTTPTransport
        ) async throws -> ProtectedResourceMetadata {
            if metadataURL == nil, match == .pathPrefix {
                // A URL under the resource: the path-inserted document, then the origin's (the
                // order of the Model Context Protocol's authorization specification).
                let inserted = try wellKnownURL(resource: URIReference(parsing: resource).withoutQueryAndFragment)
                let root = try wellKnownURL(resource: try HTTPRequest(method: .get, absoluteURL: resource).originPrefix)
                do {
                    return try await discover(
                        resource: resource,
                        metadataURL: inserted,
                        match: match,
                        signedMetadata: signedMetadata,
                        now: now,
                        transport: transport
                    )
                } catch let error as OAuth2.Error where error.status == 404 && inserted != root {
                    return try await discover(
                        resource: resource,
                        metadataURL: root,
                        match: match,
                        signedMetadata: signedMetadata,
                        now: now,
                        transport: transport
                    )
                }
            }
            let url = try metadataURL ?? wellKnownURL(resource: resource)
            try OAuth2.checkEndpoint(url)
            var fields = HTTPFields()
            fields[.accept] = "application/json"
            let (response, body) = try await transport.send(
                HTTPRequest(method: .get, absoluteURL: url, headerFields: fields),
                body: nil
            )
            do {
                let metadata = try parse(status: response.status.code, body: body, expectedResource: resource, match: match)
                guard let signedMetadata else { return metadata }
                return try metadata.verifyingSignedMetadata(
                    signedMetadata,
                    expectedResource: resource,
                    match: match,
                    now: now()
                )
            } catch let error as OAuth2.Error {
                throw OAuth2.Error(error.code, "GET \(url): \(error.reason)", serverError: error.serverError, status: error.status)
            }
        }

        /// How the document's `resource` must relate to the URL the client used.
        public enum ResourceMatch: Sendable, Hashable {
            /// Character for character ([RFC 9728 §3.3](https://www.rfc-editor.org/rfc/rfc9728#section-3.3)):
            /// the client asked about the resource identifier itself.
            case exact
            /// The client requested a URL under the resource (`https://api.example.com/v1/users`
            /// for the resource `https://api.example.com/v1`): the same origin, and the
            /// resource's path a prefix of the URL's path on a segment boundary, with no query or
            /// fragment. This is the rule of draft-mcguinness-oauth-rfc9728bis §3 and of the
            /// Model Context Protocol's SDKs; RFC 9728 §3.3 alone asks for ``exact``. Chosen
            /// explicitly, never as a fallback.
            case pathPrefix

            /// `true` when `resource` may answer for a request to `url`.
            public func accepts(_ resource: String, for url: String) -> Bool {
                switch self {
                case .exact:
                    return resource == url
                case .pathPrefix:
                    if resource == url { return true }
                    let candidate = URIReference(parsing: resource)
                    let requested = URIReference(parsing: url)
                    guard candidate.query == nil, candidate.fragment == nil,
                        let origin = try? AuthScope(url: resource).origin, origin == (try? AuthScope(url: url).origin)
                    else { return false }
                    var base = Substring(candidate.path)
                    while base.hasSuffix("/") { base = base.dropLast() }
                    let path = Substring(requested.path)
                    return base.isEmpty || path == base || path.hasPrefix(base + "/")
                }
            }
        }

        /// Reads a metadata response and checks its `resource` against the URL the client used
        /// ([RFC 9728 §3.2, §3.3](https://www.rfc-editor.org/rfc/rfc9728#section-3.2)).
        public static func parse(
            status: Int,
            body: [UInt8],
            expectedResource: String,
            match: ResourceMatch = .exact
        ) throws -> ProtectedResourceMetadata {
            let object = try JSONObject.parse(status: status, body: body)
            return try parse(members: object.members, status: status, expectedResource: expectedResource, match: match)
        }

        /// ``parse(status:body:expectedResource:match:)`` of members already read (signed
        /// metadata applied, ``verifyingSignedMetadata(_:expectedResource:match:now:)``).
        static func parse(
            members: [String: JSONValue],
            status: Int?,
            expectedResource: String,
            match: ResourceMatch
        ) throws -> ProtectedResourceMetadata {
            func string(_ name: String) throws -> String? {
                guard let value = members[name] else { return nil }
                guard case .string(let text) = value else {
                    throw OAuth2.Error(.malformedResponse, "'\(name)' is not a string (RFC 9728 §2)", status: status)
                }
                return text
            }
            func strings(_ name: String) throws -> [String]? {
                guard let value = members[name] else { return nil }
                guard case .array(let items) = value else {
                    throw OAuth2.Error(.malformedResponse, "'\(name)' is not an array of strings (RFC 9728 §2)", status: status)
                }
                return try items.map { item in
                    guard case .string(let text) = item else {
                        throw OAuth2.Error(.malformedResponse, "'\(name)' holds a value that is not a string", status: status)
                    }
                    return text
                }
            }
            func flag(_ name: String) throws -> Bool {
                guard let value = members[name] else { return false }
                guard case .bool(let flag) = value else {
                    throw OAuth2.Error(.malformedResponse, "'\(name)' is not a boolean (RFC 9728 §2)", status: status)
                }
                return flag
            }
            guard let resource = try string("resource") else {
                throw OAuth2.Error(.malformedResponse, "the metadata has no 'resource' (RFC 9728 §2)", status: status)
            }
            guard match.accepts(resource, for: expectedResource) else {
                let rule = match == .exact ? "RFC 9728 §3.3" : "not its origin and a path prefix of it, RFC 9728 §3.3"
                throw OAuth2.Error(
                    .resourceMismatch,
                    "the metadata is for '\(PeerText.printable(resource))', not '\(expectedResource)' (\(rule))",
                    status: status
                )
            }
            let servers = try strings("authorization_servers") ?? []
            for server in servers { try OAuth2.checkEndpoint(server) }
            return ProtectedResourceMetadata(
                resource: resource,
                authorizationServers: servers,
                jwksURI: try string("jwks_uri"),
                scopesSupported: try strings("scopes_supported"),
                bearerMethodsSupported: try strings("bearer_methods_supported"),
                resourceSigningAlgorithms: try strings("resource_signing_alg_values_supported"),
                resourceName: try string("resource_name"),
                resourceDocumentation: try string("resource_documentation"),
                tlsClientCertificateBoundAccessTokens: try flag("tls_client_certificate_bound_access_tokens"),
                dpopSigningAlgorithms: try strings("dpop_signing_alg_values_supported"),
                dpopBoundAccessTokensRequired: try flag("dpop_bound_access_tokens_required"),
                members: members
            )
        }
    }
}
