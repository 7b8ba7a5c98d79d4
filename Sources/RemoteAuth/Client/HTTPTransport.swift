public import HTTPTypes

/// The one seam between the core's flows and the network: sends one request and returns one
/// response, with its body. Adapters (AsyncHTTPClient, URLSession) put the bytes on the wire;
/// they must not follow redirects or answer challenges themselves, since the core does both.
///
/// ``stream(_:body:)`` sends a ``RequestBody`` (possibly streamed) and hands the response body
/// back as it arrives; its default buffers both through ``send(_:body:)``.
public protocol HTTPTransport: Sendable {
    /// Sends `request` with `body` (`nil` for none) once, without following a redirect or answering
    /// a challenge, and returns the response head and its whole body.
    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8])
    func stream(_ request: HTTPRequest, body: RequestBody?) async throws -> (HTTPResponse, ResponseBody)
}
