import Crypto
import CryptoExtras
import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// Keys, claims and tokens shared by the OpenID Connect tests.
enum OIDCFixture {
    static let issuer = "https://op.example"
    static let clientID = "client-1"
    static let now: Int64 = 1_700_000_000
    static let nonce: Secret = "n-0S6_WzA2Mj-0123456789abc"
    static let rsaKey = try! JOSE.SigningKey.rsa(_RSA.Signing.PrivateKey(keySize: .bits2048), keyID: "rsa-1")
    static let ecKey = JOSE.SigningKey.generateP256(keyID: "ec-1")
    /// Another P-256 key under the same kid as ``ecKey`` (no second RSA key: generating one is slow).
    static let otherECKey = JOSE.SigningKey.generateP256(keyID: "ec-1")

    static var verificationKeys: [JOSE.VerificationKey] {
        [try! JOSE.VerificationKey(jwk: rsaKey.publicJWK!), try! JOSE.VerificationKey(jwk: ecKey.publicJWK!)]
    }

    static var claims: [String: JSONValue] {
        [
            "iss": .string(issuer), "sub": "alice", "aud": .string(clientID), "exp": .integer(now + 300),
            "iat": .integer(now), "nonce": .string(nonce.reveal()), "auth_time": .integer(now - 10),
            "name": "Alice Liddell",
        ]
    }

    static func token(
        _ changes: [String: JSONValue?] = [:],
        key: JOSE.SigningKey = rsaKey,
        header: [String: JSONValue] = [:]
    ) throws -> Secret {
        var claims = Self.claims
        for (name, value) in changes {
            if let value { claims[name] = value } else { claims.removeValue(forKey: name) }
        }
        return Secret(try JOSE.JWS.sign(claims: claims, with: key, header: header))
    }

    static func validator(
        allowed: Set<JOSE.Algorithm> = OpenIDConnect.IDTokenValidator.defaultAlgorithms,
        supported: [String]? = nil,
        secret: Secret? = nil,
        trusted: Set<String> = []
    ) throws -> OpenIDConnect.IDTokenValidator {
        try OpenIDConnect.IDTokenValidator(
            issuer: issuer,
            clientID: clientID,
            keys: .keys(verificationKeys),
            allowedAlgorithms: allowed,
            supportedAlgorithms: supported,
            clientSecret: secret,
            trustedAudiences: trusted
        )
    }
}

@Suite struct OpenIDConnectIDTokenTests {
    typealias F = OIDCFixture
    let expect = OpenIDConnect.IDTokenValidator.Expectation(nonce: F.nonce)

