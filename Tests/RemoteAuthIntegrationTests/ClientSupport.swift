import AsyncHTTPClient
import HTTPTypes
import NIOSSL
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthSandbox
import RemoteAuthURLSession

/// The two transports the client runs on.
enum TransportKind: String, Sendable, CaseIterable, CustomStringConvertible {
    case asyncHTTPClient, urlSession
    var description: String { rawValue }
}

/// Wraps a transport and records every request put on the wire, with the status it got.
final class RecordingTransport: HTTPTransport {
    struct Hop: Sendable {
        let request: HTTPRequest
        let response: HTTPResponse
        var status: Int { response.status.code }
        var authorization: String? { request.headerFields[.authorization] }
        /// Whether the hop carried `Authorization`; for expectations, whose failure messages
        /// would otherwise print the credential.
        var hasAuthorization: Bool { authorization != nil }
    }
    let inner: any HTTPTransport
    private let recorded = Locked<[Hop]>([])

    init(_ inner: any HTTPTransport) { self.inner = inner }

    var hops: [Hop] { recorded.withLock { $0 } }

    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        let (response, responseBody) = try await inner.send(request, body: body)
        recorded.withLock { $0.append(Hop(request: request, response: response)) }
        return (response, responseBody)
    }

    func stream(_ request: HTTPRequest, body: RequestBody?) async throws -> (HTTPResponse, ResponseBody) {
        let (response, responseBody) = try await inner.stream(request, body: body)
        recorded.withLock { $0.append(Hop(request: request, response: response)) }
        return (response, responseBody)
    }
}

let alice = Credential(user: "alice", password: "wonderland")
let aliceJSON = "{\"authenticated\": true, \"user\": \"alice\"}"

/// A client with alice's credential for `origins` (realm-less scopes), over AHC, recording.
func withClient(
    credentialFor origins: [String],
    credential: Credential = alice,
    preemptive: Bool = false,
    maximumRedirects: Int = 10,
    tls: TLSConfiguration? = nil,
    over kind: TransportKind = .asyncHTTPClient,
    _ body: (AuthenticatingClient, RecordingTransport) async throws -> Void
) async throws {
    func run(_ transport: any HTTPTransport) async throws {
        let store = InMemoryCredentialStore()
        for origin in origins { await store.add(credential, for: try AuthScope(url: origin)) }
        let recording = RecordingTransport(transport)
        var clientConfiguration = AuthenticatingClient.Configuration()
        clientConfiguration.preemptive = preemptive
        clientConfiguration.maximumRedirects = maximumRedirects
        let client = AuthenticatingClient(transport: recording, credentials: store, configuration: clientConfiguration)
        try await body(client, recording)
    }
    switch kind {
    case .asyncHTTPClient:
        var configuration = HTTPClient.Configuration()
        configuration.tlsConfiguration = tls
        try await AsyncHTTPClientTransport.withTransport(configuration: configuration) { try await run($0) }
    case .urlSession:
        try await URLSessionTransport.withTransport { try await run($0) }
    }
}

extension AuthenticatingClient {
    /// `get(_:headerFields:preemptive:)` with the status code and the body as text.
    func getText(
        _ url: String,
        headers: HTTPFields = [:],
        preemptive: Bool? = nil
    ) async throws -> (status: Int, body: String) {
        let (response, body) = try await get(url, headerFields: headers, preemptive: preemptive)
        return (response.status.code, String(decoding: body, as: UTF8.self))
    }
}

extension AuthenticatingClient {
    func status(_ url: String, headers: HTTPFields = [:], preemptive: Bool? = nil) async throws -> Int {
        try await getText(url, headers: headers, preemptive: preemptive).status
    }
}

/// `base/redirect?to=target&status=code`.
func redirect(_ base: String, to target: String, status: Int = 302) -> String {
    base + "/redirect?to=" + OAuth1.PercentEncoding.encode(target) + "&status=\(status)"
}
