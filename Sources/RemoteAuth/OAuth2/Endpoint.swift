import HTTPTypes

extension OAuth2 {
    /// Checks that `url` may carry OAuth traffic: `https`, or `http` to a loopback host
    /// (`127.0.0.0/8`, `[::1]`, `localhost`), where nothing leaves the machine
    /// ([RFC 6749 §3.1](https://www.rfc-editor.org/rfc/rfc6749#section-3.1) and
    /// [§3.2](https://www.rfc-editor.org/rfc/rfc6749#section-3.2) require TLS at the endpoints;
    /// [RFC 8252 §8.3](https://www.rfc-editor.org/rfc/rfc8252#section-8.3)).
    ///
    /// - Throws: ``OAuth2/Error/Code/insecureEndpoint`` for plain `http` elsewhere or another
    ///   scheme, ``OAuth2/Error/Code/invalidConfiguration`` when `url` is not absolute or has a
    ///   fragment ([RFC 6749 §3.1](https://www.rfc-editor.org/rfc/rfc6749#section-3.1)).
    public static func checkEndpoint(_ url: String) throws {
        let request: HTTPRequest
        do {
            request = try HTTPRequest(method: .get, absoluteURL: url)
        } catch {
            throw OAuth2.Error(.invalidConfiguration, "'\(url)' is not an absolute URL")
        }
        guard !url.contains("#") else {
            throw OAuth2.Error(.invalidConfiguration, "an endpoint URL has no fragment (RFC 6749 §3.1): '\(url)'")
        }
        switch request.scheme {
        case "https":
            return
        case "http" where isLoopback(authority: request.authority ?? ""):
            return
        default:
            throw OAuth2.Error(
                .insecureEndpoint,
                "'\(url)' is not https, and plain http is allowed only to a loopback host"
            )
        }
    }

    /// `true` for `127.x.y.z`, `[::1]` and `localhost`, with or without a port.
    static func isLoopback(authority: String) -> Bool {
        var host = Substring(authority.lowercased())
        if host.hasPrefix("[") {
            guard let end = host.firstIndex(of: "]") else { return false }
            return host[host.index(after: host.startIndex)..<end] == "::1"
        }
        if let colon = host.lastIndex(of: ":") { host = host[..<colon] }
        if host == "localhost" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// A `POST` of `parameters` as a form to `endpoint`, with `Accept: application/json` and
    /// the client's authentication ([RFC 6749 §3.2](https://www.rfc-editor.org/rfc/rfc6749#section-3.2),
    /// [§2.3.1](https://www.rfc-editor.org/rfc/rfc6749#section-2.3.1)).
    static func formPost(
        to endpoint: String,
        parameters: [(name: String, value: String)],
        client: Client?
    ) throws -> (HTTPRequest, [UInt8]) {
        try checkEndpoint(endpoint)
        var fields = HTTPFields()
        fields[.contentType] = FormURLEncoding.mediaType
        fields[.accept] = "application/json"
        var parameters = parameters
        let given = parameters.count
        try client?.authenticate(endpoint: endpoint, fields: &fields, parameters: &parameters)
        // A request that names the client itself (a pushed authorization request carries
        // `client_id`, RFC 9126 §2.1) does not get a second one from the authentication.
        if let added = parameters[given...].firstIndex(where: { $0.name == "client_id" }),
            parameters[..<given].contains(where: { $0.name == "client_id" && $0.value == parameters[added].value })
        {
            parameters.remove(at: added)
        }
        let request = try HTTPRequest(method: .post, absoluteURL: endpoint, headerFields: fields)
        return (request, Array(FormURLEncoding.encode(parameters).utf8))
    }
}
