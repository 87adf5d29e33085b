import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import Synchronization

/// Whether a connection's client is still there. It goes when the client ends its side of the
/// connection (the end of its input, as when it closes the socket or times out) or the connection
/// ends, and stays gone.
///
/// A photo whose client has gone is not worth reading: the service drops it from the waiting room and
/// skips its recognition, so that callers who gave up (a phone that timed out, a load generator that
/// stopped) do not hold the room and the workers that the callers still there need. As nginx does, a
/// client that half-closes its side after sending a request counts as gone.
public final class ClientPresence: Sendable {
    struct State {
        var gone = false
        var endAfterAnswer = false
        var next = 0
        var watchers: [Int: @Sendable () -> Void] = [:]
    }

    let state = Mutex(State())

    public init() {}

    /// Whether the client has gone.
    public var isGone: Bool { state.withLock { $0.gone } }

    /// Calls `watcher` once when the client goes (at once, on this thread, if it has gone).
    /// - Returns: a token for ``forget(_:)``; nil when the client had gone and `watcher` was called.
    @discardableResult
    public func whenGone(_ watcher: @escaping @Sendable () -> Void) -> Int? {
        let token: Int? = state.withLock { state in
            guard !state.gone else { return nil }
            defer { state.next += 1 }
            state.watchers[state.next] = watcher
            return state.next
        }
        if token == nil { watcher() }
        return token
    }

    /// Stops watching: the watcher of `token` will not be called.
    public func forget(_ token: Int) {
        _ = state.withLock { $0.watchers.removeValue(forKey: token) }
    }

    /// Ends the connection once the answer being made is written (the rest of its request is not
    /// worth reading: an upload too slow, or a body whose end cannot be known).
    public func endAfterAnswer() { state.withLock { $0.endAfterAnswer = true } }

    /// Whether the connection ends after the answer being made.
    var endsAfterAnswer: Bool { state.withLock { $0.endAfterAnswer } }

    /// Marks the client gone and calls the watchers (once).
    public func depart() {
        let watchers: [@Sendable () -> Void] = state.withLock { state in
            guard !state.gone else { return [] }
            state.gone = true
            defer { state.watchers = [:] }
            return Array(state.watchers.values)
        }
        for watcher in watchers { watcher() }
    }
}

/// The presence of the clients of the open connections, by connection.
public final class Connections: Sendable {
    let open = Mutex<[ObjectIdentifier: ClientPresence]>([:])

    public init() {}

    /// The presence of the client of `connection`, while the connection is open and watched.
    public func presence(of connection: ObjectIdentifier) -> ClientPresence? {
        open.withLock { $0[connection] }
    }
}

/// Sits in a connection's pipeline after HTTP decoding: passes everything on, marks the client gone
/// at the end of its input or of the connection, ends the connection after an answer when asked
/// (``ClientPresence/endAfterAnswer()``), and gives the answer to bytes that are not HTTP (which
/// Hummingbird sends as a 400 with an empty body) the service's JSON error body.
final class ConnectionWatcher: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let connections: Connections
    let presence = ClientPresence()
    /// Why the request bytes are not HTTP, once the parser has said so.
    var malformed: HTTPParserError?
    /// The JSON body owed after a rewritten head.
    var owed: [UInt8]?

    init(connections: Connections) { self.connections = connections }

    func handlerAdded(context: ChannelHandlerContext) {
        connections.open.withLock { $0[ObjectIdentifier(context.channel)] = presence }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        _ = connections.open.withLock { $0.removeValue(forKey: ObjectIdentifier(context.channel)) }
        presence.depart()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { presence.depart() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        presence.depart()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? HTTPParserError { malformed = error }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where malformed != nil && head.status == .badRequest && head.headerFields[.contentLength] == "0":
            let body = APIError.from(malformed!).body
            head.headerFields[.contentLength] = "\(body.count)"
            head.headerFields[.contentType] = "application/json"
            owed = body
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end:
            if let owed {
                self.owed = nil
                context.write(wrapOutboundOut(.body(ByteBuffer(bytes: owed))), promise: nil)
            }
            guard presence.endsAfterAnswer else { return context.write(data, promise: promise) }
            let written = promise ?? context.eventLoop.makePromise()
            context.writeAndFlush(data, promise: written)
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
        default:
            context.write(data, promise: promise)
        }
    }
}
