import NIOCore
import NIOHTTP1
import NIOPosix

/// A one-shot HTTP listener on the loopback interface for the redirect of a sign-in, as
/// [RFC 8252 §7.3](https://www.rfc-editor.org/rfc/rfc8252#section-7.3) recommends for
/// command-line and desktop apps: it listens on `127.0.0.1` with a port the system picks, takes
/// the first request to its callback path, answers the browser with a short "you can close this
/// window" page, and hands the full callback URL to the app.
///
/// Built on SwiftNIO's HTTP/1.1 server codec, no web framework. What it reads is bounded: a
/// connection may send at most 16 KiB (a browser's GET head is far smaller) and must send its
/// request head within 10 seconds, or it is closed.
///
/// ```swift
/// let url = try await LoopbackCallbackListener.withListener { callbackURL, listener in
///     let requestToken = try await flow.requestToken(callback: callbackURL)
///     openBrowser(flow.authorizeURL(for: requestToken))
///     return try await listener.callback(timeout: .seconds(300))
/// }
/// ```
public final class LoopbackCallbackListener: Sendable {
    /// `http://127.0.0.1:PORT/PATH`.
    public let callbackURL: String
    private let received: AsyncStream<String>

    init(callbackURL: String, received: AsyncStream<String>) {
        self.callbackURL = callbackURL
        self.received = received
    }

    /// A failure of the listener.
    public struct ListenerError: Error, Hashable, CustomStringConvertible {
        public let reason: String
        public var description: String { "LoopbackCallbackListener: \(reason)" }
    }

    /// The most bytes one connection may send.
    static let maximumRequestBytes = 16 * 1024
    /// How long a connection may take to send its request.
    static let readTimeout = TimeAmount.seconds(10)

    /// Waits for the browser to reach the callback path and returns the URL it asked for,
    /// query included.
    ///
    /// - Throws: ``ListenerError`` when `timeout` passes first (the user never finished in the
    ///   browser).
    public func callback(timeout: Duration) async throws -> String {
        let stream = received
        return try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                var iterator = stream.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let url = first else {
                throw ListenerError(reason: "no callback arrived within \(timeout)")
            }
            return url
        }
    }

    /// Runs a listener for the duration of `body`, and closes it afterwards, whether `body`
    /// throws or not.
    ///
    /// The browser is shown `page` under `title`, or `deniedPage` when the callback says the user refused:
    /// OAuth 1.0a's `denied` parameter, or an OAuth 2 `error`
    /// ([RFC 6749 §4.1.2.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1)). Either way
    /// the callback URL is handed to the app, which decides what it means.
    ///
    /// - Parameter port: `0` (the default) lets the system pick a free port, as RFC 8252 §7.3
    ///   asks for a redirect registered without one; a fixed port serves a redirect registered
    ///   with its port, such as an OpenID Connect `post_logout_redirect_uri`, which the
    ///   provider compares exactly ([RP-Initiated Logout 1.0 §3](https://openid.net/specs/openid-connect-rpinitiated-1_0.html#RedirectionAfterLogout)).
    public static func withListener<Result>(
        path: String = "/callback",
        port: Int = 0,
        page: String = "You are signed in. You can close this window and return to the application.",
        title: String = "Signed in",
        deniedPage: String = "Access was denied. You can close this window and return to the application.",
        isolation: isolated (any Actor)? = #isolation,
        _ body: (String, LoopbackCallbackListener) async throws -> Result
    ) async throws -> Result {
        try await withListener(
            path: path,
            port: port,
            page: page,
            title: title,
            deniedPage: deniedPage,
            maximumRequestBytes: maximumRequestBytes,
            readTimeout: readTimeout,
            isolation: isolation,
            body
        )
    }

    /// ``withListener(path:port:page:title:deniedPage:isolation:_:)`` with the read bounds given (for tests).
    static func withListener<Result>(
        path: String,
        port requestedPort: Int = 0,
        page: String,
        title: String = "Signed in",
        deniedPage: String = "Access was denied.",
        maximumRequestBytes: Int,
        readTimeout: TimeAmount,
        isolation: isolated (any Actor)?,
        _ body: (String, LoopbackCallbackListener) async throws -> Result
    ) async throws -> Result {
        let (received, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingOldest(1))
        let normalized = path.hasPrefix("/") ? path : "/" + path
        func html(title: String, _ text: String) -> String {
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>\(title)</title></head>"
                + "<body style=\"font-family:sans-serif;margin:4em\"><p id=\"done\">\(text)</p></body></html>"
        }
        let pages = CallbackHandler.Pages(
            signedIn: html(title: title, page),
            denied: html(title: "Access denied", deniedPage)
        )
        let server: any Channel
        do {
            server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ReadLimit(maximumBytes: maximumRequestBytes, timeout: readTimeout)
                        )
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(
                            CallbackHandler(path: normalized, pages: pages, received: continuation)
                        )
                    }
                }
                .bind(host: "127.0.0.1", port: requestedPort)
                .get()
        } catch {
            throw ListenerError(reason: "the listener did not start: \(error)")
        }
        guard let port = server.localAddress?.port, port > 0 else {
            try? await server.close()
            throw ListenerError(reason: "the listener did not start: no port")
        }
        let listener = LoopbackCallbackListener(
            callbackURL: "http://127.0.0.1:\(port)\(normalized)",
            received: received
        )
        let result: Result
        do {
            result = try await body(listener.callbackURL, listener)
        } catch {
            try? await server.close()
            continuation.finish()
            throw error
        }
        try? await server.close()
        continuation.finish()
        return result
    }
}

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

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        context.fireChannelInactive()
    }
}

/// Answers one request: the callback path with the page (and hands its URL over), anything else
/// with 404 (405 for a method other than GET or HEAD); then closes the connection.
final class CallbackHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The HTML shown after a callback: signed in, or the user refused.
    struct Pages: Sendable {
        var signedIn: String
        var denied: String
    }

    private let path: String
    private let pages: Pages
    private let received: AsyncStream<String>.Continuation
    private var head: HTTPRequestHead?

    init(path: String, pages: Pages, received: AsyncStream<String>.Continuation) {
        self.path = path
        self.pages = pages
        self.received = received
    }

    /// `true` when the callback's query names a refusal: OAuth 1.0a's `denied` (the request
    /// token the user refused) or OAuth 2's `error` (RFC 6749 §4.1.2.1).
    static func isRefusal(_ uri: String) -> Bool {
        guard let mark = uri.firstIndex(of: "?") else { return false }
        return uri[uri.index(after: mark)...].split(separator: "&").contains { field in
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
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let requestPath = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first
        let status: HTTPResponseStatus
        var text: String
        var contentType = "text/plain; charset=utf-8"
        if requestPath.map(String.init) != path {
            status = .notFound
            text = "Not Found"
        } else if head.method != .GET && head.method != .HEAD {
            status = .methodNotAllowed
            text = "Method Not Allowed"
        } else {
            status = .ok
            text = Self.isRefusal(head.uri) ? pages.denied : pages.signedIn
            contentType = "text/html; charset=utf-8"
            let authority = head.headers.first(name: "Host") ?? "127.0.0.1"
            // One-shot: the first callback is the one handed over; later ones get the page only.
            received.yield("http://" + authority + head.uri)
            received.finish()
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
