import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import RemoteAuth

/// The sandbox's request handlers: OAuth 1.0a provider, protected API, Basic and Digest.
/// Every handler takes the request head and body and returns a response; the router in
/// ``Sandbox`` only dispatches.
struct SandboxProvider: Sendable {
    let configuration: SandboxConfiguration
    let store: SandboxStore
    /// `http` or `https`, for the base string URI of received requests.
    let scheme: String
    /// Signs consent-form tokens and Digest opaque values; new on every start.
    let serverKey = SymmetricKey(size: .bits256)
    let digestOpaque = Random.token(bytes: 16)

    var realm: String { configuration.realm }

    // MARK: Helpers

    func consumer(_ key: String) -> SandboxConfiguration.Consumer? {
        configuration.consumers.first { $0.key == key }
    }

    func user(named name: String) -> SandboxConfiguration.User? {
        configuration.users.first { $0.name == name }
    }

    func userID(_ user: SandboxConfiguration.User) -> String {
        if let id = user.id { return id }
        // A stable number from the name.
        let digest = SHA256.hash(data: Array(user.name.utf8))
        return String(digest.prefix(6).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 1_000_000_000 + 2000)
    }

    /// The request as the client signed it: scheme and authority restored.
    func received(_ request: Request) -> HTTPRequest {
        var head = request.head
        head.scheme = scheme
        if head.authority == nil {
            head.authority = head.headerFields[HTTPField.Name("Host")!] ?? "\(configuration.host):\(configuration.port)"
        }
        return head
    }

    static func text(
        _ status: HTTPResponse.Status,
        _ body: String,
        contentType: String,
        headers: HTTPFields = [:]
    ) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func form(_ pairs: [(String, String)]) -> Response {
        let body = pairs.map { OAuth1.PercentEncoding.encode($0.0) + "=" + OAuth1.PercentEncoding.encode($0.1) }
            .joined(separator: "&")
        return text(.ok, body, contentType: "application/x-www-form-urlencoded")
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return text(status, String(decoding: data, as: UTF8.self), contentType: "application/json", headers: headers)
    }

    func problem(_ problem: OAuthProblem) -> Response {
        Self.text(
            problem.status,
            problem.body,
            contentType: "application/x-www-form-urlencoded",
            headers: [.wwwAuthenticate: problem.challenge(realm: realm)]
        )
    }

    static func redirect(to location: String) -> Response {
        Response(status: .found, headers: [.location: location])
    }

    func query(_ request: Request) -> [OAuth1.Parameter] {
        let path = request.head.path ?? "/"
        guard let mark = path.firstIndex(of: "?") else { return [] }
        return (try? OAuth1.SignatureBaseString.formParameters(path[path.index(after: mark)...])) ?? []
    }

    // MARK: OAuth verification

    enum TokenRequirement { case none, request, access }

    struct Authenticated: Sendable {
        let consumer: SandboxConfiguration.Consumer
        let received: OAuth1.ReceivedRequest
        let requestToken: SandboxStore.RequestToken?
        let accessToken: SandboxStore.AccessToken?
    }

