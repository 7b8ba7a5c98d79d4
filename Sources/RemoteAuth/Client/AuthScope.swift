public import HTTPTypes

/// Where a credential may be used: a web origin (scheme, host, port) and optionally one realm,
/// as Apache HttpClient's `AuthScope`. The scheme and host are lowercased and the port made
/// explicit, so `https://Example.org` and `https://example.org:443` are one scope; a lookup
/// never matches another host or port.
/// [RFC 6454 §4](https://www.rfc-editor.org/rfc/rfc6454#section-4),
/// [RFC 9110 §11.5](https://www.rfc-editor.org/rfc/rfc9110#section-11.5) (protection spaces)
public struct AuthScope: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`, lowercased.
    public let scheme: String
    /// The host, lowercased; an IPv6 address without its brackets.
    public let host: String
    /// The port, 80 or 443 when the URL names none.
    public let port: Int
    /// The realm the scope is limited to, compared exactly (realms are case-sensitive,
    /// RFC 9110 §11.5); `nil` for every realm of the origin.
    public let realm: String?

    /// - Throws: ``ClientError/Code/invalidURL`` for a scheme other than `http`/`https`, an
    ///   empty host or a port outside 1...65535.
    public init(scheme: String, host: String, port: Int? = nil, realm: String? = nil) throws {
        let scheme = scheme.lowercased()
        guard let defaultPort = Self.defaultPort(scheme) else {
            throw ClientError(.invalidURL, "scheme '\(scheme)' is neither http nor https")
        }
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ClientError(.invalidURL, "the host is empty") }
        let port = port ?? defaultPort
        guard (1...65535).contains(port) else { throw ClientError(.invalidURL, "port \(port) is out of range") }
        self.scheme = scheme
        self.host = host
        self.port = port
        self.realm = realm
    }

    /// The scope of an absolute URL's origin, optionally limited to `realm`.
    public init(url: String, realm: String? = nil) throws {
        let request: HTTPRequest
        do {
            request = try HTTPRequest(method: .get, absoluteURL: url)
        } catch let error as RequestURLError {
            throw ClientError(.invalidURL, error.reason)
        }
        self = try Self(origin: request).limited(to: realm)
    }

    /// The origin of `request` (its scheme and authority), for every realm.
    public init(origin request: HTTPRequest) throws {
        guard let scheme = request.scheme, let authority = request.authority else {
            throw ClientError(.invalidURL, "the request has no scheme or authority")
        }
        var host = Substring(authority)
        var port: Int? = nil
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw ClientError(.invalidURL, "unterminated IPv6 address in '\(authority)'")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            if rest.hasPrefix(":") { port = try Self.port(rest.dropFirst(), in: authority) }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = try Self.port(authority[authority.index(after: colon)...], in: authority)
        }
        try self.init(scheme: scheme, host: String(host), port: port)
    }

    private static func port(_ text: Substring, in authority: String) throws -> Int? {
        if text.isEmpty { return nil }
        guard text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), text.count <= 5, let port = Int(text) else {
            throw ClientError(.invalidURL, "'\(authority)' has an invalid port")
        }
        return port
    }

    static func defaultPort(_ scheme: String) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }

    /// This scope limited to `realm` (or to every realm when `nil`).
    public func limited(to realm: String?) -> AuthScope {
        AuthScope(unchecked: scheme, host: host, port: port, realm: realm)
    }

    private init(unchecked scheme: String, host: String, port: Int, realm: String?) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.realm = realm
    }

    /// The scope without its realm: the web origin.
    public var origin: AuthScope { limited(to: nil) }

    /// Whether a credential of this scope may answer `realm` at `origin`: same scheme, host and
    /// port, and the same realm unless this scope has none.
    public func matches(_ origin: AuthScope, realm: String?) -> Bool {
        scheme == origin.scheme && host == origin.host && port == origin.port
            && (self.realm == nil || self.realm == realm)
    }

    /// `localhost`, `127.0.0.0/8` or `::1`: traffic that never leaves the machine, so plain
    /// `http` to it exposes nothing on a network.
    public var isLoopback: Bool {
        if host == "localhost" || host == "localhost." || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { octet in
            !octet.isEmpty && octet.count <= 3 && octet.allSatisfy(\.isASCII) && UInt8(octet) != nil
        }
    }

    /// `scheme://host:port`, with `realm="…"` when limited to a realm.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let base = "\(scheme)://\(shownHost):\(port)"
        return realm.map { base + " realm=\"\($0)\"" } ?? base
    }
}
