import Crypto
import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthSandbox
import Testing

/// Drives the sandbox's OAuth 2 authorization server over real sockets, as a client nobody
/// here wrote would: forms, Basic with RFC 6749 §2.3.1 encoding, JSON read loosely.
enum OAuth2Wire {
    static let loopbackRedirect = "http://127.0.0.1:53123/callback"

    /// A PKCE pair computed here with swift-crypto (RFC 7636 §4.1, §4.2).
    static func pkce() -> (verifier: String, challenge: String) {
        let verifier = (0..<4).map { _ in UUID().uuidString.replacingOccurrences(of: "-", with: "") }.joined()
        return (verifier, base64URL(Array(SHA256.hash(data: Array(verifier.utf8)))))
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func json(_ exchange: Exchange) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(exchange.body.utf8))) as? [String: Any] ?? [:]
    }

    static func authorizeURL(
        _ base: String,
        clientID: String = "demo-app",
        redirectURI: String = loopbackRedirect,
        challenge: String?,
        state: String = "xyz",
        scope: String? = nil,
        responseType: String = "code"
    ) -> String {
        var pairs: [(name: String, value: String)] = [
            ("response_type", responseType), ("client_id", clientID), ("redirect_uri", redirectURI), ("state", state),
        ]
        if let challenge { pairs += [("code_challenge", challenge), ("code_challenge_method", "S256")] }
        if let scope { pairs.append(("scope", scope)) }
        return base + "/oauth2/authorize?" + FormURLEncoding.encode(pairs)
    }

    /// Reads `name="NAME" value="…"` from a form.
    static func hidden(_ name: String, in html: String) -> String? {
        guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        let rest = html[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    /// Opens the consent page and answers it as alice; returns the answer (a redirect).
    static func consent(_ url: String, action: String = "authorize") async throws -> Exchange {
        let page = try await Wire.get(url)
        #expect(page.status == 200, "\(page.body)")
        let request = try #require(hidden("request", in: page.body))
        let csrf = try #require(hidden("authenticity_token", in: page.body))
        return try await Wire.postForm(
            url.components(separatedBy: "?")[0],
            [
                ("request", request), ("authenticity_token", csrf), ("username", "alice"),
                ("password", "wonderland"), ("action", action),
            ]
        )
    }

    /// Code + PKCE up to the token response.
    static func codeFlow(_ base: String, scope: String? = nil) async throws -> [String: Any] {
        let pkce = pkce()
        let answer = try await consent(authorizeURL(base, challenge: pkce.challenge, scope: scope))
        let code = try #require(queryParameters(answer.header("Location") ?? "")["code"])
        let response = try await token(
            base,
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", loopbackRedirect),
                ("client_id", "demo-app"), ("code_verifier", pkce.verifier),
            ]
        )
        #expect(response.status == 200, "\(response.body)")
        return json(response)
    }

    /// `POST /oauth2/token` (or another endpoint), with `client_secret_basic` when `basic` is given.
    static func token(
        _ base: String,
        _ fields: [(String, String)],
        basic: (id: String, secret: String)? = nil,
        endpoint: String = "/oauth2/token"
    ) async throws -> Exchange {
        var headers: HTTPFields = [:]
        if let basic {
            // RFC 6749 §2.3.1: form-encode id and secret, then Basic.
            let pair = FormURLEncoding.encode([(basic.id, basic.secret)]).replacingOccurrences(of: "=", with: ":")
            headers[.authorization] = "Basic " + Data(pair.utf8).base64EncodedString()
        }
        return try await Wire.postForm(base + endpoint, fields, headers: headers)
    }

    static func bearer(_ url: String, _ token: String, post status: String? = nil) async throws -> Exchange {
        let headers: HTTPFields = [.authorization: "Bearer " + token]
        if let status { return try await Wire.postForm(url, [("status", status)], headers: headers) }
        return try await Wire.get(url, headers: headers)
    }
}
