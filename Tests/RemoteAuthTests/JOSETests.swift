import Crypto
import CryptoExtras
import Foundation
import HTTPTypes
import RemoteAuth
import Testing

@Suite struct JOSETests {
    static let rsaKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

    static func keys() throws -> [JOSE.SigningKey] {
        [
            .p256(P256.Signing.PrivateKey(), keyID: "ec"),
            try .rsa(rsaKey, algorithm: .rs256, keyID: "rs"),
            try .rsa(rsaKey, algorithm: .ps256, keyID: "ps"),
            .ed25519(Curve25519.Signing.PrivateKey(), keyID: "ed"),
            .ed25519(Curve25519.Signing.PrivateKey(), algorithm: .ed25519, keyID: "ed-rfc9864"),
            try .hmacSHA256(Array(repeating: 7, count: 32), keyID: "hs"),
        ]
    }

    /// Every algorithm signs and verifies with its own key, through the JWK the key exports,
    /// and the claims read back; a flipped bit anywhere is refused.
    @Test func roundTripEveryAlgorithm() throws {
        for key in try Self.keys() {
            let token = try JOSE.JWS.sign(claims: ["sub": "alice", "n": .integer(7)], with: key, header: ["typ": "JWT"])
            let jws = try JOSE.CompactJWS(token)
            #expect(jws.algorithm == key.algorithm)
            #expect(jws.keyID == key.keyID)
            #expect(jws.type == "JWT")
            let verificationJWK = try #require(key.publicJWK ?? key.privateJWK)
            let verifier = try JOSE.VerificationKey(jwk: verificationJWK)
            #expect(try jws.verify(with: [verifier], allowing: [key.algorithm]) == verifier)
            #expect(try jws.claims() == ["sub": "alice", "n": .integer(7)])

            var tampered = Array(token.utf8)
            let index = tampered.lastIndex(of: UInt8(ascii: "."))! + 3
            tampered[index] = tampered[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let bad = try JOSE.CompactJWS(String(decoding: tampered, as: UTF8.self))
            #expect(throws: JOSE.Error(.invalidSignature, "")) { try bad.verify(with: [verifier], allowing: [key.algorithm]) }
        }
    }

    /// A private JWK (EC, OKP, oct) and a PEM (EC, OKP, RSA) load back as the same key.
    @Test func privateKeysRoundTrip() throws {
        for key in try Self.keys() {
            if let jwk = key.privateJWK {
                let again = try JOSE.SigningKey(jwk: jwk)
                #expect(again.publicJWK == key.publicJWK)
                #expect(again.algorithm == key.algorithm)
                #expect(!String(describing: jwk).contains(jwk.d?.reveal() ?? jwk.k?.reveal() ?? "-"))
            }
            if let pem = key.pemRepresentation {
                let again = try JOSE.SigningKey(pem: pem, algorithm: key.algorithm, keyID: key.keyID)
                #expect(again.publicJWK == key.publicJWK)
            }
        }
        #expect(throws: JOSE.Error(.invalidKey, "")) { try JOSE.SigningKey(pem: "-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----\n") }
    }

    /// A key is used only with what it declares: its `alg`, `use: sig`, `key_ops: verify`, and
    /// its type.
    @Test func keyDeclarationsAreEnforced() throws {
        let signer = try JOSE.SigningKey.rsa(Self.rsaKey, algorithm: .ps256)
        let token = try JOSE.CompactJWS(try JOSE.JWS.sign(Array("x".utf8), with: signer))
        var jwk = try #require(signer.publicJWK)
        jwk.algorithm = .rs256
        #expect(throws: JOSE.Error(.unknownKey, "")) { try token.verify(with: [JOSE.VerificationKey(jwk: jwk)], allowing: [.ps256]) }
        jwk.algorithm = nil
        jwk.use = "enc"
        #expect(throws: JOSE.Error(.unknownKey, "")) { try token.verify(with: [JOSE.VerificationKey(jwk: jwk)], allowing: [.ps256]) }
        jwk.use = nil
        jwk.keyOperations = ["sign"]
        #expect(throws: JOSE.Error(.unknownKey, "")) { try token.verify(with: [JOSE.VerificationKey(jwk: jwk)], allowing: [.ps256]) }
        jwk.keyOperations = ["verify"]
        try token.verify(with: [JOSE.VerificationKey(jwk: jwk)], allowing: [.ps256])
        // With a kid, the mismatch is reported as such.
        jwk.keyID = "k1"
        jwk.use = "enc"
        let named = try JOSE.CompactJWS(try JOSE.JWS.sign(Array("x".utf8), with: .rsa(Self.rsaKey, algorithm: .ps256, keyID: "k1")))
        #expect(throws: JOSE.Error(.keyMismatch, "")) { try named.verify(with: [JOSE.VerificationKey(jwk: jwk)], allowing: [.ps256]) }
    }

    /// An unknown `kid` never falls back to another key; without a `kid`, two fitting keys are
    /// ambiguous.
    @Test func keySelection() throws {
        let a = JOSE.SigningKey.p256(P256.Signing.PrivateKey(), keyID: "a")
        let b = JOSE.SigningKey.p256(P256.Signing.PrivateKey(), keyID: "b")
        let keys = try [a, b].map { try JOSE.VerificationKey(jwk: #require($0.publicJWK)) }
        let fromA = try JOSE.CompactJWS(try JOSE.JWS.sign(Array("x".utf8), with: a))
        #expect(try fromA.verify(with: keys, allowing: [.es256]).keyID == "a")
        let unknown = try JOSE.CompactJWS(try JOSE.JWS.sign(Array("x".utf8), with: .p256(P256.Signing.PrivateKey(), keyID: "c")))
        #expect(throws: JOSE.Error(.unknownKey, "")) { try unknown.verify(with: keys, allowing: [.es256]) }
        let noKID = try JOSE.CompactJWS(try JOSE.JWS.sign(Array("x".utf8), with: .p256(P256.Signing.PrivateKey())))
        #expect(throws: JOSE.Error(.ambiguousKey, "")) { try noKID.verify(with: keys, allowing: [.es256]) }
        // A kid is not a wildcard: a's signature under b's kid fails on b's key.
        let forged = try JOSE.CompactJWS(try JOSE.JWS.sign(Array("x".utf8), with: a, header: ["kid": "b"]))
        #expect(throws: JOSE.Error(.invalidSignature, "")) { try forged.verify(with: keys, allowing: [.es256]) }
    }

    @Test func strictParsing() throws {
        let token = try JOSE.JWS.sign(Array("x".utf8), with: .hmacSHA256(Array(repeating: 1, count: 32)))
        let parts = token.split(separator: ".").map(String.init)
        for bad in [
            parts[0] + "." + parts[1],  // two parts
            token + ".",  // four
            parts[0] + "=." + parts[1] + "." + parts[2],  // padding
            parts[0] + "." + parts[1] + "." + parts[2] + "+",  // another alphabet
            "e30." + parts[1] + "." + parts[2],  // {} : no alg
            "W10." + parts[1] + "." + parts[2],  // [] : not an object
            "eyJhbGciOjF9." + parts[1] + "." + parts[2],  // alg a number
        ] {
            #expect(throws: JOSE.Error(.malformed, ""), "\(bad)") { try JOSE.CompactJWS(bad) }
        }
        // Non-canonical base64url (unused bits set in the last character) is refused, not
        // normalised: "x" is "eA", and "eB" decodes to the same octet.
        #expect(throws: JOSE.Error(.malformed, "")) { try JOSE.CompactJWS(parts[0] + ".eB." + parts[2]) }
        #expect(throws: JOSE.Error(.tooLarge, "")) { try JOSE.CompactJWS(token, maximumLength: 20) }
        #expect(throws: JOSE.Error(.invalidKey, "")) { try JOSE.SigningKey.hmacSHA256(Array(repeating: 1, count: 31)) }
        // Signing refuses a header that contradicts the key, or asks for crit.
        let key = try JOSE.SigningKey.hmacSHA256(Array(repeating: 1, count: 32))
        #expect(throws: JOSE.Error(.malformed, "")) { try JOSE.JWS.sign(Array("x".utf8), with: key, header: ["alg": "none"]) }
        #expect(throws: JOSE.Error(.malformed, "")) { try JOSE.JWS.sign(Array("x".utf8), with: key, header: ["crit": .array([])]) }
    }

    /// `typ` is compared as a media type: case-insensitive, "application/" optional
    /// (RFC 7515 §4.1.9).
    @Test func typeCheck() throws {
        let key = JOSE.SigningKey.p256(P256.Signing.PrivateKey())
        let verifier = try JOSE.VerificationKey(jwk: #require(key.publicJWK))
        let proof = try JOSE.CompactJWS(try JOSE.JWS.sign(Array("{}".utf8), with: key, header: ["typ": "application/DPoP+JWT"]))
        try proof.verify(with: verifier, allowing: [.es256], type: "dpop+jwt")
        #expect(throws: JOSE.Error(.malformed, "")) { try proof.verify(with: verifier, allowing: [.es256], type: "JWT") }
    }

    /// `JWK(members:)`, which reads a JWK Set's keys from the one parse of the set, reads what
    /// the `Codable` form reads: the same JWK, or a refusal where that refuses. Compared on every
    /// JWK of the vector file (RFC 7515, 7638, 8037: public and private, EC, RSA, OKP, oct) and on
    /// members of the wrong type, `null`, unknown members and `key_ops`.
    @Test func jwkFromMembersMatchesDecodable() throws {
        let data = try Data(contentsOf: try Vectors.directory().appendingPathComponent("jose.json"))
        guard case .array(let vectors) = try JSONValue(parsing: Array(data)) else {
            Issue.record("jose.json is not an array")
            return
        }
        var objects: [[String: JSONValue]] = []
        for case .object(let vector) in vectors {
            for name in ["jwk", "verify_jwk"] {
                if case .object(let jwk)? = vector[name] { objects.append(jwk) }
            }
        }
        #expect(objects.count >= 12)
        let handWritten = [
            #"{"kty":"EC","kid":null,"crv":"P-256","x":"AA","y":"AA","ext":true,"x5c":["MII"],"use":"sig"}"#,
            #"{"kty":"RSA","n":"AQAB","e":"AQAB","key_ops":["verify","sign"],"alg":"RS256"}"#,
            #"{"kty":"RSA","n":"AQAB","e":"AQAB","key_ops":null,"alg":null}"#,
            #"{"kty":"oct","k":"AAAA","key_ops":[]}"#,
            #"{"kty":"weird","other":{"nested":[1,2]}}"#,
            #"{"kty":1}"#, #"{"kty":null}"#, #"{}"#, #"{"kty":"oct","k":5}"#, #"{"kty":"EC","crv":["P-256"]}"#,
            #"{"kty":"RSA","key_ops":["verify",1]}"#, #"{"kty":"RSA","key_ops":"verify"}"#, #"{"kty":"EC","kid":false}"#,
        ]
        for text in handWritten {
            objects.append(try JSONValue.parseObject(Array(text.utf8)))
        }
        for object in objects {
            let encoded = try JSONEncoder().encode(JSONValue.object(object))
            let decodable = try? JSONDecoder().decode(JOSE.JWK.self, from: encoded)
            let members = try? JOSE.JWK(members: object)
            #expect(members == decodable, "\(String(decoding: encoded, as: UTF8.self))")
            // Equal JWKs compare their secrets too (Secret is Hashable over its value).
            #expect(members?.d?.reveal() == decodable?.d?.reveal())
            #expect(members?.k?.reveal() == decodable?.k?.reveal())
        }
        #expect(objects.compactMap { try? JOSE.JWK(members: $0) }.count == objects.count - 8)
    }

    /// JWK Sets: keys this library cannot use are ignored (RFC 7517 §5), and the set's size and
    /// key count are bounded.
    @Test func keySetBounds() throws {
        let ec = try JOSE.SigningKey.p256(P256.Signing.PrivateKey(), keyID: "ec").publicJWK!.json()
        let json = #"{"keys":[\#(String(decoding: ec, as: UTF8.self)),{"kty":"EC","crv":"P-521","x":"AA","y":"AA"},{"kty":"weird"},{"kty":"RSA","n":"AQAB","e":"AQAB"},7]}"#
        let set = try JOSE.KeySet(json: Array(json.utf8))
        #expect(set.keys.map(\.keyID) == ["ec"])
        #expect(set.ignored == 4)
        let many = "{\"keys\":[" + Array(repeating: "{\"kty\":\"oct\"}", count: 10_000).joined(separator: ",") + "]}"
        #expect(throws: JOSE.Error(.tooLarge, "")) { try JOSE.KeySet(json: Array(many.utf8), maximumBytes: 1 << 20) }
        #expect(throws: JOSE.Error(.tooLarge, "")) { try JOSE.KeySet(json: Array(many.utf8)) }
        #expect(throws: JOSE.Error(.malformed, "")) { try JOSE.KeySet(json: Array(#"{"keys":{}}"#.utf8)) }
    }
}

/// A JWKS endpoint in memory: counts fetches, serves the current set.
final class JWKSServer: HTTPTransport, @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var _keys: [JOSE.SigningKey]
    private var _fetches = 0
    init(keys: [JOSE.SigningKey]) { _keys = keys }

    var fetches: Int { lock.withLock { _fetches } }
    func rotate(to keys: [JOSE.SigningKey]) { lock.withLock { _keys = keys } }

    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        let keys = lock.withLock {
            _fetches += 1
            return _keys
        }
        let members = try keys.map { String(decoding: try $0.publicJWK!.json(), as: UTF8.self) }
        return (HTTPResponse(status: .ok), Array(("{\"keys\":[" + members.joined(separator: ",") + "]}").utf8))
    }
}

@Suite struct KeySetCacheTests {
    @Test func cachesRefetchesOnRotationAndIsRateLimited() async throws {
        let old = JOSE.SigningKey.p256(P256.Signing.PrivateKey(), keyID: "2025")
        let new = JOSE.SigningKey.p256(P256.Signing.PrivateKey(), keyID: "2026")
        let server = JWKSServer(keys: [old])
        let clock = TestClock(1_000_000)
        let cache = try JOSE.KeySetCache(url: "https://issuer.example/jwks", transport: server) { clock.now }

        let byOld = try JOSE.CompactJWS(try JOSE.JWS.sign(Array("x".utf8), with: old))
        for _ in 0..<100 { try await cache.verify(byOld, allowing: [.es256]) }
        #expect(server.fetches == 1)

        // The issuer rotates; a token with the new kid causes one re-fetch (the last fetch is
        // older than the minimum interval).
        server.rotate(to: [new, old])
        clock.set(clock.now + 61)
        let byNew = try JOSE.CompactJWS(try JOSE.JWS.sign(Array("x".utf8), with: new))
        try await cache.verify(byNew, allowing: [.es256])
        #expect(server.fetches == 2)

        // A flood of made-up kids within the interval costs no fetch.
        for index in 0..<1000 {
            let forged = try JOSE.CompactJWS(
                try JOSE.JWS.sign(Array("x".utf8), with: .p256(P256.Signing.PrivateKey(), keyID: "forged-\(index)")))
            await #expect(throws: JOSE.Error(.unknownKey, "")) { try await cache.verify(forged, allowing: [.es256]) }
        }
        // Nor does `alg: none`, refused before the keys are looked at.
        let none = try JOSE.CompactJWS("eyJhbGciOiJub25lIn0.eyJ4IjoxfQ.")
        await #expect(throws: JOSE.Error(.algorithmNotAllowed, "")) { try await cache.verify(none, allowing: [.es256]) }
        #expect(server.fetches == 2)

        // After the time to live, the set is fetched again.
        clock.set(clock.now + 600)
        try await cache.verify(byNew, allowing: [.es256])
        #expect(server.fetches == 3)
    }

    @Test func concurrentCallersShareOneFetch() async throws {
        let key = JOSE.SigningKey.p256(P256.Signing.PrivateKey(), keyID: "k")
        let server = JWKSServer(keys: [key])
        let cache = try JOSE.KeySetCache(url: "https://issuer.example/jwks", transport: server) { 1_000 }
        let jws = try JOSE.CompactJWS(try JOSE.JWS.sign(Array("x".utf8), with: key))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 { group.addTask { try await cache.verify(jws, allowing: [.es256]) } }
            try await group.waitForAll()
        }
        #expect(server.fetches == 1)
    }

    @Test func refusesPlainHTTP() throws {
        #expect(throws: OAuth2.Error(.insecureEndpoint, "")) {
            try JOSE.KeySetCache(url: "http://issuer.example/jwks", transport: JWKSServer(keys: [])) { 0 }
        }
    }
}

