import Hummingbird
import NIOCore
import NIOHTTPTypes

/// Ends the connection after an answer that says `Connection: close` (a photo refused before its body
/// was read), instead of reading the rest of that body only to discard it and keep the connection.
///
/// Hummingbird keeps a connection by reading and discarding whatever body the route did not read; for
/// a refused 12-MP photo that is megabytes parsed for nothing, for each refusal. Here, once the
/// answer is written, the connection's output is shut (the client reads the answer, then the end),
/// what still arrives of the request is dropped rather than handed on, and the connection is closed
/// when the client closes its side, or after `linger` at the latest.
final class CloseAfterRefusalHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let linger: TimeAmount
    /// The answer being written says `Connection: close`.
    private var closing = false
    /// It is written: nothing more is read or written on this connection.
    private var ended = false

    init(linger: TimeAmount = .seconds(2)) {
        self.linger = linger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The rest of a refused upload is dropped.
        if ended { return }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            closing = head.headerFields[.connection]?.lowercased() == "close"
        case .end where closing:
            closing = false
            ended = true
            context.writeAndFlush(data, promise: promise)
            context.close(mode: .output, promise: nil)
            let channel = context.channel
            context.eventLoop.scheduleTask(in: linger) { channel.close(promise: nil) }
            return
        default:
            break
        }
        if ended {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        context.write(data, promise: promise)
    }
}
