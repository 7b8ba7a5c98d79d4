import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import RemoteAuth
import RemoteAuthNIOShared
import SwiftASN1
import X509

extension NIOHTTP1Transport {
    /// Opens a connection for `key` and, over TLS, waits for the handshake, in which the trust
    /// policy decides: nothing is written to a server it does not trust. The channel is closed
    /// at `deadline` or when the calling task is cancelled.
    func connect(
        _ origin: AuthScope,
        key: ConnectionPool.Key,
        deadline: NIODeadline
    ) async throws
        -> PooledConnection
    {
        let remaining = deadline - .now()
        guard remaining > .zero else { throw timedOut(origin, nil) }
        // curl's --connect-timeout: connecting and the TLS handshake together.
        let connectTimeout = min(configuration.connectTimeout, remaining)
        let connectDeadline = NIODeadline.now() + connectTimeout
        let rejection = NIOLockedValueBox<TrustRejection?>(nil)
        let policy = configuration.trust.policy(for: origin.host)
        let tlsContext = origin.scheme == "https" ? self.tlsContext : nil
        let host = origin.host
        let description = origin.description
        let idleTimeout = configuration.idleTimeout
        let channel: any Channel
        let handler: NIOLoopBound<HTTPExchangeHandler>
        let handshake: EventLoopFuture<Void>
        do {
            (channel, handler, handshake) = try await ClientBootstrap(group: group)
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
                        let handler = HTTPExchangeHandler(origin: description, idleTimeout: idleTimeout)
                        try channel.pipeline.syncOperations.addHandler(handler)
                        return (channel, NIOLoopBound(handler, eventLoop: channel.eventLoop), handshake.futureResult)
                    }
                }
        } catch {
            throw TransportError(nio: error, origin: origin.description, fallback: .connectFailed)
        }

        let expired = NIOLockedValueBox(false)
        let timer = channel.eventLoop.scheduleTask(deadline: min(deadline, connectDeadline)) {
            expired.withLockedValue { $0 = true }
            channel.close(promise: nil)
        }
        defer { timer.cancel() }
        do {
            try await withTaskCancellationHandler {
                try await handshake.get()
            } onCancel: {
                channel.close(promise: nil)
            }
        } catch {
            try? await channel.close()
            if expired.withLockedValue({ $0 }) {
                guard connectDeadline < deadline else { throw timedOut(origin, .handshake, underlying: error) }
                throw TransportError(
                    .timedOut,
                    "connecting to \(origin) took longer than the connect timeout (\(connectTimeout)), TLS handshake included",
                    underlying: error
                )
            }
            if let rejected = rejection.withLockedValue({ $0 }) { throw rejected }
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            throw TransportError(nio: error, origin: origin.description, fallback: .tlsHandshakeFailed)
        }
        return pool.add(channel: channel, handler: handler, key: key)
    }

    /// NIOSSL's verification callback: parses the presented chain, asks the policy, and
    /// completes the handshake only if it trusts the server.
    static func verify(
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
