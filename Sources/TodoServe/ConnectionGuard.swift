import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

/// How many connections (or, behind a trusted proxy, requests in flight) each client has open,
/// so that one slow or hostile client cannot take every slot of the server (docs/THREAT-MODEL.md,
/// "exhaustion"). A client is a peer address, or the client a trusted proxy names.
final class ClientSlots: Sendable {
    /// Connections one address may hold open at once; requests one forwarded client may have in
    /// flight at once.
    let perClient: Int
    private let open = Mutex<[String: Int]>([:])

    init(perClient: Int) { self.perClient = perClient }

    /// Takes a slot for `client`; false (and nothing taken) when it holds `perClient` already.
    func take(_ client: String) -> Bool {
        open.withLock { open in
            let n = open[client, default: 0]
            guard n < perClient else { return false }
            open[client] = n + 1
            return true
        }
    }

    /// Gives back a slot `take` gave.
    func give(_ client: String) {
        open.withLock { open in
            let n = open[client, default: 0]
            if n <= 1 { open[client] = nil } else { open[client] = n - 1 }
        }
    }

    /// Slots `client` holds now.
    func held(_ client: String) -> Int { open.withLock { $0[client, default: 0] } }
}

/// Limits of a connection, before any request reaches the router.
struct ConnectionLimits: Sendable {
    /// Open connections per address (a trusted proxy's are not counted: its clients are, per
    /// request, in `Guard`).
    var perClient = 16
    /// All open connections.
    var total = 256
    /// Time to send a request's head, from the connection's start or the end of the previous answer.
    var head: TimeAmount = .seconds(5)
    /// Time to send a request's body, from the end of its head.
    var body: TimeAmount = .seconds(10)
}

/// One connection's guard, in its pipeline after the HTTP decoder: closes the connection at once
/// when its address holds `perClient` connections already, and closes it when a request's head
/// or body is not sent in time (a slow-loris client), so a client that sends slowly holds a slot
/// for seconds, not for as long as it likes.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let slots: ClientSlots
    private let limits: ConnectionLimits
    private let exempt: Set<String>
    private var client: String?
    private var started = false
    private var deadline: Scheduled<Void>?
    /// Requests whose answer has not ended yet.
    private var unanswered = 0

    init(slots: ClientSlots, limits: ConnectionLimits, exempt: Set<String>) {
        self.slots = slots
        self.limits = limits
        self.exempt = exempt
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { stop() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            unanswered += 1
            arm(context, in: limits.body)
        case .body: break
        case .end: disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            unanswered -= 1
            if unanswered == 0 { arm(context, in: limits.head) }
        }
        context.write(data, promise: promise)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        if let address = context.channel.remoteAddress?.ipAddress, !exempt.contains(address) {
            guard slots.take(address) else {
                context.close(promise: nil)
                return
            }
            client = address
        }
        arm(context, in: limits.head)
    }

    private func stop() {
        disarm()
        if let client { slots.give(client) }
        client = nil
    }

    private func arm(_ context: ChannelHandlerContext, in time: TimeAmount) {
        disarm()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: time) { channel.close(promise: nil) }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}
