import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthLoopback
import RemoteAuthSandbox
import Testing

/// OpenID Connect RP-Initiated Logout 1.0 against the sandbox over real sockets: the library
/// builds the logout URL, the sandbox's end-session endpoint checks it and sends the browser to
/// a loopback listener with the `state`, and the grant is over.
@Suite("RP-initiated logout at the sandbox", .timeLimit(.minutes(5)))
struct OpenIDLogoutSandboxTests {
    @Test func logoutEndsTheGrantAndRedirectsWithState() async throws {
        let clock = OIDCTestClock()
        try await LoopbackCallbackListener.withListener(path: "/logged-out") { callbackURL, listener in
            var configuration = try OpenIDConnectSandboxTests.configuration(clock: clock)
            let index = try #require(configuration.oauth2Clients.firstIndex { $0.id == "demo-app" })
            configuration.oauth2Clients[index].postLogoutRedirectURIs = [callbackURL]
            try await Sandbox.withSandbox(configuration) { sandbox in
                try await AsyncHTTPClientTransport.withTransport { transport in
                    let base = sandbox.baseURL
                    let flow = try await OAuth2.Flow.discoverOpenIDConnect(
                        issuer: base,
                        client: .public(id: "demo-app"),
                        transport: transport,
                        now: clock.closure
                    )
                    #expect(flow.openIDConnect?.endSessionEndpoint == base + "/oauth2/logout")
                    let signIn = try await OpenIDConnectSandboxTests.signIn(flow)
                    let sid = try #require(signIn.idToken.claims["sid"]?.stringValue)
                    #expect(sid.count == 43)

                    // Refusals: a page (400), never a redirect; the grant goes on.
                    let hint = signIn.idToken.token.reveal()
                    func logout(_ pairs: [(name: String, value: String)]) async throws -> Exchange {
                        try await Wire.get(base + "/oauth2/logout?" + FormURLEncoding.encode(pairs))
                    }
                    let forged = try JOSE.JWS.sign(
                        claims: ["iss": .string(base), "aud": "demo-app", "sub": "1001", "sid": .string(sid)],
                        with: .generateP256(keyID: "ec-1"),
                        header: ["typ": "JWT"]
                    )
                    let refused: [[(name: String, value: String)]] = [
                        [("id_token_hint", hint), ("post_logout_redirect_uri", callbackURL + "x"), ("state", "s")],
                        [
                            ("id_token_hint", hint),
                            (
                                "post_logout_redirect_uri",
                                callbackURL.replacingOccurrences(of: "127.0.0.1", with: "localhost")
                            ),
                        ],
                        [("id_token_hint", hint), ("client_id", "ec-app")],
                        [("id_token_hint", forged)],
                        [("id_token_hint", "not.a.token")],
                        [("post_logout_redirect_uri", callbackURL)],
                        [("client_id", "nobody"), ("post_logout_redirect_uri", callbackURL)],
                        [("client_id", "ec-app"), ("post_logout_redirect_uri", callbackURL)],
                    ]
                    for pairs in refused {
                        let answer = try await logout(pairs)
                        #expect(answer.status == 400, "\(pairs.map(\.name))")
                        #expect(answer.header("Location") == nil)
                    }
                    clock.advance(10)
                    let renewed = try await flow.refresh(signIn.tokens)
                    #expect(renewed.idToken.map { try? JOSE.CompactJWS($0.reveal()).claims()["sid"] } == .string(sid))

                    // The ID token has expired (exp = iat + 3600): still a valid hint (§2).
                    clock.advance(3700)
                    let request = try flow.logoutRequest(
                        idToken: signIn.idToken,
                        postLogoutRedirectURI: callbackURL,
                        state: "logout-state-0123456789"
                    )
                    #expect(
                        request.url
                            == base + "/oauth2/logout?"
                            + FormURLEncoding.encode([
                                ("id_token_hint", hint), ("client_id", "demo-app"),
                                ("post_logout_redirect_uri", callbackURL), ("state", "logout-state-0123456789"),
                            ])
                    )
                    let answer = try await Wire.get(request.url)
                    #expect(answer.status == 302)
                    let location = try #require(answer.header("Location"))
                    #expect(location == callbackURL + "?state=logout-state-0123456789")
                    #expect(
                        answer.header("Set-Cookie") == "remote_auth_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax"
                    )
                    async let arrived = Wire.get(location)
                    #expect(
                        try await listener.callback(timeout: TestTime.hangGuard) == callbackURL
                            + "?state=logout-state-0123456789"
                    )
                    #expect(try await arrived.status == 200)

                    // The grant is over: its refresh token is revoked.
                    do {
                        _ = try await flow.refresh(renewed)
                        Issue.record("the refresh token survived the logout")
                    } catch let error as OAuth2.Error {
                        #expect(error.serverError?.code == .invalidGrant)
                    }
                    // The same hint again: accepted (the session is already over), a page without redirect.
                    let again = try await logout([("id_token_hint", hint)])
                    #expect(again.status == 200)
                    #expect(again.body.contains("You are signed out."))
                }
            }
        }
    }
}
