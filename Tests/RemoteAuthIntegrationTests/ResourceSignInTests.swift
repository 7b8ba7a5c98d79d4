import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthSandbox
import Testing

/// Issue 26 in the library: from the resource's URL alone to a signed-in call against the
/// sandbox: its 401, its metadata (RFC 9728), the authorization server's (RFC 8414), a dynamic
/// registration (RFC 7591), code + PKCE with `resource` (RFC 8707).
@Suite(.timeLimit(.minutes(5))) struct ResourceSignInTests {
    static let redirectURI = "http://127.0.0.1:53124/callback"

    @Test func fromTheResourceURLAlone() async throws {
        try await Sandbox.withSandbox(SignInUserAgentTests.autoApproving()) { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let resource = sandbox.baseURL + "/1.1"
                let found = try await OAuth2.ResourceDiscovery.discover(resource: resource, transport: transport)
                #expect(found.resource.resource == resource)
                #expect(found.resource.authorizationServers == [sandbox.baseURL])
                #expect(found.server.issuer == sandbox.baseURL)
                #expect(found.server.codeChallengeMethodsSupported == ["S256"])
                let endpoint = try #require(found.server.registrationEndpoint)
                #expect(endpoint == sandbox.baseURL + "/oauth2/register")

                let registered = try await OAuth2.DynamicRegistration.register(
                    .init(redirectURIs: [Self.redirectURI], clientName: "resource sign-in test", scope: ["statuses:read"]),
                    at: endpoint,
                    transport: transport
                )
                #expect(registered.tokenEndpointAuthMethod == .none)
                #expect(registered.clientSecret == nil)
                #expect(registered.registrationAccessToken != nil)
                // RFC 7592: what a session keeps to manage the registration, never printed.
                let kept = registered.registration
                #expect(kept.registrationClientURI?.hasPrefix(sandbox.baseURL + "/oauth2/register/") == true)
                #expect(kept.registrationAccessToken == registered.registrationAccessToken)
                #expect(!"\(kept)".contains(try #require(registered.registrationAccessToken).reveal()))
                #expect(registered.members["redirect_uris"] == .array([.string(Self.redirectURI)]))
                #expect(registered.members["client_name"] == .string("resource sign-in test"))

                let flow = OAuth2.Flow(server: .init(metadata: found.server), client: try registered.client(), transport: transport)
                let agent = ScriptedUserAgent(redirectURI: Self.redirectURI) { url in
                    #expect(url.hasSuffix("&resource=" + resource.replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: "/", with: "%2F")))
                    return [try await SignInUserAgentTests.redirect(for: url)]
                }
                let tokens = try await flow.signIn(with: agent, scope: ["statuses:read"], resources: [resource])
                let session = try await flow.session(for: tokens, resources: [resource])
                #expect(await session.session.registration.clientID == registered.clientID)
                let client = AuthenticatingClient(transport: transport, session: session)
                let (timeline, _) = try await client.get(resource + "/statuses/home_timeline.json")
                #expect(timeline.status == .ok)
                // RFC 8707: the client does not send the token to the other resource on the origin
                // (no `error` in the challenge: nothing was presented).
                let (unsent, _) = try await client.get(sandbox.baseURL + "/files")
                #expect(unsent.status == .unauthorized)
                #expect(unsent.headerFields[.wwwAuthenticate]?.contains("error=") == false)

                // The token's audience is the status API: the other resource on the origin refuses it.
                var files = try HTTPRequest(method: .get, absoluteURL: sandbox.baseURL + "/files")
                files.headerFields[.authorization] = "Bearer " + tokens.accessToken.reveal()
                let (refused, _) = try await transport.send(files, body: nil)
                #expect(refused.status == .unauthorized)
                #expect(refused.headerFields[.wwwAuthenticate]?.contains(#"error="invalid_token""#) == true)
            }
        }
    }

    /// A confidential registration gets a secret that never expires here (`0`), and the client
    /// authenticates with it.
    @Test func aConfidentialRegistration() async throws {
        try await Sandbox.withSandbox(SignInUserAgentTests.autoApproving()) { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let registered = try await OAuth2.DynamicRegistration.register(
                    .init(redirectURIs: [Self.redirectURI], tokenEndpointAuthMethod: .clientSecretBasic),
                    at: sandbox.baseURL + "/oauth2/register",
                    transport: transport
                )
                #expect(registered.tokenEndpointAuthMethod == .clientSecretBasic)
                #expect(registered.clientSecret != nil)
                #expect(registered.clientSecretExpiresAt == 0)
                #expect(!"\(registered)".contains(registered.clientSecret!.reveal()))
                #expect(try registered.client().authentication.methodName == "client_secret_basic")
            }
        }
    }

    /// RFC 7592 through the library: read, update (the new name kept, the secret and the token
    /// carried over), a refused update (a redirect URI the server does not take), delete, and
    /// the registration gone.
    @Test func readUpdateDelete() async throws {
        try await Sandbox.withSandbox(SignInUserAgentTests.autoApproving()) { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                var metadata = OAuth2.DynamicRegistration.Metadata(
                    redirectURIs: [Self.redirectURI],
                    tokenEndpointAuthMethod: .clientSecretBasic,
                    clientName: "before"
                )
                let registered = try await OAuth2.DynamicRegistration.register(
                    metadata,
                    at: sandbox.baseURL + "/oauth2/register",
                    transport: transport
                )
                let kept = registered.registration
                let read = try await OAuth2.DynamicRegistration.read(kept, transport: transport)
                #expect(read.members["client_name"] == .string("before"))

                metadata.clientName = "after"
                let updated = try await OAuth2.DynamicRegistration.update(kept, to: metadata, transport: transport)
                #expect(updated.clientID == registered.clientID)
                #expect(updated.members["client_name"] == .string("after"))
                let now = updated.registration(replacing: kept)
                // The sandbox keeps the secret and the registration access token across an update.
                #expect(now.clientSecret?.reveal() == kept.clientSecret?.reveal())
                #expect(now.registrationAccessToken?.reveal() == kept.registrationAccessToken?.reveal())
                #expect(now.registrationClientURI == kept.registrationClientURI)
                #expect(
                    try await OAuth2.DynamicRegistration.read(now, transport: transport).members["client_name"]
                        == .string("after")
                )

                metadata.redirectURIs = ["http://client.example/callback"]
                let refused = await #expect(throws: OAuth2.Error.self) {
                    _ = try await OAuth2.DynamicRegistration.update(now, to: metadata, transport: transport)
                }
                #expect(refused?.serverError?.code.rawValue == "invalid_redirect_uri")
                #expect(refused?.reason.hasPrefix("PUT \(try #require(kept.registrationClientURI)): ") == true)

                try await OAuth2.DynamicRegistration.delete(now, transport: transport)
                let gone = await #expect(throws: OAuth2.Error.self) {
                    _ = try await OAuth2.DynamicRegistration.read(now, transport: transport)
                }
                #expect(gone?.status == 401)
            }
        }
    }

    /// The server's refusal is the server's error, typed (RFC 7591 §3.2.2).
    @Test func aRefusedRegistration() async throws {
        try await Sandbox.withSandbox(SignInUserAgentTests.autoApproving()) { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let error = await #expect(throws: OAuth2.Error.self) {
                    _ = try await OAuth2.DynamicRegistration.register(
                        .init(redirectURIs: ["http://client.example/callback"]),
                        at: sandbox.baseURL + "/oauth2/register",
                        transport: transport
                    )
                }
                #expect(error?.code == .serverRefused)
                #expect(error?.serverError?.code.rawValue == "invalid_redirect_uri")
                #expect(error?.reason.hasPrefix("POST \(sandbox.baseURL)/oauth2/register: ") == true)
            }
        }
    }

    /// RFC 9470 step-up through the library: a write refused for the sign-in's class, a sign-in
    /// with the challenge's `acr_values` and `max_age` whose ID token's `acr` is checked, and the
    /// write accepted; a class the server does not offer ends in a typed error (the ID token says
    /// the baseline), never in a session.
    @Test func stepUpToAStrongerSignIn() async throws {
        var configuration = SignInUserAgentTests.autoApproving()
        configuration.stepUp = StepUpPolicy(maxAge: 300)
        try await Sandbox.withSandbox(configuration) { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let resource = sandbox.baseURL + "/1.1"
                let found = try await OAuth2.ResourceDiscovery.discover(resource: resource, transport: transport)
                let agent = ScriptedUserAgent(redirectURI: Self.redirectURI) { url in
                    [try await SignInUserAgentTests.redirect(for: url)]
                }
                let scope = ["openid", "statuses:read", "statuses:write"]
                func signIn(_ stepUp: OAuth2.StepUp?) async throws -> OAuth2.ResourceSignIn {
                    try await OAuth2.ResourceSignIn.signIn(
                        found,
                        identities: [.dynamicRegistration(.init(redirectURIs: []))],
                        agent: agent,
                        scope: scope,
                        stepUp: stepUp,
                        transport: transport
                    )
                }
                func post(_ session: OAuth2.Session) async throws -> HTTPResponse {
                    var request = try HTTPRequest(method: .post, absoluteURL: resource + "/statuses/update.json")
                    request.headerFields[.authorization] = "Bearer " + session.tokens.accessToken.reveal()
                    request.headerFields[.contentType] = "application/x-www-form-urlencoded"
                    return try await transport.send(request, body: Array("status=stepped".utf8)).0
                }
                let first = try await signIn(nil)
                let refused = try await post(first.session)
                #expect(refused.status == .unauthorized)
                let stepUp = try #require(OAuth2.StepUp(response: refused, currentScope: first.session.scope))
                #expect(stepUp.error == .insufficientUserAuthentication)
                #expect(stepUp.acrValues == [StepUpPolicy.defaultACR])
                #expect(stepUp.maxAge == 300)

                let stepped = try await signIn(stepUp)
                let idToken = try JOSE.CompactJWS(try #require(stepped.session.tokens.idToken).reveal())
                let claims = try JSONSerialization.jsonObject(with: Data(idToken.payload)) as? [String: Any]
                #expect(claims?["acr"] as? String == StepUpPolicy.defaultACR)
                #expect(try await post(stepped.session).status == .ok)

                // A class this server does not offer: it signs in with its baseline, and the
                // ID token's acr says so.
                let unmet = try #require(
                    OAuth2.StepUp(
                        response: HTTPResponse(
                            status: .unauthorized,
                            headerFields: [
                                .wwwAuthenticate: #"Bearer error="insufficient_user_authentication", acr_values="urn:example:hwk""#
                            ]
                        ),
                        currentScope: scope
                    )
                )
                let error = await #expect(throws: OpenIDConnect.Error.self) { _ = try await signIn(unmet) }
                #expect(error?.code == .authenticationClassNotMet)
                #expect(
                    error?.reason
                        == "the ID token's acr is \(StepUpPolicy.baselineACR), not one of the acr_values asked for: urn:example:hwk (rule 12, RFC 9470 §4)"
                )
            }
        }
    }
}
