import Crypto
import CryptoExtras
import Foundation
import HTTPTypes
import Hummingbird
import RemoteAuth

/// The sandbox's OpenID provider ([OpenID Connect Core 1.0](https://openid.net/specs/openid-connect-core-1_0.html)):
/// it signs ID tokens with an RS256 and an ES256 key, both published at `/oauth2/jwks`, and
/// keeps the state that client assertions need (the `jti`s already seen).
///
/// Key rotation: with ``SandboxConfiguration/openIDKeyRotationInterval`` set (the command's
/// `--rotate-keys SECONDS`), once that many seconds of the sandbox clock have passed since the
/// current keys were made (at their first use), fresh keys (new `kid`s) sign from then on and the previous
/// generation stays published, so that tokens signed just before still verify
/// ([Core §10.1.1](https://openid.net/specs/openid-connect-core-1_0.html#RotateSigKeys)).
/// Key ids are `rsa-N` and `ec-N`, N the generation (1 for the keys made at the first use).
final class OpenIDProvider: Sendable {
    /// The scopes of OpenID Connect ([Core §5.4](https://openid.net/specs/openid-connect-core-1_0.html#ScopeClaims)),
    /// granted besides the configured ones.
    static let scopes = ["openid", "profile", "email"]
    /// The longest a client assertion may live (`exp` minus now), in seconds.
    static let maximumAssertionLifetime: Int64 = 300

    struct Generation: Sendable {
        let number: Int
        let rsa: JOSE.SigningKey
        let ec: JOSE.SigningKey
        let madeAt: Int64

        init(number: Int, now: Int64) {
            self.number = number
            // RSA 2048 with e = 65537; the JWK Set publishes only the public parts.
            rsa = try! .rsa(_RSA.Signing.PrivateKey(keySize: .bits2048), algorithm: .rs256, keyID: "rsa-\(number)")
            ec = .generateP256(keyID: "ec-\(number)")
            madeAt = now
        }
    }

    /// What a refresh needs to sign a new ID token: the original authentication.
    struct Authentication: Sendable {
        let user: String
        let authTime: Int64
        /// `sid`: the session the ID tokens of this grant name, so that a logout with one of
        /// them as `id_token_hint` ends that grant
        /// ([Front-Channel Logout 1.0 §3](https://openid.net/specs/openid-connect-frontchannel-1_0.html#ClaimsContents)).
        let sid: String
        /// `acr`: the class of the sign-in ([Core §2](https://openid.net/specs/openid-connect-core-1_0.html#IDToken)).
        var acr: String? = nil
    }

    /// The authentication class a sign-in performs: the first of `acr_values` the sandbox
    /// offers (its baseline, and the step-up class when there is a policy), else the baseline.
    /// `acr_values` is a voluntary request ([Core §3.1.2.1](https://openid.net/specs/openid-connect-core-1_0.html#AuthRequest),
    /// [RFC 9470 §4](https://www.rfc-editor.org/rfc/rfc9470#section-4)): a class not offered is
    /// not an error, the ID token's `acr` tells the client what it got.
    static func performedACR(asked: String?, policy: StepUpPolicy?) -> String {
        let offered = [StepUpPolicy.baselineACR] + (policy.map { [$0.acr] } ?? [])
        let values = (asked ?? "").split(separator: " ").map(String.init)
        return values.first { offered.contains($0) } ?? StepUpPolicy.baselineACR
    }

    private struct State {
        /// Made at the first use (an RSA key takes a moment to generate, and most sandboxes
        /// never sign an ID token).
        var current: Generation?
        var previous: Generation?
        /// `jti` → `exp` of the assertions seen and not yet expired.
        var seenJTIs: [String: Int64] = [:]
        /// Token family → the authentication it came from.
        var authentications: [String: Authentication] = [:]
    }

    let configuration: SandboxConfiguration
    let issuer: OAuth2Issuer
    /// The configured and registered clients.
    let clients: OAuth2ClientRegistry
    private let state: Locked<State>

    init(configuration: SandboxConfiguration, issuer: OAuth2Issuer, clients: OAuth2ClientRegistry) {
        self.configuration = configuration
        self.issuer = issuer
        self.clients = clients
        state = Locked(State())
    }

    /// The signing generation now, rotating first when it is due.
    private func generations(now: Int64) -> (current: Generation, previous: Generation?) {
        state.withLock { state in
            guard let current = state.current else {
                let first = Generation(number: 1, now: now)
                state.current = first
                return (first, nil)
            }
            if let interval = configuration.openIDKeyRotationInterval, interval > 0, now - current.madeAt >= interval {
                state.previous = current
                state.current = Generation(number: current.number + 1, now: now)
            }
            return (state.current ?? current, state.previous)
        }
    }

