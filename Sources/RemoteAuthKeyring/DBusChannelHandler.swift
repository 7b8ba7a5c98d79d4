import NIOCore

/// The bus connection's state, on its event loop: the authentication exchange
/// ([Authentication Protocol](https://dbus.freedesktop.org/doc/dbus-specification.html#auth-protocol)),
/// then messages framed by their header's lengths, replies handed to the calls that wait for them.
final class DBusChannelHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = DBusRequest
    typealias OutboundOut = ByteBuffer

    private enum State {
        case authenticating
        case open
        case failed(DBusError)
    }

    /// A line of the authentication exchange is at most this long.
    private static let maximumLineLength = 1024

    private let userID: UInt32
    private let maximumMessageLength: Int
    private var authenticated: EventLoopPromise<String>?
    private let authenticationTimeout: TimeAmount
    private var authenticationTimer: Scheduled<Void>?
    private var state = State.authenticating
    private var started = false
    private var buffer = ByteBuffer()
    private var nextSerial: UInt32 = 1
    private var pending: [UInt32: (reply: EventLoopPromise<DBusMessage>, timer: Scheduled<Void>)] = [:]

    init(
        userID: UInt32,
        maximumMessageLength: Int,
        authenticated: EventLoopPromise<String>,
        authenticationTimeout: TimeAmount
    ) {
        self.userID = userID
        self.maximumMessageLength = maximumMessageLength
        self.authenticated = authenticated
        self.authenticationTimeout = authenticationTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    /// Sends a NUL byte, then `AUTH EXTERNAL` with the user id as ASCII decimal digits in hex
    /// (uid 1000 is `31303030`).
    private func start(context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        authenticationTimer = context.eventLoop.scheduleTask(in: authenticationTimeout) {
            let (handler, context) = loopBound.value
            handler.fail(
                DBusError(.timeout, "the bus did not complete authentication within \(handler.authenticationTimeout)"),
                context: context
            )
        }
        let hex = String(userID).utf8.map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
        }.joined()
        var out = context.channel.allocator.buffer(capacity: 64)
        out.writeInteger(UInt8(0))
        out.writeString("AUTH EXTERNAL \(hex)\r\n")
        context.writeAndFlush(wrapOutboundOut(out), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        buffer.writeBuffer(&incoming)
        do {
            if case .authenticating = state { try readAuthentication(context: context) }
            if case .open = state { try readMessages() }
        } catch let error as DBusError {
            fail(error, context: context)
        } catch {
            fail(DBusError.malformed("an unreadable message: \(error)"), context: context)
        }
    }

    private func readAuthentication(context: ChannelHandlerContext) throws {
        let view = buffer.readableBytesView
        guard let end = view.firstIndex(of: UInt8(ascii: "\n")) else {
            guard view.count <= Self.maximumLineLength else {
                throw DBusError.malformed("an authentication line too long")
            }
            return
        }
        let length = end - view.startIndex + 1
        guard length <= Self.maximumLineLength, let line = buffer.readString(length: length), line.hasSuffix("\r\n")
        else {
            throw DBusError.malformed("an authentication line too long or not ended by CRLF")
        }
        let words = line.dropLast(2).split(separator: " ", omittingEmptySubsequences: false)
        switch words.first {
        case "OK" where words.count == 2:
            var out = context.channel.allocator.buffer(capacity: 8)
            out.writeString("BEGIN\r\n")
            context.writeAndFlush(wrapOutboundOut(out), promise: nil)
            state = .open
            authenticationTimer?.cancel()
            authenticated?.succeed(String(words[1]))
            authenticated = nil
        case "REJECTED":
            throw DBusError(
                .authenticationRejected,
                "the bus refused AUTH EXTERNAL for uid \(userID) (it offers: \(DBusError.printable(words.dropFirst().joined(separator: " "))))"
            )
        default:
            throw DBusError.malformed("'\(DBusError.printable(String(line.dropLast(2))))' in answer to AUTH")
        }
    }

    private func readMessages() throws {
        while let length = try DBusMessage.length(
            ofMessageStartingWith: buffer.readableBytesView,
            maximum: maximumMessageLength
        ), buffer.readableBytes >= length {
            let message = try DBusMessage.decode(buffer.readBytes(length: length)!)
            guard message.kind == .methodReturn || message.kind == .error, let serial = message.replySerial,
                let waiting = pending.removeValue(forKey: serial)
            else { continue }
            waiting.timer.cancel()
            waiting.reply.succeed(message)
        }
        buffer.discardReadBytes()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        switch state {
        case .failed(let error):
            request.reply.fail(error)
            promise?.fail(error)
            return
        case .authenticating:
            let error = DBusError(.connectionClosed, "a call before the bus connection is authenticated")
            request.reply.fail(error)
            promise?.fail(error)
            return
        case .open:
            break
        }
        let serial = nextSerial
        nextSerial = nextSerial == .max ? 1 : nextSerial + 1
        var message = request.message
        message.serial = serial
        let bytes: [UInt8]
        do {
            bytes = try message.encoded()
        } catch {
            request.reply.fail(error)
            promise?.succeed()
            return
        }
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let member = message.member ?? "call"
        let timeout = request.timeout
        let timer = context.eventLoop.scheduleTask(in: timeout) {
            guard let waiting = loopBound.value.pending.removeValue(forKey: serial) else { return }
            waiting.reply.fail(DBusError(.timeout, "no reply to \(member) within \(timeout)"))
        }
        pending[serial] = (request.reply, timer)
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(DBusError(.connectionClosed, "the bus closed the connection"), context: context)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(DBusError(.connectionClosed, "the bus connection failed: \(error)"), context: context)
    }

    /// Fails every waiting call and the authentication with `error` (the first error wins), and
    /// closes the connection.
    private func fail(_ error: DBusError, context: ChannelHandlerContext) {
        if case .failed = state { return }
        state = .failed(error)
        authenticationTimer?.cancel()
        authenticated?.fail(error)
        authenticated = nil
        let waiting = pending
        pending = [:]
        for (_, call) in waiting {
            call.timer.cancel()
            call.reply.fail(error)
        }
        context.close(promise: nil)
    }
}
