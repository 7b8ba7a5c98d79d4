extension OAuth1 {
    /// Recognizes the callback among the URLs a user agent navigates to, for apps that do not
    /// run a loopback listener: a custom scheme (`myapp://oauth-callback`) handed to the app by
    /// the system, or a fake callback domain (`https://callback.invalid/oauth`) that a web view's
    /// navigation delegate intercepts before the request is sent.
    ///
    /// Scheme and host compare case-insensitively (RFC 3986 §6.2.2.1), a default port equals no
    /// port, the path must be the same exactly; the query and fragment (where `oauth_token`
    /// and `oauth_verifier` arrive) are not compared.
    public struct CallbackMatcher: Sendable, Hashable {
        public let callback: String
        let scheme: String
        let authority: String
        let path: String

        /// - Throws: ``RequestURLError`` when `callback` is not `scheme://authority/path`.
        public init(callback: String) throws {
            self.callback = callback
            (scheme, authority, path) = try Self.split(callback)
        }

        /// Whether `url` is the callback (any query and fragment).
        public func matches(_ url: String) -> Bool {
            guard let (scheme, authority, path) = try? Self.split(url) else { return false }
            return scheme == self.scheme && authority == self.authority && path == self.path
        }

        static func split(_ url: String) throws -> (String, String, String) {
            guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else {
                throw RequestURLError("'\(url)' is not scheme://host/path")
            }
            let scheme = url[..<colon].lowercased()
            var rest = url[url.index(colon, offsetBy: 3)...]
            if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            var authority = rest[..<slash].lowercased()
            if scheme == "https", authority.hasSuffix(":443") { authority.removeLast(4) }
            if scheme == "http", authority.hasSuffix(":80") { authority.removeLast(3) }
            let path = rest[slash...].isEmpty ? "/" : String(rest[slash...])
            return (scheme, authority, path)
        }
    }
}
