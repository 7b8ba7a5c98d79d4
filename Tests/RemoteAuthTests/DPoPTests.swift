import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// The client side of RFC 9449 (proofs, nonces, the token endpoint transport, DPoP tokens in a
/// token session) and the verifier's negatives, with no sockets: scripted transports and a
/// test clock.
@Suite struct DPoPTests {
    static let clock = TestClock(1_700_000_000)

    static func prover(seed: UInt64 = 7) throws -> OAuth2.DPoP.Prover {
        try OAuth2.DPoP.Prover(key: .generateP256(), now: clock.function, random: .seeded(seed))
    }

    @Test func proofHasTheRFCShape() throws {
        let prover = try Self.prover()
        let proof = try prover.proof(
            method: .get,
            url: "https://api.example/me?x=1#f",
            accessToken: "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"
        )
        let jws = try JOSE.CompactJWS(proof)
        #expect(jws.type == "dpop+jwt")
        #expect(jws.algorithm == .es256)
        let jwk = try #require(jws.header["jwk"]?.objectValue)
        #expect(Set(jwk.keys) == ["kty", "crv", "x", "y"])
        let claims = try jws.claims()
        #expect(claims["htm"] == "GET")
        #expect(claims["htu"] == "https://api.example/me")
        #expect(claims["iat"] == .integer(1_700_000_000))
        #expect(claims["ath"] == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
        #expect(claims["nonce"] == nil)
        // 128 random bits.
        #expect(claims["jti"]?.stringValue?.count == 22)
        #expect(Set(claims.keys) == ["htm", "htu", "iat", "jti", "ath"])
        // Two proofs never share a jti.
        let other = try JOSE.CompactJWS(prover.proof(method: .get, url: "https://api.example/me")).claims()
        #expect(other["jti"] != claims["jti"])
        #expect(other["ath"] == nil)

        let verified = try OAuth2.DPoP.ProofVerifier().verify(
            proof,
            method: .get,
            url: "https://api.example/me",
            at: Self.clock.now,
            accessToken: "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU",
            boundTo: prover.thumbprint
        )
        #expect(verified.thumbprint == prover.thumbprint)
    }

    @Test func verifierNegatives() throws {
        let prover = try Self.prover()
        let verifier = OAuth2.DPoP.ProofVerifier(maximumAge: 300, leeway: 60)
        let now = Self.clock.now
        let proof = try prover.proof(method: .post, url: "https://as.example/token")
        func check(_ code: OAuth2.DPoP.Error.Code, _ run: () throws -> Void) {
            #expect(throws: OAuth2.DPoP.Error(code, "")) { try run() }
        }
        check(.methodMismatch) {
            _ = try verifier.verify(proof, method: .get, url: "https://as.example/token", at: now)
        }
        check(.urlMismatch) { _ = try verifier.verify(proof, method: .post, url: "https://as.example/other", at: now) }
        check(.urlMismatch) {
            _ = try verifier.verify(proof, method: .post, url: "https://evil.example/token", at: now)
        }
        check(.issuedAtOutOfWindow) {
            _ = try verifier.verify(proof, method: .post, url: "https://as.example/token", at: now + 361)
        }
        check(.issuedAtOutOfWindow) {
            _ = try verifier.verify(proof, method: .post, url: "https://as.example/token", at: now - 61)
        }
        // Within the leeway it passes.
        _ = try verifier.verify(proof, method: .post, url: "https://as.example/token", at: now + 360)
        let other = try Self.prover(seed: 8)
        check(.keyMismatch) {
            _ = try verifier.verify(
                proof,
                method: .post,
                url: "https://as.example/token",
                at: now,
                boundTo: other.thumbprint
            )
        }
        check(.nonceRequired) {
            _ = try verifier.verify(proof, method: .post, url: "https://as.example/token", at: now, nonce: "n-1")
        }
        // A resource request without ath, with a token.
        check(.accessTokenHashMismatch) {
            _ = try verifier.verify(proof, method: .post, url: "https://as.example/token", at: now, accessToken: "t")
        }
        check(.malformed) { _ = try verifier.verify("a.b", method: .post, url: "https://as.example/token", at: now) }
        // Replay: once accepted, the same jti is refused, even at another second of its window.
        var cache = OAuth2.DPoP.ReplayCache()
        _ = try verifier.verify(proof, method: .post, url: "https://as.example/token", at: now, replayCache: &cache)
        check(.replayed) {
            _ = try verifier.verify(
                proof,
                method: .post,
                url: "https://as.example/token",
                at: now + 5,
                replayCache: &cache
            )
        }
        // Two DPoP fields.
        var fields = HTTPFields()
        fields.append(HTTPField(name: .dpop, value: proof))
        fields.append(HTTPField(name: .dpop, value: proof))
        check(.multipleProofs) { _ = try OAuth2.DPoP.ProofVerifier.proof(in: fields) }
        #expect(try OAuth2.DPoP.ProofVerifier.proof(in: [:]) == nil)
    }