    /// Verifies a signed request (RFC 5849 §3.2): parameters, client, timestamp, token,
    /// signature (constant time), then the nonce, which is recorded only for a request whose
    /// signature is valid so that forged requests cannot use up nonces.
    func authenticate(
        _ head: HTTPRequest,
        body: [UInt8],
        token requirement: TokenRequirement
    ) async throws(OAuthProblem)
        -> Authenticated
    {
        let received: OAuth1.ReceivedRequest
        do {
            received = try OAuth1.ReceivedRequest(head, body: body)
        } catch let error as OAuth1Error {
            if error.code == .missingParameter, !Self.carriesOAuth(head, body: body) {
                // Not signed at all: an unauthenticated request (RFC 9110 §15.5.2), not a malformed one.
                throw .unauthorized("parameter_absent", "this endpoint needs a request signed with OAuth 1.0a")
            }
            throw OAuthProblem(error)
        } catch {
            throw .badRequest("parameter_rejected", "the request cannot be read")
        }
        guard let consumer = consumer(received.consumerKey) else {
            throw .unauthorized("consumer_key_unknown", "no client is registered with this consumer key")
        }
        let isRSA = received.signatureMethod == .rsaSHA1
        if isRSA && consumer.rsaPublicKeyPEM == nil {
            throw .badRequest("signature_method_rejected", "this client has no RSA key registered; use HMAC-SHA1")
        }
        if !isRSA && consumer.secret == nil {
            throw .badRequest("signature_method_rejected", "this client registered an RSA key; sign with RSA-SHA1")
        }
        let now = configuration.now()
        do {
            try received.checkTimestamp(now: now, window: configuration.timestampWindow)
        } catch let error as OAuth1Error {
            throw .unauthorized(
                "timestamp_refused",
                error.reason,
                [
                    (
                        "oauth_acceptable_timestamps",
                        "\(now - configuration.timestampWindow)-\(now + configuration.timestampWindow)"
                    )
                ]
            )
        } catch {
            throw .unauthorized("timestamp_refused", "oauth_timestamp is not accepted")
        }

        var requestToken: SandboxStore.RequestToken? = nil
        var accessToken: SandboxStore.AccessToken? = nil
        var tokenSecret: String? = nil
        switch requirement {
        case .none:
            if received.token != nil {
                throw .badRequest("parameter_rejected", "oauth_token is not expected on this endpoint")
            }
        case .request:
            guard let token = received.token else {
                throw .badRequest(
                    "parameter_absent",
                    "oauth_token is absent",
                    [("oauth_parameters_absent", "oauth_token")]
                )
            }
            guard let record = await store.requestToken(token), record.consumerKey == consumer.key else {
                throw .unauthorized("token_rejected", "the request token is unknown")
            }
            if record.state == .used {
                throw .unauthorized("token_used", "the request token has already been exchanged")
            }
            requestToken = record
            tokenSecret = record.secret
        case .access:
            guard let token = received.token else {
                throw .badRequest(
                    "parameter_absent",
                    "oauth_token is absent",
                    [("oauth_parameters_absent", "oauth_token")]
                )
            }
            guard let record = await store.accessToken(token), record.consumerKey == consumer.key else {
                throw .unauthorized("token_rejected", "the access token is unknown or belongs to another client")
            }
            accessToken = record
            tokenSecret = record.secret
        }

        do {
            let publicKey = try consumer.rsaPublicKeyPEM.map { try OAuth1.RSAPublicKey(pemRepresentation: $0) }
            try received.verify(clientSecret: consumer.secret ?? "", tokenSecret: tokenSecret, publicKey: publicKey)
        } catch let error as OAuth1Error {
            throw OAuthProblem(error)
        } catch {
            throw .unauthorized("signature_invalid", "the signature cannot be checked")
        }

        if let nonce = received.nonce, let timestamp = received.timestamp {
            let fresh = await store.useNonce(
                nonce,
                timestamp: timestamp,
                consumerKey: consumer.key,
                now: now,
                window: configuration.timestampWindow
            )
            guard fresh else {
                throw .unauthorized("nonce_used", "this oauth_nonce was already used with this oauth_timestamp")
            }
        }
        return Authenticated(
            consumer: consumer,
            received: received,
            requestToken: requestToken,
            accessToken: accessToken
        )
    }

    /// Whether any `oauth_` parameter or `OAuth` credentials came with the request.
    static func carriesOAuth(_ head: HTTPRequest, body: [UInt8]) -> Bool {
        if head.headerFields[values: .authorization].contains(where: { $0.lowercased().hasPrefix("oauth") }) {
            return true
        }
        return (head.path ?? "").contains("oauth_") || String(decoding: body, as: UTF8.self).contains("oauth_")
    }

    // MARK: OAuth 1.0a endpoints

