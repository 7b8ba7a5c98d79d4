public import HTTPTypes

/// A failure to read an absolute `http`/`https` URL.
public struct RequestURLError: Error, Hashable, CustomStringConvertible {
    public let reason: String
    /// Creates the error with `reason`, in plain words.
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "RequestURLError: \(reason)" }
}

/// Requests made from an absolute URL string.
extension HTTPRequest {
    /// A request for an absolute URL, without Foundation: `scheme://authority/path?query`.
    ///
    /// The scheme is lowercased; the authority and the path and query are kept exactly as
    /// written (a signature covers the path as sent, RFC 5849 §3.4.1.2). A fragment is dropped;
    /// user information (`user:password@`) is refused, as credentials never travel in URLs here.
    /// A control character anywhere (CR, LF, NUL, …, DEL) is refused, as curl refuses it: no
    /// valid URL holds one ([RFC 3986 §2](https://www.rfc-editor.org/rfc/rfc3986#section-2)), and
    /// encoding it silently would send a request other than the one written.
    public init(method: Method, absoluteURL: String, headerFields: HTTPFields = [:]) throws {
        if let control = absoluteURL.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw RequestURLError(
                "the URL holds a control character (U+\(String(control.value, radix: 16, uppercase: true).leftPadded(to: 4))): percent-encode it if it is meant"
            )
        }
        guard let colon = absoluteURL.firstIndex(of: ":"),
            absoluteURL[colon...].hasPrefix("://")
        else {
            throw RequestURLError("'\(absoluteURL)' is not an absolute URL (expected scheme://host/path)")
        }
        let scheme = absoluteURL[..<colon].lowercased()
        guard let first = scheme.first, first.isLetter, scheme.allSatisfy(Self.isSchemeCharacter) else {
            throw RequestURLError("'\(absoluteURL)' has no valid scheme")
        }
        var rest = absoluteURL[absoluteURL.index(colon, offsetBy: 3)...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.isEmpty else {
            throw RequestURLError("'\(absoluteURL)' has no host")
        }
        guard !authority.contains("@") else {
            throw RequestURLError("user information in a URL is not supported; pass credentials explicitly")
        }
        guard !authority.contains(where: { $0 == " " || $0 == "\t" || $0.isNewline }) else {
            throw RequestURLError("'\(absoluteURL)' has white space in its host")
        }
        var path = String(rest[authorityEnd...])
        if path.isEmpty { path = "/" } else if path.hasPrefix("?") { path = "/" + path }
        self.init(method: method, scheme: scheme, authority: String(authority), path: path, headerFields: headerFields)
    }

    private static func isSchemeCharacter(_ c: Character) -> Bool {
        c.isLetter || c.isNumber || c == "+" || c == "-" || c == "."
    }

    /// `scheme://authority/path?query` of this request.
    public var absoluteURL: String {
        (scheme ?? "") + "://" + (authority ?? "") + (path ?? "/")
    }
}

extension String {
    fileprivate func leftPadded(to count: Int) -> String {
        String(repeating: "0", count: Swift.max(0, count - self.count)) + self
    }
}
