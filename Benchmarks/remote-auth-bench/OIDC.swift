import Crypto
import CryptoExtras
import Foundation
import HTTPTypes
import RemoteAuth

/// OpenID Connect:
/// - `id-token-validate-rs256`: a whole Core §3.1.3.7 validation of an RS256 ID token (parse,
///   header rules, the key from a cached JWK Set through the `KeySetCache` actor, signature,
///   claims, nonce, at_hash), against
/// - `rsa2048-verify-raw`: one raw RSA-2048 PKCS #1 v1.5 SHA-256 verification of the same
///   signing input (target: within 1.3x);
/// - `id-token-validate-rs256-keys-in-hand`: the same with the issuer's key given (no
///   `KeySetCache` actor between);
/// - `id-token-jwks-fetches`: how many times the JWK Set was fetched over the whole run
///   (target 1: the cached set is used, never re-fetched).
func oidcBenchmarks(iterations: Int) async throws {
    guard wanted("id-token") || wanted("rsa2048") else { return }
    // The token and the fixed key of the instruction-count mode (Count.swift).
    let privateKey = JOSEWorkload.rsaKey
    let key = try JOSE.SigningKey.rsa(privateKey, keyID: "bench-rsa")
    let now = JOSEWorkload.now
    let jwks = Array(#"{"keys":["#.utf8) + (try key.publicJWK!.json()) + Array("]}".utf8)
    let transport = JWKSTransport(body: jwks)
    let cache = try JOSE.KeySetCache(url: "https://op.example/jwks", transport: transport, now: { now })
    let validator = try OpenIDConnect.IDTokenValidator(
        issuer: "https://op.example",
        clientID: "bench-client",
        keys: .keySetCache(cache)
    )
    let keysValidator = JOSEWorkload.validator
    let expectation = JOSEWorkload.expectation
    let secretToken = JOSEWorkload.secretToken
    _ = try await validator.validate(secretToken, expecting: expectation, now: now)  // the one fetch

    let signingInput = JOSEWorkload.signingInput
    let signature = JOSEWorkload.rsaSignature
    let publicKey = JOSEWorkload.rsaPublicKey

    let iterations = max(1, iterations / 10)
    let clock = ContinuousClock()
    func nanoseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
    }
    var validations: [Double] = []
    var keyValidations: [Double] = []
    var raws: [Double] = []
    for _ in 0..<9 {
        var start = clock.now
        for _ in 0..<iterations {
            let idToken = try await validator.validate(secretToken, expecting: expectation, now: now)
            consume(idToken.subject.utf8.count)
        }
        validations.append(nanoseconds(clock.now - start) / Double(iterations))
        start = clock.now
        for _ in 0..<iterations {
            let idToken = try await keysValidator.validate(secretToken, expecting: expectation, now: now)
            consume(idToken.subject.utf8.count)
        }
        keyValidations.append(nanoseconds(clock.now - start) / Double(iterations))
        start = clock.now
        for _ in 0..<iterations {
            consume(publicKey.isValidSignature(signature, for: signingInput, padding: .insecurePKCS1v1_5) ? 1 : 0)
        }
        raws.append(nanoseconds(clock.now - start) / Double(iterations))
    }
    validations.sort()
    keyValidations.sort()
    raws.sort()
    let validation = validations[4]
    let raw = raws[4]
    report("id-token-validate-rs256", validation)
    report("id-token-validate-rs256-keys-in-hand", keyValidations[4])
    report("rsa2048-verify-raw", raw)
    print("id-token-jwks-fetches: \(await cache.fetchCount) (target 1)")
    if only == nil {
        print("ratio id-token-validate-rs256/rsa2048-verify-raw: \(format2(validation / raw))x (target < 1.3x)")
    }
}

/// Answers every request with the JWK Set, at once.
struct JWKSTransport: HTTPTransport {
    let body: [UInt8]
    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        (HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]), self.body)
    }
}
