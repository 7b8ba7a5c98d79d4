import HTTPTypes
import Hummingbird

/// `GET /redirect?to=URL[&status=301|302|303|307|308]`: a redirect anywhere, for testing how a
/// client follows redirects ([RFC 9110 §15.4](https://www.rfc-editor.org/rfc/rfc9110#section-15.4))
/// and whether it keeps credentials to itself.
struct RedirectRoutes: Sendable {
    static let statuses = [301, 302, 303, 307, 308]

    var collection: RouteCollection<SandboxRequestContext> {
        let routes = RouteCollection(context: SandboxRequestContext.self)
        routes.get("redirect") { request, _ in try redirect(request) }
        return routes
    }

    func redirect(_ request: Request) throws(JSONError) -> Response {
        let fields = request.queryFields
        guard let target = fields["to"], !target.isEmpty else {
            throw JSONError(.badRequest, "use /redirect?to=URL[&status=301|302|303|307|308]")
        }
        // Only an http(s) URL or a reference without a scheme (a path, `//host/…`): a
        // `javascript:` or `data:` target would run in the page of whoever follows the link.
        if let colon = target.firstIndex(of: ":"),
            !target[..<colon].contains(where: { $0 == "/" || $0 == "?" || $0 == "#" })
        {
            let scheme = target[..<colon].lowercased()
            guard scheme == "http" || scheme == "https" else {
                throw JSONError(.badRequest, "/redirect?to= takes an http or https URL, or a path")
            }
        }
        let code = fields["status"].flatMap { Int($0) } ?? 302
        return SandboxResponse.redirect(to: target, status: Self.statuses.contains(code) ? .init(code: code) : .found)
    }
}