    func refused(
        _ code: OpenIDConnect.Error.Code,
        _ token: Secret,
        validator: OpenIDConnect.IDTokenValidator? = nil,
        expecting: OpenIDConnect.IDTokenValidator.Expectation? = nil,
        now: Int64 = F.now,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let validator = try validator ?? F.validator()
        await #expect(throws: OpenIDConnect.Error(code, ""), sourceLocation: sourceLocation) {
            try await validator.validate(token, expecting: expecting ?? expect, now: now)
        }
    }

    /// RS256 and ES256 tokens pass; the claims read back typed; the token is never printed.
    @Test func validTokens() async throws {
        for key in [F.rsaKey, F.ecKey] {
            let token = try F.token(key: key)
            let idToken = try await F.validator().validate(token, expecting: expect, now: F.now)
            #expect(idToken.issuer == F.issuer)
            #expect(idToken.subject == "alice")
            #expect(idToken.audiences == [F.clientID])
            #expect(idToken.expiresAt == F.now + 300)
            #expect(idToken.issuedAt == F.now)
            #expect(idToken.authTime == F.now - 10)
            #expect(idToken.nonce == F.nonce.reveal())
            #expect(idToken.claims["name"] == "Alice Liddell")
            #expect(idToken.token == token)
            #expect("\(idToken)".contains("Alice Liddell"))
            #expect(!"\(idToken)".contains(token.reveal()))
            #expect(!"\(idToken)".contains(token.reveal().split(separator: ".")[2]))
        }
    }

    /// Rule 2: iss exactly (a trailing slash is another issuer).
    @Test func issuer() async throws {
        try await refused(.issuerMismatch, F.token(["iss": "https://evil.example"]))
        try await refused(.issuerMismatch, F.token(["iss": "https://op.example/"]))
    }

    /// Rule 3: aud holds the client id; untrusted extra audiences are refused; `aud` is
    /// required, `azp` alone is not enough.
    @Test func audience() async throws {
        try await refused(.audienceMismatch, F.token(["aud": "client-2"]))
        try await refused(.audienceMismatch, F.token(["aud": ["client-2", "client-3"], "azp": "client-2"]))
        try await refused(
            .audienceMismatch,
            F.token(["aud": [.string(F.clientID), "api"], "azp": .string(F.clientID)])
        )
        try await refused(.malformed, F.token(["aud": nil, "azp": .string(F.clientID)]))
        try await refused(.malformed, F.token(["aud": []]))
        try await refused(.malformed, F.token(["aud": [1]]))
        let ok = try await F.validator().validate(
            F.token(["aud": [.string(F.clientID)]]),
            expecting: expect,
            now: F.now
        )
        #expect(ok.audiences == [F.clientID])
    }

    /// Rules 4–5: several audiences need azp, which must be the client id.
    @Test func authorizedParty() async throws {
        let trusting = try F.validator(trusted: ["api"])
        try await refused(
            .authorizedPartyMismatch,
            F.token(["aud": [.string(F.clientID), "api"]]),
            validator: trusting
        )
        try await refused(
            .authorizedPartyMismatch,
            F.token(["aud": [.string(F.clientID), "api"], "azp": "api"]),
            validator: trusting
        )
        try await refused(.authorizedPartyMismatch, F.token(["azp": "other"]))
        let ok = try await trusting.validate(
            F.token(["aud": [.string(F.clientID), "api"], "azp": .string(F.clientID)]),
            expecting: expect,
            now: F.now
        )
        #expect(ok.authorizedParty == F.clientID)
        #expect(ok.audiences == [F.clientID, "api"])
    }

    /// Rule 9: exp required, past beyond the 60 s leeway refused.
    @Test func expiry() async throws {
        try await refused(.expired, F.token(["exp": .integer(F.now - 61)]))
        try await refused(.expired, F.token(["exp": .integer(F.now - 60)]))
        try await refused(.malformed, F.token(["exp": nil]))
        try await refused(.malformed, F.token(["exp": "soon"]))
        _ = try await F.validator().validate(F.token(["exp": .integer(F.now - 59)]), expecting: expect, now: F.now)
        var strict = try F.validator()
        strict.leeway = 0
        try await refused(.expired, F.token(["exp": .integer(F.now)]), validator: strict)
    }

    /// Rule 10: iat required, in the future beyond the leeway refused.
    @Test func issuedAt() async throws {
        try await refused(.issuedInFuture, F.token(["iat": .integer(F.now + 61)]))
        try await refused(.malformed, F.token(["iat": nil]))
        _ = try await F.validator().validate(F.token(["iat": .integer(F.now + 60)]), expecting: expect, now: F.now)
    }

    /// Rule 11: the nonce sent must come back, the same.
    @Test func nonce() async throws {
        try await refused(.nonceMismatch, F.token(["nonce": "n-another-nonce-0123456789"]))
        try await refused(.nonceMismatch, F.token(["nonce": nil]))
        // No nonce sent: none is checked.
        _ = try await F.validator().validate(F.token(["nonce": nil]), now: F.now)
    }

    /// Rule 13: max_age needs auth_time, not older than max_age (+ leeway).
    @Test func maxAge() async throws {
        let maxAge = OpenIDConnect.IDTokenValidator.Expectation(nonce: F.nonce, maxAge: 300)
        try await refused(.authTimeMissing, F.token(["auth_time": nil]), expecting: maxAge)
        try await refused(.authenticationTooOld, F.token(["auth_time": .integer(F.now - 361)]), expecting: maxAge)
        _ = try await F.validator().validate(
            F.token(["auth_time": .integer(F.now - 360)]),
            expecting: maxAge,
            now: F.now
        )
        // Without max_age, auth_time is not required.
        _ = try await F.validator().validate(F.token(["auth_time": nil]), expecting: expect, now: F.now)
    }

    /// Rules 6–8: the signature, the allow-list, never none, HS256 only with the client secret.
    @Test func signatureAndAlgorithms() async throws {
        // Signed by another key with the same kid.
        try await refused(.invalidSignature, F.token(key: F.otherECKey))
        // Unknown kid: no fallback to another key.
        let stray = JOSE.SigningKey.generateP256(keyID: "ec-9")
        try await refused(.unknownKey, F.token(key: stray))
        // alg none.
        let header = RemoteAuthBase64URL.encode(Array(#"{"alg":"none"}"#.utf8))
        let payload = RemoteAuthBase64URL.encode(Array(try JSONEncoder().encode(F.claims)))
        try await refused(.algorithmNotAllowed, Secret("\(header).\(payload)."))
        // PS256 is not in the default allow-list.
        let ps = try JOSE.SigningKey(pem: F.rsaKey.pemRepresentation!, algorithm: .ps256, keyID: "rsa-1")
        try await refused(.algorithmNotAllowed, F.token(key: ps))
        // The provider signs with RS256 only: ES256 refused.
        try await refused(.algorithmNotAllowed, F.token(key: F.ecKey), validator: F.validator(supported: ["RS256"]))
        // HS256: not allowed by default, even keyed with the right secret.
        let secret: Secret = "a client secret of 32 bytes or more!"
        let hs = try JOSE.SigningKey.hmacSHA256(Array(secret.reveal().utf8))
        try await refused(.algorithmNotAllowed, F.token(key: hs))
        let withHS = try F.validator(allowed: [.rs256, .hs256], secret: secret)
        _ = try await withHS.validate(F.token(key: hs), expecting: expect, now: F.now)
        _ = try await withHS.validate(F.token(key: F.rsaKey), expecting: expect, now: F.now)
        let wrong = try JOSE.SigningKey.hmacSHA256(Array("another secret of 32 bytes or more".utf8))
        try await refused(.invalidSignature, F.token(key: wrong), validator: withHS)
        // An encrypted token (five parts).
        try await refused(.malformed, Secret("a.b.c.d.e"))
        try await refused(.malformed, Secret("not a token"))
    }

    @Test func configuration() throws {
        #expect(throws: OpenIDConnect.Error(.invalidConfiguration, "")) { try F.validator(supported: ["HS512"]) }
        #expect(throws: OpenIDConnect.Error(.invalidConfiguration, "")) { try F.validator(allowed: [.hs256]) }
        #expect(throws: OpenIDConnect.Error(.invalidConfiguration, "")) { try F.validator(allowed: [.none]) }
        #expect(try F.validator(supported: ["RS256", "none"]).allowedAlgorithms == [.rs256])
    }

    /// at_hash and c_hash: OpenID Connect Core A.4 and A.6's known answers, then mismatches.
    @Test func tokenHashes() async throws {
        #expect(
            OpenIDConnect.IDTokenValidator.halfHash("jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y", algorithm: .rs256)
                == "77QmUPtjPfzWtF2AnpK9RQ"
        )
        #expect(
            OpenIDConnect.IDTokenValidator.halfHash(
                "Qcb0Orv1zh30vL1MPRsbm-diHiMwcLyZvn1arpZv-Jxf_11jnpEX3Tgfvk",
                algorithm: .rs256
            ) == "LDktKdoQak3Pk0cnXxCltA"
        )
        let access: Secret = "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y"
        let withAccess = OpenIDConnect.IDTokenValidator.Expectation(nonce: F.nonce, accessToken: access)
        _ = try await F.validator().validate(
            F.token(["at_hash": "77QmUPtjPfzWtF2AnpK9RQ"]),
            expecting: withAccess,
            now: F.now
        )
        try await refused(
            .accessTokenHashMismatch,
            F.token(["at_hash": "77QmUPtjPfzWtF2AnpK9RR"]),
            expecting: withAccess
        )
        let withCode = OpenIDConnect.IDTokenValidator.Expectation(nonce: F.nonce, code: "other-code")
        try await refused(.codeHashMismatch, F.token(["c_hash": "LDktKdoQak3Pk0cnXxCltA"]), expecting: withCode)
    }

    /// Core §12.2: a refreshed ID token has the same iss, sub, aud, and the same nonce or none.
    @Test func refreshedToken() async throws {
        let original = try await F.validator().validate(F.token(), expecting: expect, now: F.now)
        let later = F.now + 3600
        let fresh: [String: JSONValue?] = ["iat": .integer(later), "exp": .integer(later + 300), "nonce": nil]
        let again = try await F.validator().validateRefreshed(F.token(fresh), original: original, now: later)
        #expect(again.subject == "alice")
        var other = fresh
        other["sub"] = "mallory"
        await #expect(throws: OpenIDConnect.Error(.subjectMismatch, "")) {
            try await F.validator().validateRefreshed(F.token(other), original: original, now: later)
        }
        other = fresh
        other["nonce"] = "n-another-nonce-0123456789"
        await #expect(throws: OpenIDConnect.Error(.nonceMismatch, "")) {
            try await F.validator().validateRefreshed(F.token(other), original: original, now: later)
        }
    }
}

