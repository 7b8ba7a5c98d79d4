#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FuzzSupport
import RemoteAuth

/// A compact JWS ([RFC 7515 §7.1](https://www.rfc-editor.org/rfc/rfc7515#section-7.1)) as
/// ``JOSE/CompactJWS`` parses it (§5.2) and verifies it against a fixed key set with the strict
/// rules: the allow-list (never `none`, [RFC 8725 §3.1](https://www.rfc-editor.org/rfc/rfc8725#section-3.1)),
/// `crit` refused (§4.1.11), key selection by `kid`.
///
/// Input: line 1 is the allow-list (comma-separated `alg` names; empty: every implemented
/// one). Line 2 is a compact JWS; or, when it starts with `{`, a protected header (JSON) and
/// line 3 the payload, which this target signs with its key for the header's `alg` (HS256,
/// ES256 or EdDSA; HS256 when there is none), so that what follows a valid signature is
/// reached too.
///
/// Keys: RFC 7515 A.1's HS256 key (no `kid`), A.2's RSA key (`kid` "rsa"), RFC 8037 A.1's
/// Ed25519 key ("ed") and a P-256 key made at start ("ec").
///
/// Invariants: what parses is three canonical base64url parts, its payload re-encodes to the
/// second; the description shows neither payload nor signature (unless a header member it
/// shows, alg, kid or typ, spells one out); a verified JWS has an allowed
/// `alg` (never `none`), no `crit`, and the key its `kid` names; it verifies again after its
/// payload is re-encoded, and no longer with one signature or payload octet changed. What the
/// target signs parses, and verifies under its own `alg` with the key its `kid` names.
@main struct Target {
    static let hmacJWK = #"{"kty":"oct","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"}"#
    static let rsaPublicJWK = #"{"kty":"RSA","kid":"rsa","alg":"RS256","e":"AQAB","n":"ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"}"#
    static let ed25519JWK = #"{"kty":"OKP","crv":"Ed25519","kid":"ed","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#

    static let hmac = try! JOSE.SigningKey(jwk: JOSE.JWK(json: Array(hmacJWK.utf8)), algorithm: .hs256)
    static let ed25519 = try! JOSE.SigningKey(jwk: JOSE.JWK(json: Array(ed25519JWK.utf8)))
    static let p256 = JOSE.SigningKey.generateP256(keyID: "ec")
    static let keys: [JOSE.VerificationKey] = [
        try! JOSE.VerificationKey(jwk: JOSE.JWK(json: Array(hmacJWK.utf8))),
        try! JOSE.VerificationKey(jwk: JOSE.JWK(json: Array(rsaPublicJWK.utf8))),
        try! JOSE.VerificationKey(jwk: ed25519.publicJWK!),
        try! JOSE.VerificationKey(jwk: p256.publicJWK!),
    ]

    static func allowList(_ line: [UInt8]) -> Set<JOSE.Algorithm> {
        guard !line.isEmpty else { return JOSE.Algorithm.implemented }
        return Set(line.text.split(separator: ",").map { JOSE.Algorithm(rawValue: String($0)) })
    }

    static func main() {
        Fuzz.run(setUp: { _ = (hmac, ed25519, p256, keys) }) { input in
            let lines = input.lines(3)
            let allowed = allowList(lines[0])
            if lines[1].first == UInt8(ascii: "{") {
                signed(header: lines[1], payload: lines[2], allowed: allowed)
            } else {
                received(lines[1].text, allowed: allowed)
            }
        }
    }

