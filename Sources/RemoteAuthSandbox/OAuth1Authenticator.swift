import Crypto
import HTTPTypes
import Hummingbird
import RemoteAuth

/// Verifies OAuth 1.0a-signed requests against the sandbox's clients and tokens: what
/// ``OAuth1Authenticator`` runs before every status API route, and what the token endpoints
/// call for the token each step needs.
struct OAuth1Verifier: Sendable {
    /// Which token a request must be signed with.
    enum TokenRequirement: Sendable {
        /// None (the temporary credentials request, RFC 5849 §2.1).
        case none
        /// An unused request token (the token request, RFC 5849 §2.3).
        case request
        /// An access token (a protected resource, RFC 5849 §3).
        case access
    }

    /// A request whose signature, timestamp, nonce and token were accepted.
    struct Verified: Sendable {
        let consumer: SandboxConfiguration.Consumer
        let received: OAuth1.ReceivedRequest
        let requestToken: SandboxStore.RequestToken?
        let accessToken: SandboxStore.AccessToken?
    }

    let configuration: SandboxConfiguration
    let store: SandboxStore
    /// `http` or `https`, for the base string URI of received requests.
    let scheme: String

    /// A refusal with this sandbox's realm.
    func problem(
        _ status: HTTPResponse.Status,
        _ problem: OAuth1.Problem,
        _ advice: String,
        _ extra: [(name: String, value: String)] = []
    ) -> OAuthProblem {
        OAuthProblem(status, problem, advice, extra, realm: configuration.realm)
    }

    /// The problem an ``OAuth1Error`` stands for, with this sandbox's realm.
    func problem(_ error: OAuth1Error) -> OAuthProblem {
        OAuthProblem(error, realm: configuration.realm)
    }

    /// The request as the client signed it: scheme and authority restored
    /// ([RFC 5849 §3.4.1.2](https://www.rfc-editor.org/rfc/rfc5849#section-3.4.1.2)).
    func received(_ request: Request) -> HTTPRequest {
        var head = request.head
        head.scheme = scheme
        if head.authority == nil {
            head.authority = head.headerFields[HTTPField.Name("Host")!] ?? "\(configuration.host):\(configuration.port)"
        }
        return head
    }

