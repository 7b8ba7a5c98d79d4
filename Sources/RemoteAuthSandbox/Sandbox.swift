import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import RemoteAuth

/// A running sandbox's address.
public struct RunningSandbox: Sendable, Hashable {
    /// `http` or `https`.
    public let scheme: String
    public let host: String
    public let port: Int
    /// `scheme://host:port`, without a trailing slash.
    public var baseURL: String { "\(scheme)://\(host):\(port)" }
}

/// RemoteAuthSandbox: a local service provider for every scheme RemoteAuth speaks, on
/// Hummingbird: OAuth 1.0a (request token, consent page, access token, reverse auth), a small
/// status API, HTTP Basic and Digest, and a redirect route.
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
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                // A sandbox that cannot start (a bad certificate, a port in use) ends the stream,
                // so the wait below ends too, and its error is thrown from the group.
                defer { continuation.finish() }
                try await run(configuration, handlingSignals: false) { continuation.yield($0) }
                return nil
            }
            var iterator = started.makeAsyncIterator()
            guard let sandbox = await iterator.next() else {
                while try await group.next() != nil {}
                throw SandboxError("the sandbox stopped before it started")
            }
            let result = try await body(sandbox)
            group.cancelAll()
            while try await group.next() != nil {}
            return result
        }
    }

    /// Runs a sandbox until the task is cancelled or, with `handlingSignals`, SIGTERM or SIGINT
    /// arrives (then it shuts down gracefully); `onStart` is called once it listens.
    public static func run(
        _ configuration: SandboxConfiguration,
        handlingSignals: Bool = true,
        onStart: @escaping @Sendable (RunningSandbox) -> Void
    ) async throws {
        let store = try SandboxStore(statePath: configuration.statePath, seededTokens: configuration.seededTokens)
        let scheme = configuration.tls == nil ? "http" : "https"
        let provider = SandboxProvider(configuration: configuration, store: store, scheme: scheme)
        let router = makeRouter(provider)
        var logger = Logger(label: "RemoteAuthSandbox")
        // In-process (tests, benchmarks) the server is stopped by cancellation, which
        // HummingbirdCore reports as an error; only the command line's own run logs warnings.
        logger.logLevel = handlingSignals ? .warning : .critical
        let server: HTTPServerBuilder
        if let tls = configuration.tls {
            server = try .tls(.http1(), tlsConfiguration: SandboxTLS.serverConfiguration(tls))
        } else {
            server = .http1()
        }
        let app = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                onStart(RunningSandbox(scheme: scheme, host: configuration.host, port: port))
            },
            logger: logger
        )
        if handlingSignals {
            try await app.runService()
        } else {
            try await app.run()
        }
    }

    static func body(_ request: Request) async -> [UInt8] {
        guard let buffer = try? await request.body.collect(upTo: 1 << 20) else { return [] }
        return Array(buffer.readableBytesView)
    }

    static func makeRouter(_ provider: SandboxProvider) -> Router<BasicRequestContext> {
        let router = Router()
        if let onRequest = provider.configuration.onRequest {
            router.add(middleware: RequestObserver(observe: onRequest))
        }
        router.get("/") { _, _ in
            SandboxProvider.text(.ok, SandboxBanner.endpoints(base: ""), contentType: "text/plain; charset=utf-8")
        }
        router.post("/oauth/request_token") { request, _ in
            await provider.requestToken(request, body: await body(request))
        }
        router.get("/oauth/authorize") { request, _ in await provider.authorizePage(request) }
        router.post("/oauth/authorize") { request, _ in await provider.authorizeForm(request, body: await body(request))
        }
        router.post("/oauth/access_token") { request, _ in
            await provider.accessToken(request, body: await body(request))
        }
        router.post("/1.1/statuses/update.json") { request, _ in
            await provider.api(request, body: await body(request), endpoint: "update")
        }
        router.get("/1.1/statuses/home_timeline.json") { request, _ in
            await provider.api(request, body: await body(request), endpoint: "home_timeline")
        }
        router.get("/1.1/account/verify_credentials.json") { request, _ in
            await provider.api(request, body: await body(request), endpoint: "verify_credentials")
        }
        router.get("/basic/") { request, _ in provider.basic(request) }
        for method in [HTTPRequest.Method.get, .post, .put] {
            router.on("/digest/:algorithm/:qop/", method: method) { request, context in
                await provider.digest(
                    request,
                    body: await body(request),
                    algorithmName: context.parameters.get("algorithm") ?? "",
                    qopName: context.parameters.get("qop") ?? ""
                )
            }
        }
        router.get("/redirect") { request, _ in
            let parameters = provider.query(request)
            guard let target = parameters.first(where: { $0.name == "to" })?.value, !target.isEmpty else {
                return SandboxProvider.json(
                    ["error": "use /redirect?to=URL[&status=301|302|303|307|308]"],
                    status: .badRequest
                )
            }
            let code = parameters.first(where: { $0.name == "status" }).flatMap { Int($0.value) } ?? 302
            let status: HTTPResponse.Status = [301, 302, 303, 307, 308].contains(code) ? .init(code: code) : .found
            return Response(status: status, headers: [.location: target])
        }
        return router
    }
}

/// Shows every request head to ``SandboxConfiguration/onRequest`` before handling it.
struct RequestObserver: RouterMiddleware {
    typealias Context = BasicRequestContext
    let observe: @Sendable (HTTPRequest) -> Void

    func handle(
        _ request: Request,
        context: BasicRequestContext,
        next: (Request, BasicRequestContext) async throws -> Response
    ) async throws -> Response {
        observe(request.head)
        return try await next(request, context)
    }
}

/// The text the sandbox prints at start and serves at `/`.
public enum SandboxBanner {
    public static func endpoints(base: String) -> String {
        """
        Endpoints:
          POST \(base)/oauth/request_token        OAuth 1.0a temporary credentials (x_auth_mode=reverse_auth for reverse auth)
          GET  \(base)/oauth/authorize            consent page
          POST \(base)/oauth/access_token         token credentials (x_reverse_auth_target for reverse auth)
          POST \(base)/1.1/statuses/update.json   status=TEXT (signed)
          GET  \(base)/1.1/statuses/home_timeline.json
          GET  \(base)/1.1/account/verify_credentials.json
          GET  \(base)/basic/                     HTTP Basic
          GET  \(base)/digest/{algorithm}/{qop}/  HTTP Digest, e.g. /digest/SHA-256/auth/, /digest/MD5-sess/auth-int/
          GET  \(base)/redirect?to=URL            redirect tests

        """
    }

    public static func identities(_ configuration: SandboxConfiguration) -> String {
        var text = "Identities (a local test service: secrets are shown):\n"
        for consumer in configuration.consumers {
            text += "  consumer \(consumer.key)"
            if let secret = consumer.secret { text += " / \(secret)" }
            if consumer.rsaPublicKeyPEM != nil { text += " (RSA-SHA1 key registered)" }
            if let name = consumer.name { text += "  \"\(name)\"" }
            text += "\n"
        }
        for token in configuration.seededTokens {
            text += "  access token \(token.token) / \(token.secret)  (\(token.user), consumer \(token.consumerKey))\n"
        }
        for user in configuration.users {
            text += "  user \(user.name) / \(user.password)\n"
        }
        return text
    }
}
