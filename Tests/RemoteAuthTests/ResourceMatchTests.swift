import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// How a metadata document's `resource` must relate to the URL the client used (RFC 9728 §3.3,
/// and the path-prefix rule of draft-mcguinness-oauth-rfc9728bis for a request's URL), the
/// challenge's scope, the well-known fallback to the origin, and the choice of client identity.
@Suite struct ResourceMatchTests {
    typealias Match = OAuth2.ProtectedResourceMetadata.ResourceMatch

    @Test(arguments: [
        ("https://api.example/v1", "https://api.example/v1/users", true),
        ("https://api.example/v1", "https://api.example/v1", true),
        ("https://api.example/v1/", "https://api.example/v1/users?page=2", true),
        ("https://api.example", "https://api.example/anything", true),
        ("https://api.example:443/v1", "https://api.example/v1/x", true),
        ("HTTPS://API.example/v1", "https://api.example/v1/x", true),
        // A path prefix that is not a segment, another origin, a query or fragment: refused.
        ("https://api.example/v1", "https://api.example/v10/users", false),
        ("https://api.example/v1", "https://api.example/v2", false),
        ("https://api.example/v1", "http://api.example/v1/x", false),
        ("https://api.example/v1", "https://api.example:8443/v1/x", false),
        ("https://other.example/v1", "https://api.example/v1/x", false),
        ("https://api.example/v1?x=1", "https://api.example/v1/x", false),
        ("https://api.example/v1#f", "https://api.example/v1/x", false),
        ("https://api.example/v1/users", "https://api.example/v1", false),
    ])
    func pathPrefix(resource: String, url: String, accepted: Bool) {
        #expect(Match.pathPrefix.accepts(resource, for: url) == accepted)
    }

    @Test func exactIsCharacterForCharacter() {
        #expect(Match.exact.accepts("https://api.example/v1", for: "https://api.example/v1"))
        #expect(!Match.exact.accepts("https://api.example/v1", for: "https://api.example/v1/"))
        #expect(!Match.exact.accepts("https://api.example/v1", for: "https://api.example/v1/users"))
    }

    /// A request URL under the resource, with no challenge naming the metadata: the path-inserted
    /// document (404), then the origin's, whose resource is a prefix of the URL.
    @Test func pathPrefixFallsBackToTheOriginsDocument() async throws {
        let transport = ScriptedTransport([
            ScriptedTransport.status(401, [.wwwAuthenticate: #"Bearer scope="read write""#]),
            ScriptedTransport.status(404, [:]),
            ResourceDiscoveryTests.json(
                #"{"resource":"https://api.example","authorization_servers":["https://as.example"]}"#
            ),
            ResourceDiscoveryTests.json(ResourceDiscoveryTests.goodServer),
        ])
        let found = try await OAuth2.ResourceDiscovery.discover(
            resource: "https://api.example/v1/users?page=2",
            match: .pathPrefix,
            transport: transport
        )
        #expect(found.resource.resource == "https://api.example")
        #expect(found.challengedScope == ["read", "write"])
        #expect(found.defaultScope == ["read", "write"])
        #expect(
            transport.sent.map { $0.request.url?.absoluteString } == [
                "https://api.example/v1/users?page=2",
                "https://api.example/.well-known/oauth-protected-resource/v1/users",
                "https://api.example/.well-known/oauth-protected-resource",
                "https://as.example/.well-known/oauth-authorization-server",
            ]
        )
    }

    /// Exact matching reads the one well-known URL and never the origin's.
    @Test func exactDoesNotFallBack() async throws {
        let transport = ScriptedTransport([
            ScriptedTransport.status(401, [:]),
            ScriptedTransport.status(404, [:]),
        ])
        let error = await #expect(throws: OAuth2.Error.self) {
            _ = try await OAuth2.ResourceDiscovery.discover(resource: "https://api.example/v1", transport: transport)
        }
        #expect(error?.status == 404)
        #expect(transport.sent.count == 2)
    }

    static func server(_ extra: String = "") -> OAuth2.ServerMetadata {
        let text = #"{"issuer":"https://as.example","token_endpoint":"https://as.example/t""# + extra + "}"
        return try! JSONDecoder().decode(OAuth2.ServerMetadata.self, from: Data(text.utf8))
    }

    static func found(_ server: OAuth2.ServerMetadata, scopes: String = "") throws -> OAuth2.ResourceDiscovery {
        let metadata = try OAuth2.ProtectedResourceMetadata.parse(
            status: 200,
            body: Array(
                #"{"resource":"https://api.example","authorization_servers":["https://as.example"]\#(scopes)}"#.utf8
            ),
            expectedResource: "https://api.example"
        )
        return OAuth2.ResourceDiscovery(resource: metadata, server: server)
    }

    /// Without a way to identify itself, a sign-in stops before any request or user agent.
    @Test func noIdentityTheServerSupports() async throws {
        let transport = ScriptedTransport([])
        let agent = ScriptedUserAgent(redirectURI: "http://127.0.0.1:1/cb") { _ in
            Issue.record("the user agent was opened")
            return []
        }
        let error = await #expect(throws: OAuth2.Error.self) {
            _ = try await OAuth2.ResourceSignIn.signIn(
                try Self.found(Self.server()),
                identities: [
                    .registered(.public(id: "elsewhere"), issuer: "https://other.example"),
                    .metadataDocument(url: "https://client.example/meta.json"),
                    .dynamicRegistration(.init(redirectURIs: [])),
                ],
                agent: agent,
                transport: transport
            )
        }
        #expect(error?.code == .unsuitableAuthorizationServer)
        #expect(
            error?.reason
                == "https://as.example offers this client no way to identify itself: no client registered for it, no client_id_metadata_document_supported, no registration_endpoint (RFC 7591); register a client there and give its id"
        )
        #expect(transport.sent.isEmpty)
    }

    /// A resource that requires DPoP-bound tokens, without a key: refused before anything.
    @Test func dpopRequiredWithoutAKey() async throws {
        let metadata = try OAuth2.ProtectedResourceMetadata.parse(
            status: 200,
            body: Array(
                #"{"resource":"https://api.example","authorization_servers":["https://as.example"],"dpop_bound_access_tokens_required":true}"#
                    .utf8
            ),
            expectedResource: "https://api.example"
        )
        let error = await #expect(throws: OAuth2.Error.self) {
            _ = try await OAuth2.ResourceSignIn.signIn(
                OAuth2.ResourceDiscovery(resource: metadata, server: Self.server()),
                identities: [.registered(.public(id: "app"), issuer: "https://as.example")],
                agent: ScriptedUserAgent(redirectURI: "http://127.0.0.1:1/cb") { _ in [] },
                transport: ScriptedTransport([])
            )
        }
        #expect(error?.code == .unsuitableAuthorizationServer)
    }

    /// The metadata's scopes when the challenge named none.
    @Test func defaultScopeFromTheMetadata() throws {
        let found = try Self.found(Self.server(), scopes: #","scopes_supported":["a","b"]"#)
        #expect(found.defaultScope == ["a", "b"])
        #expect(try Self.found(Self.server()).defaultScope == [])
    }
}
