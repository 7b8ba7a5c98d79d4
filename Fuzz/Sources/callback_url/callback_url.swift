import FuzzSupport
import HTTPTypes
import RemoteAuth

/// Callback URLs, as an app that gets its redirect from a user agent reads them: the
/// ``CallbackMatcher`` (RFC 8252 §7.1 private-use schemes, fake callback domains), OAuth 2's
/// authorization response in the query or the fragment (RFC 6749 §4.1.2, §4.2.2; state §10.12;
/// iss RFC 9207 §2.4), and OAuth 1.0a's `oauth_verifier` (RFC 5849 §2.2).
///
/// Invariants: a URL that is a valid callback matches itself; a parsed code or access token is
/// not empty; an access token's expiry is at or after `now`; a code flow's redirect never yields
/// tokens, and the implicit reader takes them only from a fragment.
@main struct Target {
    static let matcher = try! CallbackMatcher(callback: "http://127.0.0.1:8080/callback")
    static let pending = OAuth2.PendingAuthorization(
        state: Secret("af0ifjsldkj"),
        codeVerifier: Secret("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
        redirectURI: "http://127.0.0.1:8080/callback",
        issuer: "https://server.example.com",
        requiresIssuer: false
    )
    static let implicit = OAuth2.PendingImplicitAuthorization(
        state: Secret("af0ifjsldkj"),
        redirectURI: "http://127.0.0.1:8080/callback",
        issuer: "https://server.example.com",
        requiresIssuer: false
    )
    static let flow = OAuth1.Flow(
        provider: .twitterStyle(baseURL: "http://127.0.0.1:8080"),
        client: OAuth1.ClientCredentials(key: "dpf43f3p2l4k3l03", secret: Secret("kd94hf93k423kf44")),
        transport: NoTransport(),
        now: { 0 }
    )
    static let requestToken = OAuth1.RequestToken(token: "hh5s93j4hdidpola", secret: Secret("hdhd0244k9j7ao03"))

    static func main() {
        Fuzz.run { input in
            let url = input.text
            if let own = try? CallbackMatcher(callback: url) {
                Fuzz.require(own.matches(url), "a callback does not match itself")
            }
            _ = matcher.matches(url)
            let now: Int64 = 1_000_000
            if let response = try? pending.parseCallback(url) {
                Fuzz.require(!response.code.isEmpty, "an empty code accepted")
                // Neither the query nor the fragment holds an access_token.
                let halves = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let query: Substring = halves[0].split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
                let fragment: Substring = halves.count > 1 ? halves[1] : ""
                for encoded: Substring in [query, fragment] {
                    let names = (try? FormURLEncoding.decode(encoded))?.map(\.name) ?? []
                    Fuzz.require(!names.contains("access_token"), "a code flow's redirect with an access_token accepted")
                }
            }
            if let tokens = try? implicit.parseCallback(url, now: now) {
                Fuzz.require(!tokens.accessToken.isEmpty, "an empty access token accepted")
                Fuzz.require(tokens.expiresAt.map { $0 >= now } ?? true, "an access token that expired before now")
                Fuzz.require(url.contains("#"), "implicit tokens read from outside a fragment")
            }
            if let verifier = try? flow.verifier(fromCallback: url, for: requestToken) {
                Fuzz.require(!verifier.isEmpty, "an empty oauth_verifier accepted")
            }
        }
    }
}

/// The callback readers send nothing.
struct NoTransport: HTTPTransport {
    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        fatalError("the callback target sends no request")
    }
}