@Suite struct OpenIDConnectFlowTests {
    typealias F = OIDCFixture

    static func jwks(_ keys: [JOSE.SigningKey]) throws -> String {
        let set = try keys.map { String(decoding: try $0.publicJWK!.json(), as: UTF8.self) }
        return #"{"keys":["# + set.joined(separator: ",") + "]}"
    }

    /// An unknown kid makes the cache fetch the JWK Set once more (rotation), and not more
    /// often than the minimum interval.
    @Test func keyRotationRefetchesOnce() async throws {
        let clock = OAuth2TestClock(F.now)
        let rotated = JOSE.SigningKey.generateP256(keyID: "ec-2")
        let transport = ScriptedTransport([
            OAuth2Script.json(200, try Self.jwks([F.rsaKey])),
            OAuth2Script.json(200, try Self.jwks([F.rsaKey, rotated])),
        ])
        let cache = try JOSE.KeySetCache(url: "https://op.example/jwks", transport: transport, now: clock.closure)
        let validator = try OpenIDConnect.IDTokenValidator(
            issuer: F.issuer,
            clientID: F.clientID,
            keys: .keySetCache(cache)
        )
        _ = try await validator.validate(F.token(), now: F.now)
        clock.advance(61)
        let token = try F.token(["iat": .integer(F.now + 61)], key: rotated)
        _ = try await validator.validate(token, now: clock.now)
        #expect(await cache.fetchCount == 2)
        // A made-up kid right after: no third fetch.
        let stray = JOSE.SigningKey.generateP256(keyID: "ec-9")
        await #expect(throws: OpenIDConnect.Error(.unknownKey, "")) {
            try await validator.validate(F.token(key: stray), now: clock.now)
        }
        #expect(await cache.fetchCount == 2)
    }

    /// scope openid: the authorization request carries a 256-bit nonce, kept in the pending
    /// authorization; the code exchange validates the ID token against it.
    @Test func codeFlowValidatesIDToken() async throws {
        let access = "SlAV32hkKG"
        let idTokenBox = LockedBox<String>("")
        let transport = ScriptedTransport([
            { _, _ in
                (
                    HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]),
                    Array(
                        #"{"access_token":"\#(access)","token_type":"Bearer","expires_in":3600,"id_token":"\#(idTokenBox.value)"}"#
                            .utf8
                    )
                )
            }
        ])
        var flow = OAuth2.Flow(
            server: .init(
                issuer: F.issuer,
                authorizationEndpoint: "https://op.example/authorize",
                tokenEndpoint: "https://op.example/token"
            ),
            client: .public(id: F.clientID),
            transport: transport,
            now: { F.now }
        )
        flow.openIDConnect = OpenIDConnect.RelyingParty(validator: try F.validator())
        let request = try flow.authorizationRequest(
            redirectURI: "http://127.0.0.1:9/cb",
            scope: ["openid", "profile"],
            maxAge: 600,
            random: .seeded(7)
        )
        let nonce = try #require(request.pending.nonce)
        #expect(nonce.reveal().count == 43)
        #expect(
            request.parameters.map(\.name) == [
                "response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge",
                "code_challenge_method",
                "nonce", "max_age",
            ]
        )
        #expect(request.parameters.first { $0.name == "max_age" }?.value == "600")
        #expect(!"\(request.pending)".contains(nonce.reveal()))
        idTokenBox.value = try F.token(
            [
                "nonce": .string(nonce.reveal()),
                "at_hash": .string(OpenIDConnect.IDTokenValidator.halfHash(access, algorithm: .rs256)),
            ]
        ).reveal()
        let callback = "http://127.0.0.1:9/cb?code=abc&state=\(request.pending.state.reveal())"
        let signIn = try await flow.signIn(fromCallback: callback, pending: request.pending)
        #expect(signIn.idToken.subject == "alice")
        #expect(signIn.tokens.accessToken.reveal() == access)

        // Without openid in the scope: no nonce.
        let plain = try flow.authorizationRequest(
            redirectURI: "http://127.0.0.1:9/cb",
            scope: ["profile"],
            random: .seeded(7)
        )
        #expect(plain.pending.nonce == nil)
        #expect(!plain.parameters.contains { $0.name == "nonce" })
    }

    /// A wrong nonce fails the plain `tokens(fromCallback:)` too; a response without an
    /// id_token fails an OpenID exchange.
    @Test func exchangeHookRefuses() async throws {
        func flow(_ body: String) throws -> OAuth2.Flow {
            var flow = OAuth2.Flow(
                server: .init(
                    issuer: F.issuer,
                    authorizationEndpoint: "https://op.example/authorize",
                    tokenEndpoint: "https://op.example/token"
                ),
                client: .public(id: F.clientID),
                transport: ScriptedTransport([OAuth2Script.json(200, body)]),
                now: { F.now }
            )
            flow.openIDConnect = OpenIDConnect.RelyingParty(validator: try F.validator())
            return flow
        }
        let request = try flow("{}").authorizationRequest(
            redirectURI: "http://127.0.0.1:9/cb",
            scope: ["openid"],
            random: .seeded(1)
        )
        let callback = "http://127.0.0.1:9/cb?code=abc&state=\(request.pending.state.reveal())"
        let wrongNonce = try F.token().reveal()
        await #expect(throws: OpenIDConnect.Error(.nonceMismatch, "")) {
            try await flow(#"{"access_token":"a","token_type":"Bearer","id_token":"\#(wrongNonce)"}"#)
                .tokens(fromCallback: callback, pending: request.pending)
        }
        await #expect(throws: OpenIDConnect.Error(.missingIDToken, "")) {
            try await flow(#"{"access_token":"a","token_type":"Bearer"}"#).tokens(
                fromCallback: callback,
                pending: request.pending
            )
        }
    }

    /// UserInfo: Bearer request; sub must be the ID token's (Core §5.3.2); errors typed.
    @Test func userInfo() throws {
        let request = try OpenIDConnect.UserInfo.request(endpoint: "https://op.example/userinfo", accessToken: "at-1")
        #expect(request.headerFields[.authorization] == "Bearer at-1")
        let ok = HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"])
        let info = try OpenIDConnect.UserInfo.parse(
            response: ok,
            body: Array(#"{"sub":"alice","email":"alice@example.com"}"#.utf8),
            expectedSubject: "alice"
        )
        #expect(info.claims["email"] == "alice@example.com")
        #expect(throws: OpenIDConnect.Error(.subjectMismatch, "")) {
            try OpenIDConnect.UserInfo.parse(
                response: ok,
                body: Array(#"{"sub":"mallory"}"#.utf8),
                expectedSubject: "alice"
            )
        }
        #expect(throws: OpenIDConnect.Error(.userInfoFailed, "")) {
            try OpenIDConnect.UserInfo.parse(
                response: ok,
                body: Array(#"{"email":"x"}"#.utf8),
                expectedSubject: "alice"
            )
        }
        #expect(throws: OpenIDConnect.Error(.userInfoFailed, "")) {
            try OpenIDConnect.UserInfo.parse(
                response: HTTPResponse(
                    status: .unauthorized,
                    headerFields: [.wwwAuthenticate: #"Bearer error="invalid_token""#]
                ),
                body: [],
                expectedSubject: "alice"
            )
        }
    }

    /// RP-initiated logout §2: the URL, exactly.
    @Test func logoutURL() throws {
        let logout = try OpenIDConnect.LogoutRequest(
            endSessionEndpoint: "https://op.example/logout",
            idTokenHint: "eyJ.x.y",
            clientID: "client-1",
            postLogoutRedirectURI: "https://rp.example/bye",
            state: "s1"
        )
        #expect(
            logout.url
                == "https://op.example/logout?id_token_hint=eyJ.x.y&client_id=client-1&post_logout_redirect_uri=https%3A%2F%2Frp.example%2Fbye&state=s1"
        )
        #expect(!"\(logout)".contains("eyJ.x.y"))
        #expect(throws: OpenIDConnect.Error(.invalidConfiguration, "")) {
            try OpenIDConnect.LogoutRequest(endSessionEndpoint: "https://op.example/logout", state: "s1")
        }
        #expect(throws: OAuth2.Error(.insecureEndpoint, "")) {
            try OpenIDConnect.LogoutRequest(endSessionEndpoint: "http://op.example/logout")
        }
    }

    /// Discovery metadata: the OpenID members read strictly.
    @Test func metadataMembers() throws {
        let metadata = try OAuth2.ServerMetadata.parse(
            status: 200,
            body: Array(
                #"{"issuer":"https://op.example","jwks_uri":"https://op.example/jwks","id_token_signing_alg_values_supported":["RS256","ES256"],"end_session_endpoint":"https://op.example/logout","userinfo_endpoint":"https://op.example/userinfo"}"#
                    .utf8
            ),
            expectedIssuer: "https://op.example"
        )
        #expect(try metadata.idTokenSigningAlgValuesSupported() == ["RS256", "ES256"])
        #expect(try metadata.endSessionEndpoint() == "https://op.example/logout")
        let rp = try OpenIDConnect.RelyingParty(
            metadata: metadata,
            clientID: "c",
            transport: ScriptedTransport([]),
            now: { 0 }
        )
        #expect(rp.validator.allowedAlgorithms == [.rs256, .es256])
        #expect(rp.userInfoEndpoint == "https://op.example/userinfo")
        let bad = OAuth2.ServerMetadata(
            issuer: "https://op.example",
            additionalParameters: ["id_token_signing_alg_values_supported": "RS256"]
        )
        #expect(throws: OpenIDConnect.Error(.malformed, "")) { try bad.idTokenSigningAlgValuesSupported() }
        #expect(throws: OpenIDConnect.Error(.invalidConfiguration, "")) {
            try OpenIDConnect.RelyingParty(
                metadata: OAuth2.ServerMetadata(issuer: "https://op.example"),
                clientID: "c",
                transport: ScriptedTransport([]),
                now: { 0 }
            )
        }
    }
}

