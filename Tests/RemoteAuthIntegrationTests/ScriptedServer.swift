import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import RemoteAuth
import RemoteAuthSandbox
import Testing
@testable import RemoteAuthNIO

/// A small HTTPS server on NIO's own codec for what the sandbox does not do: answers that say
/// `Connection: close` or speak HTTP/1.0 while the server keeps the connection open (so that
/// only the client's decision closes it), a body over the client's limit, and a connection the
/// server closes after answering. Counts connections and requests.
final class ScriptedServer: Sendable {
    let baseURL: String
    let connections = ConnectionCounter()
    private let counts = NIOLockedValueBox((requests: 0, closed: 0))
    var requests: Int { counts.withLockedValue { $0.requests } }

    private init(port: Int) { baseURL = "https://127.0.0.1:\(port)" }

    static func with<T>(
        serving leaf: TestPKI.Issued,
        pki: TestPKI,
        _ body: (ScriptedServer) async throws -> T
    ) async throws -> T {
        let context = try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: [
                    .certificate(try NIOSSLCertificate(bytes: Array(leaf.pem.utf8), format: .pem)),
                    .certificate(try NIOSSLCertificate(bytes: Array(pki.ca.pem.utf8), format: .pem)),
                ],
                privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(leaf.keyPEM.utf8), format: .pem))
            )
        )
        let box = NIOLockedValueBox<ScriptedServer?>(nil)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let server = box.withLockedValue({ $0 }) else { throw ChannelError.ioOnClosedChannel }
                    server.connections.increment()
                    channel.closeFuture.whenComplete { _ in server.counts.withLockedValue { $0.closed += 1 } }
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPRequestDecoder()))
                    try channel.pipeline.syncOperations.addHandler(HTTPResponseEncoder())
                    try channel.pipeline.syncOperations.addHandler(
                        ScriptedResponder { server.counts.withLockedValue { $0.requests += 1 } }
                    )
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let server = ScriptedServer(port: try #require(channel.localAddress?.port))
        box.withLockedValue { $0 = server }
        do {
            let result = try await body(server)
            try? await channel.close()
            return result
        } catch {
            try? await channel.close()
            throw error
        }
    }

    /// Waits (briefly) until the server has seen `count` connections close.
    func waitForClosedConnections(_ count: Int) async throws {
        for _ in 0..<200 where counts.withLockedValue({ $0.closed }) < count {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(counts.withLockedValue { $0.closed } == count)
    }
}

private final class ScriptedResponder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    private let onRequest: @Sendable () -> Void
    private var path = "/"

    init(onRequest: @escaping @Sendable () -> Void) { self.onRequest = onRequest }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            path = head.uri
        case .body:
            break
        case .end:
            onRequest()
            var version = HTTPVersion.http1_1
            var headers = HTTPHeaders()
            var body = "ok"
            switch path {
            case "/close": headers.add(name: "Connection", value: "close")
            case "/http10": version = .http1_0
            case "/http10-keep-alive":
                version = .http1_0
                headers.add(name: "Connection", value: "keep-alive")
            case "/big": body = String(repeating: "x", count: 100)
            default: break
            }
            headers.add(name: "Content-Length", value: String(body.utf8.count))
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .ok, headers: headers))),
                promise: nil
            )
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))),
                promise: nil
            )
            if path == "/close-after" {
                context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                    context.close(promise: nil)
                }
            } else {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
