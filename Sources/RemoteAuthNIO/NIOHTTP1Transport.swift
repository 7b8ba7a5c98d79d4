public import HTTPTypes
import NIOConcurrencyHelpers
public import NIOCore
import NIOHTTP1
public import NIOPosix
import NIOSSL
import NIOTLS
public import RemoteAuth
import RemoteAuthNIOShared
import SwiftASN1
import X509

/// An ``RemoteAuth/HTTPTransport`` on SwiftNIO's HTTP/1.1 codec that owns its TLS handshake,
/// so that a ``RemoteAuth/TrustPolicy`` (SPKI pins, a pinned certificate, a CA bundle) decides
/// about the server's certificates from inside the handshake, before any byte of the request,
/// `Authorization` included, is written. A rejected server gives a ``RemoteAuth/TrustRejection``
/// naming the host and the keys it presented.
///
/// Other failures are ``RemoteAuth/TransportError``s. ``Configuration/connectTimeout`` bounds
/// connecting (name resolution included) and ``Configuration/timeout`` the whole request, every
/// phase: connecting, the TLS handshake, writing, waiting for the head, reading the body.
///
/// One connection per request (`Connection: close`), no pooling: made for the tool and for
/// calls where trust matters more than throughput. It does not follow redirects;
/// ``RemoteAuth/AuthenticatingClient`` does.
public struct NIOHTTP1Transport: HTTPTransport {
    public struct Configuration: Sendable {
        /// The trust policy per host (default: the system's roots, host name checked).
        public var trust: ServerTrust
        /// The client certificate presented when a server asks for one (mutual TLS).
        public var clientIdentity: ClientIdentity?
        /// The limit on connecting (resolving the name and the TCP connection; the TLS handshake
        /// counts against ``timeout``), cut to what is left of ``timeout``.
        public var connectTimeout: TimeAmount
        /// The deadline for one request, from connecting to the last body byte: when it passes,
        /// the channel is closed, whatever phase the request is in, and the request fails with
        /// ``RemoteAuth/TransportError/Code/timedOut``.
        public var timeout: TimeAmount
        /// The largest response body read; a larger one fails the request.
        public var maximumResponseBytes: Int

        public init(
            trust: ServerTrust = ServerTrust(),
            clientIdentity: ClientIdentity? = nil,
            connectTimeout: TimeAmount = .seconds(10),
            timeout: TimeAmount = .seconds(30),
            maximumResponseBytes: Int = 16 << 20
        ) {
            self.trust = trust
            self.clientIdentity = clientIdentity
            self.connectTimeout = connectTimeout
            self.timeout = timeout
            self.maximumResponseBytes = maximumResponseBytes
        }
    }

    public let configuration: Configuration
    let group: any EventLoopGroup
    let tlsContext: NIOSSLContext

    /// - Throws: ``RemoteAuth/TrustError`` when the client identity does not parse.
    public init(
        configuration: Configuration = Configuration(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) throws {
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
    }

    public func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        let origin = try AuthScope(origin: request)
        let deadline = NIODeadline.now() + configuration.timeout
        do {
            return try await exchange(request, body: body, origin: origin, deadline: deadline)
        } catch let error as TransportError where error.code == .closedBeforeWriting {
            // Not one byte of the request left: trying once more on a new connection cannot
            // send anything twice. (Seen about once in 300 mutual-TLS requests here: the channel
            // closed cleanly between the handshake and the first write.) The deadline is the same.
            return try await exchange(request, body: body, origin: origin, deadline: deadline)
        }
    }

    /// Where an exchange is, for the message of a timeout.
    enum Phase: String, Sendable {
        case handshake = "during the TLS handshake"
        case writing = "while writing the request"
        case head = "waiting for the response head"
        case body = "reading the response body"
    }

    /// One connection, one request. Every phase after connecting (which `connectTimeout`, cut to
    /// what is left before the deadline, bounds) ends at `deadline`: a task scheduled on the
    /// channel's event loop closes the channel then, which fails the handshake wait, the writes
    /// and the reads alike; cancelling the calling task closes it too.
    private func exchange(
        _ request: HTTPRequest,
        body: [UInt8]?,
        origin: AuthScope,
        deadline: NIODeadline
    ) async throws -> (HTTPResponse, [UInt8]) {
        let timeout = configuration.timeout
        let remaining = deadline - .now()
        guard remaining > .zero else {
            throw TransportError(.timedOut, "no complete response from \(origin) within \(timeout)")
        }
        let rejection = NIOLockedValueBox<TrustRejection?>(nil)
        let policy = configuration.trust.policy(for: origin.host)
        let tlsContext = origin.scheme == "https" ? self.tlsContext : nil
        let host = origin.host
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        let handshake: EventLoopFuture<Void>
        let connectTimeout = min(configuration.connectTimeout, remaining)
        do {
            (channel, handshake) = try await ClientBootstrap(group: group)
                .connectTimeout(connectTimeout)
                .connect(host: host, port: origin.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let handshake = channel.eventLoop.makePromise(of: Void.self)
                        if let tlsContext {
                            let tlsHandler = try NIOSSLClientHandler(
                                context: tlsContext,
                                // SNI carries DNS names only (RFC 6066 §3).
                                serverHostname: TrustValidation.isIPAddress(host) ? nil : host,
                                customVerificationCallbackWithMetadata: { certificates, promise in
                                    Self.verify(
                                        certificates,
                                        host: host,
                                        policy: policy,
                                        rejection: rejection,
                                        promise: promise
                                    )
                                }
                            )
                            try channel.pipeline.syncOperations.addHandler(tlsHandler)
                            try channel.pipeline.syncOperations.addHandler(HandshakeWaiter(promise: handshake))
                        } else {
                            handshake.succeed()
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        let wrapped = try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                            wrappingChannelSynchronously: channel
                        )
                        return (wrapped, handshake.futureResult)
                    }
                }
        } catch {
            throw TransportError(nio: error, origin: origin.description, fallback: .connectFailed)
        }

