import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import RemoteAuth
import RemoteAuthSandbox
import Testing

@testable import RemoteAuthNIO

/// Counts from the server's side: connections accepted, so TLS handshakes.
final class ConnectionCounter: Sendable {
    private let box = NIOLockedValueBox(0)
    var count: Int { box.withLockedValue { $0 } }
    func increment() { box.withLockedValue { $0 += 1 } }
}

/// A TLS sandbox as ``withTLSSandbox(serving:pki:clientCA:arrivals:_:)`` runs it, counting the
/// connections it accepts.
func withCountingTLSSandbox<T: Sendable>(
    serving leaf: TestPKI.Issued,
    pki: TestPKI,
    clientCA: String? = nil,
    arrivals: Arrivals,
    connections: ConnectionCounter,
    _ body: @Sendable (RunningSandbox) async throws -> T
) async throws -> T {
    var configuration = SandboxConfiguration.demo()
    configuration.tls = .init(
        certificateChainPEM: leaf.pem + pki.ca.pem,
        privateKeyPEM: leaf.keyPEM,
        clientCAPEM: clientCA
    )
    configuration.onRequest = arrivals.observe
    configuration.onConnection = connections.increment
    return try await Sandbox.withSandbox(configuration, body)
}

/// Connection reuse in ``NIOHTTP1Transport``, over real TLS, counted on the server's side: a
/// pinned client pays one handshake for many requests, and reuse weakens none of the pinning.
@Suite(.timeLimit(.minutes(5))) struct PinnedConnectionReuseTests {
    let alice = #"{"authenticated": true, "user": "alice"}"#

    static func pinned(_ leaf: TestPKI.Issued, _ pki: TestPKI) throws -> PublicKeyPinningPolicy {
        let backup = SPKIPin(certificate: try pki.issue().certificate)
        return try PublicKeyPinningPolicy(pins: [leaf.pin, backup], roots: .certificates([pki.ca.certificate]))
    }

    static func transport(
        _ policy: any TrustPolicy,
        identity: ClientIdentity? = nil,
        idleTimeout: TimeAmount = .seconds(60),
        maximumConnectionsPerOrigin: Int = 8,
        maximumResponseBytes: Int = 1 << 20,
        timeout: TimeAmount = TestTime.hangGuardAmount
    ) throws -> NIOHTTP1Transport {
        try NIOHTTP1Transport(
            configuration: .init(
                trust: ServerTrust(default: policy),
                clientIdentity: identity,
                // These tests count connections, not how fast one is made: on a loaded machine
                // a handshake has taken over the default 10 s, so only the request's deadline
                // bounds it here (the connect timeout has tests of its own).
                connectTimeout: timeout,
                timeout: timeout,
                maximumResponseBytes: maximumResponseBytes,
                idleTimeout: idleTimeout,
                maximumConnectionsPerOrigin: maximumConnectionsPerOrigin
            )
        )
    }

    @Test func hundredPinnedRequestsCostOneHandshake() async throws {
        let pki = try TestPKI()
        let leaf = try pki.issue()
        let arrivals = Arrivals()
        let connections = ConnectionCounter()
        try await withCountingTLSSandbox(serving: leaf, pki: pki, arrivals: arrivals, connections: connections) {
            sandbox in
            let transport = try Self.transport(try Self.pinned(leaf, pki))
            for _ in 0..<100 {
                let (response, body) = try await getBasic(sandbox.baseURL, over: transport)
                #expect(response.status == .ok)
                #expect(String(decoding: body, as: UTF8.self) == alice)
            }
            #expect(arrivals.requests.count == 100)
            #expect(connections.count == 1)
            await transport.shutdown()
            // Shut down, it refuses to send.
            let error = await #expect(throws: TransportError.self) {
                _ = try await getBasic(sandbox.baseURL, over: transport)
            }
            #expect(error?.code == .connectFailed)
            #expect(arrivals.requests.count == 100)
            #expect(connections.count == 1)
        }
    }

    @Test func wrongPinStillSendsNothing() async throws {
        let pki = try TestPKI()
        let leaf = try pki.issue()
        let arrivals = Arrivals()
        let connections = ConnectionCounter()
        try await withCountingTLSSandbox(serving: leaf, pki: pki, arrivals: arrivals, connections: connections) {
            sandbox in
            let right = try Self.transport(try Self.pinned(leaf, pki))
            _ = try await getBasic(sandbox.baseURL, over: right)
            _ = try await getBasic(sandbox.baseURL, over: right)
            #expect(arrivals.requests.count == 2)
            #expect(connections.count == 1)
            // A wrong pin, while a trusted connection to the same origin is open and idle: each
            // request makes its own handshake and is refused in it; nothing is sent.
            let wrong = try Self.transport(
                try PublicKeyPinningPolicy(
                    pins: [
                        SPKIPin(certificate: try pki.issue().certificate),
                        SPKIPin(certificate: try pki.issue().certificate),
                    ],
                    roots: .certificates([pki.ca.certificate])
                )
            )
            for attempt in 1...2 {
                let refused = await rejection { _ = try await getBasic(sandbox.baseURL, over: wrong) }
                #expect(refused?.code == .pinMismatch)
                #expect(refused?.seenPins == [leaf.pin, pki.ca.pin])
                #expect(arrivals.requests.count == 2)
                #expect(connections.count == 1 + attempt)
            }
            // The trusted one is still there, reused.
            let (response, _) = try await getBasic(sandbox.baseURL, over: right)
            #expect(response.status == .ok)
            #expect(arrivals.requests.count == 3)
            #expect(connections.count == 3)
        }
    }

    @Test func eachPolicyAndIdentityGetsItsOwnConnection() async throws {
        let pki = try TestPKI()
        let clients = try TestPKI(name: "RemoteAuth Test Client CA")
        let leaf = try pki.issue()
        let aliceCertificate = try clients.issue("alice", dnsNames: [], ipv4: [], client: true)
        let bobCertificate = try clients.issue("bob", dnsNames: [], ipv4: [], client: true)
        let aliceIdentity = ClientIdentity(
            certificateChainPEM: aliceCertificate.pem,
            privateKeyPEM: aliceCertificate.keyPEM
        )
        let bobIdentity = ClientIdentity(certificateChainPEM: bobCertificate.pem, privateKeyPEM: bobCertificate.keyPEM)
        let arrivals = Arrivals()
        let connections = ConnectionCounter()
        try await withCountingTLSSandbox(
            serving: leaf,
            pki: pki,
            clientCA: clients.ca.pem,
            arrivals: arrivals,
            connections: connections
        ) { sandbox in
            let roots = TrustRoots.certificates([pki.ca.certificate])
            let transports = [
                try Self.transport(DefaultTrustPolicy(roots: roots), identity: aliceIdentity),
                // A second policy, same identity.
                try Self.transport(try Self.pinned(leaf, pki), identity: aliceIdentity),
                // The first policy, a second identity.
                try Self.transport(DefaultTrustPolicy(roots: roots), identity: bobIdentity),
            ]
            for round in 1...3 {
                for transport in transports {
                    let (response, _) = try await getBasic(sandbox.baseURL, over: transport)
                    #expect(response.status == .ok)
                }
                #expect(connections.count == 3, "round \(round)")
            }
            #expect(arrivals.requests.count == 9)

            // One transport, two hosts, each with its own policy: a connection each.
            var trust = ServerTrust(default: DefaultTrustPolicy(roots: roots))
            trust.setPolicy(try Self.pinned(leaf, pki), for: "localhost")
            let perHost = try NIOHTTP1Transport(
                configuration: .init(
                    trust: trust, clientIdentity: aliceIdentity,
                    connectTimeout: TestTime.hangGuardAmount, timeout: TestTime.hangGuardAmount
                )
            )
            for _ in 1...2 {
                for base in [sandbox.baseURL, "https://localhost:\(sandbox.port)"] {
                    let (response, _) = try await getBasic(base, over: perHost)
                    #expect(response.status == .ok)
                }
            }
            #expect(connections.count == 5)
            #expect(arrivals.requests.count == 13)
        }
    }

    @Test func requestAskingToCloseEndsTheConnection() async throws {
        let pki = try TestPKI()
        let leaf = try pki.issue()
        let arrivals = Arrivals()
        let connections = ConnectionCounter()
        try await withCountingTLSSandbox(serving: leaf, pki: pki, arrivals: arrivals, connections: connections) {
            sandbox in
            let transport = try Self.transport(try Self.pinned(leaf, pki))
            _ = try await getBasic(sandbox.baseURL, over: transport)
            var closing = try HTTPRequest(method: .get, absoluteURL: sandbox.baseURL + "/basic/")
            closing.headerFields[.authorization] = try BasicCredentials(user: "alice", password: "wonderland")
                .authorization
            closing.headerFields[.connection] = "close"
            let (response, _) = try await transport.send(closing, body: nil)
            #expect(response.status == .ok)
            #expect(connections.count == 1)
            _ = try await getBasic(sandbox.baseURL, over: transport)
            #expect(connections.count == 2)
            #expect(arrivals.requests.count == 3)
        }
    }

    @Test func responsesThatEndTheConnection() async throws {
        let pki = try TestPKI()
        let leaf = try pki.issue()
        try await ScriptedServer.with(serving: leaf, pki: pki) { server in
            let transport = try Self.transport(try Self.pinned(leaf, pki), maximumResponseBytes: 50)
            func get(_ path: String) async throws -> (HTTPResponse, [UInt8]) {
                try await transport.send(try HTTPRequest(method: .get, absoluteURL: server.baseURL + path), body: nil)
            }
            #expect(try await get("/").1 == Array("ok".utf8))
            #expect(try await get("/").1 == Array("ok".utf8))
            #expect(server.connections.count == 1)
            // The server says `Connection: close` (and leaves the connection open): not reused.
            let (closing, _) = try await get("/close")
            #expect(closing.headerFields[.connection] == "close")
            #expect(server.connections.count == 1)
            _ = try await get("/")
            #expect(server.connections.count == 2)
            // An HTTP/1.0 answer without keep-alive: not reused.
            _ = try await get("/http10")
            #expect(server.connections.count == 2)
            _ = try await get("/")
            #expect(server.connections.count == 3)
            // An HTTP/1.0 answer with `Connection: keep-alive` is.
            _ = try await get("/http10-keep-alive")
            _ = try await get("/")
            #expect(server.connections.count == 3)
            // A body over the limit is not read to its end: the connection goes with the error.
            let error = await #expect(throws: TransportError.self) { _ = try await get("/big") }
            #expect(error?.code == .responseTooLarge)
            _ = try await get("/")
            #expect(server.connections.count == 4)
            // The server closes an idle connection: the next request opens another.
            _ = try await get("/close-after")
            try await server.waitForClosedConnections(4)
            _ = try await get("/")
            #expect(server.connections.count == 5)
            #expect(server.requests == 12)
        }
    }

    @Test func idleConnectionsCloseAfterTheIdleTimeout() async throws {
        let pki = try TestPKI()
        let leaf = try pki.issue()
        let arrivals = Arrivals()
        let connections = ConnectionCounter()
        try await withCountingTLSSandbox(serving: leaf, pki: pki, arrivals: arrivals, connections: connections) {
            sandbox in
            // Within the idle timeout the connection is reused. The timeout is long here so that
            // a loaded machine's pause between the two calls cannot close it.
            let reusing = try Self.transport(try Self.pinned(leaf, pki), idleTimeout: .seconds(300))
            _ = try await getBasic(sandbox.baseURL, over: reusing)
            _ = try await getBasic(sandbox.baseURL, over: reusing)
            #expect(connections.count == 1)
            // The timer closes the idle connection and the pool forgets it, no sooner than the
            // timeout; the next request opens another.
            let transport = try Self.transport(try Self.pinned(leaf, pki), idleTimeout: .seconds(2))
            _ = try await getBasic(sandbox.baseURL, over: transport)
            let parked = ContinuousClock.now
            #expect(connections.count == 2)
            let key = ConnectionPool.Key(scheme: "https", host: "127.0.0.1", port: sandbox.port)
            // Bounded by the suite's time limit, not by a guess at the machine's speed.
            while transport.poolState.keys[key] != nil {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(ContinuousClock.now - parked > .milliseconds(1500))
            _ = try await getBasic(sandbox.baseURL, over: transport)
            #expect(connections.count == 3)
            // Reuse off: a connection per request, each with `Connection: close`.
            let single = try Self.transport(try Self.pinned(leaf, pki), idleTimeout: .zero)
            _ = try await getBasic(sandbox.baseURL, over: single)
            _ = try await getBasic(sandbox.baseURL, over: single)
            #expect(connections.count == 5)
            #expect(arrivals.requests.count == 6)
        }
    }

    @Test func theBoundPerOriginHoldsUnderConcurrentRequests() async throws {
        let pki = try TestPKI()
        let leaf = try pki.issue()
        let arrivals = Arrivals()
        let connections = ConnectionCounter()
        try await withCountingTLSSandbox(serving: leaf, pki: pki, arrivals: arrivals, connections: connections) {
            sandbox in
            // The last of 30 requests waits for 9 before it on its connection: the deadline is the
            // hang guard, since this tells the bound held from the bound broken, not times.
            let transport = try Self.transport(
                try Self.pinned(leaf, pki),
                maximumConnectionsPerOrigin: 3,
                timeout: TestTime.hangGuardAmount
            )
            try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<30 {
                    group.addTask { try await getBasic(sandbox.baseURL, over: transport).0.status }
                }
                for try await status in group { #expect(status == .ok) }
            }
            #expect(arrivals.requests.count == 30)
            #expect(connections.count == 3)
            let key = ConnectionPool.Key(scheme: "https", host: "127.0.0.1", port: sandbox.port)
            #expect(transport.poolState.keys[key]?.count == 3)
            #expect(transport.poolState.keys[key]?.idle.count == 3)
        }
    }
}

