import HTTPTypes
import Hummingbird
import NIOCore
import RemoteAuth

/// The HTML of the consent flow: the consent page (with a login form when nobody is signed
/// in), the PIN page of the `oob` flow, and plain messages.
enum ConsentPage {
    static let style = """
        body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;background:#f5f8fa;color:#14171a;margin:0}
        main{max-width:460px;margin:64px auto;background:#fff;border:1px solid #e1e8ed;border-radius:12px;padding:32px}
        h1{font-size:22px;margin:0 0 8px} p{line-height:1.45} .app{font-weight:600}
        label{display:block;margin:14px 0 4px;font-size:14px;color:#657786}
        input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:10px;border:1px solid #ccd6dd;border-radius:6px;font-size:15px}
        .buttons{margin-top:22px;display:flex;gap:12px}
        button{flex:1;padding:11px;border-radius:20px;border:1px solid #1da1f2;font-size:15px;font-weight:600;cursor:pointer}
        #allow{background:#1da1f2;color:#fff} #deny{background:#fff;color:#1da1f2}
        #error{color:#e0245e;font-weight:600} ul{padding-left:20px;color:#657786;font-size:14px}
        code#pin{display:block;font-size:36px;letter-spacing:6px;text-align:center;margin:20px 0;font-weight:700}
        footer{color:#aab8c2;font-size:12px;margin-top:24px;text-align:center}
        """

    static func page(status: HTTPResponse.Status, title: String, body: String) -> Response {
        let html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title.htmlEscaped) · RemoteAuth Sandbox</title><style>\(style)</style></head>
            <body><main>\(body)<footer>RemoteAuth Sandbox — a local test provider</footer></main></body></html>
            """
        return Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: html))
        )
    }

    static func consent(
        app: String,
        token: String,
        authenticityToken: String,
        signedInUser: String?,
        error: String?
    )
        -> Response
    {
        var body = """
            <h1>Authorize <span class="app">\(app.htmlEscaped)</span> to use your account?</h1>
            <p>This application will be able to:</p>
            <ul><li>Read your timeline and account details.</li><li>Post statuses for you.</li></ul>
            """
        if let error { body += "<p id=\"error\">\(error.htmlEscaped)</p>" }
        body += """
            <form id="consent" method="post" action="/oauth/authorize">
            <input type="hidden" name="oauth_token" value="\(token.htmlEscaped)">
            <input type="hidden" name="authenticity_token" value="\(authenticityToken.htmlEscaped)">
            """
        if let signedInUser {
            body += "<p id=\"account\">Signed in as <strong>@\(signedInUser.htmlEscaped)</strong>.</p>"
        } else {
            body += """
                <label for="username">Username</label><input type="text" id="username" name="username" autocomplete="username">
                <label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password">
                """
        }
        body += """
            <div class="buttons"><button id="allow" type="submit" name="action" value="authorize">Authorize app</button>
            <button id="deny" type="submit" name="action" value="deny">Cancel</button></div></form>
            """
        return page(status: .ok, title: "Authorize \(app)", body: body)
    }

    /// "Signed in as" for a signed-in user, else the username and password fields.
    static func signIn(_ signedInUser: String?) -> String {
        if let signedInUser {
            return "<p id=\"account\">Signed in as <strong>@\(signedInUser.htmlEscaped)</strong>.</p>"
        }
        return """
            <label for="username">Username</label><input type="text" id="username" name="username" autocomplete="username">
            <label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password">
            """
    }

    static func pin(app: String, pin: String) -> Response {
        page(
            status: .ok,
            title: "Your PIN",
            body: """
                <h1>You authorized <span class="app">\(app.htmlEscaped)</span></h1>
                <p>Enter this PIN in the application to finish signing in:</p>
                <code id="pin">\(pin.htmlEscaped)</code>
                """
        )
    }

    /// A consent step that cannot go on, shown as a page with its status.
    struct Refusal: SandboxRefusal {
        let status: HTTPResponse.Status
        let title: String
        let text: String

        init(_ status: HTTPResponse.Status, _ title: String, _ text: String) {
            self.status = status
            self.title = title
            self.text = text
        }

        static let alreadyAnswered = Refusal(
            .gone,
            "Already answered",
            "This authorization request has already been answered."
        )

        func response(from request: Request, context: some RequestContext) -> Response {
            ConsentPage.message(status: status, title: title, text: text)
        }

        var logOutcome: String { title }
    }

    static func message(status: HTTPResponse.Status, title: String, text: String) -> Response {
        page(
            status: status,
            title: title,
            body: "<h1 id=\"title\">\(title.htmlEscaped)</h1><p id=\"message\">\(text.htmlEscaped)</p>"
        )
    }
}
