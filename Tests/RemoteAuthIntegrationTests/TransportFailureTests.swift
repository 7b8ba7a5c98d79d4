import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOPosix
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthNIO
import RemoteAuthURLSession
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The three transports against servers that fail below HTTP: one that accepts the connection
/// and never answers (not even the TLS handshake), a port nothing listens on, and a host name
/// that cannot resolve. Each fails with the same ``TransportError`` code, and fast: a stall ends
/// at the 1 s deadline, a refusal and an unknown host at once (no retries until a connect
/// timeout). What tells "at once" from "at the deadline" is the error's code
/// (`connectionRefused` or `hostNotFound`, not `timedOut`), not a wall-clock bound, so the checks
/// hold on a loaded machine; the stall's deadline is told from the one-hour connect timeouts
/// behind it by a bound of 4 minutes (a run on a machine at load 15 took 38 s for the 1 s
/// deadline: the bound must sit far from both).
@Suite(.timeLimit(.minutes(5)))
struct TransportFailureTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case nio, asyncHTTPClient, urlSession
        var testDescription: String { rawValue }
    }

    /// Runs `body` with a transport of `kind` whose deadline is `timeout`.
    static func withTransport<Result>(
        _ kind: Kind,
        timeout seconds: Int64 = 1,
        _ body: (any HTTPTransport) async throws -> Result
    ) async throws -> Result {
        switch kind {
        case .nio:
            var configuration = NIOHTTP1Transport.Configuration(timeout: .seconds(seconds))
            // A TLS option, as the tool's -k: the handshake is the phase that stalls.
            configuration.trust = ServerTrust(default: .insecureAcceptAnything)
            configuration.connectTimeout = .seconds(3_600)
            return try await body(try NIOHTTP1Transport(configuration: configuration))
        case .asyncHTTPClient:
            return try await AsyncHTTPClientTransport.withTransport(
                connectTimeout: .seconds(3_600),
                timeout: .seconds(seconds)
            ) { try await body($0) }
        case .urlSession:
            return try await URLSessionTransport.withTransport(timeout: TimeInterval(seconds)) { try await body($0) }
        }
    }

    /// The error `url` gets over `kind` with a deadline of `timeout` seconds, and how long it
    /// took.
    static func failure(_ url: String, over kind: Kind, timeout: Int64 = 1) async throws -> (TransportError?, Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: TransportError.self) {
            try await withTransport(kind, timeout: timeout) { transport in
                _ = try await transport.send(try HTTPRequest(method: .get, absoluteURL: url), body: nil)
            }
        }
        return (error, clock.now - start)
    }

    /// A TCP server on 127.0.0.1 that accepts every connection and never writes a byte.
    static func withStalledServer<Result>(_ body: (Int) async throws -> Result) async throws -> Result {
        try await withStalledServer { port, _ in try await body(port) }
    }

    /// A TCP server on 127.0.0.1 that accepts every connection and never writes a byte; `body`
    /// also gets a function that closes the connections accepted so far and every later one at
    /// once, so that a client's stalled handshake, and any retry of it, fails at once.
    static func withStalledServer<Result>(
        _ body: (Int, _ closeConnections: @Sendable () -> Void) async throws -> Result
    ) async throws -> Result {
        let accepted = Locked<(channels: [any Channel], closing: Bool)>(([], false))
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                let closing = accepted.withLock { state in
                    state.channels.append(channel)
                    return state.closing
                }
                if closing { channel.close(promise: nil) }
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let port = try #require(server.localAddress?.port)
        let closeConnections: @Sendable () -> Void = {
            let channels = accepted.withLock { state in
                state.closing = true
                return state.channels
            }
            for channel in channels { channel.close(promise: nil) }
        }
        do {
            let result = try await body(port, closeConnections)
            closeConnections()
            try? await server.close()
            return result
        } catch {
            closeConnections()
            try? await server.close()
            throw error
        }
    }

    /// A port on 127.0.0.1 that nothing listens on: a socket bound to it and never listening
    /// (a connection is refused), kept open while `body` runs so that no other suite's server
    /// can take the port meanwhile.
    static func withRefusedPort<Result>(_ body: (Int) async throws -> Result) async throws -> Result {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        try #require(named == 0)
        return try await body(Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test(arguments: Kind.allCases, ["https", "http"])
    func stalledServerTimesOut(over kind: Kind, scheme: String) async throws {
        try await Self.withStalledServer { port in
            let (error, elapsed) = try await Self.failure("\(scheme)://127.0.0.1:\(port)/", over: kind)
            #expect(error?.code == .timedOut, "\(String(describing: error))")
            #expect(elapsed >= .milliseconds(900), "\(elapsed)")
            // The deadline (1 s) ended it, not the one-hour connect timeout nor nothing at all.
            #expect(elapsed < .seconds(240), "\(elapsed)")
        }
    }

    /// With a 30 s deadline, a client that retried until its connect timeout would end with
    /// `timedOut`: `connectionRefused` says it gave up at once.
    @Test(arguments: Kind.allCases)
    func refusedConnectionFailsAtOnce(over kind: Kind) async throws {
        try await Self.withRefusedPort { port in
            let (error, _) = try await Self.failure("http://127.0.0.1:\(port)/", over: kind, timeout: 30)
            #expect(error?.code == .connectionRefused, "\(String(describing: error))")
            #expect(error?.reason == "http://127.0.0.1:\(port) refused the connection")
            #expect(error?.underlying != nil)
        }
    }

    /// `.invalid` never resolves (RFC 6761 §6.4), with or without a network.
    @Test(arguments: Kind.allCases)
    func unknownHostFailsAtOnce(over kind: Kind) async throws {
        // A 30 s deadline: retrying until it would end with timedOut, not hostNotFound.
        let (error, _) = try await Self.failure("https://nonexistent.invalid/", over: kind, timeout: 30)
        #expect(error?.code == .hostNotFound, "\(String(describing: error))")
        #expect(error?.reason == "the host name 'nonexistent.invalid' does not resolve")
    }

    /// Cancelling the task ends a request stalled in the TLS handshake at once, with a
    /// `CancellationError`, not the ``TransportError`` its deadline would end it with. The
    /// deadline is the hang guard, so that it cannot come first on a loaded machine, where this
    /// task may resume long after its 300 ms sleep. AsyncHTTPClient's shutdown at the end of the
    /// scope waits for its connection attempt (up to the connect timeout, which `withTransport`
    /// cuts to the deadline), so the stalled server closes its connections, and any new one (a
    /// retry), before it.
    @Test(arguments: Kind.allCases)
    func cancellationEndsAStalledRequest(over kind: Kind) async throws {
        try await Self.withStalledServer { port, closeConnections in
            try await Self.withTransport(kind, timeout: Int64(TestTime.hangGuard.components.seconds)) { transport in
                let request = Task {
                    _ = try await transport.send(
                        try HTTPRequest(method: .get, absoluteURL: "https://127.0.0.1:\(port)/"),
                        body: nil
                    )
                }
                try await Task.sleep(for: .milliseconds(300))
                request.cancel()
                await #expect(throws: CancellationError.self) { try await request.value }
                closeConnections()
            }
        }
    }

    /// The NIO transport's connect timeout and total deadline are separate settings; the
    /// connect timeout is cut to what is left of the deadline.
    @Test func nioConnectTimeoutIsCutToTheDeadline() async throws {
        let configuration = NIOHTTP1Transport.Configuration(connectTimeout: .seconds(3_600), timeout: .seconds(1))
        #expect(configuration.connectTimeout == .seconds(3_600))
        #expect(configuration.timeout == .seconds(1))
        try await Self.withStalledServer { port in
            let transport = try NIOHTTP1Transport(configuration: configuration)
            let clock = ContinuousClock()
            let start = clock.now
            let error = await #expect(throws: TransportError.self) {
                _ = try await transport.send(
                    try HTTPRequest(method: .get, absoluteURL: "http://127.0.0.1:\(port)/"),
                    body: nil
                )
            }
            #expect(error?.code == .timedOut)
            #expect(clock.now - start < .seconds(240))  // the 1 s deadline, not the one-hour connect timeout
        }
    }
}
