import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthSandbox

/// The authenticating layer against the sandbox on loopback, over AsyncHTTPClient:
/// - `digest-100-requests-round-trips`: wire requests for 100 sequential Digest SHA-256 requests
///   to one protection space (target 101: one challenge, then the nonce is reused);
/// - `request-bare-basic` / `request-authenticating-basic`: one GET of `/basic/` with a ready
///   `Authorization` field straight on the transport, against the same GET through
///   `AuthenticatingClient` in preemptive mode (scope lookup, header, bookkeeping); the
///   difference is the layer's cost (target under 5%).
func networkBenchmarks(iterations: Int) async throws {
    try await Sandbox.withSandbox { sandbox in
        try await AsyncHTTPClientTransport.withTransport { transport in
            let store = InMemoryCredentialStore()
            await store.add(Credential(user: "alice", password: "wonderland"), for: try AuthScope(url: sandbox.baseURL))

            if wanted("digest-100") {
                let client = AuthenticatingClient(transport: transport, credentials: store)
                let request = try HTTPRequest(method: .get, absoluteURL: sandbox.baseURL + "/digest/SHA-256/auth/")
                for _ in 0..<100 {
                    let (response, _) = try await client.send(request)
                    guard response.status == .ok else { fatalError("Digest request refused: \(response.status)") }
                }
                print("digest-100-requests-round-trips: \(await client.roundTrips) (target 101)")
            }

            guard wanted("request-") else { return }
            var configuration = AuthenticatingClient.Configuration()
            configuration.preemptive = true
            let client = AuthenticatingClient(transport: transport, credentials: store, configuration: configuration)
            let plain = try HTTPRequest(method: .get, absoluteURL: sandbox.baseURL + "/basic/")
            var authorized = plain
            authorized.headerFields[.authorization] = try BasicCredentials(user: "alice", password: "wonderland")
                .authorization
            let count = max(iterations / 20, 200)
            var bare: [Double] = []
            var layered: [Double] = []
            let clock = ContinuousClock()
            func nanoseconds(_ duration: Duration) -> Double {
                Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
            }
            for round in 0..<16 {
                // Alternate which goes first, so warm-up and drift fall on both alike.
                for first in [round % 2 == 0, round % 2 != 0] {
                    let start = clock.now
                    for _ in 0..<count {
                        let (response, _) =
                            first ? try await transport.send(authorized, body: nil) : try await client.send(plain)
                        guard response.status == .ok else { fatalError("request refused: \(response.status)") }
                    }
                    let perRequest = nanoseconds(clock.now - start) / Double(count)
                    if round > 0 { if first { bare.append(perRequest) } else { layered.append(perRequest) } }
                }
            }
            bare.sort()
            layered.sort()
            let bareMedian = bare[bare.count / 2]
            let layeredMedian = layered[layered.count / 2]
            report("request-bare-basic", bareMedian)
            report("request-authenticating-basic", layeredMedian)
            let overhead = (layeredMedian - bareMedian) / bareMedian * 100
            print(
                "ratio request-authenticating-basic/request-bare-basic: \(format2(layeredMedian / bareMedian))x (overhead \(format2(overhead))%, target < 5%)"
            )

            // The layer alone, over a transport that answers at once: what it adds per request,
            // free of the network's noise.
            let instant = AuthenticatingClient(
                transport: InstantTransport(),
                credentials: store,
                configuration: configuration
            )
            let layerOnly = try await measureAsync(iterations: iterations) {
                try await instant.send(plain).0.status.code
            }
            report("authenticating-layer-only-basic", layerOnly)
            print(
                "ratio authenticating-layer-only-basic/request-bare-basic: \(format2(layerOnly / bareMedian * 100))% (target < 5%)"
            )

            // The same for an OAuth 2 Bearer token from a token session (a fresh token: the
            // session hands it out without refreshing).
            let bearer = try await bearerCredentials(origin: sandbox.baseURL, expiresAt: Int64.max / 2)
            let instantBearer = AuthenticatingClient(transport: InstantTransport(), authenticators: bearer.authenticators)
            let bearerLayer = try await measureAsync(iterations: iterations) {
                try await instantBearer.send(plain).0.status.code
            }
            report("authenticating-layer-only-bearer", bearerLayer)
            print(
                "ratio authenticating-layer-only-bearer/request-bare-basic: \(format2(bearerLayer / bareMedian * 100))% (target < 5%)"
            )
        }
    }
}

/// Answers every request with an empty 200 at once.
struct InstantTransport: HTTPTransport {
    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        (HTTPResponse(status: .ok), [])
    }
}

func measureAsync(iterations: Int, runs: Int = 9, _ body: () async throws -> Int) async rethrows -> Double {
    let clock = ContinuousClock()
    for _ in 0..<(iterations / 10) { consume(try await body()) }
    var samples: [Double] = []
    for _ in 0..<runs {
        let start = clock.now
        for _ in 0..<iterations { consume(try await body()) }
        let elapsed = clock.now - start
        samples.append(
            (Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9)
                / Double(iterations)
        )
    }
    samples.sort()
    return samples[samples.count / 2]
}