        let phase = NIOLockedValueBox(Phase.handshake)
        let timedOut = NIOLockedValueBox(false)
        let raw = channel.channel
        let timer = raw.eventLoop.scheduleTask(deadline: deadline) {
            timedOut.withLockedValue { $0 = true }
            raw.close(promise: nil)
        }
        defer { timer.cancel() }
        do {
            return try await withTaskCancellationHandler {
                // Nothing is written before the server is trusted: the request waits for the end
                // of the handshake.
                do {
                    try await handshake.get()
                } catch {
                    try? await raw.close()
                    throw error
                }
                phase.withLockedValue { $0 = .writing }
                return try await channel.executeThenClose { inbound, outbound in
                    try await Self.roundTrip(
                        request,
                        body: body,
                        origin: origin,
                        inbound: inbound,
                        outbound: outbound,
                        maximumResponseBytes: configuration.maximumResponseBytes,
                        phase: phase
                    )
                }
            } onCancel: {
                raw.close(promise: nil)
            }
        } catch {
            if timedOut.withLockedValue({ $0 }) {
                throw TransportError(
                    .timedOut,
                    "no complete response from \(origin) within \(timeout) (timed out \(phase.withLockedValue { $0 }.rawValue))",
                    underlying: error
                )
            }
            if let rejected = rejection.withLockedValue({ $0 }) { throw rejected }
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            throw TransportError(
                nio: error,
                origin: origin.description,
                fallback: phase.withLockedValue { $0 } == .handshake ? .tlsHandshakeFailed : .connectionClosed
            )
        }
    }

    private static func roundTrip(
        _ request: HTTPRequest,
        body: [UInt8]?,
        origin: AuthScope,
        inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>,
        outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>,
        maximumResponseBytes: Int,
        phase: NIOLockedValueBox<Phase>
    ) async throws -> (HTTPResponse, [UInt8]) {
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
        head.headers.add(name: "Connection", value: "close")
        if let body {
            head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
        } else if request.method == .post || request.method == .put || request.method == .patch {
            head.headers.replaceOrAdd(name: "Content-Length", value: "0")
        }
        do {
            try await outbound.write(.head(head))
            if let body, !body.isEmpty { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
            try await outbound.write(.end(nil))
        } catch let writeError {
            // The channel closed under the write: the reason, such as a TLS 1.3 server's alert
            // refusing a missing client certificate, arrives on the inbound side.
            do {
                for try await _ in inbound {}
            } catch let reason {
                throw TransportError(nio: reason, origin: origin.description, fallback: .connectionClosed)
            }
            throw TransportError(
                .closedBeforeWriting,
                "\(origin) closed the connection before the request was written",
                underlying: writeError
            )
        }

        phase.withLockedValue { $0 = .head }
        var responseHead: HTTPResponseHead?
        var responseBody: [UInt8] = []
        loop: for try await part in inbound {
            switch part {
            case .head(let received):
                // 1xx answers are interim (RFC 9110 §15.2); the final one follows.
                if received.status.code >= 100, received.status.code < 200 { continue }
                responseHead = received
                phase.withLockedValue { $0 = .body }
            case .body(var buffer):
                guard responseBody.count + buffer.readableBytes <= maximumResponseBytes else {
                    throw TransportError(
                        .responseTooLarge,
                        "the response body from \(origin) is larger than \(maximumResponseBytes) bytes"
                    )
                }
                responseBody += buffer.readBytes(length: buffer.readableBytes) ?? []
            case .end:
                if responseHead != nil { break loop }
            }
        }
        guard let responseHead else {
            throw TransportError(.connectionClosed, "\(origin) closed the connection without a complete response")
        }
        let fields = try HTTPFields(responseHead.headers)
        let status = HTTPResponse.Status(
            code: Int(responseHead.status.code),
            reasonPhrase: responseHead.status.reasonPhrase
        )
        return (HTTPResponse(status: status, headerFields: fields), responseBody)
    }

    /// NIOSSL's verification callback: parses the presented chain, asks the policy, and
    /// completes the handshake only if it trusts the server.
    private static func verify(
        _ certificates: [NIOSSLCertificate],
        host: String,
        policy: any TrustPolicy,
        rejection: NIOLockedValueBox<TrustRejection?>,
        promise: EventLoopPromise<NIOSSLVerificationResultWithMetadata>
    ) {
        let parsed: [Certificate]
        do {
            parsed = try certificates.map { try Certificate(derEncoded: try $0.toDERBytes()) }
        } catch {
            rejection.withLockedValue {
                $0 = TrustRejection(
                    .untrustedChain,
                    host: host,
                    seenPins: [],
                    reason: "a certificate the server presented does not parse: \(error)"
                )
            }
            promise.succeed(.failed)
            return
        }
        let context = TrustContext(systemRoots: .systemTrustRoots)
        promise.completeWithTask {
            switch await policy.evaluate(chain: parsed, host: host, context: context) {
            case .trusted(let validated):
                let byDER = Dictionary(
                    zip(parsed, certificates),
                    uniquingKeysWith: { first, _ in first }
                )
                let chain = try validated.map { certificate in
                    try byDER[certificate] ?? NIOSSLCertificate(certificate)
                }
                return .certificateVerified(
                    VerificationMetadata(chain.isEmpty ? nil : ValidatedCertificateChain(chain))
                )
            case .rejected(let reason):
                rejection.withLockedValue { $0 = reason }
                return .failed
            }
        }
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
