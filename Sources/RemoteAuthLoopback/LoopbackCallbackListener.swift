import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import RemoteAuth

/// A one-shot HTTP listener on the loopback interface for the redirect of a sign-in, as RFC 8252
/// §7.3 recommends for command-line and desktop apps: it listens on `127.0.0.1` with a port the
/// system picks, takes the first request to its callback path, answers the browser with a short
/// "you can close this window" page, and hands the full callback URL to the app.
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

    /// Runs a listener for the duration of `body`.
    public static func withListener<T: Sendable>(
        path: String = "/callback",
        page: String = "You are signed in. You can close this window and return to the application.",
        _ body: @Sendable (String, LoopbackCallbackListener) async throws -> T
    ) async throws -> T {
        let (received, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1))
        let (started, startedContinuation) = AsyncStream.makeStream(of: Int.self)
        let router = Router()
        let html =
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Signed in</title></head>"
            + "<body style=\"font-family:sans-serif;margin:4em\"><p id=\"done\">\(page)</p></body></html>"
        router.get(RouterPath(path)) { request, _ -> Response in
            continuation.yield("http://" + (request.head.authority ?? "127.0.0.1") + (request.head.path ?? path))
            return Response(
                status: .ok,
                headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: html))
            )
        }
        var logger = Logger(label: "RemoteAuthLoopback")
        logger.logLevel = .critical
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: nil),
            onServerRunning: { channel in startedContinuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await app.run()
                return nil
            }
            var ports = started.makeAsyncIterator()
            guard let port = await ports.next(), port > 0 else {
                throw ListenerError(reason: "the listener did not start")
            }
            let normalized = path.hasPrefix("/") ? path : "/" + path
            let listener = LoopbackCallbackListener(
                callbackURL: "http://127.0.0.1:\(port)\(normalized)",
                received: received
            )
            let result = try await body(listener.callbackURL, listener)
            group.cancelAll()
            while try await group.next() != nil {}
            return result
        }
    }
}