/// The pool without sockets: its state machine, and a waiting request's deadline and
/// cancellation.
@Suite struct ConnectionPoolStateTests {
    @Test func leasesUpToTheBoundThenQueues() {
        var state = ConnectionPoolState<String>(maximumPerKey: 2)
        // Free functions over `state`: #expect cannot take a mutating call apart.
        func lease(_ key: String, _ waiter: Int) -> ConnectionPoolState<String>.Lease {
            state.lease(key, waiter: waiter)
        }
        func release(_ id: Int, _ key: String, reusable: Bool) -> ConnectionPoolState<String>.Release {
            state.release(id, of: key, reusable: reusable)
        }
        func abandon(_ waiter: Int, _ key: String) -> Bool { state.abandon(waiter, of: key) }
        func connectFailed(_ key: String) -> Int? { state.connectFailed(key) }
        #expect(lease("a", 1) == .connect)
        #expect(lease("a", 2) == .connect)
        #expect(lease("a", 3) == .wait)
        #expect(lease("b", 4) == .connect)  // another origin has its own bound
        #expect(release(10, "a", reusable: true) == .handOver(10, to: 3))
        #expect(release(10, "a", reusable: true) == .park(10))
        #expect(lease("a", 5) == .reuse(10))
        #expect(lease("a", 6) == .wait)
        #expect(abandon(6, "a"))
        #expect(!abandon(6, "a"))
        #expect(lease("a", 7) == .wait)
        // A connection that cannot be reused frees its slot: the waiter connects.
        #expect(release(10, "a", reusable: false) == .close(10, thenConnect: 7))
        #expect(connectFailed("a") == nil)
        #expect(state.keys["a"]?.count == 1)
        #expect(release(11, "a", reusable: true) == .park(11))
        let closed = state.closed(11, of: "a")
        #expect(closed.wasIdle && closed.thenConnect == nil)
        let again = state.closed(11, of: "a")
        #expect(!again.wasIdle && again.thenConnect == nil)
        #expect(state.keys["a"] == nil)
        #expect(release(12, "b", reusable: true) == .park(12))
        #expect(lease("b", 8) == .reuse(12))
        #expect(lease("b", 9) == .connect)
        #expect(lease("b", 13) == .wait)
        let shutDown = state.shutDown()
        #expect(shutDown.idle == [])
        #expect(shutDown.waiters == [13])
        #expect(lease("b", 14) == .shutDown)
        #expect(release(12, "b", reusable: true) == .close(12, thenConnect: nil))
    }