    /// `GET /oauth2/jwks`: the current keys, then the previous generation's.
    func jwks(now: Int64) -> [String: JSONValue] {
        let (current, previous) = generations(now: now)
        var keys: [JSONValue] = []
        for generation in [current] + (previous.map { [$0] } ?? []) {
            for key in [generation.rsa, generation.ec] {
                guard let jwk = key.publicJWK, let json = try? jwk.json(),
                    let value = try? JSONDecoder().decode(JSONValue.self, from: Data(json))
                else { continue }
                keys.append(value)
            }
        }
        return ["keys": .array(keys)]
    }

    /// The subject identifier of `user`: its numeric id when it has one, else its name.
    func subject(of user: String) -> String {
        configuration.users.first { $0.name == user }?.id ?? user
    }

    /// The claims of `user` that `scope` releases ([Core §5.4](https://openid.net/specs/openid-connect-core-1_0.html#ScopeClaims)).
    func userClaims(of user: String, scope: [String]) -> [String: JSONValue] {
        var claims: [String: JSONValue] = ["sub": .string(subject(of: user))]
        if scope.contains("profile") {
            claims["name"] = .string(user.prefix(1).uppercased() + user.dropFirst())
            claims["preferred_username"] = .string(user)
        }
        if scope.contains("email") {
            claims["email"] = .string("\(user)@sandbox.example")
            claims["email_verified"] = .bool(true)
        }
        return claims
    }

    /// Remembers the authentication behind a token family, for the ID tokens of its refreshes.
    func remember(family: String, _ authentication: Authentication) {
        state.withLock { $0.authentications[family] = authentication }
    }

    func authentication(family: String) -> Authentication? {
        state.withLock { $0.authentications[family] }
    }

    /// The token family whose ID tokens carry `sid`.
    func family(sid: String) -> String? {
        state.withLock { state in state.authentications.first { $0.value.sid == sid }?.key }
    }

    /// Forgets a family's authentication (its grant was ended by a logout).
    func forget(family: String) {
        _ = state.withLock { $0.authentications.removeValue(forKey: family) }
    }

    /// The claims of an ID token this provider signed (with the current or the previous keys)
    /// for its own issuer, whatever its `exp`: an `id_token_hint` may have expired
    /// ([RP-Initiated Logout 1.0 §2](https://openid.net/specs/openid-connect-rpinitiated-1_0.html#RPLogout)).
    /// `nil` for anything else.
    func claimsOfIssued(_ token: String, now: Int64) -> [String: JSONValue]? {
        let (current, previous) = generations(now: now)
        let keys = ([current] + (previous.map { [$0] } ?? [])).flatMap { [$0.rsa, $0.ec] }
            .compactMap { $0.publicJWK.flatMap { try? JOSE.VerificationKey(jwk: $0) } }
        guard let jws = try? JOSE.CompactJWS(token),
            (try? jws.verify(with: keys, allowing: [.rs256, .es256])) != nil,
            let claims = try? jws.claims(),
            claims["iss"]?.stringValue == issuer.url
        else { return nil }
        return claims
    }

    /// An ID token ([Core §2](https://openid.net/specs/openid-connect-core-1_0.html#IDToken),
    /// [§3.1.3.6](https://openid.net/specs/openid-connect-core-1_0.html#CodeIDToken)): `iss`,
    /// `sub`, `aud` (the client), `exp`, `iat`, `auth_time`, `nonce` when the request had one,
    /// `at_hash` of the access token, `sid` of the grant, `acr` of the sign-in, and the claims of the scope; signed with the client's
    /// `idTokenSignedResponseAlg` (RS256 by default, or ES256). `subject` replaces `sub` (the
    /// ``SandboxConfiguration/refreshedIDTokenSubject`` test hook).
    func idToken(
        client: SandboxConfiguration.OAuth2Client,
        user: String,
        scope: [String],
        nonce: String?,
        authTime: Int64,
        accessToken: String,
        now: Int64,
        sid: String? = nil,
        acr: String? = nil,
        subject: String? = nil
    ) -> String {
        let (current, _) = generations(now: now)
        let key = client.idTokenSignedResponseAlg == "ES256" ? current.ec : current.rsa
        var claims = userClaims(of: user, scope: scope)
        if let subject { claims["sub"] = .string(subject) }
        claims["iss"] = .string(issuer.url)
        claims["aud"] = .string(client.id)
        claims["iat"] = .integer(now)
        claims["exp"] = .integer(now + configuration.accessTokenTTL)
        claims["auth_time"] = .integer(authTime)
        if let nonce { claims["nonce"] = .string(nonce) }
        if let sid { claims["sid"] = .string(sid) }
        if let acr { claims["acr"] = .string(acr) }
        claims["at_hash"] = .string(OpenIDConnect.IDTokenValidator.halfHash(accessToken, algorithm: key.algorithm))
        return (try? JOSE.JWS.sign(claims: claims, with: key, header: ["typ": "JWT"])) ?? ""
    }

