import Foundation
import HTTPTypes
import OpenAPIRuntime
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthOpenAPI
import RemoteAuthSandbox

/// The OpenAPI middleware against the sandbox on loopback, over `RemoteAuthClientTransport` on
/// AsyncHTTPClient: what a generated client's call does below its generated code (the
/// middleware's `intercept`, then the transport), with a Bearer token session:
/// - `openapi-bare-bearer`: the timeline through the OpenAPI transport with a ready
///   `Authorization` field, no middleware;
/// - `openapi-middleware-bearer`: the same call through `AuthenticationMiddleware` (the token
///   from the session, scope check, the response judged); target under 5% more;
/// - `openapi-middleware-only-bearer`: the middleware alone, over a `next` that answers at once,
///   as a share of the bare call.
///
/// The generated client's own code (encoding the path, decoding the JSON) is the same on both
/// sides and is left out; the generated client is a test target's, not the benchmark's.
func openAPIBenchmarks(iterations: Int) async throws {
    guard wanted("openapi-") else { return }
    try await Sandbox.withSandbox { sandbox in
        try await AsyncHTTPClientTransport.withTransport { transport in
            let base = sandbox.baseURL
            let flow = OAuth2.Flow(
                server: OAuth2.AuthorizationServer(issuer: base, tokenEndpoint: base + "/oauth2/token"),
                client: OAuth2.Client(id: "demo-service", authentication: .clientSecretBasic("demo-service-secret")),
                transport: transport
            )
            let session = try await flow.clientCredentialsSession(scope: ["statuses:read"], resources: [base])
            let token = try await session.validTokens().accessToken
            let middleware = AuthenticationMiddleware(session: session)
            let openAPI = RemoteAuthClientTransport(transport)
            let baseURL = URL(string: base)!
            let path = "/1.1/statuses/home_timeline.json"
            let plain = HTTPRequest(method: .get, scheme: nil, authority: nil, path: path)
            var authorized = plain
            authorized.headerFields[.authorization] = "Bearer " + token.reveal()

            func call(_ through: Bool) async throws -> Int {
                let (response, body) =
                    through
                    ? try await middleware.intercept(
                        plain,
                        body: nil,
                        baseURL: baseURL,
                        operationID: "getHomeTimeline",
                        next: { request, body, url in
                            try await openAPI.send(request, body: body, baseURL: url, operationID: "getHomeTimeline")
                        }
                    )
                    : try await openAPI.send(authorized, body: nil, baseURL: baseURL, operationID: "getHomeTimeline")
                guard response.status == .ok else { fatalError("the timeline answered \(response.status)") }
                guard let body else { return 0 }
                return try await Array(collecting: body, upTo: 1 << 20).count
            }

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
                    for _ in 0..<count { consume(try await call(!first)) }
                    let perCall = nanoseconds(clock.now - start) / Double(count)
                    if round > 0 { if first { bare.append(perCall) } else { layered.append(perCall) } }
                }
            }
            bare.sort()
            layered.sort()
            let bareMedian = bare[bare.count / 2]
            let layeredMedian = layered[layered.count / 2]
            report("openapi-bare-bearer", bareMedian)
            report("openapi-middleware-bearer", layeredMedian)
            print(
                "ratio openapi-middleware-bearer/openapi-bare-bearer: \(format2(layeredMedian / bareMedian))x (overhead \(format2((layeredMedian - bareMedian) / bareMedian * 100))%, target < 5%)"
            )

            // The middleware alone, over a `next` that answers at once.
            let layerOnly = try await measureAsync(iterations: iterations) {
                let (response, _) = try await middleware.intercept(
                    plain,
                    body: nil,
                    baseURL: baseURL,
                    operationID: "getHomeTimeline",
                    next: { _, _, _ in (HTTPResponse(status: .ok), nil) }
                )
                return response.status.code
            }
            report("openapi-middleware-only-bearer", layerOnly)
            print(
                "ratio openapi-middleware-only-bearer/openapi-bare-bearer: \(format2(layerOnly / bareMedian * 100))% (target < 5%)"
            )
        }
    }
}
