import NIOCore
import NIOHTTP1
import NIOPosix

/// An HTTP/1.1 server on 127.0.0.1 that answers `GET path` with what `answer(base, path)`
/// gives (status, content type, body), or `404`: client ID metadata documents for the sandbox
/// to fetch, each able to name its own URL (`base + path`) as its `client_id`.
enum DocumentServer {
    struct Answer: Sendable {
        var status: HTTPResponseStatus = .ok
        var contentType = "application/json"
        var body: String
    }

    typealias Answers = @Sendable (_ base: String, _ path: String) -> Answer?

    static func with<Result>(
        _ answers: @escaping Answers,
        _ body: (_ base: String) async throws -> Result
    )
        async throws -> Result
    {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler(answers: answers))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let port = server.localAddress?.port ?? 0
        do {
            let result = try await body("http://127.0.0.1:\(port)")
            try? await server.close()
            return result
        } catch {
            try? await server.close()
            throw error
        }
    }

    final class Handler: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let answers: Answers

        init(answers: @escaping Answers) { self.answers = answers }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .head(let head) = unwrapInboundIn(data) else { return }
            let base = "http://127.0.0.1:\(context.channel.localAddress?.port ?? 0)"
            let answer = answers(base, head.uri) ?? Answer(status: .notFound, contentType: "text/plain", body: "")
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: answer.contentType)
            headers.add(name: "Content-Length", value: String(answer.body.utf8.count))
            headers.add(name: "Connection", value: "close")
            if answer.status == .found { headers.add(name: "Location", value: base + "/elsewhere.json") }
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: answer.status, headers: headers))),
                promise: nil
            )
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: answer.body)))), promise: nil)
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
        }
    }
}