    /// `POST /oauth/request_token`: temporary credentials (RFC 5849 §2.1), or with
    /// `x_auth_mode=reverse_auth` the signed header string of Twitter's reverse auth, step 1.
    func requestToken(_ request: Request, body: [UInt8]) async -> Response {
        let head = received(request)
        let authenticated: Authenticated
        do {
            authenticated = try await authenticate(head, body: body, token: .none)
        } catch {
            return problem(error)
        }
        let parameters = authenticated.received.requestParameters
        if parameters.contains(where: { $0.name == "x_auth_mode" && $0.value == "reverse_auth" }) {
            return await reverseAuthParameters(for: authenticated.consumer, head: head)
        }
        guard let callback = authenticated.received.callback else {
            return problem(
                .badRequest(
                    "parameter_absent",
                    "oauth_callback is required (an absolute URL, or oob)",
                    [("oauth_parameters_absent", "oauth_callback")]
                )
            )
        }
        guard callback == "oob" || Self.isAbsoluteURL(callback) else {
            return problem(.badRequest("parameter_rejected", "oauth_callback must be an absolute URL or oob"))
        }
        let record = SandboxStore.RequestToken(
            token: "rt-" + Random.hex(bytes: 16),
            secret: Random.token(bytes: 24),
            consumerKey: authenticated.consumer.key,
            callback: callback,
            verifier: nil,
            user: nil,
            state: .pending,
            createdAt: configuration.now()
        )
        do {
            try await store.addRequestToken(record)
        } catch {
            return Self.text(.internalServerError, "cannot save the request token", contentType: "text/plain")
        }
        return Self.form([
            ("oauth_token", record.token), ("oauth_token_secret", record.secret), ("oauth_callback_confirmed", "true"),
        ])
    }

