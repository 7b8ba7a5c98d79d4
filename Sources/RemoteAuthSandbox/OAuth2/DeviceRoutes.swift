import Crypto
import HTTPTypes
import Hummingbird
import RemoteAuth

/// The verification page of the device flow, `/device`
/// ([RFC 8628 §3.3](https://www.rfc-editor.org/rfc/rfc8628#section-3.3)): a signed-in user
/// (or one who signs in on the form) enters the user code and approves or denies.
struct DeviceRoutes: Sendable {
    let configuration: SandboxConfiguration
    let store: OAuth2Store
    let consent: ConsentRoutes

    var collection: RouteCollection<SandboxRequestContext> {
        let routes = RouteCollection(context: SandboxRequestContext.self)
        routes.get { request, _ in
            page(userCode: request.queryFields["user_code"] ?? "", signedInUser: await consent.sessionUser(request))
        }
        routes.post { request, _ in try await answer(request) }
        return routes
    }

    /// `POST /device` with `user_code`, `action` (`approve` or `deny`) and, when nobody is
    /// signed in, `username` and `password`.
    func answer(_ request: Request) async throws -> Response {
        let fields = FormFields(decoding: String(decoding: await request.bodyBytes(), as: UTF8.self))
        guard let presented = fields["authenticity_token"], isValid(presented) else {
            throw ConsentPage.Refusal(.forbidden, "Form expired", "Reload the page and try again.")
        }
        let userCode = fields["user_code"] ?? ""
        let now = configuration.now()
        guard await store.pendingDevice(userCode: userCode, now: now) != nil else {
            return page(
                userCode: userCode,
                signedInUser: await consent.sessionUser(request),
                error: "This code is unknown, expired or already answered.",
                status: .notFound
            )
        }
        var user = await consent.sessionUser(request)
        var newSession: String? = nil
        if user == nil {
            guard let name = fields["username"], let password = fields["password"],
                let account = configuration.user(named: name), constantTimeEquals(account.password, password)
            else {
                return page(userCode: userCode, signedInUser: nil, error: "The username and password do not match.")
            }
            user = account.name
            newSession = await consent.store.startSession(user: account.name)
        }
        let approve: Bool
        switch fields["action"] {
        case "approve": approve = true
        case "deny": approve = false
        default: throw ConsentPage.Refusal(.badRequest, "Unknown action", "Choose Approve or Deny.")
        }
        guard await store.answerDevice(userCode: userCode, user: approve ? user : nil, now: now) else {
            throw ConsentPage.Refusal.alreadyAnswered
        }
        var response =
            approve
            ? ConsentPage.message(
                status: .ok,
                title: "Device approved",
                text: "You can go back to your device; it is signed in."
            )
            : ConsentPage.message(status: .ok, title: "Access denied", text: "The device was not given access.")
        if let newSession {
            response.headers.append(
                HTTPField(name: .setCookie, value: "remote_auth_session=\(newSession); Path=/; HttpOnly; SameSite=Lax")
            )
        }
        return response
    }

    func page(
        userCode: String,
        signedInUser: String?,
        error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) -> Response {
        var body = """
            <h1>Connect a device</h1>
            <p>Enter the code shown on your device.</p>
            """
        if let error { body += "<p id=\"error\">\(error.htmlEscaped)</p>" }
        body += """
            <form id="device" method="post" action="/device">
            <input type="hidden" name="authenticity_token" value="\(authenticityToken())">
            <label for="user_code">Code</label><input type="text" id="user_code" name="user_code" value="\(userCode.htmlEscaped)" autocomplete="off">
            """
        body += ConsentPage.signIn(signedInUser)
        body += """
            <div class="buttons"><button id="allow" type="submit" name="action" value="approve">Approve</button>
            <button id="deny" type="submit" name="action" value="deny">Deny</button></div></form>
            """
        return ConsentPage.page(status: status, title: "Connect a device", body: body)
    }

    /// A CSRF token: a fresh nonce and its HMAC under the consent form key (`nonce.mac`).
    func authenticityToken() -> String {
        let nonce = configuration.random.hex(byteCount: 16)
        return nonce + "." + mac(nonce)
    }

    func isValid(_ token: String) -> Bool {
        let parts = token.split(separator: ".", maxSplits: 1).map(String.init)
        return parts.count == 2 && constantTimeEquals(mac(parts[0]), parts[1])
    }

    func mac(_ nonce: String) -> String {
        Hex.encode(Array(HMAC<SHA256>.authenticationCode(for: Array(("device:" + nonce).utf8), using: consent.formKey)))
    }
}
