#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FuzzSupport
import HTTPTypes
import RemoteAuth

/// A request's `DPoP` fields as a server checks them: ``OAuth2/DPoP/ProofVerifier/proof(in:)``
/// (one field, [RFC 9449 §4.3](https://www.rfc-editor.org/rfc/rfc9449#section-4.3) step 1),
/// then ``OAuth2/DPoP/ProofVerifier/verify(_:method:url:at:accessToken:boundTo:nonce:replayCache:)``
/// (steps 2–12) with a replay cache.
///
/// Input, one item a line: the method, the request URI, the server's clock (decimal seconds;
/// else RFC 9449's 1562262616), the access token presented (empty: none), the `jkt` it is bound
/// to (empty: none), the nonce required (empty: none), then each further line one `DPoP` field.
/// A lone field that starts with `{` is a claims set this target signs into a proof (ES256, its
/// own key in the header's `jwk`, `typ` `dpop+jwt`), so that the claim checks after the
/// signature are reached too.
///
/// Invariants: errors are ``OAuth2/DPoP/Error``s; a verified proof's key is public, its
/// thumbprint is that key's (and the bound `jkt` when one is given), its `jti` is 1–256 octets,
/// its `iat` within the window, its nonce the one required; the same proof is refused as
/// replayed the second time.
@main struct Target {
    static let key = JOSE.SigningKey.generateP256()
    static let header: [String: JSONValue] = {
        let jwk = try! JSONDecoder().decode([String: JSONValue].self, from: Data(key.publicJWK!.json()))
        return ["typ": .string(OAuth2.DPoP.proofType), "jwk": .object(jwk.filter { ["kty", "crv", "x", "y"].contains($0.key) })]
    }()

    static func main() {
        let verifier = OAuth2.DPoP.ProofVerifier()
        Fuzz.run(setUp: { _ = (key, header) }) { input in
            let lines = input.lines(7)
            let method = HTTPRequest.Method(lines[0].text) ?? .post
            let url = lines[1].text
            let now = min(max(Int64(lines[2].text) ?? 1_562_262_616, 0), 4_102_444_800)
            let accessToken = lines[3].isEmpty ? nil : Secret(lines[3].text)
            let jkt = lines[4].isEmpty ? nil : lines[4].text
            let nonce = lines[5].isEmpty ? nil : lines[5].text
            var fields = HTTPFields()
            let proofLines = lines[6].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            for proof in proofLines {
                var value = Array(proof).text
                // Only a lone field reaches the verifier: proof(in:) refuses several by their
                // count alone, so signing each of them (an ES256 signature and a JSON encoding)
                // would be work without coverage; it made inputs of many lines 20 times slower.
                if proofLines.count == 1, proof.first == UInt8(ascii: "{") {
                    guard let signed = try? JOSE.JWS.sign(Array(proof), with: key, header: header) else { return }
                    value = signed
                }
                fields.append(HTTPField(name: .dpop, value: value))
            }
            let proof: String
            do {
                guard let found = try OAuth2.DPoP.ProofVerifier.proof(in: fields) else { return }
                proof = found
            } catch let error as OAuth2.DPoP.Error {
                Fuzz.require(error.code == .multipleProofs, "proof(in:) refused with \(error.code)")
                Fuzz.require(fields[values: .dpop].count > 1, "one DPoP field refused as several")
                return
            } catch {
                Fuzz.require(false, "proof(in:) threw something other than an OAuth2.DPoP.Error: \(type(of: error))")
                return
            }
            var replay = OAuth2.DPoP.ReplayCache(capacity: 4)
            let verified: OAuth2.DPoP.VerifiedProof
            do {
                verified = try verifier.verify(
                    proof, method: method, url: url, at: now, accessToken: accessToken, boundTo: jkt, nonce: nonce,
                    replayCache: &replay)
            } catch is OAuth2.DPoP.Error {
                return
            } catch {
                Fuzz.require(false, "verify threw something other than an OAuth2.DPoP.Error: \(type(of: error))")
                return
            }
            Fuzz.require(!verified.jwk.isPrivate && verified.jwk.keyType != .oct, "a proof with a private or symmetric key verified")
            Fuzz.require((try? verified.jwk.thumbprint()) == verified.thumbprint, "the thumbprint is not the key's")
            if let jkt { Fuzz.require(jkt == verified.thumbprint, "a proof verified for a token bound to another key") }
            Fuzz.require(!verified.jti.isEmpty && verified.jti.utf8.count <= 256, "a jti of \(verified.jti.utf8.count) octets")
            Fuzz.require(
                verified.issuedAt <= now + verifier.leeway && verified.issuedAt >= now - verifier.maximumAge - verifier.leeway,
                "an iat outside the window")
            if let nonce { Fuzz.require(verified.nonce == nonce, "a proof without the required nonce verified") }
            do {
                _ = try verifier.verify(
                    proof, method: method, url: url, at: now, accessToken: accessToken, boundTo: jkt, nonce: nonce,
                    replayCache: &replay)
                Fuzz.require(false, "a proof verified twice")
            } catch let error as OAuth2.DPoP.Error {
                Fuzz.require(error.code == .replayed, "a replayed proof refused as \(error.code)")
            } catch {
                Fuzz.require(false, "verify threw something other than an OAuth2.DPoP.Error: \(type(of: error))")
            }
        }
    }
}
