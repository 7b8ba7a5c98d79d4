public import HTTPTypes

/// The one seam between the core's flows and the network: sends one request and returns one
/// response, with its body. Adapters (AsyncHTTPClient, URLSession) put the bytes on the wire;
/// they must not follow redirects or answer challenges themselves, since the core does both.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8])
}