    @Test func replayCacheIsBoundedInSizeAndTime() {
        var cache = OAuth2.DPoP.ReplayCache(capacity: 3)
        var accepted: [Bool] = []
        accepted.append(cache.insert("a", expiresAt: 100, now: 0))
        accepted.append(cache.insert("a", expiresAt: 100, now: 50))
        accepted.append(cache.insert("b", expiresAt: 100, now: 0))
        accepted.append(cache.insert("c", expiresAt: 100, now: 0))
        accepted.append(cache.insert("d", expiresAt: 100, now: 0))
        #expect(accepted == [true, false, true, true, true])
        #expect(cache.count == 3)
        // Expired entries go: "a" may come back after its window.
        let again = cache.insert("a", expiresAt: 300, now: 100)
        #expect(again)
        #expect(cache.count == 1)
    }

    @Test func noncesArePerOriginAndReplaced() {
        var store = OAuth2.DPoP.NonceStore()
        store.update(from: [.dpopNonce: "as-1"], for: "https://as.example/token")
        store.update(from: [.dpopNonce: "rs-1"], for: "https://API.example:443/a?b")
        #expect(store.nonce(for: "https://as.example/par") == "as-1")
        #expect(store.nonce(for: "https://api.example/other") == "rs-1")
        #expect(store.nonce(for: "https://api.example:8443/") == nil)
        store.update(from: [.dpopNonce: "as-2"], for: "https://as.example/token")
        #expect(store.nonce(for: "https://as.example/token") == "as-2")
        // Not 1*NQCHAR: ignored.
        store.update(from: [.dpopNonce: "a b"], for: "https://as.example/token")
        #expect(store.nonce(for: "https://as.example/token") == "as-2")
        #expect(store.count == 2)
    }

