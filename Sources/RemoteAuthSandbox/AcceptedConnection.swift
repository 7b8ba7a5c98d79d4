import HummingbirdCore
import Logging
import NIOCore

/// The sandbox's child channel: HTTP/1.1 (over TLS when configured), as HummingbirdCore sets it
/// up, with every accepted connection held by an ``AcceptedConnection`` until it is served.
///
/// SwiftNIO hands a server's accepted connections to its accept loop through an asynchronous
/// sequence, each already wrapped in a `NIOAsyncChannel` whose writer traps if it is released
/// unfinished ("Deinited NIOAsyncWriter without calling finish()"). A connection accepted while
/// the listening channel closes (a graceful shutdown) or while the serving task is cancelled is
/// dropped from that sequence without being served, and the process traps (apple/swift-nio#2813,
/// #2637, #3481; swift-server/swift-http-server#137). Holding each connection in a class whose
/// `deinit` finishes the writer and closes the channel turns that drop into a closed connection.
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel
where Base.Value == HTTP1Channel.Value {
    let base: Base

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<AcceptedConnection> {
        base.setup(channel: channel, logger: logger).map(AcceptedConnection.init)
    }

    func handle(value: AcceptedConnection, logger: Logger) async {
        await base.handle(value: value.asyncChannel, logger: logger)
    }
}

/// One accepted connection on its way to the accept loop: see ``GuardedChildChannel``.
final class AcceptedConnection: ServerChildChannelValue {
    let asyncChannel: HTTP1Channel.Value

    init(_ asyncChannel: HTTP1Channel.Value) {
        self.asyncChannel = asyncChannel
    }

    var channel: any Channel { asyncChannel.channel }

    /// A served connection was finished and closed by `executeThenClose`, so both calls do
    /// nothing then; a dropped one is finished and closed here.
    deinit {
        asyncChannel.outbound.finish()
        asyncChannel.channel.close(promise: nil)
    }
}
