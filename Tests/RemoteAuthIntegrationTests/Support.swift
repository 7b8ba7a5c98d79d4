import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOSSL
import RemoteAuth
import RemoteAuthSandbox
import Testing

/// A plain HTTP exchange over real sockets (AsyncHTTPClient), redirects not followed, so tests
/// see exactly what the sandbox answers.
struct Exchange: Sendable {
    let status: Int
    let headers: [(String, String)]
    let body: String

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// The body as form parameters (`oauth_token=…&…`).
    var form: [String: String] {
        var result: [String: String] = [:]
        for parameter in (try? FormURLEncoding.decode(body)) ?? [] {
            result[parameter.name] = parameter.value
        }
        return result
    }
}

/// Bounds of the suite's waits that are not under test.
enum TestTime {
    /// How long a wait that is not under test (an exchange with the sandbox, a callback) may take
    /// before it counts as a hang. Not a speed bound: the waits end when the answer is there, so a
    /// slow answer on a loaded machine or under ThreadSanitizer, the whole suite running in
    /// parallel, is waited for (issue 24).
    static let hangGuard: Duration = .seconds(300)
    /// `hangGuard` as SwiftNIO's `TimeAmount`.
    static let hangGuardAmount: TimeAmount = .seconds(300)
}

enum Wire {
    static func send(
        _ request: HTTPRequest,
        body: [UInt8]? = nil,
        tls: TLSConfiguration? = nil
    ) async throws -> Exchange {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.tlsConfiguration = tls
        // A failed connection (a refused TLS handshake) fails the request at once with its own
        // error, instead of being retried until the connect timeout (AsyncHTTPClient's default).
        configuration.connectionPool.retryConnectionEstablishment = false
        // What these exchanges tell apart is "answered" from "hung", so only a hang is cut: on a
        // loaded machine or under a sanitizer, with the whole suite in parallel, an answer can
        // take tens of seconds (issue 24).
        configuration.timeout.connect = TestTime.hangGuardAmount
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            var outgoing = HTTPClientRequest(url: request.absoluteURL)
            outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
            for field in request.headerFields { outgoing.headers.add(name: field.name.rawName, value: field.value) }
            if let body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
            let response = try await client.execute(outgoing, timeout: TestTime.hangGuardAmount)
            let buffer = try await response.body.collect(upTo: 1 << 20)
            let exchange = Exchange(
                status: Int(response.status.code),
                headers: response.headers.map { ($0.name, $0.value) },
                body: String(buffer: buffer)
            )
            try await client.shutdown()
            return exchange
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    static func get(_ url: String, headers: HTTPFields = [:]) async throws -> Exchange {
        try await send(try HTTPRequest(method: .get, absoluteURL: url, headerFields: headers))
    }

    /// POSTs form fields (encoded per RFC 5849 §3.6, which is valid form encoding).
    static func postForm(
        _ url: String,
        _ fields: [(String, String)],
        headers: HTTPFields = [:]
    ) async throws -> Exchange {
        var fieldsWithType = headers
        fieldsWithType[.contentType] = "application/x-www-form-urlencoded"
        return try await send(
            try HTTPRequest(method: .post, absoluteURL: url, headerFields: fieldsWithType),
            body: Array(formBody(fields).utf8)
        )
    }

    static func formBody(_ fields: [(String, String)]) -> String {
        fields.map { OAuth1.PercentEncoding.encode($0.0) + "=" + OAuth1.PercentEncoding.encode($0.1) }.joined(
            separator: "&"
        )
    }
}

/// Signs with RemoteAuth's own signer and sends.
struct OAuthClient: Sendable {
    var client: OAuth1.ClientCredentials
    var token: OAuth1.TokenCredentials?
    var method: OAuth1.SignatureMethod = .hmacSHA1
    var privateKey: OAuth1.RSAPrivateKey?

    func send(
        _ method: HTTPRequest.Method,
        _ url: String,
        form: [(String, String)]? = nil,
        options: OAuth1.SigningOptions = .init(),
        nonce: String = OAuth1.Nonce.random(),
        timestamp: String = String(Int64(Date().timeIntervalSince1970))
    ) async throws -> Exchange {
        let signed = try sign(method, url, form: form, options: options, nonce: nonce, timestamp: timestamp)
        return try await Wire.send(signed.request, body: signed.body)
    }