/// RFC 7519 §4.1.4 and §4.1.5 at their boundaries.
@Suite struct JWTTimeClaimTests {
    @Test func expAndNbfBoundaries() throws {
        // exp: not accepted on or after it.
        try JOSE.CompactJWS.checkTimes(of: ["exp": .integer(1000)], now: 999)
        #expect(throws: JOSE.Error(.expired, "")) { try JOSE.CompactJWS.checkTimes(of: ["exp": .integer(1000)], now: 1000) }
        try JOSE.CompactJWS.checkTimes(of: ["exp": .integer(1000)], now: 1059, leeway: 60)
        #expect(throws: JOSE.Error(.expired, "")) {
            try JOSE.CompactJWS.checkTimes(of: ["exp": .integer(1000)], now: 1060, leeway: 60)
        }
        // A fractional NumericDate.
        try JOSE.CompactJWS.checkTimes(of: ["exp": .number(1000.5)], now: 1000)
        // nbf: not accepted before it.
        try JOSE.CompactJWS.checkTimes(of: ["nbf": .integer(1000)], now: 1000)
        #expect(throws: JOSE.Error(.notYetValid, "")) {
            try JOSE.CompactJWS.checkTimes(of: ["nbf": .integer(1000)], now: 999)
        }
        try JOSE.CompactJWS.checkTimes(of: ["nbf": .integer(1000)], now: 940, leeway: 60)
        // Not a number: malformed, not ignored.
        #expect(throws: JOSE.Error(.malformed, "")) { try JOSE.CompactJWS.checkTimes(of: ["exp": "soon"], now: 0) }
        try JOSE.CompactJWS.checkTimes(of: ["sub": "a"], now: 0)
        let thrown = #expect(throws: JOSE.Error.self) {
            try JOSE.CompactJWS.checkTimes(of: ["exp": .integer(1000)], now: 2000, leeway: 5)
        }
        #expect(thrown?.reason == "the token expired: exp 1000 is not after now 2000 (leeway 5 s, RFC 7519 §4.1.4)")
    }
}
