import NIOCore
import NIOHTTP1
import NIOTLS
import RemoteAuth

/// Runs one request at a time on a kept-alive connection, on the channel's event loop, behind
/// NIOHTTP1's client codec: writes the request's parts, collects the response (skipping 1xx
/// interim answers, [RFC 9110 §15.2](https://www.rfc-editor.org/rfc/rfc9110#section-15.2)) and
/// says whether the connection may carry another request.
///
/// Anything unexpected closes the connection: an error, bytes from the server while no request
/// is in flight, a response body over the limit (so never left half read).
final class HTTPExchangeHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    /// A complete response, and whether both sides keep the connection open after it.
    struct Response {
        let head: HTTPResponseHead
        let body: [UInt8]
        let keepAlive: Bool
    }

    /// The request's deadline passed while it was in `phase`; the connection is closed.
    struct DeadlinePassed: Error {
        let phase: NIOHTTP1Transport.Phase
    }

    /// Why an exchange failed, with what a retry needs to know: whether any byte of the response
    /// had arrived.
    struct Failure: Error {
        let error: any Error
        let responseStarted: Bool
    }

    private struct InFlight {
        let promise: EventLoopPromise<Response>
        let keepAlive: Bool
        let maximumResponseBytes: Int
        var head: HTTPResponseHead?
        var body: [UInt8] = []
        var writeError: (any Error)?
        /// The whole request left: a server that answers before it has read the request (an
        /// early 413, say) does not get the connection reused, its reading state unknown.
        var requestWritten = false
        var responseStarted = false
    }

    let origin: String
    /// How long the connection may stay unused between exchanges before it is closed.
    let idleTimeout: TimeAmount
    /// Where the exchange in flight is, for the message of a timeout.
    private(set) var phase = NIOHTTP1Transport.Phase.handshake
    private var context: ChannelHandlerContext?
    private var inFlight: InFlight?
    /// An error met while no request was in flight, such as a TLS 1.3 server's alert refusing
    /// the client certificate, sent after the client's side of the handshake ended: the reason
    /// the next request gets.
    private var idleError: (any Error)?
    /// Both timers run on the channel's event loop, set and cancelled there, so that an exchange
    /// on a kept-alive connection costs no extra wake-up of the loop.
    private var deadlineTimer: Scheduled<Void>?
    private var idleTimer: Scheduled<Void>?

    init(origin: String, idleTimeout: TimeAmount) {
        self.origin = origin
        self.idleTimeout = idleTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        idleTimer?.cancel()
        idleTimer = nil
        fail(TransportError(.connectionClosed, "\(origin) closed the connection without a complete response"))
    }

    /// Writes `head` and `body` and completes `promise` with the response, or fails it with
    /// ``DeadlinePassed`` (closing the connection) at `deadline`. `keepAlive` is false when the
    /// request itself asks to close (`Connection: close`).
    func start(
        head: HTTPRequestHead,
        body: [UInt8]?,
        keepAlive: Bool,
        maximumResponseBytes: Int,
        deadline: NIODeadline,
        promise: EventLoopPromise<Response>
    ) {
        idleTimer?.cancel()
        idleTimer = nil
        if let idleError {
            promise.fail(Failure(error: idleError, responseStarted: false))
            return
        }
        guard let context, inFlight == nil, context.channel.isActive else {
            promise.fail(
                Failure(
                    error: TransportError(
                        .closedBeforeWriting,
                        "\(origin) closed the connection before the request was written"
                    ),
                    responseStarted: false
                )
            )
            return
        }
        inFlight = InFlight(promise: promise, keepAlive: keepAlive, maximumResponseBytes: maximumResponseBytes)
        phase = .writing
        deadlineTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
            self.fail(DeadlinePassed(phase: self.phase))
            context.close(promise: nil)
        }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body, !body.isEmpty {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))),
                promise: nil
            )
        }
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { result in
            switch result {
            case .success:
                self.inFlight?.requestWritten = true
                if self.phase == .writing { self.phase = .head }
            case .failure(let error):
                // The reason, such as a TLS 1.3 server's alert refusing a missing client
                // certificate, arrives on the inbound side; this is kept for a clean close.
                self.inFlight?.writeError = error
            }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard var exchange = inFlight else {
            // Nothing was asked: a server that talks out of turn does not get the connection reused.
            context.close(promise: nil)
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            exchange.responseStarted = true
            // 1xx answers are interim (RFC 9110 §15.2); the final one follows.
            if head.status.code >= 100, head.status.code < 200 {
                inFlight = exchange
                return
            }
            exchange.head = head
            phase = .body
            inFlight = exchange
        case .body(let buffer):
            guard exchange.body.count + buffer.readableBytes <= exchange.maximumResponseBytes else {
                fail(
                    TransportError(
                        .responseTooLarge,
                        "the response body from \(origin) is larger than \(exchange.maximumResponseBytes) bytes"
                    )
                )
                context.close(promise: nil)
                return
            }
            exchange.body += buffer.readableBytesView
            inFlight = exchange
        case .end:
            guard let head = exchange.head else { return }
            inFlight = nil
            phase = .writing
            deadlineTimer?.cancel()
            deadlineTimer = nil
            let keepAlive = exchange.keepAlive && head.isKeepAlive && exchange.requestWritten
            if keepAlive {
                idleTimer = context.eventLoop.assumeIsolated().scheduleTask(in: idleTimeout) {
                    context.close(promise: nil)
                }
            }
            exchange.promise.succeed(
                Response(
                    head: head,
                    body: exchange.body,
                    keepAlive: keepAlive
                )
            )
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if inFlight == nil, idleError == nil { idleError = error }
        fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let exchange = inFlight {
            if let writeError = exchange.writeError, !exchange.responseStarted {
                fail(
                    TransportError(
                        .closedBeforeWriting,
                        "\(origin) closed the connection before the request was written",
                        underlying: writeError
                    )
                )
            } else {
                fail(TransportError(.connectionClosed, "\(origin) closed the connection without a complete response"))
            }
        }
        context.fireChannelInactive()
    }

    private func fail(_ error: any Error) {
        guard let exchange = inFlight else { return }
        inFlight = nil
        deadlineTimer?.cancel()
        deadlineTimer = nil
        exchange.promise.fail(Failure(error: error, responseStarted: exchange.responseStarted))
    }
}

/// Fulfils a promise when the TLS handshake completes, or fails it when the channel errors or
/// closes first.
final class HandshakeWaiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private let promise: EventLoopPromise<Void>
    private var done = false

    init(promise: EventLoopPromise<Void>) { self.promise = promise }

    private func complete(_ result: Result<Void, any Error>) {
        guard !done else { return }
        done = true
        promise.completeWith(result)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            complete(.success(()))
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        complete(.failure(error))
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        complete(.failure(TransportError(.connectionClosed, "the connection closed during the TLS handshake")))
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        complete(.failure(TransportError(.connectionClosed, "the connection closed during the TLS handshake")))
    }
}
