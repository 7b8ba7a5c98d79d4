#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Fuzzing) import RemoteAuth
import FuzzSupport

/// An ID token as ``OpenIDConnect/IDTokenValidator`` validates it
/// ([OpenID Connect Core §3.1.3.7](https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation)
/// rules 1–13, `at_hash`, `c_hash`), for issuer `https://server.example.com` and client
/// `s6BhdRkqt3`, with fixed keys (a P-256 key made at start, `kid` "ec"; RFC 7515 A.2's RSA key,
/// "rsa") and HS256 with the client secret. Reached through
/// `FuzzingEntryPoints.validatedIDToken`, the same steps without suspending.
///
/// Input, one item a line: the nonce sent (empty: none), `max_age` (decimal; empty: none), the
/// access token and the code issued with it (empty: none), the clock (decimal seconds; else
/// 1311281970), then the ID token; or, when that line starts with `{`, a protected header
/// (JSON) and on the next line the claims, which this target signs (ES256 with its key, or
/// HS256 with the client secret when the header's `alg` says so), so that the claim rules
/// after the signature are reached.
///
/// Invariants: errors are ``OpenIDConnect/Error``s; a valid token has the issuer, the client
/// in its audiences and no untrusted one, is not expired and not issued in the future (with
/// the leeway), has the nonce sent and, with `max_age`, a recent enough `auth_time`; its
/// description does not show the token.
@main struct Target {
    static let issuer = "https://server.example.com"
    static let clientID = "s6BhdRkqt3"
    static let clientSecret = Secret("7Fjfp0ZBr1KtDRbnfVdmIw-fuzzing-client-secret")
    static let rsaPublicJWK = #"{"kty":"RSA","kid":"rsa","alg":"RS256","e":"AQAB","n":"ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"}"#
    static let p256 = JOSE.SigningKey.generateP256(keyID: "ec")
    static let hmac = try! JOSE.SigningKey.hmacSHA256(Array(clientSecret.reveal().utf8))
    static let validator = try! OpenIDConnect.IDTokenValidator(
        issuer: issuer,
        clientID: clientID,
        keys: .keys([
            try! JOSE.VerificationKey(jwk: p256.publicJWK!),
            try! JOSE.VerificationKey(jwk: JOSE.JWK(json: Array(rsaPublicJWK.utf8))),
        ]),
        allowedAlgorithms: [.es256, .rs256, .hs256],
        clientSecret: clientSecret
    )

    static func main() {
        Fuzz.run(setUp: { _ = (validator, p256, hmac) }) { input in
            let lines = input.lines(7)
            // The caller's own values (not the server's): bounded as a caller's are.
            let maxAge = Int64(lines[1].text).map { min(max($0, 0), 1_000_000_000) }
            let expectation = OpenIDConnect.IDTokenValidator.Expectation(
                nonce: lines[0].isEmpty ? nil : Secret(lines[0].text),
                maxAge: maxAge,
                accessToken: lines[2].isEmpty ? nil : Secret(lines[2].text),
                code: lines[3].isEmpty ? nil : Secret(lines[3].text)
            )
            let now = min(max(Int64(lines[4].text) ?? 1_311_281_970, 0), 4_102_444_800)
            var token = lines[5].text
            if lines[5].first == UInt8(ascii: "{") {
                guard let header = try? JSONValue.parseObject(lines[5]) else { return }
                let key = header["alg"] == .string("HS256") ? hmac : p256
                guard let signed = try? JOSE.JWS.sign(lines[6], with: key, header: header) else { return }
                token = signed
            }
            let idToken: OpenIDConnect.IDToken
            do {
                idToken = try FuzzingEntryPoints.validatedIDToken(Secret(token), by: validator, expecting: expectation, now: now)
            } catch is OpenIDConnect.Error {
                return
            } catch {
                Fuzz.require(false, "validation threw something other than an OpenIDConnect.Error: \(type(of: error))")
                return
            }
            let leeway = validator.leeway
            Fuzz.require(idToken.issuer == issuer, "another issuer accepted")
            Fuzz.require(idToken.audiences.contains(clientID), "a token for another client accepted")
            Fuzz.require(idToken.audiences.allSatisfy { $0 == clientID }, "an untrusted audience accepted")
            Fuzz.require(idToken.audiences.count == 1 || idToken.authorizedParty == clientID, "several audiences without azp")
            Fuzz.require(idToken.expiresAt > now - leeway, "an expired token accepted")
            Fuzz.require(idToken.issuedAt <= now + leeway, "a token issued in the future accepted")
            if let nonce = expectation.nonce {
                Fuzz.require(idToken.nonce.map { nonce.matches($0) } == true, "a token without the nonce sent accepted")
            }
            if let maxAge {
                guard let authTime = idToken.authTime else {
                    Fuzz.require(false, "max_age requested and no auth_time accepted")
                    return
                }
                Fuzz.require(authTime >= now - maxAge - leeway, "an authentication older than max_age accepted")
            }
            if token.utf8.count >= 16 {
                Fuzz.require(!idToken.description.contains(token), "the description shows the token")
            }
        }
    }
}
