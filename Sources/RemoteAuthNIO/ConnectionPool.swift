import NIOConcurrencyHelpers
import NIOCore
import RemoteAuth

/// One open connection of the pool: its channel and the handler that runs exchanges on it.
struct PooledConnection: Sendable {
    let id: Int
    let key: ConnectionPool.Key
    let channel: any Channel
    let handler: NIOLoopBound<HTTPExchangeHandler>
}

/// The keep-alive connections of one ``NIOHTTP1Transport``: ``ConnectionPoolState`` behind a
/// lock, plus the channels and the continuations of waiting requests. (Each connection's
/// ``HTTPExchangeHandler`` closes it after its idle timeout; the pool hears of it as of any close.)
///
/// A pool belongs to one transport and never outlives its configuration: the trust policy and
/// the client identity are fixed when the transport is made, so every connection in the pool was
/// accepted by the policy the transport applies to its origin (per host: the key holds the host)
/// and presents the transport's identity. Two transports, even with equal configurations, share
/// nothing.
final class ConnectionPool: Sendable {
    /// An origin: the pool keeps connections apart by scheme, host and port.
    struct Key: Hashable, Sendable {
        let scheme: String
        let host: String
        let port: Int
    }

    /// What a request gets from ``lease(_:deadline:on:)``.
    enum Grant: Sendable {
        case reuse(PooledConnection)
        case connect
    }

    private enum Waiter {
        /// Queued by the state machine; the continuation is on its way.
        case pending
        case waiting(CheckedContinuation<Grant, any Error>)
        /// Settled before the continuation arrived.
        case settled(Result<Grant, any Error>)
    }

    private struct Entry {
        let connection: PooledConnection
        var isClosed = false
    }

    private struct Storage {
        var state: ConnectionPoolState<Key>
        var entries: [Int: Entry] = [:]
        var waiters: [Int: Waiter] = [:]
        var nextID = 0
    }

    /// A copy of the bookkeeping, for tests.
    var state: ConnectionPoolState<Key> { storage.withLockedValue { $0.state } }
    private let storage: NIOLockedValueBox<Storage>

    init(maximumPerOrigin: Int) {
        self.storage = NIOLockedValueBox(Storage(state: ConnectionPoolState(maximumPerKey: maximumPerOrigin)))
    }

    /// An idle connection to `key`, or leave to open one; waits while the origin has its
    /// maximum of connections in use, until `deadline` (then ``RemoteAuth/TransportError/Code/timedOut``).
    func lease(_ key: Key, deadline: NIODeadline, on eventLoop: any EventLoop) async throws -> Grant {
        while true {
            let (lease, waiter, connection) = storage.withLockedValue {
                storage -> (ConnectionPoolState<Key>.Lease, Int, PooledConnection?) in
                let waiter = storage.nextID
                storage.nextID += 1
                let lease = storage.state.lease(key, waiter: waiter)
                switch lease {
                case .reuse(let id):
                    return (lease, waiter, storage.entries[id]?.connection)
                case .wait:
                    storage.waiters[waiter] = .pending
                    return (lease, waiter, nil)
                case .connect, .shutDown:
                    return (lease, waiter, nil)
                }
            }
            switch lease {
            case .reuse:
                guard let connection, connection.channel.isActive else {
                    // Closed while idle, its close not yet seen here: drop it and ask again.
                    if let connection { release(connection, reusable: false) }
                    continue
                }
                return .reuse(connection)
            case .connect:
                return .connect
            case .shutDown:
                throw Self.shutDownError
            case .wait:
                return try await wait(waiter, for: key, deadline: deadline, on: eventLoop)
            }
        }
    }

