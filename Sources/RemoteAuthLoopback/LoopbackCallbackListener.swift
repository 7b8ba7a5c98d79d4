import NIOCore
import NIOHTTP1
import NIOPosix
public import RemoteAuth

/// An HTTP listener on the loopback interface for the redirect of a sign-in, as
/// [RFC 8252 §7.3](https://www.rfc-editor.org/rfc/rfc8252#section-7.3) recommends for
/// command-line and desktop apps: it listens on `127.0.0.1` with a port the system picks (or the
/// one the redirect was registered with), hands each GET of its callback path to the app, and
/// answers the browser with what the app made of it.
///
/// The browser's request is held until the app has decided, so the page tells the truth: "signed
/// in" only once the app has its tokens, what failed otherwise. A request that is not the answer
/// the app is waiting for (another `state`, a forged or malformed redirect, a request from another
/// local process, [RFC 8252 §8.3, §8.9](https://www.rfc-editor.org/rfc/rfc8252#section-8.3)) is
/// answered with an error page and the listener keeps waiting for the right one until the
/// timeout. Other paths get 404, other methods (`HEAD` included) 405, and neither reaches the app.
///
/// Built on SwiftNIO's HTTP/1.1 server codec, no web framework. What it reads is bounded: a
/// connection may send at most 16 KiB (a browser's GET head is far smaller) and must send its
/// request head within 10 seconds, or it is closed; at most 16 requests wait for the app at once.
///
/// ```swift
/// let tokens = try await LoopbackCallbackListener.withListener { callbackURL, listener in
///     let request = try flow.authorizationRequest(redirectURI: callbackURL, random: .system)
///     openBrowser(request.url)
///     return try await listener.callback(timeout: .seconds(300)) { url in
///         let response: OAuth2.AuthorizationResponse
///         do { response = try request.pending.parseCallback(url) } catch let error as OAuth2.Error
///             where error.code != .serverRefused { return .ignore(reason: error.reason) }
///         return .accept(try await flow.exchange(code: response.code, pending: request.pending).tokens)
///     }
/// }
/// ```
public final class LoopbackCallbackListener: Sendable {
    /// `http://127.0.0.1:PORT/PATH`.
    public let callbackURL: String
    private let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let pages: Pages

    init(
        callbackURL: String,
        events: AsyncStream<Event>,
        continuation: AsyncStream<Event>.Continuation,
        pages: Pages
    ) {
        self.callbackURL = callbackURL
        self.events = events
        self.continuation = continuation
        self.pages = pages
    }

    /// A failure of the listener.
    public struct ListenerError: CodedError {
        /// What failed: an open set, compared with `==`.
        public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public var description: String { rawValue }
            /// No callback arrived in time.
            public static let timedOut = Code(rawValue: "timedOut")
            /// The listener was closed while waiting.
            public static let closed = Code(rawValue: "closed")
            /// The port is in use, or out of range.
            public static let portUnavailable = Code(rawValue: "portUnavailable")
            /// The listener could not start.
            public static let startFailed = Code(rawValue: "startFailed")
        }

        public let code: Code
        public let reason: String
        public var description: String { "LoopbackCallbackListener: \(reason)" }

