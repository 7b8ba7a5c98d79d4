import HTTPTypes

/// A request target in origin form, `path?query`, split once: the one place the library
/// separates a request's path from its query
/// ([RFC 9112 §3.2.1](https://www.rfc-editor.org/rfc/rfc9112#section-3.2.1),
/// [RFC 3986 §3.3–3.4](https://www.rfc-editor.org/rfc/rfc3986#section-3.3)). Absolute URLs are
/// split by `URIReference` (RFC 3986 Appendix B) and checked by
/// `HTTPRequest(method:absoluteURL:headerFields:)`.
package struct RequestTarget: Sendable, Hashable {
    /// The path, as sent (not decoded, not normalized).
    package let path: Substring
    /// The query after the first `?`, as sent; `nil` when the target has no `?` (an empty
    /// query, `/p?`, is `""`).
    package let query: Substring?

    package init(_ target: String) {
        if let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) {
            path = target[..<mark]
            query = target[target.index(after: mark)...]
        } else {
            path = Substring(target)
            query = nil
        }
    }
}

extension HTTPRequest {
    /// The request's `:path` pseudo-header split into path and query (`/` when it has none).
    package var target: RequestTarget { RequestTarget(path ?? "/") }

    /// `scheme://authority` of the request, as written (the origin a well-known URL is built on).
    package var originPrefix: String { (scheme ?? "https") + "://" + (authority ?? "") }
}
