import HTTPTypes
import Hummingbird
import RemoteAuth

/// The OAuth 1.0a token endpoints, under `/oauth`: temporary credentials
/// ([RFC 5849 §2.1](https://www.rfc-editor.org/rfc/rfc5849#section-2.1)) and token credentials
/// ([RFC 5849 §2.3](https://www.rfc-editor.org/rfc/rfc5849#section-2.3)), with Twitter's reverse
/// auth on both. The consent step between them is ``ConsentRoutes``.
struct OAuth1Routes: Sendable {
    let verifier: OAuth1Verifier

    var configuration: SandboxConfiguration { verifier.configuration }
    var store: SandboxStore { verifier.store }

    var collection: RouteCollection<SandboxRequestContext> {
        let routes = RouteCollection(context: SandboxRequestContext.self)
        routes.post("request_token") { request, context in
            try await requestToken(request, peerIsLocal: context.peerIsLocal)
        }
        routes.post("access_token") { request, context in
            try await accessToken(request, peerIsLocal: context.peerIsLocal)
        }
        return routes
    }

    /// `POST /oauth/request_token`: temporary credentials (RFC 5849 §2.1), or with
    /// `x_auth_mode=reverse_auth` the signed header string of Twitter's reverse auth, step 1.
    func requestToken(_ request: Request, peerIsLocal: @autoclosure () -> Bool) async throws -> Response {
        let head = verifier.received(request)
        let verified = try await verifier.verify(
            head,
            body: await request.bodyBytes(),
            token: .none,
            peerIsLocal: peerIsLocal()
        )
        let parameters = verified.received.requestParameters
        if parameters.contains(where: { $0.name == "x_auth_mode" && $0.value == "reverse_auth" }) {
            return try await reverseAuthParameters(for: verified.consumer, head: head)
        }
        guard let callback = verified.received.callback else {
            throw verifier.problem(
                .badRequest,
                .parameterAbsent,
                "oauth_callback is required (an absolute URL, or oob)",
                [("oauth_parameters_absent", "oauth_callback")]
            )
        }
        guard callback == "oob" || Self.isAbsoluteURL(callback) else {
            throw verifier.problem(.badRequest, .parameterRejected, "oauth_callback must be an absolute URL or oob")
        }
        let record = SandboxStore.RequestToken(
            token: "rt-" + configuration.random.hex(byteCount: 16),
            secret: configuration.random.alphanumeric(bytes: 24),
            consumerKey: verified.consumer.key,
            callback: callback,
            verifier: nil,
            user: nil,
            state: .pending,
            createdAt: configuration.now()
        )
        try await ServerFailure.mapping("cannot save the request token") { try await store.addRequestToken(record) }
        return SandboxResponse.form([
            ("oauth_token", record.token), ("oauth_token_secret", record.secret), ("oauth_callback_confirmed", "true"),
        ])
    }

    /// `oauth_callback`: an absolute URI ([RFC 3986 §4.3](https://www.rfc-editor.org/rfc/rfc3986#section-4.3))
    /// with no white space.
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
    func reverseAuthParameters(for consumer: SandboxConfiguration.Consumer, head: HTTPRequest) async throws -> Response
    {
        guard let secret = consumer.secret else {
            throw verifier.problem(.badRequest, .parameterRejected, "reverse auth needs a client with a shared secret")
        }
        let record = SandboxStore.RequestToken(
            token: "ra-" + configuration.random.hex(byteCount: 16),
            secret: configuration.random.alphanumeric(bytes: 24),
            consumerKey: consumer.key,
            callback: "reverse_auth",
            verifier: nil,
            user: nil,
            state: .authorized,
            createdAt: configuration.now()
        )
        let header = try await ServerFailure.mapping("cannot sign the reverse auth parameters") {
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
            return try signer.authorization(
                for: target,
                nonce: OAuth1.Nonce.random(from: configuration.random),
                timestamp: String(configuration.now())
            )
        }
        return SandboxResponse.text(.ok, header, contentType: "text/plain; charset=utf-8")
    }

