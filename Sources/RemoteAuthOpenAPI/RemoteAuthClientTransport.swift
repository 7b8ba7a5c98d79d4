public import Foundation
public import HTTPTypes
public import OpenAPIRuntime
public import RemoteAuth

/// Any RemoteAuth `HTTPTransport` as an OpenAPI `ClientTransport`: a generated client
/// over `NIOHTTP1Transport` (trust in the handshake, pins, a client certificate) or any other.
/// The body is read whole (up to ``maximumRequestBody``), as the transport seam takes it.
public struct RemoteAuthClientTransport: ClientTransport {
    /// The RemoteAuth transport the OpenAPI requests are sent through.
    public let transport: any HTTPTransport
    /// The largest request body read to send (16 MiB).
    public var maximumRequestBody = 16 << 20

    /// Wraps `transport` as an OpenAPI client transport.
    public init(_ transport: any HTTPTransport) {
        self.transport = transport
    }

    public func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let target = try OperationTarget(request, baseURL: baseURL)
        let bytes: [UInt8]? =
            if let body { Array(try await ArraySlice(collecting: body, upTo: maximumRequestBody)) } else { nil }
        let (response, responseBody) = try await transport.send(target.absolute, body: bytes)
        return (response, responseBody.isEmpty ? nil : HTTPBody(responseBody))
    }
}
