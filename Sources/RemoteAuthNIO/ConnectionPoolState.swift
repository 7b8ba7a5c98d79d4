/// The bookkeeping of ``NIOHTTP1Transport``'s keep-alive pool as a value: which connections to
/// each key (an origin) are idle, how many are open or being opened, and which requests wait for
/// one. It takes events (a request wants a connection, a request is done with one, an idle
/// connection closed) and answers with what to do; the ``ConnectionPool`` around it holds the
/// channels and the waiting tasks and carries the actions out. No sockets, no clock.
///
/// Invariants, per key: `count` (connecting, leased and idle connections) never exceeds
/// `maximumPerKey`; requests wait only while `count` is at the bound and nothing is idle.
struct ConnectionPoolState<Key: Hashable & Sendable>: Sendable {
    typealias ConnectionID = Int
    typealias WaiterID = Int

    struct Connections: Sendable {
        /// Idle, the most recently used last (reused first: the likeliest to be still open).
        var idle: [ConnectionID] = []
        /// Connections counted against the bound: being opened, in use, or idle.
        var count = 0
        /// Requests waiting for a connection, in arrival order.
        var waiters: [WaiterID] = []
    }

    /// What a request that wants a connection does.
    enum Lease: Equatable, Sendable {
        /// Sends on this idle connection.
        case reuse(ConnectionID)
        /// Opens a connection of its own (a slot under the bound is reserved for it).
        case connect
        /// Waits for ``Release/handOver(_:to:)`` or ``Release/close(_:thenConnect:)``.
        case wait
        /// The pool is shut down.
        case shutDown
    }

    /// What becomes of a connection a request is done with.
    enum Release: Equatable, Sendable {
        /// Kept open, idle.
        case park(ConnectionID)
        /// Given to a waiting request as it is.
        case handOver(ConnectionID, to: WaiterID)
        /// Closed; its slot goes to the waiting request, if any, which then connects.
        case close(ConnectionID, thenConnect: WaiterID?)
    }

    let maximumPerKey: Int
    private(set) var keys: [Key: Connections] = [:]
    private(set) var isShutDown = false

    init(maximumPerKey: Int) {
        precondition(maximumPerKey > 0, "at least one connection per origin")
        self.maximumPerKey = maximumPerKey
    }

    /// A request wants a connection to `key`; `waiter` names it should it have to wait.
    mutating func lease(_ key: Key, waiter: WaiterID) -> Lease {
        guard !isShutDown else { return .shutDown }
        var connections = keys[key, default: Connections()]
        defer { keys[key] = connections }
        if let idle = connections.idle.popLast() { return .reuse(idle) }
        if connections.count < maximumPerKey {
            connections.count += 1
            return .connect
        }
        connections.waiters.append(waiter)
        return .wait
    }

    /// A request is done with `connection` (leased or just opened); `reusable` when the exchange
    /// ended cleanly and both sides keep the connection alive.
    mutating func release(_ connection: ConnectionID, of key: Key, reusable: Bool) -> Release {
        var connections = keys[key, default: Connections()]
        defer { store(connections, for: key) }
        if reusable, !isShutDown {
            if !connections.waiters.isEmpty { return .handOver(connection, to: connections.waiters.removeFirst()) }
            connections.idle.append(connection)
            return .park(connection)
        }
        connections.count -= 1
        return .close(connection, thenConnect: takeSlot(&connections))
    }

    /// Opening a connection for `key` failed: its slot is free again. Returns the waiting request
    /// that now connects, if any.
    mutating func connectFailed(_ key: Key) -> WaiterID? {
        var connections = keys[key, default: Connections()]
        defer { store(connections, for: key) }
        connections.count -= 1
        return takeSlot(&connections)
    }

    /// `connection` closed (the server closed it, or it stayed idle too long). Only an idle
    /// connection leaves here: a leased one leaves when its request releases it. Returns whether
    /// it was idle, and the waiting request that now connects, if any.
    mutating func closed(_ connection: ConnectionID, of key: Key) -> (wasIdle: Bool, thenConnect: WaiterID?) {
        guard var connections = keys[key], let index = connections.idle.firstIndex(of: connection) else {
            return (false, nil)
        }
        defer { store(connections, for: key) }
        connections.idle.remove(at: index)
        connections.count -= 1
        return (true, takeSlot(&connections))
    }

    /// A waiting request gives up (its deadline passed, or it was cancelled). Returns whether it
    /// was still waiting; if not, it has been handed a connection or a slot already.
    mutating func abandon(_ waiter: WaiterID, of key: Key) -> Bool {
        guard var connections = keys[key], let index = connections.waiters.firstIndex(of: waiter) else {
            return false
        }
        connections.waiters.remove(at: index)
        keys[key] = connections
        return true
    }

    /// No more leases: returns the idle connections to close and the requests that wait, to fail.
    /// Leased connections close when they are released.
    mutating func shutDown() -> (idle: [ConnectionID], waiters: [WaiterID]) {
        isShutDown = true
        var idle: [ConnectionID] = []
        var waiters: [WaiterID] = []
        for (key, var connections) in keys {
            idle += connections.idle
            waiters += connections.waiters
            connections.count -= connections.idle.count
            connections.idle = []
            connections.waiters = []
            store(connections, for: key)
        }
        return (idle, waiters)
    }

    /// Gives a free slot to the first waiting request, if any.
    private func takeSlot(_ connections: inout Connections) -> WaiterID? {
        guard !connections.waiters.isEmpty, connections.count < maximumPerKey else { return nil }
        connections.count += 1
        return connections.waiters.removeFirst()
    }

    /// Keeps the entry while it holds anything; forgets the key otherwise.
    private mutating func store(_ connections: Connections, for key: Key) {
        if connections.count == 0, connections.waiters.isEmpty {
            keys[key] = nil
        } else {
            keys[key] = connections
        }
    }
}
