import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient

/// The step of `remote-auth demo` that signs in from a protected resource's URL alone (issue 26):
/// its 401 names its metadata (RFC 9728), the authorization server's metadata (RFC 8414), a
/// dynamic registration (RFC 7591), code + PKCE with the resource indicator (RFC 8707).
extension DemoCommand {
    static let resourceSteps: [Step] = [
        Step(name: "OAuth 2, sign-in from the resource URL") { context in
            let resource = context.base + "/1.1"
            let verifyCredentials = resource + "/account/verify_credentials.json"
            let (challenged, _) = try await context.get(verifyCredentials)
            try expect(
                challenged.status == .unauthorized,
                "verify_credentials answered \(challenged.status.code) without credentials"
            )
            let bearer = AuthenticationChallenge.parseEachField(challenged.headerFields, name: .wwwAuthenticate)
                .challenges
                .first { $0.hasScheme("Bearer") }
            try expect(
                bearer?.parameter("resource_metadata") != nil,
                "the 401's Bearer challenge names no resource_metadata"
            )

            let found = try await OAuth2.ResourceDiscovery.discover(resource: resource, transport: context.transport)
            try expect(found.server.issuer == context.base, "the resource is guarded by \(found.server.issuer)")
            // The consent as a browser gives it; the scripted agent brings back where it was sent.
            let agent = ScriptedUserAgent(redirectURI: "http://127.0.0.1:53125/callback") { url in
                try expect(
                    queryValue(url, "resource") == resource,
                    "the authorization request has no resource=\(resource)"
                )
                return [try await context.oauth2Consent(url)]
            }
            let signedIn = try await OAuth2.ResourceSignIn.signIn(
                found,
                identities: [.dynamicRegistration(.init(redirectURIs: [], clientName: "remote-auth demo"))],
                agent: agent,
                transport: context.transport,
                now: unixNow
            )
            guard case .dynamicallyRegistered(let registered) = signedIn.identification else {
                throw StepFailure(description: "the client was not registered (RFC 7591)")
            }
            let session = try OAuth2.TokenSession(
                session: signedIn.session,
                store: InMemoryTokenStore(),
                service: "demo",
                account: "alice",
                policy: OAuth2.RefreshPolicy(expirySkew: 0),
                now: unixNow,
                source: signedIn.session.tokenSource(
                    flow: try signedIn.session.flow(over: context.transport, now: unixNow)
                )
            )
            let client = AuthenticatingClient(transport: context.transport, session: session)
            let (verified, body) = try await client.get(verifyCredentials)
            try expect(verified.status == .ok, "verify_credentials answered \(verified.status.code) after the sign-in")
            let user = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
            let screenName = user?["screen_name"] as? String
            try expect(screenName == "alice", "verify_credentials answered as \(screenName ?? "nobody")")

            // The token's audience is the status API: the other resource on the origin refuses it.
            var files = try HTTPRequest(method: .get, absoluteURL: context.base + "/files")
            files.headerFields[.authorization] = "Bearer " + (try await session.validTokens()).accessToken.reveal()
            let (refused, _) = try await context.transport.send(files, body: nil)
            try expect(refused.status == .unauthorized, "/files answered \(refused.status.code) to the /1.1 token")
            return
                "401 → metadata of \(resource) → registered client \(registered.clientID.prefix(8))… → consent → 200 as alice; /files refuses the token"
        }
    ]
}
