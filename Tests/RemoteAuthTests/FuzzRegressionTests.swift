#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RemoteAuth
import Testing

/// What the fuzz targets in `Fuzz/` found, one test per finding, with the input (or, for a
/// large one, the generator of it); the inputs are also in `Fuzz/Corpus/<target>/regression-*`.
@Suite(.timeLimit(.minutes(5)))
struct FuzzRegressionTests {
    /// `Digest p0=v, p1=v, …`: one challenge, `count` parameters.
    static func manyParameters(_ count: Int, scheme: String = "Digest", then tail: String = "") -> String {
        var value = scheme + " "
        for index in 0..<count {
            if index > 0 { value += ", " }
            value += "p\(index)=v"
        }
        return value + tail
    }

    /// Seconds of this thread's CPU time that `body` takes (`CLOCK_THREAD_CPUTIME_ID`), not the
    /// time on the wall: a loaded machine (other processes, the suite's other tests) does not
    /// count, only the work. A linear parse takes well under a second, a quadratic one minutes,
    /// so 20 s tells them apart on a quiet machine, a loaded one, or under ThreadSanitizer
    /// (whose instrumentation the CPU time does include: a few seconds here).
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        func now() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        let start = now()
        try body()
        return now() - start
    }

    // Finding 1 (challenges, credentials): the duplicate-parameter check searched the
    // parameters read so far for each new one, so a value with n parameters took n²/2
    // case-insensitive comparisons: 60,000 parameters (600 KB) did not parse in 100 s. The
    // names are now kept in a set; 50,000 parameters take well under a second.

    @Test func aChallengeWithManyParametersParsesInLinearTime() throws {
        let value = Self.manyParameters(50_000)
        var challenges: [AuthenticationChallenge] = []
        let elapsed = try Self.seconds { challenges = try AuthenticationChallenge.parse(value) }
        #expect(challenges.count == 1)
        #expect(challenges.first?.parameters.count == 50_000)
        #expect(challenges.first?.parameter("P49999") == "v")
        #expect(elapsed < 20, "took \(elapsed) s")
    }

    @Test func aDuplicateAfterManyParametersIsStillFound() throws {
        let value = Self.manyParameters(50_000, then: ", P17=w")
        let elapsed = Self.seconds {
            #expect(throws: ChallengeError(.duplicateParameter, "")) { try AuthenticationChallenge.parse(value) }
        }
        #expect(elapsed < 20, "took \(elapsed) s")
        // The set is per challenge: the same name in the next challenge is no duplicate.
        let two = try AuthenticationChallenge.parse("Digest realm=a, nonce=b, Digest REALM=c, nonce=d")
        #expect(two.map { $0.parameter("realm") } == ["a", "c"])
    }

    @Test func authenticationInfoWithManyParametersParsesInLinearTime() throws {
        var value = Self.manyParameters(50_000, scheme: "")
        value.removeFirst()
        var info: DigestAuthenticationInfo?
        let elapsed = try Self.seconds { info = try DigestAuthenticationInfo(headerValue: value + ", nc=00000001") }
        #expect(info?.nonceCount == 1)
        #expect(elapsed < 20, "took \(elapsed) s")
        #expect(throws: DigestError(.malformedAuthenticationInfo, "")) {
            try DigestAuthenticationInfo(headerValue: value + ", P0=x")
        }
    }

    @Test func digestCredentialsWithManyParametersParseInLinearTime() throws {
        let required =
            #", username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", "#
            + #"nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", response="8ca523f5e9506fed4657c9700eebdbec""#
        let value = Self.manyParameters(50_000, then: required)
        var authorization: DigestAuthorization?
        let elapsed = try Self.seconds { authorization = try DigestAuthorization(headerValue: value) }
        #expect(authorization?.username == "Mufasa")
        #expect(authorization?.parameters.count == 50_005)
        #expect(elapsed < 20, "took \(elapsed) s")
        #expect(throws: DigestError(.malformedAuthorization, "")) {
            try DigestAuthorization(headerValue: value + ", P49999=x")
        }
    }
}

