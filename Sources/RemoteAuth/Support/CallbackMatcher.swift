extension OAuth1 {
    /// ``RemoteAuth/CallbackMatcher``, by its earlier name.
    public typealias CallbackMatcher = RemoteAuth.CallbackMatcher
}

/// Recognizes the callback among the URLs a user agent navigates to, for apps that do not
/// run a loopback listener, in OAuth 1.0a and OAuth 2 alike: a private-use scheme
/// (`com.example.app:/oauth2redirect`, [RFC 8252 §7.1](https://www.rfc-editor.org/rfc/rfc8252#section-7.1),
/// or `myapp://oauth-callback`) handed to the app by the system, or a fake callback domain
/// (`https://callback.invalid/oauth`) that a web view's navigation delegate intercepts before
/// the request is sent.
///
/// Scheme and host compare case-insensitively (RFC 3986 §6.2.2.1), a default port equals no
/// port, the path must be the same exactly; the query and fragment (where `oauth_verifier`,
/// or OAuth 2's `code`, `state` and `iss`, arrive) are not compared.
public struct CallbackMatcher: Sendable, Hashable {
    /// The callback URL, as given, that incoming URLs are compared with.
    public let callback: String
    let scheme: String
    let authority: String
    let path: String

    /// - Throws: ``RequestURLError`` when `callback` is not `scheme://authority/path` or `scheme:/path`.
    public init(callback: String) throws {
        self.callback = callback
        (scheme, authority, path) = try Self.split(callback)
    }

    /// Whether `url` is the callback (any query and fragment).
    public func matches(_ url: String) -> Bool {
        guard let (scheme, authority, path) = try? Self.split(url) else { return false }
        return scheme == self.scheme && authority == self.authority && path == self.path
    }

    /// `scheme://authority/path`, or `scheme:/path` with no authority (RFC 8252 §7.1's form
    /// for private-use schemes); the query and fragment dropped.
    static func split(_ url: String) throws -> (String, String, String) {
        guard let colon = url.firstIndex(of: ":"), colon > url.startIndex,
            url[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }),
            url.first?.isLetter == true
        else {
            throw RequestURLError("'\(url)' is not scheme://host/path or scheme:/path")
        }
        let scheme = url[..<colon].lowercased()
        var rest = url[url.index(after: colon)...]
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        guard rest.hasPrefix("//") else {
            // RFC 8252 §7.1: `com.example.app:/oauth2redirect/example-provider`.
            guard rest.hasPrefix("/") else { throw RequestURLError("'\(url)' has no path") }
            return (scheme, "", String(rest))
        }
        rest = rest.dropFirst(2)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<slash].lowercased()
        if scheme == "https", authority.hasSuffix(":443") { authority.removeLast(4) }
        if scheme == "http", authority.hasSuffix(":80") { authority.removeLast(3) }
        let path = rest[slash...].isEmpty ? "/" : String(rest[slash...])
        return (scheme, authority, path)
    }
}