    @Test func aWaitingRequestEndsAtItsDeadlineOrWhenCancelled() async throws {
        let pool = ConnectionPool(maximumPerOrigin: 1)
        let key = ConnectionPool.Key(scheme: "https", host: "example.com", port: 443)
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        guard case .connect = try await pool.lease(key, deadline: .now() + .seconds(5), on: loop) else {
            Issue.record("the first lease should connect")
            return
        }
        let error = await #expect(throws: TransportError.self) {
            _ = try await pool.lease(key, deadline: .now() + .milliseconds(100), on: loop)
        }
        #expect(error?.code == .timedOut)
        let waiting = Task { try await pool.lease(key, deadline: .now() + .seconds(30), on: loop) }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        // A freed slot goes to the next waiter.
        let next = Task { try await pool.lease(key, deadline: .now() + .seconds(30), on: loop) }
        try await Task.sleep(for: .milliseconds(50))
        pool.connectFailed(key)
        guard case .connect = try await next.value else {
            Issue.record("the waiter should get the freed slot")
            return
        }
        _ = pool.shutDown()
        let refused = await #expect(throws: TransportError.self) {
            _ = try await pool.lease(key, deadline: .now() + .seconds(1), on: loop)
        }
        #expect(refused?.code == .connectFailed)
    }
}
