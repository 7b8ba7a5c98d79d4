public import AsyncHTTPClient
public import HTTPTypes
public import NIOCore
import NIOHTTP1
public import RemoteAuth
import RemoteAuthNIOShared

/// An `HTTPTransport` over AsyncHTTPClient. Header fields cross over in order, one
/// for one, repeated names kept; the reason phrase is kept. Failures below HTTP are
/// `TransportError`s, AsyncHTTPClient's or SwiftNIO's error kept as the underlying one.
///
/// The `HTTPClient` must not follow redirects (`redirectConfiguration: .disallow`):
/// `AuthenticatingClient` follows them itself, so that credentials are dropped
/// when the origin changes.
/// ``withTransport(configuration:connectTimeout:timeout:maximumResponseBytes:isolation:_:)``
/// sets that up, see ``clientConfiguration(_:connectTimeout:)``.
public struct AsyncHTTPClientTransport: HTTPTransport {
    /// The AsyncHTTPClient client the requests go through; it must not follow redirects.
    public let client: HTTPClient
    /// The deadline for one request, from asking the pool for a connection to the last body
    /// byte.
    public var timeout: TimeAmount
    /// The largest response body read; a larger one fails the request.
    public var maximumResponseBytes: Int

    /// - Parameter client: a client whose redirect configuration is `.disallow` (see
    ///   ``clientConfiguration(_:connectTimeout:)``).
    /// - Parameter timeout: the deadline for one request (``timeout``).
    /// - Parameter maximumResponseBytes: the largest response body read (``maximumResponseBytes``).
    public init(client: HTTPClient, timeout: TimeAmount = .seconds(30), maximumResponseBytes: Int = 16 << 20) {
        self.client = client
        self.timeout = timeout
        self.maximumResponseBytes = maximumResponseBytes
    }

    /// `base` made fit for this transport: redirects disallowed (`AuthenticatingClient`
    /// follows them), a refused or unresolvable connection failing at once rather than retried
    /// until the connect timeout (`retryConnectionEstablishment = false`), and `connectTimeout`,
    /// when given, bounding each connection's TCP connect and TLS handshake.
    public static func clientConfiguration(
        _ base: HTTPClient.Configuration = .init(),
        connectTimeout: TimeAmount? = nil
    ) -> HTTPClient.Configuration {
        var configuration = base
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.retryConnectionEstablishment = false
        if let connectTimeout { configuration.timeout.connect = connectTimeout }
        return configuration
    }

    /// Runs `body` with a transport over a new `HTTPClient` (set up by
    /// ``clientConfiguration(_:connectTimeout:)``, whatever `configuration` says about redirects
    /// and retries), and shuts the client down afterwards, whether `body` throws or not.
    ///
    /// The connect timeout (`connectTimeout`, else `configuration`'s, else 10 s) is cut to
    /// `timeout`: a request fails at its deadline, but the client's shutdown waits for the
    /// connection attempts it started (such as a TLS handshake a server never answers), and
    /// those end at the connect timeout.
    public static func withTransport<Result>(
        configuration: HTTPClient.Configuration = .init(),
        connectTimeout: TimeAmount? = nil,
        timeout: TimeAmount = .seconds(30),
        maximumResponseBytes: Int = 16 << 20,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (AsyncHTTPClientTransport) async throws -> Result
    ) async throws -> Result {
        let connect = min(connectTimeout ?? configuration.timeout.connect ?? .seconds(10), timeout)
        return try await HTTPClient.withHTTPClient(
            configuration: clientConfiguration(configuration, connectTimeout: connect),
            isolation: isolation
        ) { client in
            try await body(
                AsyncHTTPClientTransport(client: client, timeout: timeout, maximumResponseBytes: maximumResponseBytes)
            )
        }
    }

