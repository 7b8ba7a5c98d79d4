import AsyncHTTPClient
import Foundation
import RemoteAuth

/// curl's proxy options and environment: `--proxy`/`-x`, `--proxy-user`/`-U`, `--noproxy`,
/// `https_proxy`/`HTTPS_PROXY`, `http_proxy` (lowercase only, as curl: a CGI program gets
/// `HTTP_PROXY` from a request's `Proxy:` header) and `no_proxy`/`NO_PROXY`. Only http proxies,
/// reached with CONNECT.
struct ProxyChoice: Equatable {
    let host: String
    let port: Int
    /// `USER:PASSWORD` from `--proxy-user` or the proxy URL's userinfo.
    let user: String?

    var url: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// The proxy for `target` (a scheme and host), or `nil` for none.
    static func select(
        option: String?,
        proxyUser: String?,
        noProxy: String?,
        scheme: String,
        host: String,
        environment: [String: String]
    ) throws -> ProxyChoice? {
        let configured: String?
        let source: String
        if let option {
            configured = option
            source = "--proxy"
        } else if scheme == "https" {
            configured = environment["https_proxy"] ?? environment["HTTPS_PROXY"]
            source = environment["https_proxy"] != nil ? "https_proxy" : "HTTPS_PROXY"
        } else {
            configured = environment["http_proxy"]
            source = "http_proxy"
        }
        guard let configured, !configured.isEmpty else { return nil }
        let exceptions = noProxy ?? environment["no_proxy"] ?? environment["NO_PROXY"] ?? ""
        if isExcepted(host: host, by: exceptions) { return nil }
        return try parse(configured, source: source, proxyUser: proxyUser)
    }

    /// curl's `NO_PROXY`: `*`, or a comma-separated list of host names (matching the host and
    /// its subdomains, a leading dot optional) and IP addresses.
    static func isExcepted(host: String, by list: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        for entry in list.split(separator: ",") {
            var name = entry.trimmingCharacters(in: .whitespaces).lowercased()
            if name == "*" { return true }
            if name.hasPrefix(".") { name.removeFirst() }
            name = name.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            if name.isEmpty { continue }
            if host == name || host.hasSuffix("." + name) { return true }
        }
        return false
    }

    /// `[http://][user:password@]host[:port]`; curl's default port, 1080.
    static func parse(_ text: String, source: String, proxyUser: String?) throws -> ProxyChoice {
        var rest = Substring(text)
        if let scheme = rest.range(of: "://") {
            let name = rest[..<scheme.lowerBound].lowercased()
            guard name == "http" else {
                throw CLIFailure(
                    "\(source): a \(name):// proxy is not supported, only http:// (an https URL still goes through it encrypted, with CONNECT)"
                )
            }
            rest = rest[scheme.upperBound...]
        }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        var user = proxyUser
        if let at = rest.lastIndex(of: "@") {
            let info = rest[..<at].removingPercentEncoding ?? String(rest[..<at])
            if user == nil { user = info }
            rest = rest[rest.index(after: at)...]
        }
        var host = String(rest)
        var port = 1080
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") {
                guard let number = Int(after.dropFirst()) else { throw invalid(source) }
                port = number
            }
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if let colon = host.lastIndex(of: ":") {
            guard let number = Int(host[host.index(after: colon)...]) else { throw invalid(source) }
            port = number
            host = String(host[..<colon])
        }
        guard !host.isEmpty, (1...65535).contains(port) else { throw invalid(source) }
        return ProxyChoice(host: host, port: port, user: user)
    }

    static func invalid(_ source: String) -> CLIFailure {
        CLIFailure("invalid \(source): expected [http://]HOST[:PORT]")
    }

    /// The user and password of `--proxy-user USER:PASSWORD` (a `USER` alone takes the password
    /// from REMOTE_AUTH_PROXY_PASSWORD).
    func userAndPassword() throws -> (user: String, password: String)? {
        guard let user else { return nil }
        if let colon = user.firstIndex(of: ":") {
            return (String(user[..<colon]), String(user[user.index(after: colon)...]))
        }
        guard let password = ProcessInfo.processInfo.environment["REMOTE_AUTH_PROXY_PASSWORD"] else {
            throw CLIFailure(
                "--proxy-user \(user) has no password: set REMOTE_AUTH_PROXY_PASSWORD, or pass USER:PASSWORD"
            )
        }
        return (user, password)
    }

    /// AsyncHTTPClient's proxy. It tunnels every request with CONNECT, http ones too, so a 407
    /// answers the CONNECT inside the transport and never reaches the client's challenge
    /// handling: the `--proxy-user` credential goes with the CONNECT request itself, as Basic.
    func configuration() throws -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        if let credential = try userAndPassword() {
            configuration.proxy = .server(
                host: host,
                port: port,
                authorization: .basic(username: credential.user, password: credential.password)
            )
        } else {
            configuration.proxy = .server(host: host, port: port)
        }
        return configuration
    }

    /// AsyncHTTPClient's refusal by the proxy: a 407 to CONNECT.
    static func isProxyAuthenticationRequired(_ error: TransportError) -> Bool {
        (error.underlying as? HTTPClientError) == .proxyAuthenticationRequired
    }

    /// The proxy answered the CONNECT with something other than 2xx (403, 502, …): curl's 56.
    static func isTunnelRefused(_ error: TransportError) -> Bool {
        (error.underlying as? HTTPClientError) == .invalidProxyResponse
    }
}