        init(_ code: Code, reason: String) {
            self.code = code
            self.reason = reason
        }
    }

    /// What the app made of one request to the callback path.
    public enum Decision<Value> {
        /// The sign-in is done: the browser is shown the signed-in page, and
        /// ``LoopbackCallbackListener/callback(timeout:isolation:_:)`` returns `value`.
        case accept(Value)
        /// Not the answer this sign-in waits for (another `state`, tokens nobody asked for, no
        /// code): the browser is shown `reason` with status 400, and the listener keeps waiting.
        case ignore(reason: String)
    }

    /// The most bytes one connection may send.
    static let maximumRequestBytes = 16 * 1024
    /// How long a connection may take to send its request.
    static let readTimeout = TimeAmount.seconds(10)
    /// How many callback requests may wait for the app at once; more are answered 503.
    static let maximumWaiting = 16

    /// Waits for requests to the callback path and hands each URL (query and all) to `decide`,
    /// until it accepts one.
    ///
    /// - `decide` returns ``Decision/accept(_:)``: the browser sees the signed-in page (or the
    ///   denied page when the callback names a refusal, OAuth 1.0a `denied`, OAuth 2 `error`),
    ///   and the value is returned.
    /// - `decide` returns ``Decision/ignore(reason:)``: the browser sees the reason; the wait
    ///   goes on.
    /// - `decide` throws: the browser sees that the sign-in failed, with the error's description
    ///   (or the denied page for a refusal), and the error is thrown.
    ///
    /// - Throws: ``ListenerError`` when `timeout` passes before a request is accepted (the user
    ///   never finished in the browser), or what `decide` throws.
    public func callback<Value>(
        timeout: Duration,
        isolation: isolated (any Actor)? = #isolation,
        _ decide: (String) async throws -> Decision<Value>
    ) async throws -> Value {
        let events = self.events
        let continuation = self.continuation
        let deadline = Deadline()
        return try await withThrowingTaskGroup(of: Void.self, returning: Value.self) { group in
            group.addTask {
                try await Task.sleep(for: timeout)
                continuation.yield(.deadline(deadline))
            }
            defer { group.cancelAll() }
            for await event in events {
                switch event {
                case .deadline(let passed):
                    guard passed === deadline else { continue }  // an earlier wait's
                    throw ListenerError(.timedOut, reason: "no callback arrived within \(timeout)")
                case .arrival(let arrival):
                    let decision: Decision<Value>
                    do {
                        decision = try await decide(arrival.url)
                    } catch {
                        await arrival.answer(
                            CallbackHandler.isRefusal(arrival.url)
                                ? .page(status: .ok, pages.denied)
                                : .page(status: .ok, pages.failed(String(describing: error)))
                        )
                        throw error
                    }
                    switch decision {
                    case .accept(let value):
                        await arrival.answer(
                            .page(status: .ok, CallbackHandler.isRefusal(arrival.url) ? pages.denied : pages.signedIn)
                        )
                        return value
                    case .ignore(let reason):
                        await arrival.answer(.page(status: .badRequest, pages.ignored(reason)))
                    }
                }
            }
            throw ListenerError(.closed, reason: "the listener was closed")
        }
    }

    /// The first GET of the callback path, whatever it carries: the browser is shown the
    /// signed-in page (the denied page for a refusal) before the app has looked at it. Prefer
    /// ``callback(timeout:isolation:_:)``, which lets the app refuse a forged request and keep
    /// waiting, and shows the browser the truth.
    public func callback(timeout: Duration, isolation: isolated (any Actor)? = #isolation) async throws -> String {
        try await callback(timeout: timeout, isolation: isolation) { .accept($0) }
    }

    /// Runs a listener for the duration of `body`, and closes it afterwards, whether `body`
    /// throws or not; requests still waiting are told the app no longer is.
    ///
    /// The browser is shown `page` under `title` once the app accepted the callback,
    /// `deniedPage` when the callback says the user refused (OAuth 1.0a's `denied` parameter, or
    /// an OAuth 2 `error`, [RFC 6749 §4.1.2.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1)),
    /// and what failed otherwise.
    ///
    /// - Parameter port: `0` (the default) lets the system pick a free port, as RFC 8252 §7.3
    ///   asks for a redirect registered without one; a fixed port serves a redirect registered
    ///   with its port (servers that compare redirect URIs exactly, an OpenID Connect
    ///   `post_logout_redirect_uri`, [RP-Initiated Logout 1.0 §3](https://openid.net/specs/openid-connect-rpinitiated-1_0.html#RedirectionAfterLogout)).
    /// - Parameter path: the callback path the listener answers; others get 404.
    /// - Parameter page: shown to the browser once the app accepted the callback.
    /// - Parameter title: the title of that page.
    /// - Parameter deniedPage: shown when the callback says the user refused.
    /// - Parameter isolation: the actor `body` runs on; the caller's by default.
    /// - Parameter body: runs with the callback URL (`http://127.0.0.1:PORT/PATH`) and the listener.
    /// - Throws: ``ListenerError`` when the port cannot be bound (in use), naming it.
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
        guard (0...65535).contains(requestedPort) else {
            throw ListenerError(.portUnavailable, reason: "the port \(requestedPort) is not between 0 and 65535")
        }
        // Unbounded, so that a wait's deadline is never dropped; the requests in it are
        // bounded by the handlers (`maximumWaiting`).
        let (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
        let waiting = WaitingCount()
        let normalized = path.hasPrefix("/") ? path : "/" + path
        let pages = Pages(title: title, signedInText: page, deniedText: deniedPage)
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
                            CallbackHandler(path: normalized, events: continuation, waiting: waiting)
                        )
                    }
                }
                .bind(host: "127.0.0.1", port: requestedPort)
                .get()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw ListenerError(
                .portUnavailable,
                reason: "port \(requestedPort) on 127.0.0.1 is in use: stop what listens there, or register a "
                    + "redirect URI without a port (the system then picks a free one, RFC 8252 §7.3)"
            )
        } catch {
            throw ListenerError(.startFailed, reason: "the listener did not start on 127.0.0.1:\(requestedPort): \(error)")
        }
        guard let port = server.localAddress?.port, port > 0 else {
            try? await server.close()
            throw ListenerError(.startFailed, reason: "the listener did not start: no port")
        }
        let listener = LoopbackCallbackListener(
            callbackURL: "http://127.0.0.1:\(port)\(normalized)",
            events: events,
            continuation: continuation,
            pages: pages
        )
        func close() async {
            try? await server.close()
            continuation.finish()
            // Whoever still waits is told that nobody will answer.
            for await event in events {
                if case .arrival(let arrival) = event {
                    await arrival.answer(.page(status: .gone, Pages.closed))
                }
            }
        }
        let result: Result
        do {
            result = try await body(listener.callbackURL, listener)
        } catch {
            await close()
            throw error
        }
        await close()
        return result
    }

    /// What the stream carries: a request to decide on, or a wait's deadline.
    enum Event: Sendable {
        case arrival(Arrival)
        case deadline(Deadline)
    }

    /// One wait's identity, so that a deadline left over from an earlier wait is not taken for
    /// this one's.
    final class Deadline: Sendable {}

    /// A request to the callback path, its connection held until ``answer(_:)``.
    struct Arrival: Sendable {
        let url: String
        let promise: EventLoopPromise<Answer>
        /// Completed once the answer is written and the connection closed (or it went first).
        let written: EventLoopFuture<Void>
        /// Answers the browser and waits until the page is written: a tool that exits right
        /// after its sign-in must not cut the page off.
        func answer(_ answer: Answer) async {
            promise.succeed(answer)
            try? await written.get()
        }
    }

    /// How many requests wait for the app, shared by the connections' handlers.
    final class WaitingCount: Sendable {
        private let count = Locked(0)
        /// Counts one more, unless `maximumWaiting` already wait.
        func enter() -> Bool {
            count.withLock { count in
                guard count < LoopbackCallbackListener.maximumWaiting else { return false }
                count += 1
                return true
            }
        }
        func leave() { count.withLock { $0 -= 1 } }
    }

    /// What the browser is shown.
    enum Answer: Sendable {
        case page(status: HTTPResponseStatus, String)
    }

    /// The HTML pages, escaped where they carry text from elsewhere.
    struct Pages: Sendable {
        let title: String
        let signedInText: String
        let deniedText: String

        static func html(title: String, _ text: String) -> String {
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>\(title)</title></head>"
                + "<body style=\"font-family:sans-serif;margin:4em\"><p id=\"done\">\(text)</p></body></html>"
        }

        var signedIn: String { Self.html(title: title, signedInText) }
        var denied: String { Self.html(title: "Access denied", deniedText) }
        func failed(_ reason: String) -> String {
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Sign-in failed</title></head>"
                + "<body style=\"font-family:sans-serif;margin:4em\"><p id=\"failed\">The sign-in failed: "
                + reason.htmlEscaped + "</p><p>Return to the application for details.</p></body></html>"
        }
        func ignored(_ reason: String) -> String {
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Not this sign-in</title></head>"
                + "<body style=\"font-family:sans-serif;margin:4em\"><p id=\"ignored\">This is not the answer the "
                + "application is waiting for: " + reason.htmlEscaped
                + ". The application keeps waiting.</p></body></html>"
        }
        static var closed: String {
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Not waiting</title></head>"
                + "<body style=\"font-family:sans-serif;margin:4em\"><p id=\"closed\">The application is no longer "
                + "waiting for this sign-in.</p></body></html>"
        }
        static var busy: String {
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Busy</title></head>"
                + "<body style=\"font-family:sans-serif;margin:4em\"><p id=\"busy\">Too many requests are waiting; "
                + "try again.</p></body></html>"
        }
    }
}
