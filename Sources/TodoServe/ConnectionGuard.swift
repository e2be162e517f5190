import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
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
        // The check of an absolute-form target goes before the HTTP/1 codec, which keeps only
        // its path.
        let pipeline = context.pipeline.syncOperations
        // No codec (a pipeline without one): nothing to check it before.
        if let codec = try? pipeline.handler(type: HTTP1ToHTTPServerCodec.self) {
            try? pipeline.addHandler(AbsoluteFormTarget(), position: .before(codec))  // failed: the channel is closing
        }
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

/// An absolute-form request target (`GET http://host/path`, RFC 9112 §3.2.2), seen before the
/// HTTP/1 codec, which keeps its path and drops its authority: the authority is passed on in
/// `header` (any such header the client sent is removed first), so that `Guard` checks it as
/// it checks Host (421 for a name the server does not answer to) and refuses a request whose
/// Host says otherwise (400).
final class AbsoluteFormTarget: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    static let header = "X-Todo-Target-Authority"

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        head.headers.remove(name: Self.header)
        if let authority = Self.authority(of: head.uri) { head.headers.add(name: Self.header, value: authority) }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    /// The authority of an absolute-form target (`scheme://authority[/…]`; "" when it has
    /// none); nil for any other form.
    static func authority(of target: String) -> String? {
        let bytes = Array(target.utf8)
        guard let first = bytes.first, (first | 0x20) >= 0x61 && (first | 0x20) <= 0x7A else { return nil }
        var i = 1
        while i < bytes.count {
            let b = bytes[i]
            let isSchemeByte = ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2B || b == 0x2D || b == 0x2E
            if !isSchemeByte { break }
            i += 1
        }
        guard bytes.count >= i + 3, bytes[i] == 0x3A, bytes[i + 1] == 0x2F, bytes[i + 2] == 0x2F else { return nil }
        let rest = bytes[(i + 3)...]
        let end = rest.firstIndex { $0 == 0x2F || $0 == 0x3F || $0 == 0x23 } ?? rest.endIndex
        return String(decoding: rest[..<end], as: UTF8.self)
    }
}