/// A value a test sets after building a closure that reads it.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    // Guarded by `lock`.
    private var stored: Value
    private let lock = NSLock()
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

@Suite struct ClientAssertionTests {
    typealias F = OIDCFixture
    static let endpoint = "https://op.example/token"

    /// private_key_jwt: the form carries client_id, the assertion type and a JWT whose
    /// claims are exactly iss = sub = client id, aud = the token endpoint, iat = now,
    /// exp = now + 60, a 128-bit jti; header alg and kid the key's.
    @Test func privateKeyJWT() throws {
        for key in [F.rsaKey, F.ecKey, JOSE.SigningKey.ed25519(Curve25519.Signing.PrivateKey(), keyID: "ed")] {
            let client = OAuth2.Client(
                id: F.clientID,
                authentication: try .privateKeyJWT(key, now: { F.now }, random: .seeded(3))
            )
            #expect(client.authentication.methodName == "private_key_jwt")
            let (head, body) = try OAuth2.TokenRequest.clientCredentials().httpRequest(
                to: Self.endpoint,
                client: client
            )
            #expect(head.headerFields[.authorization] == nil)
            let form = try OAuth2Script.form(body)
            #expect(form.map(\.name) == ["grant_type", "client_id", "client_assertion_type", "client_assertion"])
            #expect(form[2].value == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
            let jws = try JOSE.CompactJWS(form[3].value)
            #expect(jws.algorithm == key.algorithm)
            #expect(jws.keyID == key.keyID)
            try jws.verify(with: JOSE.VerificationKey(jwk: key.publicJWK!), allowing: [key.algorithm])
            let claims = try jws.claims()
            let jti = try #require(claims["jti"]?.stringValue)
            #expect(RemoteAuthBase64URL.decode(jti)?.count == 16)
            #expect(
                claims == [
                    "iss": .string(F.clientID), "sub": .string(F.clientID), "aud": .string(Self.endpoint),
                    "iat": .integer(F.now), "exp": .integer(F.now + 60), "jti": .string(jti),
                ]
            )
        }
    }

    /// Each request gets a new jti; the issuer audience is configurable.
    @Test func freshJTIAndIssuerAudience() throws {
        let client = OAuth2.Client(
            id: F.clientID,
            authentication: try .privateKeyJWT(
                F.ecKey,
                audience: .issuer(F.issuer),
                lifetime: 30,
                now: { F.now },
                random: .system
            )
        )
        func claims() throws -> [String: JSONValue] {
            let (_, body) = try OAuth2.TokenRequest.clientCredentials().httpRequest(to: Self.endpoint, client: client)
            return try JOSE.CompactJWS(try OAuth2Script.form(body)[3].value).claims()
        }
        let first = try claims()
        let second = try claims()
        #expect(first["jti"] != second["jti"])
        #expect(first["aud"] == .string(F.issuer))
        #expect(first["exp"] == .integer(F.now + 30))
    }

    /// client_secret_jwt: HS256 keyed with the client secret; the secret never in the form.
    @Test func clientSecretJWT() throws {
        let secret: Secret = "a client secret of 32 bytes or more!"
        let client = OAuth2.Client(
            id: F.clientID,
            authentication: try .clientSecretJWT(secret, now: { F.now }, random: .seeded(1))
        )
        #expect(client.authentication.methodName == "client_secret_jwt")
        let (_, body) = try OAuth2.TokenRequest.clientCredentials().httpRequest(to: Self.endpoint, client: client)
        let form = try OAuth2Script.form(body)
        #expect(!form.contains { $0.value.contains(secret.reveal()) })
        let jws = try JOSE.CompactJWS(form[3].value)
        #expect(jws.algorithm == .hs256)
        try jws.verify(with: JOSE.VerificationKey(hmacSecret: secret), allowing: [.hs256])
        #expect(!"\(client)".contains(secret.reveal()))
    }

    /// An HMAC key is not a private key; by name, the JWT methods need a key and a clock; a
    /// decoded JWT method without its key cannot authenticate.
    @Test func refusals() throws {
        let hs = try JOSE.SigningKey.hmacSHA256(Array(repeating: 1, count: 32))
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) {
            try OAuth2.ClientAuthentication.privateKeyJWT(hs, now: { 0 }, random: .system)
        }
        for name in ["private_key_jwt", "client_secret_jwt"] {
            #expect(throws: OAuth2.Error(.invalidConfiguration, "")) {
                try OAuth2.ClientAuthentication(methodName: name, secret: "s")
            }
        }
        let encoded = try JSONEncoder().encode(
            OAuth2.ClientAuthentication.privateKeyJWT(F.ecKey, now: { 0 }, random: .system)
        )
        #expect(String(decoding: encoded, as: UTF8.self) == #"{"method":"private_key_jwt"}"#)
        let decoded = try JSONDecoder().decode(OAuth2.ClientAuthentication.self, from: encoded)
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) {
            try OAuth2.TokenRequest.clientCredentials().httpRequest(
                to: Self.endpoint,
                client: .init(id: "c", authentication: decoded)
            )
        }
        // A stored session: the key comes from the caller.
        let session = OAuth2.Session(
            tokens: .init(accessToken: "a", tokenType: "Bearer"),
            tokenEndpoint: Self.endpoint,
            clientID: "c",
            clientAuthentication: .privateKeyJWT,
            clientKeyReference: "/keys/client.pem"
        )
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) {
            try session.client(assertionKey: nil, now: { 0 }, random: .system)
        }
        #expect(
            try session.client(assertionKey: F.ecKey, now: { 0 }, random: .system).authentication.methodName
                == "private_key_jwt"
        )
        // A provider is asked with the stored reference, and only for private_key_jwt.
        let keys = RecordingKeyProvider(key: F.ecKey)
        _ = try session.client(assertionKey: keys, now: { 0 }, random: .system)
        #expect(keys.asked == ["c /keys/client.pem"])
        var basic = session
        basic.clientAuthentication = .clientSecretBasic
        basic.clientSecret = "s"
        _ = try basic.client(assertionKey: keys, now: { 0 }, random: .system)
        #expect(keys.asked.count == 1)
    }
}