    // MARK: Client assertions

    /// Checks a `client_assertion` ([RFC 7523 §3](https://www.rfc-editor.org/rfc/rfc7523#section-3),
    /// [RFC 7521 §4.2](https://www.rfc-editor.org/rfc/rfc7521#section-4.2)):
    /// - `private_key_jwt` (RS256, PS256, ES256, EdDSA) against the client's registered `jwks`,
    ///   `client_secret_jwt` (HS256) keyed with its secret; a client registered with a
    ///   `tokenEndpointAuthMethod` may use only that one;
    /// - `iss` and `sub` equal to the client id (and to `client_id` when sent);
    /// - `aud` holding the issuer, the token endpoint or the URL of the endpoint called;
    /// - `exp` after now and at most ``maximumAssertionLifetime`` seconds ahead, `iat` not in
    ///   the future (60 s of skew);
    /// - a `jti` never seen before (kept until its `exp`).
    func authenticate(
        assertion: String,
        type: String?,
        clientID: String?,
        endpoint: String
    ) throws(OAuth2Problem) -> (SandboxConfiguration.OAuth2Client, OAuth2ClientAuthentication.Method) {
        func refuse(_ description: String) -> OAuth2Problem {
            OAuth2Problem(.invalidClient, description, status: .unauthorized)
        }
        guard type == OAuth2.ClientAssertion.assertionType else {
            throw OAuth2Problem(
                .invalidRequest,
                "client_assertion_type must be \(OAuth2.ClientAssertion.assertionType)"
            )
        }
        guard let jws = try? JOSE.CompactJWS(assertion), let claims = try? jws.claims() else {
            throw refuse("client_assertion is not a signed JWT")
        }
        guard case .string(let iss)? = claims["iss"], case .string(let sub)? = claims["sub"], iss == sub else {
            throw refuse("the assertion's iss and sub must both be the client id")
        }
        if let clientID, clientID != iss { throw refuse("client_id differs from the assertion's iss") }
        guard let client = clients.client(iss) else {
            throw refuse("client authentication failed")
        }
        let method: OAuth2ClientAuthentication.Method = jws.algorithm == .hs256 ? .clientSecretJWT : .privateKeyJWT
        if let registered = client.tokenEndpointAuthMethod, registered != method.rawValue {
            throw refuse("the client is registered for \(registered), not \(method.rawValue)")
        }
        do {
            switch method {
            case .clientSecretJWT:
                guard let secret = client.secret else { throw refuse("the client has no secret for client_secret_jwt") }
                let key = try JOSE.VerificationKey(
                    jwk: {
                        var jwk = try JOSE.VerificationKey(hmacSecret: Secret(secret)).jwk
                        jwk.keyID = jws.keyID
                        return jwk
                    }()
                )
                try jws.verify(with: key, allowing: [.hs256])
            default:
                guard let jwks = client.jwks, let json = try? JSONEncoder().encode(jwks),
                    let set = try? JOSE.KeySet(json: Array(json))
                else { throw refuse("the client has no registered jwks for private_key_jwt") }
                try jws.verify(with: set.keys, allowing: JOSE.Algorithm.asymmetric)
            }
        } catch let problem as OAuth2Problem {
            throw problem
        } catch {
            throw refuse("the client assertion does not verify: \(error)")
        }
        let now = configuration.now()
        let audiences: [String] =
            switch claims["aud"] {
            case .string(let aud)?: [aud]
            case .array(let values)?: values.compactMap(\.stringValue)
            default: []
            }
        let accepted = [issuer.url, issuer.url + "/oauth2/token", endpoint]
        guard audiences.contains(where: accepted.contains) else {
            throw refuse("the assertion's aud is not this server (issuer or token endpoint)")
        }
        guard case .integer(let exp)? = claims["exp"] else { throw refuse("the assertion has no exp") }
        guard exp > now else { throw refuse("the assertion has expired") }
        guard exp - now <= Self.maximumAssertionLifetime else {
            throw refuse("the assertion lives more than \(Self.maximumAssertionLifetime) s")
        }
        if case .integer(let iat)? = claims["iat"], iat > now + 60 {
            throw refuse("the assertion's iat is in the future")
        }
        guard case .string(let jti)? = claims["jti"], !jti.isEmpty else { throw refuse("the assertion has no jti") }
        let fresh = state.withLock { state -> Bool in
            state.seenJTIs = state.seenJTIs.filter { $0.value > now }
            guard state.seenJTIs[jti] == nil else { return false }
            state.seenJTIs[jti] = exp
            return true
        }
        guard fresh else { throw refuse("the assertion's jti was already used (replay)") }
        return (client, method)
    }
}