    /// `POST /oauth/access_token`: token credentials for an authorized request token and its
    /// verifier (RFC 5849 §2.3), single use; or reverse auth, step 2.
    func accessToken(_ request: Request, peerIsLocal: @autoclosure () -> Bool) async throws -> Response {
        let head = verifier.received(request)
        let body = await request.bodyBytes()
        if FormFields(decoding: String(decoding: body, as: UTF8.self)).contains("x_reverse_auth_target") {
            return try await reverseAuthAccessToken(head, body: body, peerIsLocal: peerIsLocal())
        }
        let verified = try await verifier.verify(head, body: body, token: .request, peerIsLocal: peerIsLocal())
        guard let verifierValue = verified.received.verifier else {
            throw verifier.problem(
                .badRequest,
                .parameterAbsent,
                "oauth_verifier is required",
                [("oauth_parameters_absent", "oauth_verifier")]
            )
        }
        guard let record = verified.requestToken, record.callback != "reverse_auth" else {
            throw verifier.problem(.unauthorized, .tokenRejected, "this token cannot be exchanged with a verifier")
        }
        let outcome = try await ServerFailure.mapping("cannot save the access token") {
            try await store.exchange(record.token, verifier: verifierValue, consumerKey: verified.consumer.key)
        }
        switch outcome {
        case .exchanged(let access):
            return tokenResponse(access)
        case .unknownToken:
            throw verifier.problem(.unauthorized, .tokenRejected, "the request token is unknown")
        case .used:
            throw verifier.problem(.unauthorized, .tokenUsed, "the request token has already been exchanged")
        case .notAuthorized:
            if record.state == .denied {
                throw verifier.problem(.unauthorized, .permissionDenied, "the user denied access")
            }
            throw verifier.problem(
                .unauthorized,
                .permissionUnknown,
                "the user has not authorized this request token yet"
            )
        case .wrongVerifier:
            throw verifier.problem(.unauthorized, .verifierInvalid, "oauth_verifier does not match")
        }
    }

    /// Token credentials and the user they are for, as Twitter answers.
    func tokenResponse(_ access: SandboxStore.AccessToken) -> Response {
        SandboxResponse.form([
            ("oauth_token", access.token), ("oauth_token_secret", access.secret),
            ("user_id", configuration.user(named: access.user)?.numericID ?? ""), ("screen_name", access.user),
        ])
    }

    /// Reverse auth, step 2: the device's own client and access token sign the call; the
    /// `x_reverse_auth_parameters` header from step 1 is verified as a request of the target
    /// client; the answer is a token pair of the device's user for the target client.
    func reverseAuthAccessToken(
        _ head: HTTPRequest,
        body: [UInt8],
        peerIsLocal: @autoclosure () -> Bool
    ) async throws -> Response {
        let device = try await verifier.verify(head, body: body, token: .access, peerIsLocal: peerIsLocal())
        let parameters = device.received.requestParameters
        guard let targetKey = parameters.first(where: { $0.name == "x_reverse_auth_target" })?.value,
            let header = parameters.first(where: { $0.name == "x_reverse_auth_parameters" })?.value
        else {
            throw verifier.problem(
                .badRequest,
                .parameterAbsent,
                "x_reverse_auth_target and x_reverse_auth_parameters are required",
                [("oauth_parameters_absent", "x_reverse_auth_parameters")]
            )
        }
        guard let target = configuration.consumer(targetKey), let targetSecret = target.secret else {
            throw verifier.problem(
                .unauthorized,
                .consumerKeyUnknown,
                "x_reverse_auth_target names no client of this server"
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
        } catch {
            throw refusal(error, otherwise: "cannot save the token")
        }
        guard step1.consumerKey == target.key, let token = step1.token,
            let record = await store.requestToken(token), record.consumerKey == target.key
        else {
            throw verifier.problem(
                .unauthorized,
                .tokenRejected,
                "x_reverse_auth_parameters were not issued for this target"
            )
        }
        do {
            try step1.verify(clientSecret: targetSecret, tokenSecret: record.secret)
        } catch {
            throw refusal(error, otherwise: "cannot save the token")
        }
        let consumed = try await ServerFailure.mapping("cannot save the token") {
            try await store.consumeReverseAuthToken(token, consumerKey: target.key)
        }
        guard consumed else {
            throw verifier.problem(.unauthorized, .tokenUsed, "x_reverse_auth_parameters have already been used")
        }
        guard let user = device.accessToken?.user else {
            throw verifier.problem(.unauthorized, .tokenRejected, "the device token has no user")
        }
        let access = try await ServerFailure.mapping("cannot save the access token") {
            try await store.issueAccessToken(consumerKey: target.key, user: user)
        }
        return tokenResponse(access)
    }

    /// An ``OAuth1Error`` as the problem it stands for; anything else as a server failure.
    private func refusal(_ error: any Error, otherwise message: String) -> any SandboxRefusal {
        if let error = error as? OAuth1Error { return verifier.problem(error) }
        return ServerFailure(message)
    }
}