    func sign(
        _ method: HTTPRequest.Method,
        _ url: String,
        form: [(String, String)]? = nil,
        options: OAuth1.SigningOptions = .init(),
        nonce: String = OAuth1.Nonce.random(),
        timestamp: String = String(Int64(Date().timeIntervalSince1970))
    ) throws -> OAuth1.SignedRequest {
        var request = try HTTPRequest(method: method, absoluteURL: url)
        var body: [UInt8]? = nil
        if let form {
            request.headerFields[.contentType] = "application/x-www-form-urlencoded"
            body = Array(Wire.formBody(form).utf8)
        }
        let signer = try OAuth1.Signer(
            client: client,
            token: token,
            signatureMethod: self.method,
            privateKey: privateKey
        )
        return try signer.sign(request, body: body, options: options, nonce: nonce, timestamp: timestamp)
    }
}

let demoClient = OAuth1.ClientCredentials(key: "demo-consumer", secret: "demo-consumer-secret")

/// A clock tests can move, for nonce expiry and timestamp windows.
final class TestClock: Sendable {
    private let seconds: Locked<Int64>
    init(_ start: Int64 = Int64(Date().timeIntervalSince1970)) { seconds = Locked(start) }
    func now() -> Int64 { seconds.withLock { $0 } }
    func advance(by delta: Int64) { seconds.withLock { $0 += delta } }
}

/// The three legs up to the verifier, with the consent given over the real HTML form.
struct ConsentResult {
    let requestToken: OAuth1.TokenCredentials
    let location: String
    let query: [String: String]
}

func obtainRequestToken(
    _ base: String,
    callback: String = "http://127.0.0.1:9/callback?app=1"
) async throws
    -> OAuth1.TokenCredentials
{
    let response = try await OAuthClient(client: demoClient).send(
        .post,
        base + "/oauth/request_token",
        options: .init(callback: callback)
    )
    #expect(response.status == 200, "\(response.body)")
    #expect(response.form["oauth_callback_confirmed"] == "true")
    return OAuth1.TokenCredentials(
        token: response.form["oauth_token"] ?? "",
        secret: response.form["oauth_token_secret"] ?? ""
    )
}

/// Reads the hidden `authenticity_token` of the consent page.
func authenticityToken(in html: String) -> String? {
    guard let range = html.range(of: "name=\"authenticity_token\" value=\"") else { return nil }
    let rest = html[range.upperBound...]
    return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
}

func consent(
    _ base: String,
    token: String,
    action: String = "authorize",
    password: String = "wonderland"
) async throws
    -> Exchange
{
    let page = try await Wire.get(base + "/oauth/authorize?oauth_token=" + token)
    #expect(page.status == 200)
    let csrf = try #require(authenticityToken(in: page.body))
    return try await Wire.postForm(
        base + "/oauth/authorize",
        [
            ("oauth_token", token), ("authenticity_token", csrf), ("username", "alice"), ("password", password),
            ("action", action),
        ]
    )
}

func queryParameters(_ url: String) -> [String: String] {
    guard let mark = url.firstIndex(of: "?") else { return [:] }
    var result: [String: String] = [:]
    for parameter in (try? FormURLEncoding.decode(url[url.index(after: mark)...])) ?? [] {
        result[parameter.name] = parameter.value
    }
    return result
}

/// The whole three-legged flow; returns alice's access token for demo-consumer.
func signIn(_ base: String) async throws -> OAuth1.TokenCredentials {
    let requestToken = try await obtainRequestToken(base)
    let approved = try await consent(base, token: requestToken.token)
    #expect(approved.status == 302)
    let verifier = try #require(queryParameters(approved.header("Location") ?? "")["oauth_verifier"])
    let exchange = try await OAuthClient(client: demoClient, token: requestToken).send(
        .post,
        base + "/oauth/access_token",
        options: .init(verifier: verifier)
    )
    #expect(exchange.status == 200, "\(exchange.body)")
    return OAuth1.TokenCredentials(
        token: exchange.form["oauth_token"] ?? "",
        secret: exchange.form["oauth_token_secret"] ?? ""
    )
}