    private func wait(
        _ waiter: Int,
        for key: Key,
        deadline: NIODeadline,
        on eventLoop: any EventLoop
    ) async throws
        -> Grant
    {
        let timer = eventLoop.scheduleTask(deadline: deadline) {
            self.abandon(
                waiter,
                of: key,
                with: TransportError(
                    .timedOut,
                    "no connection to \(key.scheme)://\(key.host):\(key.port) came free in time"
                )
            )
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let settled: Result<Grant, any Error>? = storage.withLockedValue { storage in
                    switch storage.waiters[waiter] {
                    case .settled(let result):
                        storage.waiters[waiter] = nil
                        return result
                    default:
                        storage.waiters[waiter] = .waiting(continuation)
                        return nil
                    }
                }
                if let settled { continuation.resume(with: settled) }
            }
        } onCancel: {
            self.abandon(waiter, of: key, with: CancellationError())
        }
    }

    /// Settles a waiting request: now if its continuation is there, or when it arrives.
    private func settle(_ waiter: Int, with result: Result<Grant, any Error>) {
        let continuation: CheckedContinuation<Grant, any Error>? = storage.withLockedValue { storage in
            switch storage.waiters[waiter] {
            case .waiting(let continuation):
                storage.waiters[waiter] = nil
                return continuation
            case .pending:
                storage.waiters[waiter] = .settled(result)
                return nil
            case .settled, nil:
                return nil
            }
        }
        continuation?.resume(with: result)
    }

    private func abandon(_ waiter: Int, of key: Key, with error: any Error) {
        let abandoned = storage.withLockedValue { $0.state.abandon(waiter, of: key) }
        if abandoned { settle(waiter, with: .failure(error)) }
    }

    /// A connection opened after a `.connect` grant joins the pool (leased to its opener).
    func add(channel: any Channel, handler: NIOLoopBound<HTTPExchangeHandler>, key: Key) -> PooledConnection {
        let connection = storage.withLockedValue { storage -> PooledConnection in
            let connection = PooledConnection(id: storage.nextID, key: key, channel: channel, handler: handler)
            storage.nextID += 1
            storage.entries[connection.id] = Entry(connection: connection)
            return connection
        }
        channel.closeFuture.whenComplete { _ in self.closed(connection) }
        return connection
    }

    /// Opening a connection after a `.connect` grant failed: its slot goes to the next waiter.
    func connectFailed(_ key: Key) {
        if let next = storage.withLockedValue({ $0.state.connectFailed(key) }) {
            settle(next, with: .success(.connect))
        }
    }

    /// A request is done with `connection`: kept (idle, or handed to a waiting request) when
    /// `reusable` and still open, closed otherwise.
    func release(_ connection: PooledConnection, reusable: Bool) {
        let release = storage.withLockedValue { storage -> ConnectionPoolState<Key>.Release in
            let isOpen = storage.entries[connection.id].map { !$0.isClosed } ?? false
            let release = storage.state.release(connection.id, of: connection.key, reusable: reusable && isOpen)
            if case .close(let id, _) = release { storage.entries[id] = nil }
            return release
        }
        switch release {
        case .park:
            break
        case .handOver(_, let waiter):
            settle(waiter, with: .success(.reuse(connection)))
        case .close(_, let next):
            connection.channel.close(promise: nil)
            if let next { settle(next, with: .success(.connect)) }
        }
    }

    /// The channel of `connection` closed, whoever closed it.
    private func closed(_ connection: PooledConnection) {
        let next = storage.withLockedValue { storage -> Int? in
            storage.entries[connection.id]?.isClosed = true
            let (wasIdle, next) = storage.state.closed(connection.id, of: connection.key)
            if wasIdle { storage.entries[connection.id] = nil }
            return next
        }
        if let next { settle(next, with: .success(.connect)) }
    }

    /// Closes the idle connections and fails the waiting requests; later requests fail at once,
    /// and connections in use close when their requests end. Returns when the idle ones closed.
    func shutDown() -> [EventLoopFuture<Void>] {
        let (channels, waiters) = storage.withLockedValue { storage -> ([any Channel], [Int]) in
            let (idle, waiters) = storage.state.shutDown()
            let channels = idle.compactMap { storage.entries.removeValue(forKey: $0)?.connection.channel }
            return (channels, waiters)
        }
        for waiter in waiters { settle(waiter, with: .failure(Self.shutDownError)) }
        return channels.map { $0.close() }
    }

    static var shutDownError: TransportError {
        TransportError(.connectFailed, "the transport is shut down")
    }
}
