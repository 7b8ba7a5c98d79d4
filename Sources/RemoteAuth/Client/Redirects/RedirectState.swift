package import HTTPTypes

/// The redirects of one ``AuthenticatingClient/send(_:body:preemptive:)``: which responses are
/// followed, how the next request is built, and whether credentials may still be added. A value
/// with no I/O, like async-http-client's `RedirectState`.
/// [RFC 9110 §15.4](https://www.rfc-editor.org/rfc/rfc9110#section-15.4)
package struct RedirectState: Sendable {
    /// One hop to follow.
    package struct Redirect<Body: Sendable>: Sendable {
        package var request: HTTPRequest
        package var body: Body?
        /// The hop leaves the origin of the request it answers.
        package var crossesOrigin: Bool
    }

    /// The statuses followed when they carry a `Location`.
    package static let statuses: Set<Int> = [301, 302, 303, 307, 308]
    /// Fields that describe a body, dropped with it (the Fetch standard's request-body-header
    /// names, plus the framing fields).
    package static let contentFields: [HTTPField.Name] = [
        .contentType, .contentLength, .contentEncoding, .contentLanguage, .contentLocation, .transferEncoding,
    ]
    /// Fields that carry credentials chosen by the caller, dropped when the origin changes.
    package static let credentialFields: [HTTPField.Name] = [.authorization, .proxyAuthorization, .cookie]

    package let maximum: Int
    /// The origin the request started at: the only one credentials are added for.
    package let initialOrigin: AuthScope
    /// The origin of the request about to be sent.
    package private(set) var origin: AuthScope
    /// Hops followed so far.
    package private(set) var count = 0

    package init(maximum: Int, initialOrigin: AuthScope) {
        self.maximum = maximum
        self.initialOrigin = initialOrigin
        self.origin = initialOrigin
    }

    /// Credentials are only ever added for the origin the request started at, so a hop to
    /// another origin (`https` → `http` included) never carries them.
    package var allowsCredentials: Bool { origin == initialOrigin }

    /// The hop to follow after `response` answered `request`, or `nil` when `response` is not
    /// a redirect with a `Location`.
    ///
    /// - Throws: ``ClientError/Code/tooManyRedirects`` past ``maximum``;
    ///   ``ClientError/Code/invalidRedirect`` for a `Location` that is not `http`/`https`.
    package mutating func next<Body: Sendable>(
        after response: HTTPResponse,
        to request: HTTPRequest,
        body: Body?
    ) throws -> Redirect<Body>? {
        let code = response.status.code
        guard Self.statuses.contains(code), let location = response.headerFields[.location] else { return nil }
        count += 1
        guard count <= maximum else {
            throw ClientError(.tooManyRedirects, "more than \(maximum) redirects", response: response)
        }
        var next = try Self.resolve(location, against: request)
        let nextOrigin = try AuthScope(origin: next)
        // RFC 9110 §15.4: 303 turns every method but HEAD into GET; for 301 and 302,
        // user agents change POST to GET (§15.4.2, §15.4.3); 307 and 308 keep both.
        var changesToGET = false
        if code == 303 { changesToGET = request.method != .get && request.method != .head }
        if code == 301 || code == 302 { changesToGET = request.method == .post }
        next.method = changesToGET ? .get : request.method
        next.headerFields = request.headerFields
        var nextBody = body
        if changesToGET {
            nextBody = nil
            for name in Self.contentFields { next.headerFields[name] = nil }
        }
        let crossesOrigin = nextOrigin != origin
        if crossesOrigin {
            for name in Self.credentialFields { next.headerFields[name] = nil }
        }
        origin = nextOrigin
        return Redirect(request: next, body: nextBody, crossesOrigin: crossesOrigin)
    }

    /// Resolves a `Location` value against the request it answered
    /// ([RFC 3986 §5.2](https://www.rfc-editor.org/rfc/rfc3986#section-5.2), dot segments
    /// removed), keeping the method; the fragment is dropped, since a request carries none.
    /// [RFC 9110 §10.2.2](https://www.rfc-editor.org/rfc/rfc9110#section-10.2.2)
    ///
    /// - Throws: ``ClientError/Code/invalidRedirect`` when the target is not an absolute
    ///   `http`/`https` URL with a host.
    package static func resolve(_ location: String, against request: HTTPRequest) throws -> HTTPRequest {
        var trimmed = Substring(location).drop(while: { $0 == " " || $0 == "\t" })
        while trimmed.last == " " || trimmed.last == "\t" { trimmed = trimmed.dropLast() }
        let base = URIReference(
            parsing: (request.scheme ?? "http") + "://" + (request.authority ?? "") + (request.path ?? "/")
        )
        var target = URIReference(parsing: String(trimmed)).resolved(against: base)
        target.fragment = nil
        let scheme = target.scheme?.lowercased()
        guard scheme == "http" || scheme == "https", let authority = target.authority, !authority.isEmpty else {
            throw ClientError(
                .invalidRedirect,
                "redirect to '\(Redaction.redactedURL(String(trimmed)))' is not an http or https URL with a host"
            )
        }
        if target.path.isEmpty { target.path = "/" }
        do {
            return try HTTPRequest(method: request.method, absoluteURL: target.description)
        } catch let error as RequestURLError {
            throw ClientError(.invalidRedirect, "the Location of a redirect is not usable: \(error.reason)")
        }
    }
}
