import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import RemoteAuth

/// The consent step of OAuth 1.0a, under `/oauth`: the resource owner signs in and authorizes
/// or denies a request token, and is sent back to the client's callback
/// ([RFC 5849 §2.2](https://www.rfc-editor.org/rfc/rfc5849#section-2.2)) or shown a PIN (`oob`).
struct ConsentRoutes: Sendable {
    let configuration: SandboxConfiguration
    let store: SandboxStore
    /// Signs the consent form's `authenticity_token`; new on every start.
    let formKey: SymmetricKey

    init(configuration: SandboxConfiguration, store: SandboxStore) {
        self.configuration = configuration
        self.store = store
        formKey = SymmetricKey(data: configuration.random.bytes(32))
    }

    var collection: RouteCollection<SandboxRequestContext> {
        let routes = RouteCollection(context: SandboxRequestContext.self)
        routes.get("authorize") { request, _ in try await authorizePage(request) }
        routes.post("authorize") { request, _ in try await authorizeForm(request) }
        return routes
    }

    /// `GET /oauth/authorize?oauth_token=…` (RFC 5849 §2.2).
    func authorizePage(_ request: Request) async throws -> Response {
        guard let token = request.queryFields["oauth_token"] else {
            throw ConsentPage.Refusal(.badRequest, "Missing request token", "The link has no oauth_token.")
        }
        guard let record = await store.requestToken(token), record.callback != "reverse_auth" else {
            throw ConsentPage.Refusal(
                .notFound,
                "Unknown request token",
                "This authorization link is unknown or has expired."
            )
        }
        guard record.state == .pending else { throw ConsentPage.Refusal.alreadyAnswered }
        if configuration.autoApprove, let alice = configuration.users.first {
            return try await approve(record, user: alice.name, newSession: nil)
        }
        return ConsentPage.consent(
            app: appName(record),
            token: token,
            authenticityToken: authenticityToken(for: token),
            signedInUser: await sessionUser(request),
            error: nil
        )
    }

    /// `POST /oauth/authorize`: the consent form.
    func authorizeForm(_ request: Request) async throws -> Response {
        let fields = FormFields(decoding: String(decoding: await request.bodyBytes(), as: UTF8.self))
        guard let token = fields["oauth_token"], let record = await store.requestToken(token),
            record.callback != "reverse_auth"
        else {
            throw ConsentPage.Refusal(
                .notFound,
                "Unknown request token",
                "This authorization request is unknown or has expired."
            )
        }
        guard let presented = fields["authenticity_token"],
            constantTimeEquals(presented, authenticityToken(for: token))
        else {
            throw ConsentPage.Refusal(.forbidden, "Form expired", "Reload the page and try again.")
        }
        guard record.state == .pending else { throw ConsentPage.Refusal.alreadyAnswered }
        if fields["action"] == "deny" {
            _ = try? await store.deny(token)
            if record.callback == "oob" {
                return ConsentPage.message(
                    status: .ok,
                    title: "Access denied",
                    text: "\(appName(record)) was not given access to your account."
                )
            }
            return SandboxResponse.redirect(to: Self.appending([("denied", token)], to: record.callback))
        }
        guard fields["action"] == "authorize" else {
            throw ConsentPage.Refusal(.badRequest, "Unknown action", "Choose Authorize or Cancel.")
        }
        if let signedIn = await sessionUser(request) {
            return try await approve(record, user: signedIn, newSession: nil)
        }
        guard let name = fields["username"], let password = fields["password"],
            let account = configuration.user(named: name), constantTimeEquals(account.password, password)
        else {
            return ConsentPage.consent(
                app: appName(record),
                token: token,
                authenticityToken: authenticityToken(for: token),
                signedInUser: nil,
                error: "The username and password do not match."
            )
        }
        let session = await store.startSession(user: account.name)
        return try await approve(record, user: account.name, newSession: session)
    }

    /// Marks the token authorized and sends the user back: a redirect to the callback with
    /// `oauth_token` and `oauth_verifier` (RFC 5849 §2.2), or the PIN page for `oob`.
    func approve(_ record: SandboxStore.RequestToken, user: String, newSession: String?) async throws -> Response {
        let verifier =
            record.callback == "oob" ? configuration.random.pin() : configuration.random.alphanumeric(bytes: 18)
        guard (try? await store.authorize(record.token, user: user, verifier: verifier)) != nil else {
            throw ConsentPage.Refusal.alreadyAnswered
        }
        var response: Response
        if record.callback == "oob" {
            response = ConsentPage.pin(app: appName(record), pin: verifier)
        } else {
            response = SandboxResponse.redirect(
                to: Self.appending([("oauth_token", record.token), ("oauth_verifier", verifier)], to: record.callback)
            )
        }
        if let newSession {
            response.headers.append(
                HTTPField(name: .setCookie, value: "remote_auth_session=\(newSession); Path=/; HttpOnly; SameSite=Lax")
            )
        }
        return response
    }

    /// The client's name as registered, or its key.
    func appName(_ record: SandboxStore.RequestToken) -> String {
        configuration.consumer(record.consumerKey)?.name ?? record.consumerKey
    }

    /// The form's CSRF token: an HMAC of the request token under ``formKey``, in hex.
    func authenticityToken(for token: String) -> String {
        Hex.encode(Array(HMAC<SHA256>.authenticationCode(for: Array(("consent:" + token).utf8), using: formKey)))
    }

    /// The user of the `remote_auth_session` cookie, when it names a session.
    /// Ends the sign-in session of the request's `remote_auth_session` cookie, if any.
    func endSession(_ request: Request) async {
        for field in request.head.headerFields where field.name == .cookie {
            for part in field.value.split(separator: ";") {
                let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2, pair[0] == "remote_auth_session" { await store.endSession(pair[1]) }
            }
        }
    }

    func sessionUser(_ request: Request) async -> String? {
        for field in request.head.headerFields where field.name == .cookie {
            for part in field.value.split(separator: ";") {
                let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2, pair[0] == "remote_auth_session", let user = await store.sessionUser(pair[1]) {
                    return user
                }
            }
        }
        return nil
    }

    /// `url` with `pairs` added to its query (before any fragment).
    static func appending(_ pairs: [(name: String, value: String)], to url: String) -> String {
        var base = url
        var fragment = ""
        if let hash = base.firstIndex(of: "#") {
            fragment = String(base[hash...])
            base = String(base[..<hash])
        }
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        return base + separator + FormURLEncoding.encode(pairs) + fragment
    }
}
