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

/// A TCP server on 127.0.0.1 that answers the first request bytes with a hostile script: a body
/// that never ends, 100,000 header lines, one byte per second. It stops writing when the client
/// goes away.
enum HostileServer {
    enum Script: Sendable {
        /// `Content-Length` of `length`, then zeros as fast as the client reads.
        case hugeBody(length: Int)
        /// `Transfer-Encoding: chunked`, chunks forever.
        case endlessChunked
        /// A status line and `count` header lines (a head of about 1 MB for 100,000).
        case manyHeaders(count: Int)
        /// A `401` whose `WWW-Authenticate` is `bytes` long.
        case hugeChallenge(bytes: Int)
        /// The status line, one byte per `interval`.
        case trickleHead(interval: TimeAmount)
        /// A full head promising 100 bytes, then one byte per `interval`.
        case trickleBody(interval: TimeAmount)
        /// A `200` with a JWK Set of `keys` keys: P-256 public keys with distinct `kid`s (about
        /// 140 bytes each), or, `compact`, `{"kty":"oct"}` members (14 bytes each).
        case jwks(keys: Int, compact: Bool)
    }

    final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let script: Script
        var started = false
        var remaining = 0
        var trickle: [UInt8] = []

        init(script: Script) { self.script = script }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !started else { return }
            started = true
            switch script {
            case .hugeBody(let length):
                write(context, "HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\nContent-Type: application/json\r\n\r\n")
                remaining = length
                pump(context)
            case .endlessChunked:
                write(context, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n")
                remaining = .max
                pump(context)
            case .manyHeaders(let count):
                var head = "HTTP/1.1 200 OK\r\n"
                head.reserveCapacity(count * 12)
                for index in 0..<count { head += "X-H\(index % 10): v\r\n" }
                write(context, head + "Content-Length: 0\r\n\r\n")
            case .hugeChallenge(let bytes):
                let challenge = "Basic realm=\"" + String(repeating: "r", count: bytes) + "\""
                write(context, "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: \(challenge)\r\nContent-Length: 0\r\n\r\n")
            case .trickleHead(let interval):
                trickle = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}".utf8)
                drip(context, every: interval)
            case .trickleBody(let interval):
                write(context, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
                trickle = Array(repeating: UInt8(ascii: " "), count: 100)
                drip(context, every: interval)
            case .jwks(let keys, let compact):
                var members: [String] = []
                members.reserveCapacity(keys)
                for index in 0..<keys {
                    members.append(
                        compact
                            ? #"{"kty":"oct"}"#
                            : #"{"kty":"EC","crv":"P-256","kid":"k\#(index)","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}"#)
                }
                let body = #"{"keys":["# + members.joined(separator: ",") + "]}"
                write(
                    context,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/jwk-set+json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
            }
        }

        func channelWritabilityChanged(context: ChannelHandlerContext) {
            if context.channel.isWritable { pump(context) }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }

        private func write(_ context: ChannelHandlerContext, _ text: String) {
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text)), promise: nil)
        }

        /// Writes 64 KiB at a time while the socket takes it.
        private func pump(_ context: ChannelHandlerContext) {
            let chunked: Bool
            if case .endlessChunked = script { chunked = true } else { chunked = false }
            while remaining > 0, context.channel.isActive, context.channel.isWritable {
                let size = min(remaining, 64 * 1024)
                var buffer = context.channel.allocator.buffer(capacity: size + 16)
                if chunked { buffer.writeString(String(size, radix: 16) + "\r\n") }
                buffer.writeRepeatingByte(UInt8(ascii: "0"), count: size)
                if chunked { buffer.writeString("\r\n") }
                if remaining != .max { remaining -= size }
                context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
            }
        }

        private func drip(_ context: ChannelHandlerContext, every interval: TimeAmount) {
            guard !trickle.isEmpty, context.channel.isActive else { return }
            let byte = trickle.removeFirst()
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: [byte])), promise: nil)
            let loop = context.eventLoop.assumeIsolated()
            loop.scheduleTask(in: interval) { [self] in self.drip(context, every: interval) }
        }
    }

    /// Runs the server on an event loop of its own, so that pumping a body as fast as the
    /// socket takes it never starves the shared loops other suites' sandboxes and clients use.
    static func with<Result>(_ script: Script, _ body: (Int) async throws -> Result) async throws -> Result {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { group.shutdownGracefully { _ in } }
        let server = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Handler(script: script))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let port = try #require(server.localAddress?.port)
        do {
            let result = try await body(port)
            try? await server.close()
            return result
        } catch {
            try? await server.close()
            throw error
        }
    }
}

