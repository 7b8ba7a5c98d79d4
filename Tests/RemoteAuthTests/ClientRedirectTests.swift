import HTTPTypes
import RemoteAuth
import Testing

/// One reference resolution example of RFC 3986 §5.4.
struct ResolutionExample: Sendable, CustomTestStringConvertible {
    let reference, target: String
    var testDescription: String { "\"\(reference)\" → \(target)" }
}

/// RFC 3986 §5.4, base URI `http://a/b/c/d;p?q`.
/// Source: https://www.rfc-editor.org/rfc/rfc3986#section-5.4
enum RFC3986Examples {
    static let base = "http://a/b/c/d;p?q"

    /// §5.4.1 Normal Examples (all 23).
    static let normal: [ResolutionExample] = [
        ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"),
        (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("g;x?y#s", "http://a/b/c/g;x?y#s"),
        ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
        ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
        ("../../g", "http://a/g"),
    ].map { ResolutionExample(reference: $0.0, target: $0.1) }

    /// §5.4.2 Abnormal Examples (all 19), with the strict parser's answer for `http:g`.
    static let abnormal: [ResolutionExample] = [
        ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"),
        ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."),
        ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"),
        ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"), ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
        ("g;x=1/../y", "http://a/b/c/y"), ("g?y/./x", "http://a/b/c/g?y/./x"),
        ("g?y/../x", "http://a/b/c/g?y/../x"), ("g#s/./x", "http://a/b/c/g#s/./x"),
        ("g#s/../x", "http://a/b/c/g#s/../x"), ("http:g", "http:g"),
    ].map { ResolutionExample(reference: $0.0, target: $0.1) }
}

@Suite struct URIReferenceTests {
    @Test(arguments: RFC3986Examples.normal)
    func normalExamples(_ example: ResolutionExample) {
        let base = URIReference(parsing: RFC3986Examples.base)
        #expect(URIReference(parsing: example.reference).resolved(against: base).description == example.target)
    }

    @Test(arguments: RFC3986Examples.abnormal)
    func abnormalExamples(_ example: ResolutionExample) {
        let base = URIReference(parsing: RFC3986Examples.base)
        #expect(URIReference(parsing: example.reference).resolved(against: base).description == example.target)
    }

    @Test func exampleCounts() {
        #expect(RFC3986Examples.normal.count == 23)
        #expect(RFC3986Examples.abnormal.count == 19)
    }

    /// RFC 3986 §5.2.4's two worked examples, and edge cases of each step.
    @Test func removeDotSegments() {
        #expect(URIReference.removeDotSegments("/a/b/c/./../../g") == "/a/g")
        #expect(URIReference.removeDotSegments("mid/content=5/../6") == "mid/6")
        #expect(URIReference.removeDotSegments("") == "")
        #expect(URIReference.removeDotSegments("/..") == "/")
        #expect(URIReference.removeDotSegments("/a/..") == "/")
        #expect(URIReference.removeDotSegments("/a/.") == "/a/")
        #expect(URIReference.removeDotSegments("/a/b/") == "/a/b/")
        #expect(URIReference.removeDotSegments("/a/...") == "/a/...")
    }

    /// RFC 3986 Appendix B: absent components are nil, present but empty ones are "".
    @Test func splitsComponents() {
        let uri = URIReference(parsing: "http://www.ics.uci.edu/pub/ietf/uri/#Related")
        #expect(uri.scheme == "http")
        #expect(uri.authority == "www.ics.uci.edu")
        #expect(uri.path == "/pub/ietf/uri/")
        #expect(uri.query == nil)
        #expect(uri.fragment == "Related")
        let empty = URIReference(parsing: "http://a?")
        #expect(empty.path == "" && empty.query == "")
        #expect(URIReference(parsing: "http://a?").description == "http://a?")
        #expect(URIReference(parsing: ":x").scheme == nil)
        // §5.2.3: a base with an authority and an empty path merges to "/" + reference.
        #expect(
            URIReference(parsing: "g").resolved(against: URIReference(parsing: "http://a")).description == "http://a/g"
        )
    }
}

@Suite struct RedirectStateTests {
    func request(
        _ method: HTTPRequest.Method = .get,
        _ url: String = "https://a.example/b/c/d;p?q"
    ) throws
        -> HTTPRequest
    {
        var request = try HTTPRequest(method: method, absoluteURL: url)
        request.headerFields[.authorization] = "Basic dTpw"
        request.headerFields[.cookie] = "s=1"
        request.headerFields[.contentType] = "text/plain"
        return request
    }