/// `/oauth2/jwks`, `/oauth2/userinfo` and `/oauth2/logout`.
struct OpenIDRoutes: Sendable {
    let configuration: SandboxConfiguration
    let store: OAuth2Store
    let provider: OpenIDProvider
    /// The browser's sign-in session, ended by a logout.
    let consent: ConsentRoutes

    var collection: RouteCollection<SandboxRequestContext> {
        let routes = RouteCollection(context: SandboxRequestContext.self)
        routes.get("jwks") { _, _ in
            OAuth2JSON.response(provider.jwks(now: configuration.now()))
        }
        routes.get("userinfo") { request, context in
            try await userInfo(request, peer: await context.peerCertificate())
        }
        routes.post("userinfo") { request, context in
            try await userInfo(request, peer: await context.peerCertificate())
        }
        // RP-Initiated Logout 1.0 §2: GET and POST.
        routes.get("logout") { request, _ in
            try await logout(request, parameters: try OAuth2Parameters(request.queryFields.pairs))
        }
        routes.post("logout") { request, _ in
            try await logout(request, parameters: try await OAuth2Parameters.body(of: request))
        }
        return routes
    }

    /// UserInfo ([Core §5.3](https://openid.net/specs/openid-connect-core-1_0.html#UserInfo)):
    /// an access token granted `openid`; the claims of its scope. A DPoP-bound token only as
    /// `DPoP` with a proof of its key, never as Bearer
    /// ([RFC 9449 §7.1](https://www.rfc-editor.org/rfc/rfc9449#section-7.1)); a certificate-bound
    /// token only over a connection with that certificate
    /// ([RFC 8705 §3](https://www.rfc-editor.org/rfc/rfc8705#section-3)).
    func userInfo(_ request: Request, peer: PeerCertificate?) async throws -> Response {
        let authorizations = request.headers[values: .authorization]
        let dpop = DPoPResourceCheck(store: store, configuration: configuration)
        let record: OAuth2Store.AccessToken
        if authorizations.count == 1, let token = authorizations.first.flatMap(BearerAuthenticator.dpopToken) {
            record = try await dpop.record(request, token: token)
        } else {
            guard authorizations.count == 1, let token = authorizations.first.flatMap(BearerAuthenticator.bearerToken)
            else {
                throw OpenIDBearerProblem(
                    status: .unauthorized,
                    error: nil,
                    description: "a Bearer access token is required"
                )
            }
            guard let found = await store.accessToken(token, now: configuration.now()) else {
                throw OpenIDBearerProblem(
                    status: .unauthorized,
                    error: "invalid_token",
                    description: "the access token is unknown, expired or revoked"
                )
            }
            guard found.jkt == nil else {
                throw dpop.challenge(.invalidToken, "this token is DPoP-bound: send it as DPoP with a proof")
            }
            record = found
        }
        guard let user = record.user else {
            throw OpenIDBearerProblem(
                status: .unauthorized,
                error: "invalid_token",
                description: "the access token was issued to no user"
            )
        }
        if let bound = record.x5t, !OAuth2.CertificateBinding.isBound(bound, toPresented: peer?.der) {
            throw OpenIDBearerProblem(
                status: .unauthorized,
                error: "invalid_token",
                description: "the access token is bound to a TLS client certificate this connection did not present"
            )
        }
        guard record.scope.contains("openid") else {
            throw OpenIDBearerProblem(
                status: .forbidden,
                error: "insufficient_scope",
                description: "the access token was not granted openid"
            )
        }
        return OAuth2JSON.response(provider.userClaims(of: user, scope: record.scope))
    }
}

/// A refused UserInfo request: `WWW-Authenticate: Bearer` with the error
/// ([RFC 6750 §3](https://www.rfc-editor.org/rfc/rfc6750#section-3), Core §5.3.3).
struct OpenIDBearerProblem: SandboxRefusal {
    let status: HTTPResponse.Status
    let error: String?
    let description: String

    func response(from request: Request, context: some RequestContext) -> Response {
        var challenge = "Bearer realm=\"userinfo\""
        if let error { challenge += ", error=\"\(error)\", error_description=\"\(description)\"" }
        return SandboxResponse.text(
            status,
            description,
            contentType: "text/plain; charset=utf-8",
            headers: [.wwwAuthenticate: challenge]
        )
    }

    var logOutcome: String { "error=\(error ?? "no_token")" }
}
