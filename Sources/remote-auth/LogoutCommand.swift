import ArgumentParser
import Foundation
import RemoteAuth
import RemoteAuthFileStore
import RemoteAuthLoopback

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `remote-auth logout`: RP-initiated logout at the OpenID provider of an `--oidc` profile
/// ([OpenID Connect RP-Initiated Logout 1.0](https://openid.net/specs/openid-connect-rpinitiated-1_0.html)),
/// then the profile is forgotten.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract:
            "Sign out at the OpenID provider of an --oidc profile (RP-Initiated Logout 1.0) and remove the profile.",
        discussion: ExitStatus.discussion(
            """
            The logout URL is the profile's end_session_endpoint with its ID token as id_token_hint and \
            its client_id (§2); it opens in the browser, or is printed on a line of its own with \
            --no-browser (it holds the ID token: do not log it). With --post-logout-redirect-uri \
            http://127.0.0.1:PORT/PATH, registered with the provider (which compares it exactly, §3), a \
            listener on that port waits for the provider to send the browser back, and the state it \
            brings (a fresh 128-bit value sent with the request) is checked. First, when the profile \
            names a revocation endpoint, its refresh and access tokens are revoked (RFC 7009): the grant \
            ends whatever the browser does. The profile is removed once the browser came back, or once \
            the tokens are revoked; otherwise nothing confirms the logout, and the profile is kept until \
            you confirm it on the terminal (or run 'remote-auth profiles remove').
            """
        )
    )

    @Option(help: "The OAuth 2 profile signed in with 'authorize oauth2 --oidc'.")
    var profile: String

    @OptionGroup(title: "Profiles")
    var storeOptions: StoreOptions

    @Option(
        help:
            "A post_logout_redirect_uri registered for the client, http://127.0.0.1:PORT/PATH: the browser comes back there and its state is checked."
    )
    var postLogoutRedirectURI: String?

    @Flag(help: "Print the logout URL instead of opening the browser.")
    var noBrowser = false

    @Option(help: "Seconds to wait for the browser to come back (at least 1).")
    var timeout = 300

    /// The port and path of `--post-logout-redirect-uri`: a loopback `http` URL with a port.
    var listenerAddress: (port: Int, path: String)? {
        guard let uri = postLogoutRedirectURI, let components = URLComponents(string: uri),
            components.scheme == "http", components.host == "127.0.0.1", let port = components.port, port > 0,
            components.query == nil, components.fragment == nil
        else { return nil }
        return (port, components.path.isEmpty ? "/" : components.path)
    }

    func validate() throws {
        guard timeout > 0 else {
            throw ValidationError("--timeout must be a whole number of seconds, at least 1, not \(timeout)")
        }
        if postLogoutRedirectURI != nil, listenerAddress == nil {
            throw ValidationError(
                "--post-logout-redirect-uri must be http://127.0.0.1:PORT/PATH (with its port, no query): the listener's address"
            )
        }
    }

    func run() async throws {
        let profile = try await OAuth2Profile.require(self.profile, from: try await storeOptions.open())
        let session = profile.session
        guard session.openIDProvider?.endSessionEndpoint != nil, session.tokens.idToken != nil else {
            throw CLIFailure(
                "profile '\(profile.name)' keeps no end_session_endpoint and ID token: sign in with 'remote-auth authorize oauth2 --oidc' at a provider that offers RP-initiated logout"
            )
        }
        // RFC 7009: the grant ends here, whatever the browser does next; the refresh token is
        // the profile's only copy, so it is revoked before the profile can be removed. Done once
        // the listener (if any) is bound: a port in use fails the logout before anything is
        // revoked.
        @Sendable func revoke() async throws -> Bool {
            guard session.revocationEndpoint != nil else { return false }
            try await RequestCommand.withTransport(nil, connectTimeout: nil, timeout: nil) { transport in
                let flow = try profile.flow(over: transport)
                if let refreshToken = session.tokens.refreshToken {
                    try await flow.revoke(refreshToken, hint: .refreshToken)
                }
                try await flow.revoke(session.tokens.accessToken, hint: .accessToken)
            }
            Terminal.writeError("Revoked the profile's tokens at the provider (RFC 7009).\n")
            return true
        }
        do {
            if let uri = postLogoutRedirectURI, let address = listenerAddress {
                // §2: state, returned to the post-logout redirect, ties the answer to this request.
                let state = RemoteAuthBase64URL.encode(RandomSource.system.bytes(16))
                let request = try session.logoutRequest(postLogoutRedirectURI: uri, state: state)
                let noBrowser = self.noBrowser
                let timeout = self.timeout
                let _: String = try await LoopbackCallbackListener.withListener(
                    path: address.path,
                    port: address.port,
                    page: "You are signed out. You can close this window.",
                    title: "Signed out"
                ) { _, listener in
                    _ = try await revoke()
                    Self.hand(request.url, noBrowser: noBrowser)
                    Terminal.writeError("Waiting for the browser to come back to \(uri) (up to \(timeout) s)…\n")
                    // §3: only the redirect with the state sent ends the wait; another request is
                    // told so, and the wait goes on.
                    return try await listener.callback(timeout: .seconds(timeout)) {
                        (back: String) -> LoopbackCallbackListener.Decision<String> in
                        let returned = URLComponents(string: back)?.queryItems?.filter { $0.name == "state" }
                            .compactMap(\.value)
                        guard let returned, returned.count == 1, constantTimeEquals(returned[0], state) else {
                            let reason = "the request does not carry the state sent with the logout request"
                            Terminal.writeError("Ignored a request to \(uri): \(reason); still waiting.\n")
                            return .ignore(reason: reason)
                        }
                        return .accept(back)
                    }
                }
            } else {
                let revoked = try await revoke()
                Self.hand(try session.logoutRequest().url, noBrowser: noBrowser)
                if !revoked {
                    // Nothing says the provider ended the session: the profile (the only copy of
                    // the refresh token) stays until the user says it did.
                    guard isatty(STDIN_FILENO) == 1 else {
                        Terminal.writeLine(
                            "Kept profile '\(profile.name)': it names no revocation endpoint and nothing confirms the logout; once the provider says you are signed out, 'remote-auth profiles remove \(profile.name)' forgets it."
                        )
                        return
                    }
                    Terminal.writeError("Press Enter once the provider says you are signed out (Ctrl-D keeps the profile): ")
                    guard readLine(strippingNewline: true) != nil else {
                        Terminal.writeError("\n")
                        Terminal.writeLine("Kept profile '\(profile.name)'.")
                        return
                    }
                }
            }
        } catch let failure as CLIFailure {
            throw failure
        } catch {
            throw profile.failure(error)
        }
        try await profile.store.removeSession(service: profile.key.service, account: profile.key.account)
        Terminal.writeLine("Signed out; removed profile '\(profile.name)'.")
    }

    /// Opens the URL, or prints it (it holds the ID token, so only when it must be).
    static func hand(_ url: String, noBrowser: Bool) {
        if !noBrowser, AuthorizeOAuth1.openBrowser(url) {
            Terminal.writeError("Opened the browser at the provider's logout page.\n")
        } else {
            Terminal.writeError("Open this URL in a browser to sign out:\n")
            Terminal.writeLine(url)
        }
    }
}
