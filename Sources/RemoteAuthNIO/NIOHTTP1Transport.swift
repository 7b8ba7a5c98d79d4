public import HTTPTypes
import NIOConcurrencyHelpers
public import NIOCore
import NIOHTTP1
public import NIOPosix
import NIOSSL
import NIOTLS
public import RemoteAuth
import SwiftASN1
import X509

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An ``RemoteAuth/HTTPTransport`` on SwiftNIO's HTTP/1.1 codec that owns its TLS handshake,
/// so that a ``RemoteAuth/TrustPolicy`` (SPKI pins, a pinned certificate, a CA bundle) decides
/// about the server's certificates from inside the handshake, before any byte of the request,
/// `Authorization` included, is written. A rejected server gives a ``RemoteAuth/TrustRejection``
/// naming the host and the keys it presented.
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
        public var connectTimeout: TimeAmount
        /// The deadline for one request, from connecting to the last body byte.
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

    /// A failure below HTTP: connecting, TLS (other than trust, which is a
    /// ``RemoteAuth/TrustRejection``), a malformed response, a timeout.
    public struct TransportError: Error, Hashable, CustomStringConvertible {
        public let reason: String
        public init(reason: String) { self.reason = reason }
        public var description: String { "NIOHTTP1Transport: \(reason)" }
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
        let timeout = configuration.timeout
        return try await withThrowingTaskGroup(of: (HTTPResponse, [UInt8]).self) { group in
            group.addTask {
                do {
                    return try await exchange(request, body: body, origin: origin)
                } catch let closed as ClosedBeforeWriting {
                    // Not one byte of the request left: trying once more on a new connection
                    // cannot send anything twice. (Seen about once in 300 mutual-TLS requests
                    // here: the channel closed cleanly between the handshake and the first write.)
                    do {
                        return try await exchange(request, body: body, origin: origin)
                    } catch is ClosedBeforeWriting {
                        throw TransportError(reason: closed.reason)
                    }
                }
            }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(timeout.nanoseconds))
                throw TransportError(reason: "no complete response from \(origin) within \(timeout)")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    private func exchange(
        _ request: HTTPRequest,
        body: [UInt8]?,
        origin: AuthScope
    ) async throws -> (HTTPResponse, [UInt8]) {
        let rejection = NIOLockedValueBox<TrustRejection?>(nil)
        let policy = configuration.trust.policy(for: origin.host)
        let tlsContext = origin.scheme == "https" ? self.tlsContext : nil
        let host = origin.host
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        let handshake: EventLoopFuture<Void>
        do {
            (channel, handshake) = try await ClientBootstrap(group: group)
                .connectTimeout(configuration.connectTimeout)
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
            throw TransportError(reason: "cannot connect to \(origin): \(error)")
        }
        // Nothing is written before the server is trusted: the request waits for the end of the handshake.
        do {
            try await handshake.get()
        } catch {
            try? await channel.channel.close()
            if let rejected = rejection.withLockedValue({ $0 }) { throw rejected }
            throw TransportError(reason: "TLS handshake with \(origin) failed: \(error)")
        }

        do {
            return try await channel.executeThenClose { inbound, outbound in
                try await Self.roundTrip(
                    request,
                    body: body,
                    origin: origin,
                    inbound: inbound,
                    outbound: outbound,
                    maximumResponseBytes: configuration.maximumResponseBytes
                )
            }
        } catch let error as TransportError {
            throw error
        } catch let error as ClosedBeforeWriting {
            throw error
        } catch {
            throw TransportError(reason: "the exchange with \(origin) failed\(Self.hint(for: error)): \(error)")
        }
    }

    private static func roundTrip(
        _ request: HTTPRequest,
        body: [UInt8]?,
        origin: AuthScope,
        inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>,
        outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>,
        maximumResponseBytes: Int
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
                throw TransportError(reason: "\(origin) closed the connection\(Self.hint(for: reason)): \(reason)")
            }
            throw ClosedBeforeWriting(
                reason: "\(origin) closed the connection before the request was written: \(writeError)"
            )
        }

        var responseHead: HTTPResponseHead?
        var responseBody: [UInt8] = []
        loop: for try await part in inbound {
            switch part {
            case .head(let received):
                // 1xx answers are interim (RFC 9110 §15.2); the final one follows.
                if received.status.code >= 100, received.status.code < 200 { continue }
                responseHead = received
            case .body(var buffer):
                guard responseBody.count + buffer.readableBytes <= maximumResponseBytes else {
                    throw TransportError(
                        reason: "the response body from \(origin) is larger than \(maximumResponseBytes) bytes"
                    )
                }
                responseBody += buffer.readBytes(length: buffer.readableBytes) ?? []
            case .end:
                if responseHead != nil { break loop }
            }
        }
        guard let responseHead else {
            throw TransportError(reason: "\(origin) closed the connection without a complete response")
        }
        var fields = HTTPFields()
        fields.reserveCapacity(responseHead.headers.count)
        for header in responseHead.headers {
            guard let name = HTTPField.Name(header.name) else {
                throw TransportError(reason: "the response has an invalid field name '\(header.name)'")
            }
            fields.append(HTTPField(name: name, value: header.value))
        }
        let status = HTTPResponse.Status(
            code: Int(responseHead.status.code),
            reasonPhrase: responseHead.status.reasonPhrase
        )
        return (HTTPResponse(status: status, headerFields: fields), responseBody)
    }

    /// A plain-words reading of a TLS alert. A TLS 1.3 server checks the client's certificate
    /// after the client's side of the handshake has ended, so its refusal arrives while the
    /// request is written or its response read.
    static func hint(for error: any Error) -> String {
        let text = "\(error)"
        if text.contains("CERTIFICATE_REQUIRED") { return " (the server requires a client certificate)" }
        if text.contains("UNKNOWN_CA") || text.contains("BAD_CERTIFICATE") {
            return " (the server did not accept the client certificate)"
        }
        return ""
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
        let context = TrustContext(validationTime: Date(), systemRoots: .systemTrustRoots)
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

/// The connection closed, without an error, before any byte of the request was written.
struct ClosedBeforeWriting: Error {
    let reason: String
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
        complete(.failure(NIOHTTP1Transport.TransportError(reason: "the connection closed during the TLS handshake")))
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        complete(.failure(NIOHTTP1Transport.TransportError(reason: "the connection closed during the TLS handshake")))
    }
}