    @Test func nonceChallenges() {
        let asBody = Array(#"{"error":"use_dpop_nonce","error_description":"x"}"#.utf8)
        let as400 = HTTPResponse(status: .badRequest, headerFields: [.dpopNonce: "n1"])
        #expect(OAuth2.DPoP.nonceChallenge(in: as400, body: asBody, sentNonce: nil) == "n1")
        #expect(OAuth2.DPoP.nonceChallenge(in: as400, body: asBody, sentNonce: "n1") == nil)
        #expect(
            OAuth2.DPoP.nonceChallenge(in: as400, body: Array(#"{"error":"invalid_grant"}"#.utf8), sentNonce: nil)
                == nil
        )
        #expect(OAuth2.DPoP.nonceChallenge(in: HTTPResponse(status: .badRequest), body: asBody, sentNonce: nil) == nil)
        let rs401 = HTTPResponse(
            status: .unauthorized,
            headerFields: [
                .wwwAuthenticate: #"DPoP error="use_dpop_nonce", error_description="fresh", algs="ES256""#,
                .dpopNonce: "n2",
            ]
        )
        #expect(OAuth2.DPoP.nonceChallenge(in: rs401, body: nil, sentNonce: "n1") == "n2")
        let bearer401 = HTTPResponse(
            status: .unauthorized,
            headerFields: [.wwwAuthenticate: #"Bearer error="use_dpop_nonce""#, .dpopNonce: "n2"]
        )
        #expect(OAuth2.DPoP.nonceChallenge(in: bearer401, body: nil, sentNonce: nil) == nil)
    }

    /// RFC 9449 §8: the token endpoint asks for a nonce; a bound flow retries once with it,
    /// and not again when the server asks a second time.
    @Test func boundFlowRetriesOnceWithTheServersNonce() async throws {
        let prover = try Self.prover()
        let nonceAnswer: ScriptedTransport.Answer = { _, _ in
            (
                HTTPResponse(status: .badRequest, headerFields: [.dpopNonce: "n-\(Int.random(in: 0..<1_000_000))"]),
                Array(#"{"error":"use_dpop_nonce"}"#.utf8)
            )
        }
        let base = ScriptedTransport([nonceAnswer, nonceAnswer, ScriptedTransport.status(200)])
        let flow = OAuth2.Flow(
            server: OAuth2.AuthorizationServer(
                tokenEndpoint: "https://as.example/token",
                revocationEndpoint: "https://as.example/revoke"
            ),
            client: .public(id: "c"),
            transport: base,
            now: { 0 }
        ).binding(to: prover)
        let error = await #expect(throws: OAuth2.Error.self) { try await flow.clientCredentials() }
        #expect(error?.serverError?.code == .useDPoPNonce)
        #expect(base.sent.count == 2)
        let first = try JOSE.CompactJWS(try #require(base.sent[0].request.headerFields[.dpop])).claims()
        let second = try JOSE.CompactJWS(try #require(base.sent[1].request.headerFields[.dpop])).claims()
        #expect(first["nonce"] == nil)
        #expect(second["nonce"]?.stringValue?.hasPrefix("n-") == true)
        #expect(first["jti"] != second["jti"])
        #expect(first["htu"]?.stringValue == "https://as.example/token")
        // Other endpoints get no proof.
        try await flow.revoke("at-1")
        #expect(base.sent[2].request.headerFields[.dpop] == nil)
    }

    static func dpopSession(type: String = "DPoP", prover: OAuth2.DPoP.Prover?) throws -> OAuth2.TokenSession {
        var session = Fixture.session(Fixture.tokens("at-1", expiresAt: nil, type: type))
        session.dpopKey = prover?.privateJWK
        return try OAuth2.TokenSession(
            session: session,
            store: InMemoryTokenStore(),
            service: "s",
            account: "a",
            now: clock.function,
            dpop: prover,
            refresher: { _ in Fixture.tokens("at-2", expiresAt: nil, type: type) }
        )
    }

    @Test func tokenSessionSendsDPoPTokensWithAProof() async throws {
        let prover = try Self.prover()
        let session = try Self.dpopSession(prover: prover)
        #expect(session.writtenFields == [.authorization, .dpop])
        let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example", path: "/me?q=1")
        var attempt = AuthenticationAttempt(request: request, body: nil)
        try await session.authenticate(&attempt)
        #expect(attempt.request.headerFields[.authorization] == "DPoP at-1")
        let proof = try #require(attempt.request.headerFields[.dpop])
        _ = try OAuth2.DPoP.ProofVerifier().verify(
            proof,
            method: .get,
            url: "https://api.example/me?q=1",
            at: Self.clock.now,
            accessToken: "at-1",
            boundTo: prover.thumbprint
        )
        #expect("\(attempt)" == "AuthenticationAttempt(#1 GET https://api.example/me?q=1)")

        // Without a key, a DPoP token is still refused.
        let keyless = try Self.dpopSession(prover: nil)
        await #expect(throws: OAuth2.Error(.unsupportedTokenType, "")) {
            var refused = AuthenticationAttempt(request: request, body: nil)
            try await keyless.authenticate(&refused)
        }
        // A Bearer token with a key: sent as Bearer (the server chose not to bind it).
        let bearer = try Self.dpopSession(type: "Bearer", prover: prover)
        var sent = AuthenticationAttempt(request: request, body: nil)
        try await bearer.authenticate(&sent)
        #expect(sent.request.headerFields[.authorization] == "Bearer at-1")
        #expect(sent.request.headerFields[.dpop] == nil)
    }

    /// RFC 9449 §9 through the client: a `401` with `use_dpop_nonce` gets exactly one retry
    /// with the nonce; a nonce on a `200` is used by the next request to that origin.
    @Test func resourceServerNonceRetryThroughTheClient() async throws {
        let prover = try Self.prover()
        let session = try Self.dpopSession(prover: prover)
        let challenge = ScriptedTransport.status(
            401,
            [.wwwAuthenticate: #"DPoP error="use_dpop_nonce", algs="ES256""#, .dpopNonce: "rs-n1"]
        )
        let transport = ScriptedTransport([
            challenge, ScriptedTransport.status(200, [.dpopNonce: "rs-n2"]),
            ScriptedTransport.status(200),
            challenge, challenge,
        ])
        let client = AuthenticatingClient(transport: transport, authenticators: session.authenticators())
        let (first, _) = try await client.send(
            HTTPRequest(method: .get, scheme: "https", authority: "api.example", path: "/me"),
            body: nil
        )
        #expect(first.status == .ok)
        #expect(transport.sent.count == 2)
        func nonce(_ index: Int) throws -> String? {
            try JOSE.CompactJWS(try #require(transport.sent[index].request.headerFields[.dpop])).claims()["nonce"]?
                .stringValue
        }
        #expect(try nonce(0) == nil)
        #expect(try nonce(1) == "rs-n1")
        #expect(transport.sent[1].request.headerFields[.authorization] == "DPoP at-1")
        // The 200's nonce is the next one.
        _ = try await client.send(
            HTTPRequest(method: .get, scheme: "https", authority: "api.example", path: "/x"),
            body: nil
        )
        #expect(try nonce(2) == "rs-n2")
        #expect(prover.nonce(for: "https://as.example/token") == nil)
        // A use_dpop_nonce gets one retry; a second challenge for the nonce just sent is the
        // caller's response.
        let (refused, _) = try await client.send(
            HTTPRequest(method: .get, scheme: "https", authority: "api.example", path: "/y"),
            body: nil
        )
        #expect(refused.status == .unauthorized)
        #expect(try nonce(4) == "rs-n1")
        #expect(transport.sent.count == 5)
    }

    @Test func sessionStoresItsKeyAndOlderFilesDecode() throws {
        let prover = try Self.prover()
        var session = Fixture.session(Fixture.tokens("at-1", type: "DPoP"))
        session.dpopKey = prover.privateJWK
        let data = try JSONEncoder().encode(session)
        let decoded = try JSONDecoder().decode(OAuth2.Session.self, from: data)
        #expect(decoded == session)
        let restored = try #require(try decoded.dpopProver(now: Self.clock.function))
        #expect(restored.thumbprint == prover.thumbprint)
        #expect(!"\(session)".contains(session.dpopKey!.d!.reveal()))
        #expect("\(session)".contains("dpopKey: jkt \(prover.thumbprint)"))
        #expect(String(decoding: data, as: UTF8.self).contains(#""binding":{"dpopKey":{"#))
        // A file written without a key (before DPoP, or not bound).
        var object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        object["binding"] = nil
        let old = try JSONDecoder().decode(
            OAuth2.Session.self,
            from: JSONSerialization.data(withJSONObject: object)
        )
        #expect(old.dpopKey == nil)
        #expect(try old.dpopProver(now: Self.clock.function) == nil)
    }
}
