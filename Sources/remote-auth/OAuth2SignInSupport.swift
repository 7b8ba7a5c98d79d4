import ArgumentParser
import Foundation
import RemoteAuth
import RemoteAuthFileStore
import RemoteAuthLoopback

// What the OAuth 2 sign-ins of the tool share: `authorize oauth2` (with --issuer or from a
// --resource alone) and `request --sign-in`.

/// Keeps `session` as the only one under `profile`.
func saveOAuth2Profile(_ profile: String, _ session: OAuth2.Session, in store: ProfileStore) async throws {
    try await store.replace(profile: profile, with: .oauth2(session), account: session.clientID)
}

/// An OAuth 2 failure for the user: the server's `error` and `error_description`, never a
/// token or a secret; a sign-in that must be done again says how.
func describeOAuth2(_ error: any Error, profile: String) -> String {
    guard let error = error as? OAuth2.Error else { return describe(error) }
    if error.code == .reauthorizationRequired {
        return "\(error.reason); sign in again: remote-auth authorize oauth2 --profile \(profile) …"
    }
    if let server = error.serverError {
        // What the server wrote is escaped: RFC 6749 §5.2 limits it to printable ASCII, and a
        // hostile server ignores that.
        var text = "the server refused: \(PeerText.printable(server.code.rawValue, limit: 200))"
        if let detail = server.errorDescription { text += " (\(PeerText.printable(detail, limit: 500)))" }
        if let uri = server.errorURI { text += " see \(PeerText.printable(uri, limit: 500))" }
        return text
    }
    return error.reason
}

/// The loopback listener with the system browser (RFC 8252 §7.3), through the same seam as an
/// app's user agent, saying on stderr where it waits and what it ignored.
func terminalLoopbackAgent(noBrowser: Bool, timeout: Int) -> LoopbackUserAgent {
    let waitingAt = Locked("")
    return LoopbackUserAgent(
        open: { url in presentAuthorizationURL(url, noBrowser: noBrowser) },
        timeout: .seconds(timeout),
        onIgnored: { reason in
            Terminal.writeError(
                "Ignored a request to \(waitingAt.withLock { $0 }): \(PeerText.printable(reason)); still waiting.\n"
            )
        },
        onListening: { uri in
            waitingAt.withLock { $0 = uri }
            Terminal.writeError("Waiting for the browser to come back to \(uri) (up to \(timeout) s)…\n")
        }
    )
}

/// Hands the authorization URL to the user, the same way for OAuth 1.0a and OAuth 2: a line on
/// stderr that says what to do, then the URL alone on a line of stdout (so that a script can
/// read it), whether the browser was opened or not.
func presentAuthorizationURL(_ url: String, noBrowser: Bool) {
    if noBrowser || !AuthorizeOAuth1.openBrowser(url) {
        Terminal.writeError("Open this URL in a browser:\n")
    } else {
        Terminal.writeError("Opened the browser at:\n")
    }
    Terminal.writeLine(url)
}

/// `--redirect-uri` for the loopback listener: `http`, on `127.0.0.1` or `localhost` (the
/// listener binds 127.0.0.1; RFC 8252 §7.3 prefers the IP literal, §8.3), with a fixed port or
/// none (a free one), a path and no query or fragment. What the listener cannot serve is
/// refused, never rewritten: the server compares the redirect URI with the registered one.
struct LoopbackRedirect {
    let host: String
    let port: Int?
    let path: String

    init(_ uri: String) throws {
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased()
        else {
            throw ValidationError("--redirect-uri must be an absolute URL, not '\(uri)'")
        }
        guard scheme == "http" else {
            throw ValidationError(
                "--redirect-uri must be http://127.0.0.1[:PORT]/PATH for the loopback listener (RFC 8252 §7.3), not \(scheme): use --paste for a redirect the listener cannot receive"
            )
        }
        guard host == "127.0.0.1" || host == "localhost" else {
            throw ValidationError(
                "--redirect-uri must name 127.0.0.1 (or localhost), where the listener runs, not '\(host)': use --paste for a redirect to another host"
            )
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw ValidationError("--redirect-uri's port must be between 1 and 65535, not \(port)")
        }
        guard components.percentEncodedQuery == nil, components.fragment == nil, components.user == nil else {
            throw ValidationError("--redirect-uri must have no query, fragment or user for the loopback listener")
        }
        self.host = host
        self.port = components.port
        self.path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
    }

    /// The redirect URI sent, with the port the listener got.
    func uri(listening listenerURL: String) -> String {
        let port = URLComponents(string: listenerURL)?.port ?? self.port ?? 0
        return "http://\(host):\(port)\(path)"
    }
}