    /// A JWS from outside.
    static func received(_ compact: String, allowed: Set<JOSE.Algorithm>) {
        let jws: JOSE.CompactJWS
        do {
            jws = try JOSE.CompactJWS(compact)
        } catch is JOSE.Error {
            return
        } catch {
            Fuzz.require(false, "parsing threw something other than a JOSE.Error: \(type(of: error))")
            return
        }
        let parts = compact.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        Fuzz.require(parts.count == 3, "a JWS of \(parts.count) parts parsed")
        guard parts.count == 3 else { return }
        Fuzz.require(Base64URL.decode(String(decoding: parts[0], as: UTF8.self)) != nil, "a header that is not canonical base64url")
        Fuzz.require(Base64URL.encode(jws.payload) == String(decoding: parts[1], as: UTF8.self), "the payload does not re-encode to the second part")
        guard let signature = Base64URL.decode(String(decoding: parts[2], as: UTF8.self)) else {
            Fuzz.require(false, "a signature that is not canonical base64url")
            return
        }
        // The description shows alg, kid and typ, which are the sender's to choose: a payload
        // or signature that one of them already spells out is not a leak of the description's.
        let shownMembers = [jws.algorithm.rawValue, jws.keyID ?? "", jws.type ?? ""]
        for secret in [String(decoding: parts[1], as: UTF8.self), String(decoding: parts[2], as: UTF8.self)]
        where secret.utf8.count >= 8 && !shownMembers.contains(where: { $0.contains(secret) }) {
            Fuzz.require(!jws.description.contains(secret), "the description shows the payload or the signature")
        }
        let key: JOSE.VerificationKey
        do {
            key = try jws.verify(with: keys, allowing: allowed)
        } catch is JOSE.Error {
            return
        } catch {
            Fuzz.require(false, "verify threw something other than a JOSE.Error: \(type(of: error))")
            return
        }
        Fuzz.require(jws.algorithm != .none && allowed.contains(jws.algorithm), "a JWS verified under an alg not allowed")
        Fuzz.require(jws.header["crit"] == nil, "a JWS with crit verified")
        if let kid = jws.keyID { Fuzz.require(key.keyID == kid, "verified with a key its kid does not name") }
        // Re-serialised from what was parsed, it verifies again.
        let header = String(decoding: parts[0], as: UTF8.self)
        let again = header + "." + Base64URL.encode(jws.payload) + "." + Base64URL.encode(signature)
        Fuzz.require(again == compact, "the JWS does not re-serialise equal")
        Fuzz.require((try? JOSE.CompactJWS(again).verify(with: keys, allowing: allowed)) == key, "the re-serialised JWS does not verify")
        // One octet changed: it no longer verifies.
        if !signature.isEmpty {
            var tampered = signature
            tampered[tampered.count / 2] ^= 0x01
            let forged = header + "." + Base64URL.encode(jws.payload) + "." + Base64URL.encode(tampered)
            Fuzz.require((try? JOSE.CompactJWS(forged).verify(with: keys, allowing: allowed)) == nil, "a changed signature verifies")
        }
        var payload = jws.payload
        if payload.isEmpty { payload = [0] } else { payload[0] ^= 0x01 }
        let altered = header + "." + Base64URL.encode(payload) + "." + Base64URL.encode(signature)
        Fuzz.require((try? JOSE.CompactJWS(altered).verify(with: keys, allowing: allowed)) == nil, "a changed payload verifies")
    }

    /// A JWS this target signs: the header members and the payload are the fuzzer's.
    static func signed(header headerJSON: [UInt8], payload: [UInt8], allowed: Set<JOSE.Algorithm>) {
        // Read as the library reads a header (strict RFC 8259: unique names, bounded depth).
        guard let header = try? JSONValue.parseObject(headerJSON) else { return }
        let key: JOSE.SigningKey =
            switch header["alg"] {
            case .string("ES256")?: p256
            case .string("EdDSA")?: ed25519
            default: hmac
            }
        let compact: String
        do {
            compact = try JOSE.JWS.sign(payload, with: key, header: header)
        } catch is JOSE.Error {
            return
        } catch {
            Fuzz.require(false, "signing threw something other than a JOSE.Error: \(type(of: error))")
            return
        }
        let jws: JOSE.CompactJWS
        do {
            jws = try JOSE.CompactJWS(compact)
        } catch {
            // Only a header member of the wrong type is refused: kid or typ not a string.
            let wrongType = [header["kid"], header["typ"]].contains { value in
                if case .string? = value { return false }
                return value != nil
            }
            Fuzz.require(wrongType, "a JWS this library signed does not parse: \(error)")
            return
        }
        Fuzz.require(jws.payload == payload, "the payload changed")
        Fuzz.require(jws.algorithm == key.algorithm, "the alg is not the key's")
        received(compact, allowed: allowed)
        guard jws.keyID == key.keyID else { return }
        do {
            let verifier = try jws.verify(with: keys, allowing: [key.algorithm])
            Fuzz.require(verifier.keyID == key.keyID, "verified with another key")
        } catch {
            Fuzz.require(false, "a JWS this library signed does not verify: \(error)")
        }
    }
}