/// Finding 2 (uri_reference): dot-segment removal (RFC 3986 §5.2.4) replaced a leading `/./` or
/// `/../` by building `"/" + rest`, a copy of the rest of the path at each step, so a
/// `Location` with a 900 KB path of dot segments did not resolve in 60 s. It now drops the
/// segment in place, linear in the path's length.
@Suite(.timeLimit(.minutes(5)))
struct FuzzRegressionDotSegmentTests {
    @Test func longPathsOfDotSegmentsResolveInLinearTime() {
        // "/a/a/…/a/./././…/../../…/g": every "/." dropped, every "/.." removing one "/a".
        let path =
            String(repeating: "/a", count: 100_000) + String(repeating: "/.", count: 100_000)
            + String(repeating: "/..", count: 100_000) + "/g"
        var removed = ""
        let elapsed = FuzzRegressionTests.seconds { removed = URIReference.removeDotSegments(path) }
        let isG = removed == "/g"
        #expect(isG, "\(removed.utf8.count) bytes left, not \"/g\"")
        #expect(elapsed < 20, "took \(elapsed) s")
        let reference = URIReference(parsing: String(repeating: "../", count: 100_000) + "g")
        let target = reference.resolved(against: URIReference(parsing: "http://a/b/c/d;p?q"))
        #expect(target.description == "http://a/g")
    }

    @Test func dotSegmentsStillFollowRFC3986() {
        // §5.2.4's own examples, and B and C at the end of the input.
        #expect(URIReference.removeDotSegments("/a/b/c/./../../g") == "/a/g")
        #expect(URIReference.removeDotSegments("mid/content=5/../6") == "mid/6")
        #expect(URIReference.removeDotSegments("/a/./b/.") == "/a/b/")
        #expect(URIReference.removeDotSegments("/a/b/..") == "/a/")
        #expect(URIReference.removeDotSegments("/./././") == "/")
        #expect(URIReference.removeDotSegments("/../../a/../b") == "/b")
    }
}

/// Finding 3 (credentials): `DigestAuthenticationInfo.headerValue` wrote `qop` bare, so a qop
/// that is not a token (read from a quoted-string) rendered as a value that parses as other
/// parameters: `qop="auth, rspauth=x"` came back with an `rspauth` of its own. It is now
/// quoted unless it is a token (RFC 9110 §11.2).
@Suite struct FuzzRegressionAuthenticationInfoTests {
    @Test func aQopThatIsNotATokenRoundTrips() throws {
        let info = try DigestAuthenticationInfo(headerValue: #"qop="auth, rspauth=forged", nc=00000001"#)
        #expect(info.qop?.rawValue == "auth, rspauth=forged")
        #expect(info.rspauth == nil)
        #expect(info.headerValue == #"qop="auth, rspauth=forged", nc=00000001"#)
        #expect(try DigestAuthenticationInfo(headerValue: info.headerValue) == info)
        // The fuzzer's input (invalid UTF-8 repaired, as the target reads it).
        let found: [UInt8] =
            Array("DLGHAcqlm92mj7xp5E=00000001, cnnexeonc`=\"5E=00ds69v\", qop=\"4".utf8) + [0xD6]
            + Array("r=auth, response=\t\t\t\t\t0\"".utf8)
        let parsed = try DigestAuthenticationInfo(headerValue: String(decoding: found, as: UTF8.self))
        #expect(try DigestAuthenticationInfo(headerValue: parsed.headerValue) == parsed)
        // A token qop is still written bare.
        #expect(
            DigestAuthenticationInfo(qop: .auth, rspauth: "ab", cnonce: "c", nonceCount: 1).headerValue
                == #"qop=auth, rspauth="ab", cnonce="c", nc=00000001"#
        )
    }

    // Finding 4 (found while writing the id_token target, by looking for every sum of the clock
    // with a number a server sends): an `expires_in` near 2^63 from a token endpoint, a device
    // authorization or PAR endpoint, or an implicit redirect trapped on overflow in
    // `now + expires_in`: a hostile server crashed the client.
    // The sum now saturates: such a token expires at `Int64.max`, the far future. Inputs:
    // Fuzz/Corpus/{token_json,device_json,callback_url}/regression-expires-in-overflow.

    static let now: Int64 = 1_700_000_000

