public import HTTPTypes
import NIOConcurrencyHelpers
public import NIOCore
import NIOHTTP1
public import NIOPosix
import NIOSSL
public import RemoteAuth
import RemoteAuthNIOShared
import SwiftASN1
import X509

/// An `HTTPTransport` on SwiftNIO's HTTP/1.1 codec that owns its TLS handshake,
/// so that a `TrustPolicy` (SPKI pins, a pinned certificate, a CA bundle) decides
/// about the server's certificates from inside the handshake, before any byte of the request,
/// `Authorization` included, is written. A rejected server gives a `TrustRejection`
/// naming the host and the keys it presented.
///
/// Other failures are `TransportError`s. ``Configuration/connectTimeout`` bounds
/// connecting (name resolution included) and ``Configuration/timeout`` the whole request, every
/// phase: waiting for a free connection, connecting, the TLS handshake, writing, waiting for the
/// head, reading the body.
///
/// Connections are kept alive ([RFC 9112 §9.3](https://www.rfc-editor.org/rfc/rfc9112#section-9.3))
/// and reused, one request at a time, per origin (scheme, host, port): the trust policy runs once
/// per connection, in its handshake, so a pinned client pays one handshake, not one per request.
/// The pool belongs to this transport (its copies share it): the trust policies and the client
/// identity are fixed when the transport is made, so a connection is never shared between two
/// policies or two identities; another transport, even with an equal configuration, opens its
/// own. A connection closes on `Connection: close` (the request's or the response's), on an
/// HTTP/1.0 response without keep-alive, on any error (including a response too large to read
/// whole, a timeout or a cancellation), and after ``Configuration/idleTimeout`` unused. At most
/// ``Configuration/maximumConnectionsPerOrigin`` are open to one origin; further requests wait,
/// under their deadline. ``shutdown()`` (or the end of ``withTransport(configuration:group:isolation:_:)``,
/// or the last copy of the transport going away) closes the idle ones.
///
/// It does not follow redirects; `AuthenticatingClient` does.
public struct NIOHTTP1Transport: HTTPTransport {
    /// What the transport trusts and presents, how long it waits, and how many connections it keeps.
    public struct Configuration: Sendable {
        /// The trust policy per host (default: the system's roots, host name checked).
        public var trust: ServerTrust
        /// The client certificate presented when a server asks for one (mutual TLS).
        public var clientIdentity: ClientIdentity?
        /// The limit on connecting: resolving the name, the TCP connection and the TLS handshake
        /// (as curl's `--connect-timeout`), cut to what is left of ``timeout``.
        public var connectTimeout: TimeAmount
        /// The deadline for one request, from asking for a connection to the last body byte: when
        /// it passes, the request's connection is closed, whatever phase the request is in, and
        /// the request fails with `TransportError.Code.timedOut`.
        public var timeout: TimeAmount
        /// The largest response body read; a larger one fails the request (and closes its
        /// connection).
        public var maximumResponseBytes: Int
        /// How long a kept-alive connection may stay unused before it is closed (default 60 s).
        /// `.zero` turns reuse off: one connection per request, each sent with `Connection: close`.
        public var idleTimeout: TimeAmount
        /// The most connections open at once to one origin (default 8, at least 1); a request
        /// that finds them all busy waits for one, under its ``timeout``.
        public var maximumConnectionsPerOrigin: Int

        /// A configuration; the defaults trust the system's roots, present no client certificate,
        /// connect within 10 s, finish a request within 30 s, read at most 16 MiB, keep connections 60 s.
        public init(
            trust: ServerTrust = ServerTrust(),
            clientIdentity: ClientIdentity? = nil,
            connectTimeout: TimeAmount = .seconds(10),
            timeout: TimeAmount = .seconds(30),
            maximumResponseBytes: Int = 16 << 20,
            idleTimeout: TimeAmount = .seconds(60),
            maximumConnectionsPerOrigin: Int = 8
        ) {
            self.trust = trust
            self.clientIdentity = clientIdentity
            self.connectTimeout = connectTimeout
            self.timeout = timeout
            self.maximumResponseBytes = maximumResponseBytes
            self.idleTimeout = idleTimeout
            self.maximumConnectionsPerOrigin = maximumConnectionsPerOrigin
        }
    }

    /// The trust, client identity, timeouts and limits this transport was made with.
    public let configuration: Configuration
    let group: any EventLoopGroup
    let tlsContext: NIOSSLContext
    private let owner: PoolOwner
    var pool: ConnectionPool { owner.pool }
    /// The pool's bookkeeping, for tests.
    var poolState: ConnectionPoolState<ConnectionPool.Key> { pool.state }
    private var keepsAlive: Bool { configuration.idleTimeout > .zero }

