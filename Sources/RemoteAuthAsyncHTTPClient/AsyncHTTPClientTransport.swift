public import AsyncHTTPClient
public import HTTPTypes
public import NIOCore
import NIOHTTP1
public import RemoteAuth

/// An ``RemoteAuth/HTTPTransport`` over AsyncHTTPClient. Header fields cross over in order, one
/// for one, repeated names kept; the reason phrase is kept.
///
/// The `HTTPClient` must not follow redirects (`redirectConfiguration: .disallow`):
/// ``RemoteAuth/AuthenticatingClient`` follows them itself, so that credentials are dropped
/// when the origin changes. ``withTransport(configuration:_:)`` sets that up.
public struct AsyncHTTPClientTransport: HTTPTransport {
    public struct TransportError: Error, Hashable, CustomStringConvertible {
        public let reason: String
        public var description: String { "AsyncHTTPClientTransport: \(reason)" }
    }

    public let client: HTTPClient
    /// The deadline for one request, response body included.
    public var timeout: TimeAmount
    /// The largest response body read; a larger one fails the request.
    public var maximumResponseBytes: Int

    /// - Parameter client: a client whose redirect configuration is `.disallow`.
    public init(client: HTTPClient, timeout: TimeAmount = .seconds(30), maximumResponseBytes: Int = 16 << 20) {
        self.client = client
        self.timeout = timeout
        self.maximumResponseBytes = maximumResponseBytes
    }

    /// Runs `body` with a transport over a new `HTTPClient` (redirects disabled, whatever
    /// `configuration` says), and shuts the client down afterwards.
    public static func withTransport<T: Sendable>(
        configuration: HTTPClient.Configuration = .init(),
        _ body: (AsyncHTTPClientTransport) async throws -> T
    ) async throws -> T {
        var configuration = configuration
        configuration.redirectConfiguration = .disallow
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let result: T
        do {
            result = try await body(AsyncHTTPClientTransport(client: client))
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        return result
    }

    public func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        var outgoing = HTTPClientRequest(url: request.absoluteURL)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headerFields {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        if let body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(outgoing, timeout: timeout)
        var fields = HTTPFields()
        fields.reserveCapacity(response.headers.count)
        for header in response.headers {
            guard let name = HTTPField.Name(header.name) else {
                throw TransportError(reason: "the response has an invalid field name '\(header.name)'")
            }
            fields.append(HTTPField(name: name, value: header.value))
        }
        let buffer = try await response.body.collect(upTo: maximumResponseBytes)
        let status = HTTPResponse.Status(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase)
        return (HTTPResponse(status: status, headerFields: fields), Array(buffer.readableBytesView))
    }
}