    @Test func anExpiresInNearTwoToTheSixtyThreeSaturates() throws {
        let token = try OAuth2.TokenResponse.parse(
            status: 200,
            body: Array(#"{"access_token":"a","token_type":"Bearer","expires_in":9223372036854775807}"#.utf8),
            now: Self.now
        )
        #expect(token.expiresIn == .max)
        #expect(token.tokens.expiresAt == .max)
        #expect(token.tokens.expiresAt.map { $0 - 60 <= Self.now } == false)

        let device = try OAuth2.DeviceAuthorizationResponse.parse(
            status: 200,
            body: Array(
                #"{"device_code":"d","user_code":"WDJB-MJHT","verification_uri":"https://example.com/device","expires_in":9223372036854775807}"#
                    .utf8),
            now: Self.now
        )
        #expect(device.expiresAt == .max)

        let pushed = try OAuth2.PushedAuthorizationResponse.parse(
            status: 201,
            body: Array(#"{"request_uri":"urn:ietf:params:oauth:request_uri:6esc_11ACC5bwc014ltc14eY22c","expires_in":9223372036854775807}"#.utf8),
            now: Self.now
        )
        #expect(pushed.expiresAt == .max)

        let pending = OAuth2.PendingImplicitAuthorization(
            state: Secret("af0ifjsldkj"),
            redirectURI: "http://127.0.0.1:8080/callback",
            issuer: "https://server.example.com",
            requiresIssuer: false
        )
        let tokens = try pending.parseCallback(
            "http://127.0.0.1:8080/callback#access_token=2YotnFZFEjr1zCsicMWpAA&state=af0ifjsldkj&token_type=example&expires_in=9223372036854775807",
            now: Self.now
        )
        #expect(tokens.expiresAt == .max)
    }

    // Finding 5 (id_token): an ID token signed by the issuer with `exp` near 2^63, or
    // `auth_time` near -2^63 when `max_age` was sent, trapped on overflow in rule 9
    // (`exp + leeway`) and rule 13 (`now - auth_time`). The sums saturate: the first token is
    // valid until the far future, the second authenticated too long ago. Input:
    // Fuzz/Corpus/id_token/seed-003 (and regression-auth-time-overflow).

    @Test func anIDTokenWithTimesAtTheEndsOfInt64IsJudgedWithoutTrapping() async throws {
        let key = JOSE.SigningKey.generateP256(keyID: "ec")
        let validator = try OpenIDConnect.IDTokenValidator(
            issuer: "https://server.example.com",
            clientID: "s6BhdRkqt3",
            keys: .keys([JOSE.VerificationKey(jwk: #require(key.publicJWK))])
        )
        func token(_ changes: [String: JSONValue]) throws -> Secret {
            var claims: [String: JSONValue] = [
                "iss": "https://server.example.com", "sub": "24400320", "aud": "s6BhdRkqt3",
                "exp": .integer(1_311_281_970), "iat": .integer(1_311_280_970),
            ]
            claims.merge(changes) { $1 }
            return Secret(try JOSE.JWS.sign(claims: claims, with: key))
        }
        let now: Int64 = 1_311_281_000
        let far = try await validator.validate(token(["exp": .integer(.max)]), now: now)
        #expect(far.expiresAt == .max)
        await #expect(throws: OpenIDConnect.Error(.authenticationTooOld, "")) {
            try await validator.validate(
                token(["auth_time": .integer(.min)]), expecting: .init(maxAge: 600), now: now)
        }
        await #expect(throws: OpenIDConnect.Error(.expired, "")) {
            try await validator.validate(token(["exp": .integer(.min)]), now: now)
        }
        await #expect(throws: OpenIDConnect.Error(.issuedInFuture, "")) {
            try await validator.validate(token(["iat": .integer(.max)]), now: now)
        }
        let recent = try await validator.validate(
            token(["auth_time": .integer(now - 10)]), expecting: .init(maxAge: .max), now: now)
        #expect(recent.authTime == now - 10)
    }

    // Finding 6 (jwk_set, invariant "the public key holds d"): `JOSE.JWK.publicKey` dropped
    // `d`, `p`, `q`, `dp`, `dq` and `qi` but kept `k`, so a JWK of an unknown `kty`, or an EC,
    // RSA or OKP key carrying a `k` member, was still private in its public form, and a
    // `VerificationKey` made from it kept the secret (and wrote it in its JSON). `publicKey` now
    // drops `k` too. Inputs: Fuzz/Corpus/jwk_set/regression-unknown-kty-with-k (the fuzzer's)
    // and regression-ec-key-with-k.

    @Test func aPublicKeyNeverHoldsK() throws {
        let unknown = try JOSE.JWK(
            json: Array(#"{"kty":"o,t","k":"AyM1SysPpbyDfgZld3umj1nzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"}"#.utf8))
        #expect(unknown.isPrivate)
        let unknownPublic = try #require(unknown.publicKey)
        #expect(unknownPublic.k == nil)
        #expect(!unknownPublic.isPrivate)

        let ec = try JOSE.JWK(
            json: Array(
                #"{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","k":"c2VjcmV0LWtleS1tYXRlcmlhbA"}"#
                    .utf8))
        let key = try JOSE.VerificationKey(jwk: ec)
        #expect(key.jwk.k == nil)
        #expect(!key.jwk.isPrivate)
        #expect(!String(decoding: try key.jwk.json(), as: UTF8.self).contains("c2VjcmV0"))
        #expect(try key.jwk.thumbprint() == (try ec.thumbprint()))
        // A symmetric key keeps its k: it is the key.
        let oct = try JOSE.JWK(json: Array(#"{"kty":"oct","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"}"#.utf8))
        #expect(oct.publicKey == nil)
        #expect(try JOSE.VerificationKey(jwk: oct).jwk.k != nil)
    }

    // Finding 7 (jwk_set, invariant "an imported key holds private RSA members"): an `oct` JWK
    // in a JWK Set with `d`, `p`, `q`, `dp`, `dq` beside its `k` became a `VerificationKey`
    // whose `jwk` kept them all, though `jwk` is documented as the public members or `k`.
    // They are dropped now. Input: Fuzz/Corpus/jwk_set/regression-oct-key-with-rsa-private-members.

    @Test func aSymmetricKeyKeepsOnlyK() throws {
        let json = #"{"keys":[{"kty":"oct","kid":"h","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow","d":"RXEweHBHbk5DaXZEZmxKc1JRQlg","p":"NUJ6RUVPdElwbVZkVkVaTkNxUzc","q":"dVFQRWZnbVZ0akwwVXl5eDg4R1o","dp":"QndLZlYzQWtxNV9NRlpERlpDblc","dq":"aF85Ni1tSzFSXzdnbGhzdW04MWQ"}]}"#
        let set = try JOSE.KeySet(json: Array(json.utf8))
        let key = try #require(set.keys.first)
        #expect(key.jwk.k != nil)
        #expect([key.jwk.d, key.jwk.p, key.jwk.q, key.jwk.dp, key.jwk.dq, key.jwk.qi].allSatisfy { $0 == nil })
        #expect(key.keyID == "h")
    }
}


/// jwk_set, CI on 2026-11-26: a JWK Set whose second key repeats `e` and `d` broke the target's
/// invariant (written when JSON was read by JSONDecoder, which takes one of the duplicates). The
/// strict reader refuses the document whole (RFC 7517 §4 lets a parser refuse duplicate member
/// names), with a reason and no key material; a single JWK with a duplicate is refused the same.
@Suite struct DuplicateMemberRegressionTests {
    @Test func aJWKSetWithADuplicateMemberIsRefusedWhole() throws {
        let set = Array(
            #"{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"},{"kty":"oct","k":"c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA","e":"AQAB","d":"c2VjcmV0","e":"AQAB"}]}"#.utf8
        )
        do {
            _ = try JOSE.KeySet(json: set)
            Issue.record("a set with a duplicate member was read")
        } catch let error as JOSE.Error {
            #expect(error.code == .malformed)
            #expect(error.reason.contains("twice"))
            #expect(!"\(error)".contains("c2VjcmV0"))
        }
        let jwk = Array(#"{"kty":"EC","crv":"P-256","crv":"P-384","x":"AA","y":"AA"}"#.utf8)
        #expect(throws: JOSE.Error.self) { try JOSE.JWK(json: jwk) }
    }
}