    /// Sends `request` through `client` and reads the whole response body, failing past
    /// `timeout` or `maximumResponseBytes` with a `TransportError`.
    public func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        let origin = try AuthScope(origin: request).description
        var outgoing = HTTPClientRequest(url: request.absoluteURL)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        outgoing.headers.append(request.headerFields)
        if let body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let response: HTTPClientResponse
        let deadline = NIODeadline.now() + timeout
        do {
            response = try await client.execute(outgoing, deadline: deadline)
        } catch {
            throw Self.transportError(error, origin: origin, fallback: .connectFailed)
        }
        let fields = try HTTPFields(response.headers)
        let buffer: ByteBuffer
        do {
            // AsyncHTTPClient's deadline ends with the head; the body gets what is left of it, so
            // a server that trickles the body cannot hold the request past its deadline.
            buffer = try await Self.withDeadline(deadline, on: client.eventLoopGroup.any(), origin: origin) {
                [maximumResponseBytes] in
                try await response.body.collect(upTo: maximumResponseBytes)
            }
        } catch let error as TransportError {
            throw error
        } catch is NIOTooManyBytesError {
            throw TransportError(
                .responseTooLarge,
                "the response body from \(origin) is larger than \(maximumResponseBytes) bytes"
            )
        } catch {
            throw Self.transportError(error, origin: origin, fallback: .connectionClosed)
        }
        let status = HTTPResponse.Status(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase)
        return (HTTPResponse(status: status, headerFields: fields), Array(buffer.readableBytesView))
    }

    /// Streams both ways: a streamed `RequestBody` goes out chunk by chunk (with
    /// `Content-Length` when its length is known, else chunked), and the response body is
    /// handed back as it arrives, each chunk read only when the caller asks for it, failing
    /// with `TransportError.Code.responseTooLarge` past ``maximumResponseBytes``.
    /// The deadline (``timeout``) covers the request up to the response's head; the caller
    /// reads the body at its own pace.
    public func stream(_ request: HTTPRequest, body: RequestBody?) async throws -> (HTTPResponse, ResponseBody) {
        let origin = try AuthScope(origin: request).description
        var outgoing = HTTPClientRequest(url: request.absoluteURL)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        outgoing.headers.append(request.headerFields)
        if let body {
            if let bytes = body.bytes {
                outgoing.body = .bytes(ByteBuffer(bytes: bytes))
            } else {
                let pass = StreamPass(body.chunks().makeAsyncIterator())
                let buffers = AsyncThrowingStream<ByteBuffer, any Error>(unfolding: {
                    try await pass.next().map { ByteBuffer(bytes: $0) }
                })
                outgoing.body = .stream(buffers, length: body.length.map { .known(Int64($0)) } ?? .unknown)
            }
        }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, deadline: NIODeadline.now() + timeout)
        } catch let error as ClientError {
            throw error  // the request body's own failure (its length)
        } catch {
            throw Self.transportError(error, origin: origin, fallback: .connectFailed)
        }
        let fields = try HTTPFields(response.headers)
        let status = HTTPResponse.Status(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase)
        let reader = ResponseReader(response.body.makeAsyncIterator(), limit: maximumResponseBytes, origin: origin)
        let chunks = AsyncThrowingStream<[UInt8], any Error>(unfolding: { try await reader.next() })
        return (HTTPResponse(status: status, headerFields: fields), ResponseBody(stream: chunks))
    }

    /// Runs `body` until `deadline`; past it, `body` is cancelled (AsyncHTTPClient then closes
    /// the connection) and the request fails with `TransportError.Code.timedOut`.
    ///
    /// The timer is a task scheduled on `eventLoop`, not `Task.sleep`: a cancelled sleep keeps
    /// its allocations (about 600 bytes here) until its deadline has passed
    /// (swiftlang/swift#60441), so with a 30 s timeout a client sending thousands of requests a
    /// second held tens of megabytes of finished timers (the soak, issue 24). A cancelled
    /// scheduled task is dropped from the event loop's queue at once.
    static func withDeadline<T: Sendable>(
        _ deadline: NIODeadline,
        on eventLoop: any EventLoop,
        origin: String,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            let timer = eventLoop.scheduleTask(deadline: deadline) {}
            group.addTask { try await body() }
            group.addTask {
                // nil at the deadline; cancelled (the body ended first, or the caller cancelled),
                // the timer is dropped and this ends as a cancellation.
                do {
                    try await withTaskCancellationHandler {
                        try await timer.futureResult.get()
                    } onCancel: {
                        timer.cancel()
                    }
                } catch {
                    throw CancellationError()
                }
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw TransportError(.timedOut, "no complete response from \(origin) in time")
            }
            return value
        }
    }

    /// AsyncHTTPClient's `HTTPClientError` by its code; SwiftNIO's and NIOSSL's errors as the NIO
    /// transport maps them.
    static func transportError(_ error: any Error, origin: String, fallback: TransportError.Code) -> any Error {
        guard let error = error as? HTTPClientError else {
            if error is CancellationError { return error }
            return TransportError(nio: error, origin: origin, fallback: fallback)
        }
        switch error {
        case .connectTimeout, .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
            return TransportError(
                .timedOut,
                "connecting to \(origin) took longer than the connect timeout",
                underlying: error
            )
        case .deadlineExceeded, .readTimeout, .writeTimeout, .getConnectionFromPoolTimeout:
            return TransportError(.timedOut, "no complete response from \(origin) in time", underlying: error)
        case .remoteConnectionClosed, .uncleanShutdown:
            return TransportError(.connectionClosed, "\(origin) closed the connection", underlying: error)
        case .invalidURL, .emptyHost, .emptyScheme:
            return TransportError(
                .invalidRequest,
                "AsyncHTTPClient does not take the URL for \(origin)",
                underlying: error
            )
        case .cancelled:
            return CancellationError()
        default:
            return TransportError(fallback, "the exchange with \(origin) failed (\(error))", underlying: error)
        }
    }
}

/// A request body's pass, pulled by AsyncHTTPClient's writer, its one consumer.
final class StreamPass: @unchecked Sendable {
    // One consumer at a time (the unfolding stream's contract).
    private var iterator: AsyncThrowingStream<[UInt8], any Error>.Iterator

    init(_ iterator: AsyncThrowingStream<[UInt8], any Error>.Iterator) { self.iterator = iterator }

    func next() async throws -> [UInt8]? { try await iterator.next() }
}

/// The response body, pulled by the caller (its one consumer), counted against the limit.
final class ResponseReader: @unchecked Sendable {
    // One consumer at a time (the unfolding stream's contract).
    private var iterator: HTTPClientResponse.Body.AsyncIterator
    private var total = 0
    private let limit: Int
    private let origin: String

    init(_ iterator: HTTPClientResponse.Body.AsyncIterator, limit: Int, origin: String) {
        self.iterator = iterator
        self.limit = limit
        self.origin = origin
    }

    func next() async throws -> [UInt8]? {
        let buffer: ByteBuffer?
        do {
            buffer = try await iterator.next()
        } catch {
            throw AsyncHTTPClientTransport.transportError(error, origin: origin, fallback: .connectionClosed)
        }
        guard let buffer else { return nil }
        total += buffer.readableBytes
        guard total <= limit else {
            throw TransportError(.responseTooLarge, "the response body from \(origin) is larger than \(limit) bytes")
        }
        return Array(buffer.readableBytesView)
    }
}
