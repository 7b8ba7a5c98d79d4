import AsyncHTTPClient
import Foundation
import HTTPTypes
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import OpenAPIURLSession
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The OpenAPI transports the generated client is sent over: each test runs over both.
enum OpenAPITransport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case asyncHTTPClient = "swift-openapi-async-http-client"
    case urlSession = "swift-openapi-urlsession"

    var testDescription: String { rawValue }

    /// The transports a `401` with `WWW-Authenticate: Basic` comes back through. FoundationNetworking
    /// on Linux (Swift 6.3.1) keeps such a response to itself: without a delegate, or with one that
    /// asks for default handling, the task never completes, and one that declines fails the task as
    /// cancelled (RemoteAuth's own `URLSessionTransport` works around it with a delegate of its own;
    /// swift-openapi-urlsession cannot). So on Linux Basic on a challenge is tested over
    /// swift-openapi-async-http-client only; preemptive Basic, Digest and the rest over both.
    static var returningBasicChallenges: [OpenAPITransport] {
        #if canImport(FoundationNetworking)
        [.asyncHTTPClient]
        #else
        allCases
        #endif
    }

    /// Runs `body` with the generated client for `serverURL` over this transport, `middlewares`
    /// in front of it: an `HTTPClient` of its own, shut down afterwards, or an ephemeral
    /// `URLSession` (no cookies, no cache, no credential storage of its own), invalidated afterwards.
    func withClient<Result: Sendable>(
        serverURL: String,
        middlewares: [any ClientMiddleware],
        _ body: (Client) async throws -> Result
    ) async throws -> Result {
        let url = try #require(URL(string: serverURL))
        switch self {
        case .asyncHTTPClient:
            return try await HTTPClient.withHTTPClient { http in
                let transport = AsyncHTTPClientTransport(configuration: .init(client: http))
                return try await body(Client(serverURL: url, transport: transport, middlewares: middlewares))
            }
        case .urlSession:
            let session = URLSession(configuration: .ephemeral)
            defer { session.invalidateAndCancel() }
            let transport = URLSessionTransport(configuration: .init(session: session))
            return try await body(Client(serverURL: url, transport: transport, middlewares: middlewares))
        }
    }
}

/// What reached the transport, one hop per attempt the authentication middleware sent: put it
/// after that middleware, next to the transport.
final class Hops: ClientMiddleware {
    struct Hop: Sendable, Equatable {
        let method: HTTPRequest.Method
        let path: String
        let authorization: String?
        let dpopProof: Bool
        let status: Int
    }

    private let hops = Locked<[Hop]>([])

    var all: [Hop] { hops.withLock { $0 } }
    var count: Int { hops.withLock { $0.count } }
    /// The statuses of the hops after the first `start`: one call's, say.
    func statuses(since start: Int) -> [Int] { Array(all.dropFirst(start).map(\.status)) }

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        let hop = Hop(
            method: request.method,
            path: request.path ?? "",
            authorization: request.headerFields[.authorization],
            dpopProof: request.headerFields[HTTPField.Name("DPoP")!] != nil,
            status: response.status.code
        )
        hops.withLock { $0.append(hop) }
        return (response, responseBody)
    }
}

/// A clock tests can move, shared by the sandbox and the client.
final class TestClock: Sendable {
    private let seconds: Locked<Int64>
    init(_ start: Int64 = Int64(Date().timeIntervalSince1970)) { seconds = Locked(start) }
    func now() -> Int64 { seconds.withLock { $0 } }
    func advance(by delta: Int64) { seconds.withLock { $0 += delta } }
}