    /// - Throws: `TrustError` when the client identity does not parse.
    public init(
        configuration: Configuration = Configuration(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) throws {
        precondition(configuration.maximumConnectionsPerOrigin > 0, "maximumConnectionsPerOrigin must be at least 1")
        self.configuration = configuration
        self.group = group
        var tls = TLSConfiguration.makeClientConfiguration()
        // The trust policy checks the chain and the host name itself, in the callback below; with
        // `.noHostnameVerification` NIOSSL does not repeat the name check (the callback replaces
        // its chain check either way), so that InsecureAcceptAnythingPolicy accepts any name.
        tls.certificateVerification = .noHostnameVerification
        if let identity = configuration.clientIdentity {
            try tls.present(identity)
        }
        do {
            self.tlsContext = try NIOSSLContext(configuration: tls)
        } catch {
            throw TrustError(.invalidPrivateKey, "the client certificate and key do not make a TLS context: \(error)")
        }
        self.owner = PoolOwner(
            ConnectionPool(maximumPerOrigin: configuration.maximumConnectionsPerOrigin)
        )
    }

    /// Runs `body` with a new transport, then shuts it down (closing its idle connections),
    /// whether `body` returns or throws.
    public static func withTransport<Result>(
        configuration: Configuration = Configuration(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (NIOHTTP1Transport) async throws -> Result
    ) async throws -> Result {
        let transport = try NIOHTTP1Transport(configuration: configuration, group: group)
        let result: Result
        do {
            result = try await body(transport)
        } catch {
            await transport.shutdown()
            throw error
        }
        await transport.shutdown()
        return result
    }

    /// Closes the idle connections and fails the requests waiting for one; requests in flight
    /// finish, then their connections close. Every later request fails at once with
    /// `TransportError.Code.connectFailed`. Returns once the idle connections are
    /// closed.
    public func shutdown() async {
        for closed in pool.shutDown() {
            try? await closed.get()
        }
    }

    /// Sends `request` on a pooled connection to its origin and reads the whole response body,
    /// under the configuration's timeout and response size limit.
    public func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        let origin = try AuthScope(origin: request)
        let deadline = NIODeadline.now() + configuration.timeout
        let keepAlive = keepsAlive && !Self.asksToClose(request)
        let head = Self.head(of: request, body: body, origin: origin, keepAlive: keepAlive)
        // A request that can be sent again goes on another connection, under the same deadline:
        // one that left no byte (seen about once in 300 mutual-TLS requests here: the channel
        // closed cleanly between the handshake and the first write), and an idempotent one that a
        // kept-alive connection lost before any byte of the response, as the server may close an
        // idle connection while the request is on its way (RFC 9112 §9.3.1). Every idle
        // connection may be stale, hence the bound.
        var attempts = 0
        while true {
            let outcome = try await exchange(
                head,
                body: body,
                keepAlive: keepAlive,
                method: request.method,
                origin: origin,
                deadline: deadline
            )
            switch outcome {
            case .response(let response, let body):
                return (response, body)
            case .retry(let error):
                attempts += 1
                if attempts > configuration.maximumConnectionsPerOrigin { throw error }
            }
        }
    }

    /// Where an exchange is, for the message of a timeout.
    enum Phase: String, Sendable {
        case pool = "waiting for a free connection"
        case handshake = "during the TLS handshake"
        case writing = "while writing the request"
        case head = "waiting for the response head"
        case body = "reading the response body"
    }

    private enum Outcome {
        case response(HTTPResponse, [UInt8])
        case retry(TransportError)
    }

    /// Methods a client may send again when a connection fails before the response
    /// ([RFC 9110 §9.2.2](https://www.rfc-editor.org/rfc/rfc9110#section-9.2.2)).
    private static let idempotent: Set<HTTPRequest.Method> = [.get, .head, .options, .trace, .put, .delete]

    /// One request on a pooled connection: an idle one, or a new one opened for it. Every phase
    /// ends at `deadline`: waiting for a free connection, connecting (which `connectTimeout`,
    /// cut to what is left before the deadline, bounds), the handshake and the exchange.
    private func exchange(
        _ head: HTTPRequestHead,
        body: [UInt8]?,
        keepAlive: Bool,
        method: HTTPRequest.Method,
        origin: AuthScope,
        deadline: NIODeadline
    ) async throws -> Outcome {
        guard deadline - .now() > .zero else { throw timedOut(origin, nil) }
        let key = ConnectionPool.Key(scheme: origin.scheme, host: origin.host, port: origin.port)
        let grant: ConnectionPool.Grant
        do {
            grant = try await pool.lease(key, deadline: deadline, on: group.next())
        } catch let error as TransportError where error.code == .timedOut {
            throw timedOut(origin, .pool, underlying: error)
        }
        let connection: PooledConnection
        switch grant {
        case .reuse(let reused):
            connection = reused
        case .connect:
            do {
                connection = try await connect(origin, key: key, deadline: deadline)
            } catch {
                pool.connectFailed(key)
                throw error
            }
        }
        let reused = if case .reuse = grant { true } else { false }

        let channel = connection.channel
        let handler = connection.handler
        let promise = channel.eventLoop.makePromise(of: HTTPExchangeHandler.Response.self)
        let maximumResponseBytes = configuration.maximumResponseBytes
        channel.eventLoop.execute {
            handler.value.start(
                head: head,
                body: body,
                keepAlive: keepAlive,
                maximumResponseBytes: maximumResponseBytes,
                deadline: deadline,
                promise: promise
            )
        }
        let response: HTTPExchangeHandler.Response
        do {
            response = try await withTaskCancellationHandler {
                try await promise.futureResult.get()
            } onCancel: {
                channel.close(promise: nil)
            }
        } catch {
            pool.release(connection, reusable: false)
            let failure = error as? HTTPExchangeHandler.Failure
            let underlying = failure?.error ?? error
            if let passed = underlying as? HTTPExchangeHandler.DeadlinePassed {
                throw timedOut(origin, passed.phase)
            }
            if underlying is CancellationError || Task.isCancelled { throw CancellationError() }
            let mapped = TransportError(nio: underlying, origin: origin.description, fallback: .connectionClosed)
            if mapped.code == .closedBeforeWriting { return .retry(mapped) }
            if reused, failure?.responseStarted == false, mapped.code == .connectionClosed,
                Self.idempotent.contains(method)
            {
                return .retry(mapped)
            }
            throw mapped
        }
        pool.release(connection, reusable: response.keepAlive)
        let fields = try HTTPFields(response.head.headers)
        let status = HTTPResponse.Status(
            code: Int(response.head.status.code),
            reasonPhrase: response.head.status.reasonPhrase
        )
        return .response(HTTPResponse(status: status, headerFields: fields), response.body)
    }

    func timedOut(_ origin: AuthScope, _ phase: Phase?, underlying: (any Error)? = nil) -> TransportError {
        let when = phase.map { " (timed out \($0.rawValue))" } ?? ""
        return TransportError(
            .timedOut,
            "no complete response from \(origin) within \(configuration.timeout)\(when)",
            underlying: underlying
        )
    }

    /// Whether the request's `Connection` field holds `close`
    /// ([RFC 9112 §9.6](https://www.rfc-editor.org/rfc/rfc9112#section-9.6)).
    private static func asksToClose(_ request: HTTPRequest) -> Bool {
        request.headerFields[values: .connection].contains { value in
            value.split(separator: ",").contains { $0.filter { $0 != " " && $0 != "\t" }.lowercased() == "close" }
        }
    }

    /// The HTTP/1.1 head of `request`: `Host` from its authority, its fields except `Connection`
    /// (the transport's own: `close` unless the connection is kept), and a `Content-Length`.
    private static func head(
        of request: HTTPRequest,
        body: [UInt8]?,
        origin: AuthScope,
        keepAlive: Bool
    ) -> HTTPRequestHead {
        var head = HTTPRequestHead(
            version: .http1_1,
            method: HTTPMethod(rawValue: request.method.rawValue),
            uri: request.path ?? "/"
        )
        // HTTPRequest keeps the authority out of its fields (it is `Host` on HTTP/1.1).
        head.headers.add(name: "Host", value: request.authority ?? origin.host)
        for field in request.headerFields where field.name != .connection {
            head.headers.add(name: field.name.rawName, value: field.value)
        }
        if !keepAlive { head.headers.add(name: "Connection", value: "close") }
        if let body {
            head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
        } else if request.method == .post || request.method == .put || request.method == .patch {
            head.headers.replaceOrAdd(name: "Content-Length", value: "0")
        }
        return head
    }
}

/// Holds the pool for the transport and its copies; when the last goes, the idle connections close.
private final class PoolOwner: Sendable {
    let pool: ConnectionPool
    init(_ pool: ConnectionPool) { self.pool = pool }
    deinit { _ = pool.shutDown() }
}
