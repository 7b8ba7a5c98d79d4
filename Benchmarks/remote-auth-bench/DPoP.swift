import Crypto
import HTTPTypes
import RemoteAuth

/// DPoP ([RFC 9449](https://www.rfc-editor.org/rfc/rfc9449)):
/// - `dpop-proof`: one resource-request proof (`ath`, a nonce) from ``OAuth2/DPoP/Prover``:
///   claims, header, base64url, ES256;
/// - `dpop-p256-sign-raw`: one raw P-256 signature (swift-crypto) over a signing input of the same
///   length. Target: the proof within 1.3x the raw signature.
func dpopBenchmarks(iterations: Int) throws {
    guard wanted("dpop-proof") || wanted("dpop-p256-sign-raw") else { return }
    let key = P256.Signing.PrivateKey()
    let prover = try OAuth2.DPoP.Prover(key: .p256(key), now: { 1_700_000_000 }, random: .seeded(1))
    prover.update(from: [.dpopNonce: "eyJ7S_zG.eyJH0-Z.HX4w-7v"], for: "https://api.example")
    let url = "https://api.example/1.1/statuses/home_timeline.json?count=5"
    let accessToken: Secret = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"
    let sample = try prover.proof(method: .get, url: url, accessToken: accessToken)
    let signingInput = Array(sample.utf8[..<sample.utf8.lastIndex(of: UInt8(ascii: "."))!])
    // ES256 signs (and SHA-256 hashes) the signing input, so both sides hash the same octets.
    let (proof, raw) = try measurePair(
        iterations: max(1, iterations / 10),
        { try prover.proof(method: .get, url: url, accessToken: accessToken).utf8.count },
        { try key.signature(for: signingInput).rawRepresentation.count }
    )
    if wanted("dpop-proof") { report("dpop-proof-es256", proof) }
    if wanted("dpop-p256-sign-raw") { report("dpop-p256-sign-raw", raw) }
    if wanted("dpop-proof"), wanted("dpop-p256-sign-raw") {
        print("ratio dpop-proof-es256/dpop-p256-sign-raw: \(format2(proof / raw))x (target < 1.3x)")
    }
}