    func response(_ code: Int, _ location: String?) -> HTTPResponse {
        var fields = HTTPFields()
        if let location { fields[.location] = location }
        return HTTPResponse(status: .init(code: code), headerFields: fields)
    }

    /// The redirect resolver removes dot segments (RFC 3986 §5.2.4) and drops the fragment.
    @Test func resolvesWithDotSegmentRemoval() throws {
        let base = try HTTPRequest(method: .get, absoluteURL: "http://a/b/c/d;p?q")
        for example in RFC3986Examples.normal + RFC3986Examples.abnormal where example.target.hasPrefix("http://") {
            let expected = try HTTPRequest(method: .get, absoluteURL: String(example.target.prefix { $0 != "#" }))
            let resolved = try RedirectState.resolve(example.reference, against: base)
            #expect(resolved.absoluteURL == expected.absoluteURL, "\(example.reference)")
        }
        #expect(throws: ClientError.self) { try RedirectState.resolve("g:h", against: base) }
        #expect(throws: ClientError.self) { try RedirectState.resolve("http:g", against: base) }
        #expect(throws: ClientError.self) { try RedirectState.resolve("file:///etc/passwd", against: base) }
        #expect(throws: ClientError.self) { try RedirectState.resolve("https://", against: base) }
        #expect(try RedirectState.resolve("  HTTPS://b.example  ", against: base).absoluteURL == "https://b.example/")
    }

    @Test func notARedirect() throws {
        var state = RedirectState(maximum: 2, initialOrigin: try AuthScope(url: "https://a.example"))
        #expect(try state.next(after: response(200, "/x"), to: request(), body: nil as [UInt8]?) == nil)
        #expect(try state.next(after: response(304, "/x"), to: request(), body: nil as [UInt8]?) == nil)
        #expect(try state.next(after: response(302, nil), to: request(), body: nil as [UInt8]?) == nil)
        #expect(state.count == 0)
    }

    @Test func sameOriginKeepsFieldsAndCountsHops() throws {
        var state = RedirectState(maximum: 2, initialOrigin: try AuthScope(url: "https://a.example"))
        let hop = try #require(try state.next(after: response(307, "../x"), to: request(.put), body: [1]))
        #expect(hop.request.absoluteURL == "https://a.example/b/x")
        #expect(hop.request.method == .put && hop.body == [1])
        #expect(hop.request.headerFields[.authorization] == "Basic dTpw")
        #expect(!hop.crossesOrigin && state.allowsCredentials && state.count == 1)
        _ = try state.next(after: response(308, "/y"), to: hop.request, body: hop.body)
        let error = #expect(throws: ClientError.self) {
            try state.next(after: response(302, "/z"), to: hop.request, body: nil as [UInt8]?)
        }
        #expect(error?.code == .tooManyRedirects)
    }

    /// Another scheme, host or port drops the caller's credentials and cookies; https → http
    /// never gets credentials back, even on a later hop to the first origin's host over http.
    @Test func crossOriginDropsCredentials() throws {
        var state = RedirectState(maximum: 5, initialOrigin: try AuthScope(url: "https://a.example"))
        let hop = try #require(try state.next(after: response(302, "http://a.example/x"), to: request(), body: nil as [UInt8]?))
        #expect(hop.crossesOrigin && !state.allowsCredentials)
        #expect(hop.request.headerFields[.authorization] == nil && hop.request.headerFields[.cookie] == nil)
        #expect(hop.request.headerFields[.contentType] == "text/plain")
        let back = try #require(try state.next(after: response(302, "https://a.example/y"), to: hop.request, body: nil as [UInt8]?))
        #expect(back.crossesOrigin && state.allowsCredentials)
        #expect(back.request.headerFields[.authorization] == nil)
    }

    /// RFC 9110 §15.4: 303 makes GET of everything but HEAD; 301/302 only change POST.
    @Test(arguments: [
        (303, HTTPRequest.Method.put, HTTPRequest.Method.get), (303, .head, .head), (301, .post, .get),
        (302, .post, .get), (302, .put, .put), (307, .post, .post), (308, .delete, .delete),
    ])
    func methodRewriting(status: Int, method: HTTPRequest.Method, expected: HTTPRequest.Method) throws {
        var state = RedirectState(maximum: 1, initialOrigin: try AuthScope(url: "https://a.example"))
        let hop = try #require(try state.next(after: response(status, "/n"), to: request(method), body: [7]))
        #expect(hop.request.method == expected)
        let changed = expected != method
        #expect(hop.body == (changed ? nil : [7]))
        #expect((hop.request.headerFields[.contentType] == nil) == changed)
    }
}
