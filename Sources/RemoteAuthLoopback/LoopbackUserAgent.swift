import Foundation
public import RemoteAuth

/// The sign-in user agent of a native app or a tool on a desktop: a ``LoopbackCallbackListener``
/// on `127.0.0.1` receives the redirect ([RFC 8252 §7.3](https://www.rfc-editor.org/rfc/rfc8252#section-7.3)),
/// and `open` shows the authorization URL in the system browser (``systemBrowser``) or anywhere
/// else. A request that is not the sign-in's answer gets an error page and the wait goes on;
/// the browser is told "signed in" only once the flow accepted the redirect.
///
/// ```swift
/// let tokens = try await flow.signIn(with: LoopbackUserAgent(), scope: ["read"])
/// ```
public struct LoopbackUserAgent: SignInUserAgent {
    let open: @Sendable (String) -> Void
    let timeout: Duration
    let onIgnored: @Sendable (String) -> Void
    let onListening: @Sendable (String) -> Void

    /// - Parameters:
    ///   - open: shows the authorization URL; by default ``systemBrowser`` (`xdg-open` or
    ///     `open`), which does not wait for the browser.
    ///   - timeout: how long to wait for the redirect.
    ///   - onIgnored: told the reason of each request that was not the answer.
    ///   - onListening: told the redirect URI the listener receives at (with the port it got),
    ///     once the authorization URL was opened: what a tool prints while it waits.
    public init(
        open: @escaping @Sendable (String) -> Void = LoopbackUserAgent.systemBrowser,
        timeout: Duration = .seconds(300),
        onIgnored: @escaping @Sendable (String) -> Void = { _ in },
        onListening: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.open = open
        self.timeout = timeout
        self.onIgnored = onIgnored
        self.onListening = onListening
    }

    /// Starts `xdg-open` or `open` with the URL, without waiting for it; does nothing when
    /// neither exists.
    public static let systemBrowser: @Sendable (String) -> Void = { url in _ = openInSystemBrowser(url) }

    /// Starts `xdg-open` (or `open` on macOS) with `url`, without waiting for it; `false` when
    /// neither could be started.
    public static func openInSystemBrowser(_ url: String) -> Bool {
        for tool in ["/usr/bin/xdg-open", "/usr/bin/open"] where FileManager.default.isExecutableFile(atPath: tool) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = [url]
            if (try? process.run()) != nil { return true }
        }
        return false
    }

    /// - Parameter redirectURI: a registered loopback redirect URI (`http://127.0.0.1:PORT/PATH`,
    ///   the port kept; without a port a free one is chosen, and the URI sent names it), or
    ///   `nil` for `/callback` on a free port. `localhost` is served too (the listener binds
    ///   127.0.0.1; RFC 8252 §8.3 prefers the literal) and kept as written: the server compares
    ///   the redirect URI with the registered one.
    /// - Parameter authorizationURL: turns the redirect URI the listener receives at into the URL to open.
    /// - Parameter callback: judges each request that reaches the callback path.
    /// - Throws: `SignInError.Code.unsupportedRedirectURI` for a redirect URI the listener
    ///   cannot serve (not `http` on `127.0.0.1` or `localhost`, or with a query, fragment or user);
    ///   ``LoopbackCallbackListener/ListenerError`` (`.timedOut`, `.portUnavailable`).
    public func signIn<Value: Sendable>(
        redirectURI: String?,
        authorizationURL: @escaping @Sendable (String) async throws -> String,
        callback: @escaping @Sendable (String) async throws -> SignInDecision<Value>
    ) async throws -> Value {
        let (host, path, port) = try Self.address(of: redirectURI)
        let open = self.open
        let timeout = self.timeout
        let onIgnored = self.onIgnored
        let onListening = self.onListening
        return try await LoopbackCallbackListener.withListener(path: path, port: port) { callbackURL, listener in
            // A registered URI without a port is served on the free port the listener got (RFC 8252 §7.3).
            let bound = URLComponents(string: callbackURL)?.port ?? port
            let uri = "http://\(host):\(bound)\(path)"
            open(try await authorizationURL(uri))
            onListening(uri)
            return try await listener.callback(timeout: timeout) { url in
                switch try await callback(url) {
                case .accept(let value): return .accept(value)
                case .ignore(let reason):
                    onIgnored(reason)
                    return .ignore(reason: reason)
                }
            }
        }
    }

    /// The host as written, the listener's path and its port (0: a free one) for `redirectURI`.
    static func address(of redirectURI: String?) throws -> (host: String, path: String, port: Int) {
        guard let redirectURI else { return ("127.0.0.1", "/callback", 0) }
        guard let components = URLComponents(string: redirectURI), components.scheme?.lowercased() == "http",
            let host = components.host?.lowercased(), host == "127.0.0.1" || host == "localhost",
            components.percentEncodedQuery == nil, components.fragment == nil, components.user == nil,
            (components.port.map { (1...65535).contains($0) }) ?? true
        else {
            throw SignInError(
                .unsupportedRedirectURI,
                "a loopback listener receives at http://127.0.0.1[:PORT]/PATH (RFC 8252 §7.3), not at \(redirectURI)"
            )
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return (host, path, components.port ?? 0)
    }
}
