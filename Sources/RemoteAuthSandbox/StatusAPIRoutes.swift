import Foundation
import HTTPTypes
import Hummingbird
import RemoteAuth

/// A small Twitter-like API under `/1.1`, every call behind ``OAuth1Authenticator`` with an
/// access token (a protected resource, [RFC 5849 §3](https://www.rfc-editor.org/rfc/rfc5849#section-3)):
/// post a status, read the timeline, and who am I. An OAuth 2 access token works too
/// (`Authorization: Bearer`, through ``BearerAuthenticator``), and so do AWS SigV4 and HTTP
/// Message Signatures (RFC 9421) with a configured key; responses are signed when asked
/// (``ResponseSignatureMiddleware``).
///
/// It is the protected resource `BASE/1.1` (``ProtectedResource/statusAPI``): `GET /1.1`, its
/// identifier itself, is a route too, so that a client that starts from the identifier gets the
/// `401` and its challenges ([RFC 9728 §5](https://www.rfc-editor.org/rfc/rfc9728#section-5)),
/// and, with credentials, `{"resource":"BASE/1.1","user":"…"}`.
struct StatusAPIRoutes: Sendable {
    let verifier: OAuth1Verifier
    let oauth2: OAuth2Store
    let issuer: OAuth2Issuer

    var configuration: SandboxConfiguration { verifier.configuration }
    var store: SandboxStore { verifier.store }

    var collection: RouteCollection<SandboxRequestContext> {
        let routes = RouteCollection(context: SandboxRequestContext.self)
        let authenticator = BearerAuthenticator(
            oauth1: OAuth1Authenticator(verifier: verifier, token: .access),
            store: oauth2,
            configuration: configuration,
            resource: .statusAPI,
            issuer: issuer
        )
        // Outermost: a response asked for with Accept-Signature is signed, refusals included.
        routes.add(middleware: ResponseSignatureMiddleware(authenticator: authenticator))
        routes.add(middleware: authenticator)
        routes.get("") { _, context in
            let user =
                context.bearer?.name ?? context.signedRequestUser ?? context.oauth1?.accessToken?.user ?? ""
            return SandboxResponse.json(
                ResourceJSON(resource: ProtectedResource.statusAPI.identifier(base: issuer.url), user: user)
            )
        }
        routes.post("statuses/update.json") { request, context in
            if let user = context.bearer?.name ?? context.signedRequestUser {
                let body = FormFields(decoding: String(decoding: await request.bodyBytes(), as: UTF8.self))
                return try await update(text: body["status"] ?? request.queryFields["status"], user: user)
            }
            return try await update(context.requireOAuth1())
        }
        routes.get("statuses/home_timeline.json") { request, _ in await homeTimeline(request) }
        routes.get("account/verify_credentials.json") { _, context in
            if let user = context.bearer?.name ?? context.signedRequestUser { return SandboxResponse.json(userJSON(user)) }
            return try verifyCredentials(context.requireOAuth1())
        }
        return routes
    }

    /// `POST /1.1/statuses/update.json` with the form parameter `status` (at most 280 characters).
    func update(_ verified: OAuth1Verifier.Verified) async throws -> Response {
        try await update(
            text: verified.received.requestParameters.first(where: { $0.name == "status" })?.value,
            user: verified.accessToken?.user ?? ""
        )
    }

    func update(text: String?, user: String) async throws -> Response {
        guard let text, !text.isEmpty else {
            throw JSONError(.badRequest, "the form parameter 'status' is required")
        }
        guard text.count <= 280 else {
            throw JSONError(.forbidden, "a status has at most 280 characters")
        }
        let status = try await ServerFailure.mapping("cannot save the status") {
            try await store.addStatus(text: text, user: user, now: configuration.now())
        }
        return SandboxResponse.json(statusJSON(status))
    }

    /// `GET /1.1/statuses/home_timeline.json?count=N` (1 to 200, 20 unless given), newest first.
    func homeTimeline(_ request: Request) async -> Response {
        let count = request.queryFields["count"].flatMap { Int($0) } ?? 20
        return SandboxResponse.json(await store.timeline(limit: max(1, min(count, 200))).map(statusJSON))
    }

    /// `GET /1.1/account/verify_credentials.json`: the access token's user.
    func verifyCredentials(_ verified: OAuth1Verifier.Verified) -> Response {
        SandboxResponse.json(userJSON(verified.accessToken?.user ?? ""))
    }

    // MARK: JSON

    struct ResourceJSON: Encodable {
        let resource: String
        let user: String
    }

    struct UserJSON: Encodable {
        let id: Int64
        let idString: String
        let screenName: String
        let name: String

        enum CodingKeys: String, CodingKey {
            case id
            case idString = "id_str"
            case screenName = "screen_name"
            case name
        }
    }

    struct StatusJSON: Encodable {
        let id: Int64
        let idString: String
        let text: String
        let createdAt: String
        let user: UserJSON

        enum CodingKeys: String, CodingKey {
            case id
            case idString = "id_str"
            case text
            case createdAt = "created_at"
            case user
        }
    }

    func userJSON(_ name: String) -> UserJSON {
        let id = configuration.user(named: name)?.numericID ?? "0"
        return UserJSON(id: Int64(id) ?? 0, idString: id, screenName: name, name: name)
    }

    func statusJSON(_ status: SandboxStore.Status) -> StatusJSON {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE MMM dd HH:mm:ss Z yyyy"
        return StatusJSON(
            id: status.id,
            idString: String(status.id),
            text: status.text,
            createdAt: formatter.string(from: Date(timeIntervalSince1970: TimeInterval(status.createdAt))),
            user: userJSON(status.user)
        )
    }
}
