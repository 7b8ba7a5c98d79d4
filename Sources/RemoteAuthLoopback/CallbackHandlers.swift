import NIOCore
import NIOHTTP1
import RemoteAuth

/// Closes a connection that sends more than `maximumBytes`, or no complete request head within
/// `timeout`.
final class ReadLimit: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let maximumBytes: Int
    private let timeout: TimeAmount
    private var count = 0
    private var deadline: Scheduled<Void>?

    init(maximumBytes: Int, timeout: TimeAmount) {
        self.maximumBytes = maximumBytes
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startDeadline(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        startDeadline(context: context)
        context.fireChannelActive()
    }

    private func startDeadline(context: ChannelHandlerContext) {
        guard deadline == nil else { return }
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        count += buffer.readableBytes
        guard count <= maximumBytes else {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // An answer is on its way: the request was read in time.
        deadline?.cancel()
        context.write(data, promise: promise)
    }

    /// The whole request was read: no more read deadline (the answer may wait for the app).
    func requestRead() {
        deadline?.cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        context.fireChannelInactive()
    }
}

/// Answers one request: a GET of the callback path is handed to the app, and answered with what
/// the app decided; another path gets 404, another method 405 (neither reaches the app); then the
/// connection is closed.
final class CallbackHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    typealias Answer = LoopbackCallbackListener.Answer

    private let path: String
    private let events: AsyncStream<LoopbackCallbackListener.Event>.Continuation
    private let waiting: LoopbackCallbackListener.WaitingCount
    private var head: HTTPRequestHead?

    init(
        path: String,
        events: AsyncStream<LoopbackCallbackListener.Event>.Continuation,
        waiting: LoopbackCallbackListener.WaitingCount
    ) {
        self.path = path
        self.events = events
        self.waiting = waiting
    }

    /// `true` when the callback's query or fragment names a refusal: OAuth 1.0a's `denied` (the
    /// request token the user refused) or OAuth 2's `error` (RFC 6749 §4.1.2.1).
    static func isRefusal(_ uri: String) -> Bool {
        guard let mark = uri.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return false }
        return uri[uri.index(after: mark)...].split(whereSeparator: { $0 == "&" || $0 == "#" }).contains { field in
            let name = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return name == "denied" || name == "error"
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break
        case .end:
            guard let head else { return }
            self.head = nil
            handle(head, context: context)
        }
    }

    private func handle(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let requestPath = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first
        guard requestPath.map(String.init) == path else {
            write(.plain(.notFound, "Not Found"), head: head, context: context)
            return
        }
        guard head.method == .GET else {
            write(.plain(.methodNotAllowed, "Method Not Allowed"), head: head, context: context)
            return
        }
        // The request is read: the app may take its time (a token exchange) before the answer.
        (try? context.pipeline.syncOperations.handler(type: ReadLimit.self))?.requestRead()
        typealias Pages = LoopbackCallbackListener.Pages
        let promise = context.eventLoop.makePromise(of: Answer.self)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        promise.futureResult.whenSuccess { answer in
            let (handler, context) = loopBound.value
            switch answer {
            case .page(let status, let html):
                handler.write(.html(status, html), head: head, context: context)
            }
        }

        guard waiting.enter() else {
            promise.succeed(.page(status: .serviceUnavailable, Pages.busy))
            return
        }
        let waiting = self.waiting
        promise.futureResult.whenComplete { _ in waiting.leave() }
        let authority = head.headers.first(name: "Host") ?? "127.0.0.1"
        let arrival = LoopbackCallbackListener.Arrival(
            url: "http://" + authority + head.uri,
            promise: promise,
            // The connection is closed once the answer is written (or when it goes first).
            written: context.channel.closeFuture
        )
        switch events.yield(.arrival(arrival)) {
        case .enqueued:
            break
        case .dropped:
            promise.succeed(.page(status: .serviceUnavailable, Pages.busy))
        case .terminated:
            promise.succeed(.page(status: .gone, Pages.closed))
        @unknown default:
            promise.succeed(.page(status: .serviceUnavailable, Pages.busy))
        }
    }

    private enum Response {
        case plain(HTTPResponseStatus, String)
        case html(HTTPResponseStatus, String)
    }

    private func write(_ response: Response, head: HTTPRequestHead, context: ChannelHandlerContext) {
        let status: HTTPResponseStatus
        var text: String
        let contentType: String
        switch response {
        case .plain(let s, let t): (status, text, contentType) = (s, t, "text/plain; charset=utf-8")
        case .html(let s, let t): (status, text, contentType) = (s, t, "text/html; charset=utf-8")
        }
        if head.method == .HEAD { text = "" }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(text.utf8.count))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Connection", value: "close")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
            promise: nil
        )
        if !text.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
