import HTTPTypes
import NIOCore
import RemoteAuth
import RemoteAuthAsyncHTTPClient
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
///   with reuse off (a new connection and handshake per request), trusting the certificate as a
///   CA bundle, and also checking two pins;
/// - `tls-request-pinned-reused` / `tls-request-ahc-pooled`: the same GET on kept-alive
///   connections, pinned through `NIOHTTP1Transport` (one handshake, then reuse) and through
///   AsyncHTTPClient's pool (the certificate as a CA bundle: it cannot pin), in alternating runs;
///   target: the pinned request within 1.2x of AsyncHTTPClient's.
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
            guard wanted(name) else { continue }
            let transport = try NIOHTTP1Transport(
                configuration: .init(trust: ServerTrust(default: policy), idleTimeout: .zero)
            )
            let perRequest = try await measureAsync(iterations: count, runs: 5) {
                let (response, _) = try await transport.send(request, body: nil)
                guard response.status == .ok else { fatalError("\(name): \(response.status)") }
                return 1
            }
            report(name, perRequest)
        }

        guard wanted("tls-request-pinned-reused") || wanted("tls-request-ahc-pooled") else { return }
        try await NIOHTTP1Transport.withTransport(configuration: .init(trust: ServerTrust(default: pinPolicy))) {
            pinned in
            let ahcConfiguration = try AsyncHTTPClientTransport.configuration(trust: ServerTrust(default: caPolicy))
            try await AsyncHTTPClientTransport.withTransport(configuration: ahcConfiguration) { pooled in
                let (reused, ahc) = try await measureAsyncAlternating(iterations: max(iterations / 10, 200)) {
                    let (response, _) = try await pinned.send(request, body: nil)
                    guard response.status == .ok else { fatalError("tls-request-pinned-reused: \(response.status)") }
                } _: {
                    let (response, _) = try await pooled.send(request, body: nil)
                    guard response.status == .ok else { fatalError("tls-request-ahc-pooled: \(response.status)") }
                }
                report("tls-request-pinned-reused", reused)
                report("tls-request-ahc-pooled", ahc)
                print(
                    "ratio tls-request-pinned-reused/tls-request-ahc-pooled: \(format2(reused / ahc))x (target < 1.2x)"
                )
            }
        }
    }
}

/// Times `a` and `b` in alternating runs (which goes first alternates too), so warm-up and load
/// from elsewhere on the machine fall on both alike; returns each one's median ns per call.
func measureAsyncAlternating(
    iterations: Int,
    runs: Int = 11,
    _ a: () async throws -> Void,
    _ b: () async throws -> Void
) async throws -> (Double, Double) {
    let clock = ContinuousClock()
    func time(_ body: () async throws -> Void) async throws -> Double {
        let start = clock.now
        for _ in 0..<iterations { try await body() }
        let elapsed = clock.now - start
        return (Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9)
            / Double(iterations)
    }
    _ = try await time(a)
    _ = try await time(b)
    var samplesA: [Double] = []
    var samplesB: [Double] = []
    for run in 0..<runs {
        if run % 2 == 0 {
            samplesA.append(try await time(a))
            samplesB.append(try await time(b))
        } else {
            samplesB.append(try await time(b))
            samplesA.append(try await time(a))
        }
    }
    samplesA.sort()
    samplesB.sort()
    return (samplesA[runs / 2], samplesB[runs / 2])
}
