public import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The sandbox's routes without a socket: one request at a time through the router
/// ``Sandbox/run(_:handlingSignals:onStart:)`` serves, as if it had arrived over plain http
/// at `baseURL` with no client certificate, its errors answered as the server answers them.
///
/// It exists to fuzz the sandbox's request handling (`Fuzz/Sources/sandbox_request`): every
/// parser a request reaches (query and form decoding, `Authorization` credentials of each
/// scheme, OAuth 1.0a verification, client authentication, DPoP proofs, JSON) in one process
/// with no network. It is not an API: a client under test talks to a running sandbox.
@_spi(Fuzzing)
public struct SandboxResponder: Sendable {
    private let responder: RouterResponder<SandboxRequestContext>
    private let logger: Logger

    /// The routes of `configuration`, with no state file (``SandboxConfiguration/statePath``
    /// is ignored).
    public init(_ configuration: SandboxConfiguration, baseURL: String = "http://127.0.0.1:8080") {
        var configuration = configuration
        configuration.statePath = nil
        let store = SandboxStore(
            stateFile: nil,
            seededTokens: configuration.seededTokens,
            capacity: configuration.tableCapacity,
            random: configuration.random
        )
        let issuer = OAuth2Issuer()
        issuer.set(baseURL)
        let scheme = baseURL.hasPrefix("https:") ? "https" : "http"
        responder = Sandbox.makeRouter(configuration, store: store, stateFile: nil, scheme: scheme, issuer: issuer)
            .buildResponder()
        var logger = Logger(label: "RemoteAuthSandbox.responder")
        logger.logLevel = .critical
        self.logger = logger
    }

    /// Answers one request: its status, and its headers. An error a route throws is answered
    /// as the server would: with its own status when it has one, `500 Internal Server Error`
    /// otherwise (a sandbox bug, never the client's fault).
    public func respond(_ head: HTTPRequest, body: [UInt8]) async -> HTTPResponse {
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer(bytes: body)))
        let context = SandboxRequestContext(logger: logger)
        do {
            let response = try await responder.respond(to: request, context: context)
            return response.head
        } catch let error as any HTTPResponseError {
            guard let response = try? error.response(from: request, context: context) else {
                return HTTPResponse(status: .internalServerError)
            }
            return response.head
        } catch {
            return HTTPResponse(status: .internalServerError)
        }
    }
}