    /// Verifies a signed request ([RFC 5849 §3.2](https://www.rfc-editor.org/rfc/rfc5849#section-3.2)):
    /// parameters, client, timestamp, token, signature (constant time), then the nonce, which is
    /// recorded only for a request whose signature is valid so that forged requests cannot use
    /// up nonces.
    ///
    /// `peerIsLocal` says whether the request came from this machine (``SandboxRequestContext/peerIsLocal``):
    /// PLAINTEXT is taken over `https`, or over plain `http` from a local peer only. It is asked
    /// only for a PLAINTEXT request, so other requests do not format the peer's address.
    func verify(
        _ head: HTTPRequest,
        body: [UInt8],
        token requirement: TokenRequirement,
        peerIsLocal: @autoclosure () -> Bool
    ) async throws(OAuthProblem) -> Verified {
        let received: OAuth1.ReceivedRequest
        do {
            received = try OAuth1.ReceivedRequest(head, body: body)
        } catch let error as OAuth1Error {
            if error.code == .missingParameter, !Self.carriesOAuth(head, body: body) {
                // Not signed at all: an unauthenticated request (RFC 9110 §15.5.2), not a malformed one.
                throw problem(.unauthorized, .parameterAbsent, "this endpoint needs a request signed with OAuth 1.0a")
            }
            throw problem(error)
        } catch {
            throw problem(.badRequest, .parameterRejected, "the request cannot be read")
        }
        // RFC 5849 §3.4.4: PLAINTEXT "does not provide any security protection and SHOULD only be
        // used over a secure channel such as HTTPS": its signature is the secrets themselves, so
        // over plain http from another machine they have already gone out in the clear. Refused
        // before the client is looked up, so the answer says nothing about which keys exist.
        if received.signatureMethod == .plaintext, scheme != "https", !peerIsLocal() {
            throw problem(
                .badRequest,
                .signatureMethodRejected,
                "PLAINTEXT sends the client's secrets in the clear: use https, or sign with HMAC-SHA1 (RFC 5849 §3.4.4)"
            )
        }
        guard let consumer = configuration.consumer(received.consumerKey) else {
            throw problem(.unauthorized, .consumerKeyUnknown, "no client is registered with this consumer key")
        }
        let isRSA = received.signatureMethod == .rsaSHA1
        if isRSA && consumer.rsaPublicKeyPEM == nil {
            throw problem(.badRequest, .signatureMethodRejected, "this client has no RSA key registered; use HMAC-SHA1")
        }
        if !isRSA && consumer.secret == nil {
            throw problem(
                .badRequest,
                .signatureMethodRejected,
                "this client registered an RSA key; sign with RSA-SHA1"
            )
        }
        let now = configuration.now()
        let window = configuration.timestampWindow
        do {
            try received.checkTimestamp(now: now, window: window)
        } catch let error as OAuth1Error {
            throw problem(
                .unauthorized,
                .timestampRefused,
                error.reason,
                [("oauth_acceptable_timestamps", "\(now - window)-\(now + window)")]
            )
        } catch {
            throw problem(.unauthorized, .timestampRefused, "oauth_timestamp is not accepted")
        }

        var requestToken: SandboxStore.RequestToken? = nil
        var accessToken: SandboxStore.AccessToken? = nil
        var tokenSecret: String? = nil
        switch requirement {
        case .none:
            if received.token != nil {
                throw problem(.badRequest, .parameterRejected, "oauth_token is not expected on this endpoint")
            }
        case .request:
            guard let token = received.token else { throw tokenAbsent }
            guard let record = await store.requestToken(token), record.consumerKey == consumer.key else {
                throw problem(.unauthorized, .tokenRejected, "the request token is unknown")
            }
            if record.state == .used {
                throw problem(.unauthorized, .tokenUsed, "the request token has already been exchanged")
            }
            requestToken = record
            tokenSecret = record.secret
        case .access:
            guard let token = received.token else { throw tokenAbsent }
            guard let record = await store.accessToken(token), record.consumerKey == consumer.key else {
                throw problem(.unauthorized, .tokenRejected, "the access token is unknown or belongs to another client")
            }
            accessToken = record
            tokenSecret = record.secret
        }

        do {
            let publicKey = try consumer.rsaPublicKeyPEM.map { try OAuth1.RSAPublicKey(pemRepresentation: $0) }
            try received.verify(clientSecret: consumer.secret ?? "", tokenSecret: tokenSecret, publicKey: publicKey)
        } catch let error as OAuth1Error {
            throw problem(error)
        } catch {
            throw problem(.unauthorized, .signatureInvalid, "the signature cannot be checked")
        }

        if let nonce = received.nonce, let timestamp = received.timestamp {
            switch await store.useNonce(nonce, timestamp: timestamp, consumerKey: consumer.key, now: now, window: window) {
            case .fresh:
                break
            case .replayed:
                throw problem(.unauthorized, .nonceUsed, "this oauth_nonce was already used with this oauth_timestamp")
            case .tooOld:
                throw problem(
                    .unauthorized, .timestampRefused,
                    "oauth_timestamp is older than the nonces this server still remembers (too many requests in the window)")
            }
        }
        return Verified(consumer: consumer, received: received, requestToken: requestToken, accessToken: accessToken)
    }

    private var tokenAbsent: OAuthProblem {
        problem(.badRequest, .parameterAbsent, "oauth_token is absent", [("oauth_parameters_absent", "oauth_token")])
    }

    /// Whether any `oauth_` parameter or `OAuth` credentials came with the request.
    static func carriesOAuth(_ head: HTTPRequest, body: [UInt8]) -> Bool {
        if head.headerFields[values: .authorization].contains(where: { $0.lowercased().hasPrefix("oauth") }) {
            return true
        }
        return (head.path ?? "").contains("oauth_") || String(decoding: body, as: UTF8.self).contains("oauth_")
    }
}

/// The authenticator in front of the routes that need an OAuth 1.0a-signed request: it
/// verifies the request with the token it needs and puts the result in the context
/// (``SandboxRequestContext/oauth1``), or throws the ``OAuthProblem`` that refuses it.
struct OAuth1Authenticator: RouterMiddleware {
    typealias Context = SandboxRequestContext
    let verifier: OAuth1Verifier
    let token: OAuth1Verifier.TokenRequirement

    func handle(
        _ request: Request,
        context: SandboxRequestContext,
        next: (Request, SandboxRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.oauth1 = try await verifier.verify(
            verifier.received(request),
            body: await request.bodyBytes(),
            token: token,
            peerIsLocal: context.peerIsLocal
        )
        return try await next(request, context)
    }
}

extension SandboxConfiguration {
    func consumer(_ key: String) -> Consumer? {
        consumers.first { $0.key == key }
    }

    func user(named name: String) -> User? {
        users.first { $0.name == name }
    }
}

extension SandboxConfiguration.User {
    /// ``id``, or a stable number from the name, as Twitter's `user_id`.
    var numericID: String {
        if let id { return id }
        let digest = SHA256.hash(data: Array(name.utf8))
        return String(digest.prefix(6).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 1_000_000_000 + 2000)
    }
}
