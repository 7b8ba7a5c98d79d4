import HTTPTypes
import Hummingbird
import RemoteAuth

/// The end-session endpoint, `GET` or `POST /oauth2/logout`
/// ([OpenID Connect RP-Initiated Logout 1.0 §2](https://openid.net/specs/openid-connect-rpinitiated-1_0.html#RPLogout)).
///
/// - `id_token_hint`: an ID token this provider signed for its issuer (signature checked with
///   the current or previous keys); an expired one is taken, as §2 asks ("even when the exp
///   time has passed"). Its `aud` names the client.
/// - `client_id`: a registered client; with `id_token_hint`, the token's audience (§2: "the OP
///   MUST verify that the Client Identifier matches the one used when issuing the ID Token").
/// - `post_logout_redirect_uri`: only with `id_token_hint` or `client_id`, and only when it is,
///   character for character, one of the client's ``SandboxConfiguration/OAuth2Client/postLogoutRedirectURIs``
///   ([§3](https://openid.net/specs/openid-connect-rpinitiated-1_0.html#RedirectionAfterLogout):
///   "MUST NOT perform post-logout redirection if the post_logout_redirect_uri value supplied
///   does not exactly match"); `state` is passed back in its query (§2, §3).
///
/// Every refusal is a page, never a redirect. What a logout ends, once everything checked: the
/// grant the `id_token_hint` came from (its `sid`): its refresh and access tokens are revoked,
/// so a refresh then answers `invalid_grant` and the status API and UserInfo `invalid_token`;
/// and the browser's sign-in session (the `remote_auth_session` cookie). With only `client_id`
/// the sandbox cannot tell which grant is meant and ends the browser session alone. It does not
/// ask the user to confirm (as with `--auto-approve`).
extension OpenIDRoutes {
    func logout(_ request: Request, parameters: OAuth2Parameters) async throws -> Response {
        func refuse(_ title: String, _ text: String) -> ConsentPage.Refusal {
            ConsentPage.Refusal(.badRequest, title, text)
        }
        var client: SandboxConfiguration.OAuth2Client?
        var family: String?
        if let hint = parameters["id_token_hint"] {
            guard let claims = provider.claimsOfIssued(hint, now: configuration.now()) else {
                throw refuse("Invalid id_token_hint", "The id_token_hint is not an ID token this provider issued.")
            }
            let audiences: [String] =
                switch claims["aud"] {
                case .string(let aud)?: [aud]
                case .array(let values)?: values.compactMap(\.stringValue)
                default: []
                }
            guard audiences.count == 1,
                let registered = store.clients.client(audiences[0])
            else {
                throw refuse("Invalid id_token_hint", "The id_token_hint's audience is not one registered client.")
            }
            if let clientID = parameters["client_id"], clientID != registered.id {
                throw refuse("Client mismatch", "The client_id is not the client the id_token_hint was issued to.")
            }
            client = registered
            family = claims["sid"]?.stringValue.flatMap(provider.family(sid:))
        } else if let clientID = parameters["client_id"] {
            guard let registered = store.clients.client(clientID) else {
                throw refuse("Unknown client", "The client_id names no registered client.")
            }
            client = registered
        }
        var location: String?
        if let uri = parameters["post_logout_redirect_uri"] {
            guard let client else {
                throw refuse(
                    "Unknown client",
                    "A post_logout_redirect_uri needs an id_token_hint or a client_id to check it against."
                )
            }
            guard client.postLogoutRedirectURIs.contains(uri) else {
                throw refuse(
                    "Invalid post_logout_redirect_uri",
                    "The post_logout_redirect_uri is not registered for this client."
                )
            }
            location = ConsentRoutes.appending(parameters["state"].map { [("state", $0)] } ?? [], to: uri)
        }
        // Everything checked: end the grant and the browser's session.
        if let family {
            try await store.revokeFamily(family)
            provider.forget(family: family)
        }
        await consent.endSession(request)
        let clearCookie = HTTPField(
            name: .setCookie,
            value: "remote_auth_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax"
        )
        var response: Response
        if let location {
            response = SandboxResponse.redirect(to: location)
        } else {
            response = ConsentPage.page(status: .ok, title: "Signed out", body: "<h1>You are signed out.</h1>")
        }
        response.headers.append(clearCookie)
        return response
    }
}