/// Each transport against each hostile server: a typed ``TransportError`` within the deadline
/// (2 s here), and memory bounded by the response limit (1 MiB here), never by what the server
/// sends. Elapsed bounds are loose: the machine has 2 shared cores.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct HostileServerTests {
    typealias Kind = TransportFailureTests.Kind

    static func withTransport<Result>(
        _ kind: Kind, timeout seconds: Int64, _ body: (any HTTPTransport) async throws -> Result
    ) async throws -> Result {
        switch kind {
        case .nio:
            var configuration = NIOHTTP1Transport.Configuration(timeout: .seconds(seconds))
            configuration.maximumResponseBytes = 1 << 20
            return try await body(try NIOHTTP1Transport(configuration: configuration))
        case .asyncHTTPClient:
            return try await AsyncHTTPClientTransport.withTransport(
                timeout: .seconds(seconds), maximumResponseBytes: 1 << 20
            ) { try await body($0) }
        case .urlSession:
            return try await URLSessionTransport.withTransport(timeout: TimeInterval(seconds), maximumResponseBytes: 1 << 20) {
                try await body($0)
            }
        }
    }

    /// What a GET to the server playing `script` ends with, and how long it took. The size
    /// cases get the hang guard as their deadline (`TestTime.hangGuard`), so that only the size
    /// limit can end them: their error is `responseTooLarge`, not `timedOut`, which tells the
    /// limit from the deadline on a machine however loaded (under ThreadSanitizer, reading a
    /// mebibyte took over 60 s), with no bound on time. The trickling ones get 2 s.
    static func failure(
        _ script: HostileServer.Script, over kind: Kind, timeout: Int64 = Int64(TestTime.hangGuard.components.seconds)
    ) async throws -> (TransportError?, Duration) {
        try await HostileServer.with(script) { port in
            let clock = ContinuousClock()
            let start = clock.now
            let error = await #expect(throws: TransportError.self) {
                try await withTransport(kind, timeout: timeout) { transport in
                    _ = try await transport.send(try HTTPRequest(method: .get, absoluteURL: "http://127.0.0.1:\(port)/"), body: nil)
                }
            }
            return (error, clock.now - start)
        }
    }

    @Test(arguments: Kind.allCases)
    func aGigabyteBodyIsCutAtTheLimit(over kind: Kind) async throws {
        let (error, _) = try await Self.failure(.hugeBody(length: 1 << 30), over: kind)
        #expect(error?.code == .responseTooLarge, "\(String(describing: error))")
    }

    @Test(arguments: Kind.allCases)
    func anEndlessChunkedBodyIsCutAtTheLimit(over kind: Kind) async throws {
        let (error, _) = try await Self.failure(.endlessChunked, over: kind)
        #expect(error?.code == .responseTooLarge, "\(String(describing: error))")
    }

    @Test(arguments: Kind.allCases)
    func aHundredThousandHeaderLinesAreRefused(over kind: Kind) async throws {
        let (error, _) = try await Self.failure(.manyHeaders(count: 100_000), over: kind)
        #expect(
            [.responseTooLarge, .malformedResponse].contains(error?.code),
            "\(String(describing: error)) \(String(describing: error?.underlying))")
    }

    @Test(arguments: Kind.allCases)
    func aTrickledHeadEndsAtTheDeadline(over kind: Kind) async throws {
        let (error, elapsed) = try await Self.failure(.trickleHead(interval: .milliseconds(300)), over: kind, timeout: 2)
        #expect(error?.code == .timedOut, "\(String(describing: error))")
        #expect(elapsed >= .milliseconds(1900), "\(elapsed)")
        // The trickle never ends by itself: 15 times the deadline tells "the deadline held" from
        // "nothing ended it", however loaded the machine.
        #expect(elapsed < .seconds(30), "\(elapsed)")
    }

    @Test(arguments: Kind.allCases)
    func aTrickledBodyEndsAtTheDeadline(over kind: Kind) async throws {
        let (error, elapsed) = try await Self.failure(.trickleBody(interval: .milliseconds(300)), over: kind, timeout: 2)
        #expect(error?.code == .timedOut, "\(String(describing: error))")
        #expect(elapsed >= .milliseconds(1900), "\(elapsed)")
        // The trickle never ends by itself: 15 times the deadline tells "the deadline held" from
        // "nothing ended it", however loaded the machine.
        #expect(elapsed < .seconds(30), "\(elapsed)")
    }
}

extension HostileServerTests {
    /// A `WWW-Authenticate` of 1 MB is refused by each transport's head limit before the client
    /// parses any of it.
    @Test(arguments: Kind.allCases)
    func aMegabyteChallengeIsRefused(over kind: Kind) async throws {
        let (error, _) = try await Self.failure(.hugeChallenge(bytes: 1 << 20), over: kind)
        #expect(
            [.responseTooLarge, .malformedResponse].contains(error?.code),
            "\(String(describing: error)) \(String(describing: error?.underlying))")
    }
}

extension HostileServerTests {
    /// An issuer's `jwks_uri` answering 10,000 keys: ``JOSE/KeySetCache`` refuses the set with
    /// ``JOSE/Error/Code/tooLarge`` (RFC 7517 §5 sets no bound; this library's defaults are 100
    /// keys and 256 KiB), at once, after one fetch. Realistic keys (about 1.4 MB) are refused by
    /// size before any JSON is decoded, so memory is bounded by the transport's response limit;
    /// 10,000 minimal members (140 KB, under the byte bound) are refused by count, before any
    /// key is made.
    @Test(arguments: [false, true])
    func aJWKSetOfTenThousandKeysIsRefused(compact: Bool) async throws {
        try await HostileServer.with(.jwks(keys: 10_000, compact: compact)) { port in
            try await NIOHTTP1Transport.withTransport(configuration: .init(timeout: .seconds(60))) { transport in
                let cache = try JOSE.KeySetCache(
                    url: "http://127.0.0.1:\(port)/jwks", transport: transport, now: { 1_700_000_000 })
                // tooLarge, not a transport timeout: the limit, not the 60 s deadline, ended it.
                let error = await #expect(throws: JOSE.Error.self) { _ = try await cache.keySet() }
                #expect(error?.code == .tooLarge, "\(String(describing: error))")
                #expect(error?.reason.contains(compact ? "10000 keys" : "bytes") == true, "\(String(describing: error))")
                #expect(await cache.fetchCount == 1)
            }
        }
    }
}
