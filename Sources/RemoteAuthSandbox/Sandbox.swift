import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import RemoteAuth
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A running sandbox's address.
public struct RunningSandbox: Sendable, Hashable {
    /// `http` or `https`.
    public let scheme: String
    /// The host the sandbox listens on, such as `127.0.0.1`.
    public let host: String
    /// The TCP port the sandbox listens on (the one the system chose when configured with 0).
    public let port: Int
    /// `scheme://host:port`, without a trailing slash.
    public var baseURL: String { "\(scheme)://\(host):\(port)" }
}

/// RemoteAuthSandbox: a local service provider for every scheme RemoteAuth speaks, on
/// Hummingbird: OAuth 1.0a (request token, consent page, access token, reverse auth), a small
/// status API (OAuth 1.0a or Bearer), an OAuth 2 authorization server, HTTP Basic and Digest,
/// and a redirect route.
///
/// ```swift
/// try await Sandbox.withSandbox { sandbox in
///     // sandbox.baseURL is "http://127.0.0.1:<free port>"
/// }
/// ```
public enum Sandbox {
    /// Runs a sandbox for the duration of `body`, on a free port unless the configuration
    /// names one, and stops it afterwards.
    public static func withSandbox<T: Sendable>(
        _ configuration: SandboxConfiguration = .demo(),
        _ body: @Sendable (RunningSandbox) async throws -> T
    ) async throws -> T {
        let (started, continuation) = AsyncStream.makeStream(of: RunningSandbox.self)
        let (stopped, stop) = AsyncStream.makeStream(of: Never.self)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                // A sandbox that cannot start (a bad certificate, a port in use) ends the stream,
                // so the wait below ends too, and its error is thrown from the group.
                defer { continuation.finish() }
                try await run(configuration, until: stopped) { continuation.yield($0) }
                return nil
            }
            var iterator = started.makeAsyncIterator()
            guard let sandbox = await iterator.next() else {
                while try await group.next() != nil {}
                throw SandboxError("the sandbox stopped before it started")
            }
            // Stopped gracefully, whether `body` returns or throws: see `run(_:until:onStart:)`.
            let result: T
            do {
                result = try await body(sandbox)
            } catch {
                stop.finish()
                while (try? await group.next()) != nil {}
                throw error
            }
            stop.finish()
            while try await group.next() != nil {}
            return result
        }
    }

    /// Runs a sandbox in this process until `stop` finishes, then shuts it down gracefully: it
    /// stops accepting, serves the connections it has accepted, and closes them once idle.
    ///
    /// Not by cancellation, which cuts the requests in flight. Either way, a connection accepted
    /// as the server stops, before its accept loop took it, is closed unserved (SwiftNIO would
    /// trap on it: see `GuardedChildChannel`). A connection still busy after
    /// `gracefulShutdownLimit` is cut (the shutdown escalates to cancellation).
    static func run(
        _ configuration: SandboxConfiguration,
        until stop: AsyncStream<Never>,
        onStart: @escaping @Sendable (RunningSandbox) -> Void
    ) async throws {
        try await run(configuration, handlingSignals: false, stop: stop, onStart: onStart)
    }

    /// How long an in-process sandbox's graceful shutdown may wait for busy connections.
    static let gracefulShutdownLimit: Duration = .seconds(60)

    /// Runs a sandbox until the task is cancelled or, with `handlingSignals`, SIGTERM or SIGINT
    /// arrives (then it shuts down gracefully); `onStart` is called once it listens.
    public static func run(
        _ configuration: SandboxConfiguration,
        handlingSignals: Bool = true,
        onStart: @escaping @Sendable (RunningSandbox) -> Void
    ) async throws {
        try await run(configuration, handlingSignals: handlingSignals, stop: nil, onStart: onStart)
    }

    private static func run(
        _ configuration: SandboxConfiguration,
        handlingSignals: Bool,
        stop: AsyncStream<Never>?,
        onStart: @escaping @Sendable (RunningSandbox) -> Void
    ) async throws {
        try checkLoopbackHost(configuration.host)
        // A state file that cannot be read or written fails here, before the sandbox listens.
        var stateFile: StateFile?
        if let path = configuration.statePath {
            stateFile = try StateFile(path: path, random: configuration.random)
        }
        let store = SandboxStore(
            stateFile: stateFile,
            seededTokens: configuration.seededTokens,
            capacity: configuration.tableCapacity,
            random: configuration.random
        )
        let scheme = configuration.tls == nil ? "http" : "https"
        let issuer = OAuth2Issuer()
        let router = makeRouter(configuration, store: store, stateFile: stateFile, scheme: scheme, issuer: issuer)
        var logger = Logger(label: "RemoteAuthSandbox")
        // In-process (tests, benchmarks) a server stopped by cancellation is reported by
        // HummingbirdCore as an error; only the command line's own run logs warnings.
        logger.logLevel = handlingSignals ? .warning : .critical
        let http1Configuration: HTTP1Channel.Configuration
        if let onConnection = configuration.onConnection {
            http1Configuration = .init(additionalChannelHandlers: [ConnectionObserver(observe: onConnection)])
        } else {
            http1Configuration = .init()
        }
        let tlsConfiguration = try configuration.tls.map(SandboxTLS.channelConfiguration)
        // HummingbirdCore's HTTP/1.1 (and TLS) child channel, each accepted connection guarded
        // so that one dropped unserved at shutdown is closed, not a trap: see GuardedChildChannel.
        let server = HTTPServerBuilder { responder in
            let http1 = HTTP1Channel(responder: responder, configuration: http1Configuration)
            if let tlsConfiguration {
                return GuardedChildChannel(base: try TLSChannel(http1, configuration: tlsConfiguration))
            }
            return GuardedChildChannel(base: http1)
        }
        let app = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                let running = RunningSandbox(scheme: scheme, host: configuration.host, port: port)
                issuer.set(running.baseURL)
                onStart(running)
            },
            logger: logger
        )
        // The log is folded into the file when the sandbox stops, however it stops.
        defer { stateFile?.close() }
        do {
            if handlingSignals {
                try await app.runService()
            } else if let stop {
                var services = ServiceGroupConfiguration(services: [app], logger: logger)
                services.maximumGracefulShutdownDuration = gracefulShutdownLimit
                let group = ServiceGroup(configuration: services)
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await group.run() }
                    tasks.addTask {
                        for await _ in stop {}
                        await group.triggerGracefulShutdown()
                    }
                    // The server ends (after the graceful shutdown, or failing to start); the
                    // waiter, if still waiting, ends with the group's cancellation.
                    try await tasks.next()
                    tasks.cancelAll()
                }
            } else {
                try await app.run()
            }
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw SandboxError(
                "port \(configuration.port) on \(configuration.host) is in use (another sandbox?): stop what listens there, or pick another port (0 picks a free one)"
            )
        }
    }

    /// Refuses a host that is not a loopback address, without asking DNS: an IPv4 literal in
    /// 127.0.0.0/8, the IPv6 literal `::1`, or `localhost` when every address it resolves to
    /// (from the hosts file) is one of those. A name such as `127.evil` is not an address
    /// literal and is refused as it is.
    ///
    /// - Throws: ``SandboxError`` naming the host.
    public static func checkLoopbackHost(_ host: String) throws {
        func isLoopback(_ address: SocketAddress) -> Bool {
            switch address {
            case .v4:
                return address.ipAddress?.split(separator: ".").first == "127"
            case .v6:
                return address.ipAddress == "::1"
            default:
                return false
            }
        }
        let literal = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if let address = try? SocketAddress(ipAddress: literal, port: 0) {
            guard isLoopback(address) else {
                throw SandboxError("refusing to listen on '\(host)': the sandbox serves loopback addresses only")
            }
            return
        }
        guard host == "localhost",
            let resolved = try? SocketAddress.makeAddressResolvingHost(host, port: 0), isLoopback(resolved)
        else {
            throw SandboxError(
                "refusing to listen on '\(host)': the sandbox serves loopback addresses only (127.0.0.1, ::1 or localhost)"
            )
        }
    }

    /// The sandbox's routes: one collection per job, sharing the ``SandboxStore`` actor (and,
    /// for OAuth 2's authorization server, the ``OAuth2Store`` actor).
    static func makeRouter(
        _ configuration: SandboxConfiguration,
        store: SandboxStore,
        stateFile: StateFile?,
        scheme: String,
        issuer: OAuth2Issuer
    ) -> Router<SandboxRequestContext> {
        let router = Router(context: SandboxRequestContext.self)
        if let onRequest = configuration.onRequest {
            router.add(middleware: RequestObserver(observe: onRequest))
        }
        if let requestLog = configuration.requestLog {
            router.add(middleware: RequestLog(write: requestLog))
        }
        router.get("/") { _, _ in
            SandboxResponse.text(.ok, SandboxBanner.endpoints(base: ""), contentType: "text/plain; charset=utf-8")
        }
        router.get("/openapi.json") { _, _ in
            SandboxResponse.text(.ok, StatusAPIDocument.json, contentType: "application/json")
        }
        let verifier = OAuth1Verifier(configuration: configuration, store: store, scheme: scheme)
        router.addRoutes(OAuth1Routes(verifier: verifier).collection, atPath: "/oauth")
        let consent = ConsentRoutes(configuration: configuration, store: store)
        router.addRoutes(consent.collection, atPath: "/oauth")
        let oauth2 = OAuth2Store(
            random: configuration.random,
            stateFile: stateFile,
            capacity: configuration.tableCapacity,
            clients: configuration.oauth2Clients,
            documents: configuration.clientIDMetadataDocuments
                ? ClientMetadataDocuments(
                    allowLoopbackHTTP: configuration.allowLoopbackClientMetadata,
                    timeoutSeconds: configuration.clientMetadataDocumentTimeout,
                    now: configuration.now
                ) : nil
        )
        let openID = OpenIDProvider(configuration: configuration, issuer: issuer, clients: oauth2.clients)
        router.addRoutes(
            MetadataRoutes(configuration: configuration, issuer: issuer).collection,
            atPath: "/.well-known"
        )
        router.addRoutes(
            AuthorizationRoutes(configuration: configuration, store: oauth2, issuer: issuer, consent: consent)
                .collection,
            atPath: "/oauth2"
        )
        router.addRoutes(
            TokenRoutes(configuration: configuration, store: oauth2, issuer: issuer, openID: openID).collection,
            atPath: "/oauth2"
        )
        router.addRoutes(
            OpenIDRoutes(configuration: configuration, store: oauth2, provider: openID, consent: consent).collection,
            atPath: "/oauth2"
        )
        router.addRoutes(
            RegistrationRoutes(configuration: configuration, store: oauth2, issuer: issuer).collection,
            atPath: "/oauth2"
        )
        router.addRoutes(
            PushedAuthorizationRoutes(configuration: configuration, store: oauth2, issuer: issuer).collection,
            atPath: "/oauth2"
        )
        router.addRoutes(
            DeviceRoutes(configuration: configuration, store: oauth2, consent: consent).collection,
            atPath: "/device"
        )
        router.addRoutes(
            StatusAPIRoutes(verifier: verifier, oauth2: oauth2, issuer: issuer).collection,
            atPath: "/1.1"
        )
        let files = BearerAuthenticator(
            oauth1: nil,
            store: oauth2,
            configuration: configuration,
            resource: .files,
            issuer: issuer
        )
        router.addRoutes(FilesRoutes(authenticator: files).collection, atPath: "/files")
        router.addRoutes(HTTPAuthRoutes(configuration: configuration, store: store).collection)
        router.addRoutes(RedirectRoutes().collection)
        return router
    }
}

/// Tells ``SandboxConfiguration/onConnection`` about each accepted connection: Hummingbird adds a
/// fresh one to every connection's pipeline.
final class ConnectionObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private let observe: @Sendable () -> Void

    init(observe: @escaping @Sendable () -> Void) { self.observe = observe }

    func handlerAdded(context: ChannelHandlerContext) { observe() }
}