/// Hands out one key and records what it was asked for.
final class RecordingKeyProvider: OAuth2.ClientKeyProvider {
    let key: JOSE.SigningKey
    private let log = Locked<[String]>([])
    init(key: JOSE.SigningKey) { self.key = key }
    var asked: [String] { log.withLock { $0 } }

    func clientKey(reference: String?, clientID: String) -> JOSE.SigningKey {
        log.withLock { $0.append(clientID + " " + (reference ?? "-")) }
        return key
    }
}

/// Issue 24, clocks: the client's clock 10 minutes ahead of or behind the issuer's. An ID token
/// (iat = the issuer's now, exp = iat + 300) validates when the leeway covers the skew and is
/// refused beyond it, with a message that names the skew.
@Suite struct OpenIDConnectClockSkewTests {
    typealias F = OIDCFixture

    func validator(leeway: Int64) throws -> OpenIDConnect.IDTokenValidator {
        var validator = try F.validator()
        validator.leeway = leeway
        return validator
    }

    @Test func aClockTenMinutesBehind() async throws {
        let behind = F.now - 600
        let expecting = OpenIDConnect.IDTokenValidator.Expectation(nonce: F.nonce)
        _ = try await validator(leeway: 600).validate(F.token(), expecting: expecting, now: behind)
        let refused = await #expect(throws: OpenIDConnect.Error.self) {
            try await validator(leeway: 599).validate(F.token(), expecting: expecting, now: behind)
        }
        #expect(refused?.code == .issuedInFuture)
        #expect(
            refused?.reason
                == "iat \(F.now) is 600 s in the future (now \(behind), leeway 599 s): this machine's clock is at least 600 s behind the issuer's (rule 10)"
        )
    }

    @Test func aClockTenMinutesAhead() async throws {
        let ahead = F.now + 600
        let expecting = OpenIDConnect.IDTokenValidator.Expectation(nonce: F.nonce)
        // exp = issuer's now + 300: 300 s past on this clock.
        _ = try await validator(leeway: 301).validate(F.token(), expecting: expecting, now: ahead)
        let refused = await #expect(throws: OpenIDConnect.Error.self) {
            try await validator(leeway: 300).validate(F.token(), expecting: expecting, now: ahead)
        }
        #expect(refused?.code == .expired)
        #expect(
            refused?.reason
                == "exp \(F.now + 300) is 300 s past (now \(ahead), leeway 300 s): the token expired, or this machine's clock is at least 300 s ahead of the issuer's (rule 9)"
        )
    }
}
