import HTTPTypes
import RemoteAuth
import RemoteAuthNIO
import RemoteAuthSandbox
import SwiftASN1
import X509

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Trust evaluation and TLS requests against a sandbox serving a self-signed certificate:
/// - `tls-evaluate-ca` / `tls-evaluate-pins`: one policy evaluation of the served chain (the
///   certificate as its own anchor), without and with two SPKI pins: what pinning adds to a
///   handshake;
/// - `tls-request-ca` / `tls-request-pins`: one GET of `/basic/` through `NIOHTTP1Transport`
///   (a new connection and handshake per request), trusting the certificate as a CA bundle,
///   and also checking two pins.
func tlsBenchmarks(iterations: Int) async throws {
    let material = try SandboxTLS.selfSigned()
    let certificate = try Certificate(pemEncoded: material.certificateChainPEM)
    let roots = TrustRoots.certificates([certificate])
    let backup = try SPKIPin(sha256: Array(repeating: 7, count: 32))
    let caPolicy = DefaultTrustPolicy(roots: roots)
    let pinPolicy = try PublicKeyPinningPolicy(pins: [SPKIPin(certificate: certificate), backup], roots: roots)
    let context = TrustContext(systemRoots: CertificateStore())

    if wanted("tls-evaluate") {
        var results: [String: Double] = [:]
        for (name, policy) in [("tls-evaluate-ca", caPolicy as any TrustPolicy), ("tls-evaluate-pins", pinPolicy)] {
            results[name] = await measureAsync(iterations: max(iterations / 10, 500)) {
                guard case .trusted = await policy.evaluate(chain: [certificate], host: "127.0.0.1", context: context)
                else { fatalError("\(name): the served certificate is not trusted") }
                return 1
            }
            report(name, results[name]!)
        }
    }

    guard wanted("tls-request") else { return }
    var configuration = SandboxConfiguration.demo()
    configuration.tls = material
    try await Sandbox.withSandbox(configuration) { sandbox in
        var request = try HTTPRequest(method: .get, absoluteURL: sandbox.baseURL + "/basic/")
        request.headerFields[.authorization] = try BasicCredentials(user: "alice", password: "wonderland").authorization
        let count = max(iterations / 100, 100)
        for (name, policy) in [("tls-request-ca", caPolicy as any TrustPolicy), ("tls-request-pins", pinPolicy)] {
            let transport = try NIOHTTP1Transport(configuration: .init(trust: ServerTrust(default: policy)))
            let perRequest = try await measureAsync(iterations: count, runs: 5) {
                let (response, _) = try await transport.send(request, body: nil)
                guard response.status == .ok else { fatalError("\(name): \(response.status)") }
                return 1
            }
            report(name, perRequest)
        }
    }
}