    static func isAbsoluteURL(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return false }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") })
        else { return false }
        return text.count > scheme.count + 1 && !text.contains(where: { $0 == " " || $0.isNewline })
    }

    /// Reverse auth, step 1: a request token bound to the client, and an `OAuth …` header
    /// string signed with the client's credentials and that token over
    /// `POST <base>/oauth/access_token`, for the device to pass on as `x_reverse_auth_parameters`.
    func reverseAuthParameters(for consumer: SandboxConfiguration.Consumer, head: HTTPRequest) async -> Response {
        guard let secret = consumer.secret else {
            return problem(.badRequest("parameter_rejected", "reverse auth needs a client with a shared secret"))
        }
        let record = SandboxStore.RequestToken(
            token: "ra-" + Random.hex(bytes: 16),
            secret: Random.token(bytes: 24),
            consumerKey: consumer.key,
            callback: "reverse_auth",
            verifier: nil,
            user: nil,
            state: .authorized,
            createdAt: configuration.now()
        )
        do {
            try await store.addRequestToken(record)
            let target = HTTPRequest(
                method: .post,
                scheme: head.scheme,
                authority: head.authority,
                path: "/oauth/access_token"
            )
            let signer = try OAuth1.Signer(
                client: .init(key: consumer.key, secret: secret),
                token: .init(token: record.token, secret: record.secret)
            )
            let header = try signer.authorization(
                for: target,
                nonce: OAuth1.Nonce.random(),
                timestamp: String(configuration.now())
            )
            return Self.text(.ok, header, contentType: "text/plain; charset=utf-8")
        } catch {
            return Self.text(.internalServerError, "cannot sign the reverse auth parameters", contentType: "text/plain")
        }
    }

    /// `POST /oauth/access_token`: token credentials for an authorized request token and its
    /// verifier (RFC 5849 §2.3), single use; or reverse auth, step 2.
    func accessToken(_ request: Request, body: [UInt8]) async -> Response {
        let head = received(request)
        let bodyParameters =
            (try? OAuth1.SignatureBaseString.formParameters(String(decoding: body, as: UTF8.self))) ?? []
        if bodyParameters.contains(where: { $0.name == "x_reverse_auth_target" }) {
            return await reverseAuthAccessToken(head, body: body)
        }
        let authenticated: Authenticated
        do {
            authenticated = try await authenticate(head, body: body, token: .request)
        } catch {
            return problem(error)
        }
        guard let verifier = authenticated.received.verifier else {
            return problem(
                .badRequest(
                    "parameter_absent",
                    "oauth_verifier is required",
                    [("oauth_parameters_absent", "oauth_verifier")]
                )
            )
        }
        guard let record = authenticated.requestToken, record.callback != "reverse_auth" else {
            return problem(.unauthorized("token_rejected", "this token cannot be exchanged with a verifier"))
        }
        let outcome: SandboxStore.ExchangeOutcome
        do {
            outcome = try await store.exchange(
                record.token,
                verifier: verifier,
                consumerKey: authenticated.consumer.key
            )
        } catch {
            return Self.text(.internalServerError, "cannot save the access token", contentType: "text/plain")
        }
        switch outcome {
        case .exchanged(let access):
            return tokenResponse(access)
        case .unknownToken:
            return problem(.unauthorized("token_rejected", "the request token is unknown"))
        case .used:
            return problem(.unauthorized("token_used", "the request token has already been exchanged"))
        case .notAuthorized:
            let denied = record.state == .denied
            return problem(
                .unauthorized(
                    denied ? "permission_denied" : "permission_unknown",
                    denied ? "the user denied access" : "the user has not authorized this request token yet"
                )
            )
        case .wrongVerifier:
            return problem(.unauthorized("verifier_invalid", "oauth_verifier does not match"))
        }
    }

    func tokenResponse(_ access: SandboxStore.AccessToken) -> Response {
        let account = user(named: access.user)
        return Self.form([
            ("oauth_token", access.token), ("oauth_token_secret", access.secret),
            ("user_id", account.map(userID) ?? ""), ("screen_name", access.user),
        ])
    }

    /// Reverse auth, step 2: the device's own client and access token sign the call; the
    /// `x_reverse_auth_parameters` header from step 1 is verified as a request of the target
    /// client; the answer is a token pair of the device's user for the target client.
    func reverseAuthAccessToken(_ head: HTTPRequest, body: [UInt8]) async -> Response {
        let device: Authenticated
        do {
            device = try await authenticate(head, body: body, token: .access)
        } catch {
            return problem(error)
        }
        let parameters = device.received.requestParameters
        guard let targetKey = parameters.first(where: { $0.name == "x_reverse_auth_target" })?.value,
            let header = parameters.first(where: { $0.name == "x_reverse_auth_parameters" })?.value
        else {
            return problem(
                .badRequest(
                    "parameter_absent",
                    "x_reverse_auth_target and x_reverse_auth_parameters are required",
                    [("oauth_parameters_absent", "x_reverse_auth_parameters")]
                )
            )
        }
        guard let target = consumer(targetKey), let targetSecret = target.secret else {
            return problem(
                .unauthorized("consumer_key_unknown", "x_reverse_auth_target names no client of this server")
            )
        }
        var inner = HTTPRequest(
            method: .post,
            scheme: head.scheme,
            authority: head.authority,
            path: "/oauth/access_token"
        )
        inner.headerFields[.authorization] = header
        let step1: OAuth1.ReceivedRequest
        do {
            step1 = try OAuth1.ReceivedRequest(inner)
            guard step1.consumerKey == target.key, let token = step1.token,
                let record = await store.requestToken(token), record.consumerKey == target.key
            else {
                return problem(
                    .unauthorized("token_rejected", "x_reverse_auth_parameters were not issued for this target")
                )
            }
            try step1.verify(clientSecret: targetSecret, tokenSecret: record.secret)
            guard try await store.consumeReverseAuthToken(token, consumerKey: target.key) else {
                return problem(.unauthorized("token_used", "x_reverse_auth_parameters have already been used"))
            }
        } catch let error as OAuth1Error {
            return problem(OAuthProblem(error))
        } catch {
            return Self.text(.internalServerError, "cannot save the token", contentType: "text/plain")
        }
        guard let user = device.accessToken?.user else {
            return problem(.unauthorized("token_rejected", "the device token has no user"))
        }
        do {
            return tokenResponse(try await store.issueAccessToken(consumerKey: target.key, user: user))
        } catch {
            return Self.text(.internalServerError, "cannot save the access token", contentType: "text/plain")
        }
    }

    // MARK: Consent page

    func authenticityToken(for token: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array(("consent:" + token).utf8), using: serverKey)
        return mac.map { String($0, radix: 16) }.joined()
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

    /// `GET /oauth/authorize?oauth_token=…` (RFC 5849 §2.2).
    func authorizePage(_ request: Request) async -> Response {
        guard let token = query(request).first(where: { $0.name == "oauth_token" })?.value else {
            return ConsentPage.message(
                status: .badRequest,
                title: "Missing request token",
                text: "The link has no oauth_token."
            )
        }
        guard let record = await store.requestToken(token), record.callback != "reverse_auth" else {
            return ConsentPage.message(
                status: .notFound,
                title: "Unknown request token",
                text: "This authorization link is unknown or has expired."
            )
        }
        guard record.state == .pending else {
            return ConsentPage.message(
                status: .gone,
                title: "Already answered",
                text: "This authorization request has already been answered."
            )
        }
        let app = consumer(record.consumerKey)?.name ?? record.consumerKey
        if configuration.autoApprove, let alice = configuration.users.first {
            return await approve(record, user: alice.name, newSession: nil)
        }
        let signedIn = await sessionUser(request)
        return ConsentPage.consent(
            app: app,
            token: token,
            authenticityToken: authenticityToken(for: token),
            signedInUser: signedIn,
            error: nil
        )
    }

    /// `POST /oauth/authorize`: the consent form.
    func authorizeForm(_ request: Request, body: [UInt8]) async -> Response {
        let fields = (try? OAuth1.SignatureBaseString.formParameters(String(decoding: body, as: UTF8.self))) ?? []
        func field(_ name: String) -> String? { fields.first { $0.name == name }?.value }
        guard let token = field("oauth_token"), let record = await store.requestToken(token),
            record.callback != "reverse_auth"
        else {
            return ConsentPage.message(
                status: .notFound,
                title: "Unknown request token",
                text: "This authorization request is unknown or has expired."
            )
        }
        guard let presented = field("authenticity_token"), constantTimeEquals(presented, authenticityToken(for: token))
        else {
            return ConsentPage.message(
                status: .forbidden,
                title: "Form expired",
                text: "Reload the page and try again."
            )
        }
        guard record.state == .pending else {
            return ConsentPage.message(
                status: .gone,
                title: "Already answered",
                text: "This authorization request has already been answered."
            )
        }
        let app = consumer(record.consumerKey)?.name ?? record.consumerKey
        if field("action") == "deny" {
            _ = try? await store.deny(token)
            if record.callback == "oob" {
                return ConsentPage.message(
                    status: .ok,
                    title: "Access denied",
                    text: "\(app) was not given access to your account."
                )
            }
            return Self.redirect(to: Self.appending([("denied", token)], to: record.callback))
        }
        guard field("action") == "authorize" else {
            return ConsentPage.message(
                status: .badRequest,
                title: "Unknown action",
                text: "Choose Authorize or Cancel."
            )
        }
        if let signedIn = await sessionUser(request) {
            return await approve(record, user: signedIn, newSession: nil)
        }
        guard let name = field("username"), let password = field("password"), let account = user(named: name),
            constantTimeEquals(account.password, password)
        else {
            return ConsentPage.consent(
                app: app,
                token: token,
                authenticityToken: authenticityToken(for: token),
                signedInUser: nil,
                error: "The username and password do not match."
            )
        }
        let session = await store.startSession(user: account.name)
        return await approve(record, user: account.name, newSession: session)
    }

    /// Marks the token authorized and sends the user back: a redirect to the callback with
    /// `oauth_token` and `oauth_verifier` (RFC 5849 §2.2), or the PIN page for `oob`.
    func approve(_ record: SandboxStore.RequestToken, user: String, newSession: String?) async -> Response {
        let verifier = record.callback == "oob" ? Random.pin() : Random.token(bytes: 18)
        guard (try? await store.authorize(record.token, user: user, verifier: verifier)) != nil else {
            return ConsentPage.message(
                status: .gone,
                title: "Already answered",
                text: "This authorization request has already been answered."
            )
        }
        var response: Response
        if record.callback == "oob" {
            let app = consumer(record.consumerKey)?.name ?? record.consumerKey
            response = ConsentPage.pin(app: app, pin: verifier)
        } else {
            response = Self.redirect(
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

    /// `url` with `pairs` added to its query (before any fragment).
    static func appending(_ pairs: [(String, String)], to url: String) -> String {
        var base = url
        var fragment = ""
        if let hash = base.firstIndex(of: "#") {
            fragment = String(base[hash...])
            base = String(base[..<hash])
        }
        let query = pairs.map { OAuth1.PercentEncoding.encode($0.0) + "=" + OAuth1.PercentEncoding.encode($0.1) }
            .joined(separator: "&")
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        return base + separator + query + fragment
    }

    // MARK: Protected API

    struct UserJSON: Encodable {
        let id: Int64
        let id_str: String
        let screen_name: String
        let name: String
    }

    struct StatusJSON: Encodable {
        let id: Int64
        let id_str: String
        let text: String
        let created_at: String
        let user: UserJSON
    }

    func userJSON(_ name: String) -> UserJSON {
        let id = user(named: name).map(userID) ?? "0"
        return UserJSON(id: Int64(id) ?? 0, id_str: id, screen_name: name, name: name)
    }

    func statusJSON(_ status: SandboxStore.Status) -> StatusJSON {
        let date = Date(timeIntervalSince1970: TimeInterval(status.createdAt))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE MMM dd HH:mm:ss Z yyyy"
        return StatusJSON(
            id: status.id,
            id_str: String(status.id),
            text: status.text,
            created_at: formatter.string(from: date),
            user: userJSON(status.user)
        )
    }

    /// The protected API: every call is verified as a signed request with an access token.
    func api(_ request: Request, body: [UInt8], endpoint: String) async -> Response {
        let authenticated: Authenticated
        do {
            authenticated = try await authenticate(received(request), body: body, token: .access)
        } catch {
            return problem(error)
        }
        let user = authenticated.accessToken?.user ?? ""
        switch endpoint {
        case "update":
            guard let text = authenticated.received.requestParameters.first(where: { $0.name == "status" })?.value,
                !text.isEmpty
            else {
                return Self.json(["error": "the form parameter 'status' is required"], status: .badRequest)
            }
            guard text.count <= 280 else {
                return Self.json(["error": "a status has at most 280 characters"], status: .forbidden)
            }
            do {
                let status = try await store.addStatus(text: text, user: user, now: configuration.now())
                return Self.json(statusJSON(status))
            } catch {
                return Self.text(.internalServerError, "cannot save the status", contentType: "text/plain")
            }
        case "home_timeline":
            let count = query(request).first(where: { $0.name == "count" }).flatMap { Int($0.value) } ?? 20
            return Self.json(await store.timeline(limit: max(1, min(count, 200))).map(statusJSON))
        default:
            return Self.json(userJSON(user))
        }
    }

    // MARK: Basic and Digest

    static func authenticatedJSON(_ user: String, headers: HTTPFields = [:]) -> Response {
        text(
            .ok,
            "{\"authenticated\": true, \"user\": \"\(user.replacingQuotes())\"}",
            contentType: "application/json",
            headers: headers
        )
    }

    /// `GET /basic/`: HTTP Basic (RFC 7617).
    func basic(_ request: Request) -> Response {
        let challenge = "Basic realm=\"\(realm.replacingQuotes())\", charset=\"UTF-8\""
        for field in request.head.headerFields where field.name == .authorization {
            guard let credentials = try? BasicCredentials(authorization: field.value) else { continue }
            if let account = user(named: credentials.user), credentials.hasPassword(account.password) {
                return Self.authenticatedJSON(account.name)
            }
        }
        return Self.json(["authenticated": false], status: .unauthorized, headers: [.wwwAuthenticate: challenge])
    }

    static let digestAlgorithms: [DigestAlgorithm] = [
        .md5, .md5Sess, .sha256, .sha256Sess, .sha512_256, .sha512_256Sess,
    ]

    /// `GET /digest/{algorithm}/{qop}/`: HTTP Digest (RFC 7616) with that algorithm and qop.
    /// Nonces expire after ``SandboxConfiguration/digestNonceLifetime`` (answered `stale=true`
    /// when the response was otherwise right); `nc` must grow; a nonce past half its life
    /// gets a `nextnonce` in `Authentication-Info`.
    func digest(_ request: Request, body: [UInt8], algorithmName: String, qopName: String) async -> Response {
        guard let algorithm = Self.digestAlgorithms.first(where: { $0 == DigestAlgorithm(rawValue: algorithmName) }),
            qopName == "auth" || qopName == "auth-int"
        else {
            return Self.json(
                [
                    "error":
                        "use /digest/{MD5|MD5-sess|SHA-256|SHA-256-sess|SHA-512-256|SHA-512-256-sess}/{auth|auth-int}/"
                ],
                status: .notFound
            )
        }
        let qop = DigestQOP(rawValue: qopName)
        let now = configuration.now()
        let space = algorithm.rawValue + "/" + qop.rawValue

        func challengeResponse(stale: Bool) async -> Response {
            let nonce = await store.issueDigestNonce(space: space, now: now)
            let challenge = try? DigestChallenge(
                realm: realm,
                nonce: nonce,
                opaque: digestOpaque,
                stale: stale,
                algorithm: algorithm,
                qop: [qop]
            )
            return Self.json(
                ["authenticated": false],
                status: .unauthorized,
                headers: [.wwwAuthenticate: challenge?.headerValue ?? "Digest"]
            )
        }

        guard
            let header = request.head.headerFields[values: .authorization].first(where: {
                $0.lowercased().hasPrefix("digest ")
            }),
            let authorization = try? DigestAuthorization(headerValue: header)
        else {
            return await challengeResponse(stale: false)
        }
        let account = configuration.users.first { candidate in
            authorization.userhash
                ? authorization.matchesUserhash(of: candidate.name) : authorization.username == candidate.name
        }
        guard let account else { return await challengeResponse(stale: false) }
        guard
            let issued = try? DigestChallenge(
                realm: realm,
                nonce: authorization.nonce,
                opaque: digestOpaque,
                algorithm: algorithm,
                qop: [qop]
            )
        else { return await challengeResponse(stale: false) }
        let credentials = DigestCredentials(username: account.name, password: account.password)
        let verification = authorization.verify(
            credentials,
            challenge: issued,
            method: request.head.method,
            requestURI: request.head.path,
            body: body
        )

        switch await store.checkDigestNonce(
            authorization.nonce,
            space: space,
            count: authorization.nonceCount,
            now: now,
            lifetime: configuration.digestNonceLifetime
        )
        {
        case .unknown, .replayed:
            return await challengeResponse(stale: false)
        case .stale:
            return await challengeResponse(stale: verification.isValid)
        case .fresh(let issuedAt):
            // Only a verified answer moves the nonce count, so a forged one cannot burn it.
            guard verification.isValid,
                await store.recordDigestCount(authorization.nonce, count: authorization.nonceCount)
            else { return await challengeResponse(stale: false) }
            var nextnonce: String? = nil
            if now - issuedAt > configuration.digestNonceLifetime / 2 {
                nextnonce = await store.issueDigestNonce(space: space, now: now)
            }
            let responseBody = Array("{\"authenticated\": true, \"user\": \"\(account.name.replacingQuotes())\"}".utf8)
            var headers: HTTPFields = [:]
            if let info = try? authorization.authenticationInfo(
                credentials,
                responseBody: responseBody,
                nextnonce: nextnonce
            ) {
                headers[.authenticationInfo] = info.headerValue
            }
            return Self.authenticatedJSON(account.name, headers: headers)
        }
    }
}
