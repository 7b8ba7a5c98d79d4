import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection to a D-Bus bus, made on NIO's event loops, so no call blocks a thread of
/// Swift's cooperative pool: the socket, [SASL `AUTH EXTERNAL`](https://dbus.freedesktop.org/doc/dbus-specification.html#auth-mechanisms-external)
/// with this process's user id, `BEGIN`, then [`Hello`](https://dbus.freedesktop.org/doc/dbus-specification.html#bus-messages-hello)
/// (which gives the unique name); then method calls, each with a deadline, their replies matched
/// by serial. Messages longer than ``maximumMessageLength`` close the connection with
/// ``DBusError/Code-swift.struct/messageTooLarge``; signals and calls addressed to this client are
/// dropped (it exports no object).
final class DBusConnection: Sendable {
    private let channel: any Channel
    /// The name the bus gave this connection (`:1.42`).
    let uniqueName: String
    /// The longest message read (1 MiB by default: the Secret Service's replies to this client are
    /// small).
    let maximumMessageLength: Int

    private init(channel: any Channel, uniqueName: String, maximumMessageLength: Int) {
        self.channel = channel
        self.uniqueName = uniqueName
        self.maximumMessageLength = maximumMessageLength
    }

    /// Connects to the first address of `address` (a D-Bus address string) that answers, and
    /// authenticates, within `timeout`.
    ///
    /// - Throws: ``DBusError``: `.noBus`, `.unsupportedAddress`, `.connectFailed`,
    ///   `.authenticationRejected`, `.timeout`, `.malformedMessage`.
    static func connect(
        address: String,
        timeout: Duration = .seconds(5),
        maximumMessageLength: Int = 1 << 20
    ) async throws -> DBusConnection {
        var failure = DBusError(.noBus, "no session bus")
        for endpoint in try DBusAddress.parse(address) {
            do {
                return try await connect(to: endpoint, timeout: timeout, maximumMessageLength: maximumMessageLength)
            } catch let error as DBusError where error.code == .connectFailed {
                failure = error
            }
        }
        throw failure
    }

    private static func connect(
        to endpoint: DBusAddress,
        timeout: Duration,
        maximumMessageLength: Int
    ) async throws -> DBusConnection {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let authenticated = loop.makePromise(of: String.self)
        let amount = TimeAmount(timeout)
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(amount)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        DBusChannelHandler(
                            userID: geteuid(),
                            maximumMessageLength: maximumMessageLength,
                            authenticated: authenticated,
                            authenticationTimeout: amount
                        )
                    )
                }
            }
        let channel: any Channel
        do {
            switch endpoint {
            case .path(let path):
                channel = try await bootstrap.connect(unixDomainSocketPath: path).get()
            case .abstract(let name):
                channel = try await bootstrap.withConnectedSocket(try await connectAbstract(name, timeout: timeout))
                    .get()
            }
        } catch let error as DBusError {
            authenticated.fail(error)
            throw error
        } catch {
            authenticated.fail(error)
            throw DBusError(.connectFailed, "cannot connect to the bus at \(endpoint): \(error)")
        }
        do {
            _ = try await authenticated.futureResult.get()
            let connection = DBusConnection(
                channel: channel,
                uniqueName: "",
                maximumMessageLength: maximumMessageLength
            )
            let hello = try await connection.call(
                .methodCall(
                    destination: "org.freedesktop.DBus",
                    path: "/org/freedesktop/DBus",
                    interface: "org.freedesktop.DBus",
                    member: "Hello"
                ),
                timeout: timeout
            )
            guard hello.signature == "s", let name = hello.body[0].string else {
                throw DBusError(.unexpectedReply, "the bus answered Hello with '\(hello.signature)', not a name")
            }
            return DBusConnection(channel: channel, uniqueName: name, maximumMessageLength: maximumMessageLength)
        } catch {
            try? await channel.close()
            throw error
        }
    }

    /// A socket connected to `name` in the abstract namespace: NIO's `SocketAddress` passes the
    /// whole `sockaddr_un` as the address's length, which in that namespace makes the trailing
    /// zero bytes part of the name, so the address is made here with its exact length, on a
    /// non-blocking socket (a full backlog is tried again until `timeout`).
    private static func connectAbstract(_ name: String, timeout: Duration) async throws -> NIOBSDSocket.Handle {
        #if canImport(Glibc)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(name.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count + 1 <= capacity else {
            throw DBusError(.connectFailed, "the abstract socket name '\(DBusError.printable(name))' is too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            path[0] = 0
            for (index, byte) in bytes.enumerated() { path[index + 1] = byte }
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + 1 + bytes.count)
        let descriptor = socket(
            AF_UNIX,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
            0
        )
        guard descriptor >= 0 else {
            throw DBusError(.connectFailed, "cannot make a socket: \(String(cString: strerror(errno)))")
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, length) }
            }
            if result == 0 { return descriptor }
            let failure = errno
            guard failure == EAGAIN || failure == EINTR, clock.now < deadline else {
                Glibc.close(descriptor)
                throw DBusError(
                    .connectFailed,
                    "cannot connect to the bus at unix:abstract=\(DBusError.printable(name)): \(String(cString: strerror(failure)))"
                )
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        #else
        throw DBusError(.unsupportedAddress, "unix:abstract= addresses exist on Linux (glibc) only")
        #endif
    }

    /// Sends `message` (a method call; its serial is given here) and waits for its reply.
    ///
    /// - Returns: the method return.
    /// - Throws: ``DBusError/Code-swift.struct/methodError`` for an error reply (its name in
    ///   ``DBusError/errorName``, its message bounded); `.timeout` when no reply came within
    ///   `timeout`; `.connectionClosed`; `.invalidArgument` for a message that cannot be sent.
    func call(_ message: DBusMessage, timeout: Duration = .seconds(5)) async throws -> DBusMessage {
        let promise = channel.eventLoop.makePromise(of: DBusMessage.self)
        let written = channel.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenFailure { error in
            promise.fail(DBusError(.connectionClosed, "the bus connection is closed: \(error)"))
        }
        channel.writeAndFlush(
            DBusRequest(message: message, reply: promise, timeout: TimeAmount(timeout)),
            promise: written
        )
        let reply = try await promise.futureResult.get()
        guard reply.kind == .error else { return reply }
        let name = reply.errorName ?? "an unnamed error"
        let text = reply.body.first?.string.map { ": " + DBusError.printable($0) } ?? ""
        throw DBusError(
            .methodError,
            "\(message.member ?? "the call") on \(message.path ?? "/") failed: \(name)\(text)",
            errorName: name
        )
    }

    /// Closes the connection; calls still waiting fail with `.connectionClosed`.
    func close() async {
        try? await channel.close()
    }
}

/// A call handed to ``DBusChannelHandler``: the message, where its reply goes, and how long to
/// wait for it.
struct DBusRequest: Sendable {
    var message: DBusMessage
    var reply: EventLoopPromise<DBusMessage>
    var timeout: TimeAmount
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
