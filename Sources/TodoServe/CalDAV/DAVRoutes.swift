import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import TodoCore
import TodoStore

/// A CalDAV address, parsed (docs/CALDAV.md, "Addresses").
enum DAVPath: Equatable {
    case root
    /// A member's principal and calendar home, by its key.
    case home(String)
    case collection(String, DAVCollection)
    /// An item: its collection and its name (the last segment, percent-decoded).
    case item(String, DAVCollection, String)

    var key: String? {
        switch self {
        case .root: nil
        case .home(let k), .collection(let k, _), .item(let k, _, _): k
        }
    }

    /// `rest` is what follows `<prefix>/dav`; nil for an address that is none of these.
    static func parse(_ rest: Substring) -> DAVPath? {
        let segments = rest.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count <= 3 else { return nil }
        if segments.isEmpty { return .root }
        let key = String(segments[0])
        guard DAVKey.isKey(key) else { return nil }
        if segments.count == 1 { return .home(key) }
        guard let c = DAVCollection(segment: String(segments[1])) else { return nil }
        if segments.count == 2 { return .collection(key, c) }
        guard rest.last != "/" else { return nil }
        let name = percentDecoded(segments[2])
        guard !name.isEmpty, name.utf8.count <= 255, !name.contains("/") else { return nil }
        return .item(key, c, name)
    }
}

/// A member's key in addresses: `m` and the FNV-1a-64 of the name's UTF-8, in hex.
enum DAVKey {
    static func of(_ member: String) -> String { "m" + hex64(fnv1a64(Array(member.utf8))) }

    static func isKey(_ s: String) -> Bool {
        s.utf8.count == 17 && s.hasPrefix("m") && s.utf8.dropFirst().allSatisfy(isLowerHex)
    }
}

/// One response of a multistatus, to be made when it is written: a resource's properties, or
/// a status for an href.
enum DAVTarget: Sendable {
    case resource(String, DAVProps.Resource)
    case status(String, Int)
}

/// What every CalDAV handler needs: the site, the member, the addresses.
struct DAVRequest: Sendable {
    let site: Site
    let member: String
    let path: DAVPath
    let method: HTTPRequest.Method
    let depth: String?
    let body: [UInt8]
    let ifMatch: String?
    let ifNoneMatch: String?
    let contentType: String?
    /// The address asked for, as sent (the root's answer names it).
    let requested: String
    /// The client's turn (`DAVTurns`): it ends when the last reference to it goes.
    let turn: DAVTurn?

    var prefix: String { site.prefix }
    var root: String { prefix + "/dav/" }
    var home: String { root + DAVKey.of(member) + "/" }

    func href(_ c: DAVCollection) -> String { home + c.segment + "/" }
    func href(_ c: DAVCollection, _ item: DAVItem) -> String { href(c) + DAVWriter.encodePathSegment(item.name) }
}

/// The CalDAV routes (docs/CALDAV.md). Registered beside the page's, behind the same `Guard`.
struct DAVRoutes {
    let site: Site
    /// One client's requests reach the workers one at a time (docs/CALDAV.md, "Limits").
    let turns = DAVTurns()

    static let propfind = HTTPRequest.Method("PROPFIND")!
    static let report = HTTPRequest.Method("REPORT")!
    static let proppatch = HTTPRequest.Method("PROPPATCH")!
    static let mkcalendar = HTTPRequest.Method("MKCALENDAR")!
    static let mkcol = HTTPRequest.Method("MKCOL")!
    static let move = HTTPRequest.Method("MOVE")!
    static let copy = HTTPRequest.Method("COPY")!
    static let lock = HTTPRequest.Method("LOCK")!
    static let unlock = HTTPRequest.Method("UNLOCK")!
    static let acl = HTTPRequest.Method("ACL")!

    static let methods: [HTTPRequest.Method] = [
        .options, .get, .head, .put, .delete, .post, propfind, report, proppatch, mkcalendar, mkcol, move, copy, lock, unlock, acl,
    ]
    static let allow = "OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, PROPPATCH, REPORT"
    /// The largest iCalendar body a PUT may carry.
    static let maxICalendar = 256 * 1024

    func register(on router: Router<ServeContext>) {
        let prefix = site.prefix
        // RFC 6764: at the host's root, and under the prefix too.
        var wellKnown = ["/.well-known/caldav"]
        if !prefix.isEmpty { wellKnown.append(prefix + "/.well-known/caldav") }
        for path in wellKnown {
            for method in [HTTPRequest.Method.get, .head, Self.propfind, .options] {
                router.on(RouterPath(path), method: method) { _, _ in
                    Response(status: .movedPermanently, headers: [.location: prefix + "/dav/"])
                }
            }
        }
        // A client given only the server's address asks its root: PROPFIND and OPTIONS there
        // answer as the CalDAV root (the page's GET stays the page's).
        for method in [Self.propfind, HTTPRequest.Method.options] {
            router.on(RouterPath(prefix.isEmpty ? "/" : prefix), method: method) { request, context in try await handle(request, context) }
        }
        for method in Self.methods {
            for path in [prefix + "/dav", prefix + "/dav/**"] {
                router.on(RouterPath(path), method: method) { request, context in try await handle(request, context) }
            }
        }
    }

    func handle(_ request: Request, _ context: ServeContext) async throws -> Response {
        let authorization = request.headers[values: .authorization]
        let address = context.peer == nil ? nil : context.client
        let (secure, client) = (context.secure, context.client)
        let site = self.site
        let identity = try await site.workers.read {
            try site.davIdentity(authorization: authorization, address: address, secure: secure, client: client)
        }
        let fullPath = request.uri.path
        let atRoot = fullPath == site.prefix || fullPath == site.prefix + "/"
        let after = atRoot ? "" : fullPath.dropFirst((site.prefix + "/dav").utf8.count)
        let method = request.method
        if [Self.mkcalendar, Self.mkcol].contains(method) {
            return Self.error(
                DAVRefusal(
                    status: 403, caldav: "calendar-collection-location-ok",
                    reason: "Lists come from the household: a checklist is a task with items, made on the page or with todo."))
        }
        if method == .put, let refusal = DAVWrite.refusal(ofAddress: after) { return Self.error(refusal) }
        guard let path = DAVPath.parse(after) else { return Self.plain(404, "There is nothing at this address.") }
        if let key = path.key, key != DAVKey.of(identity.member) {
            return Self.plain(403, "This address belongs to another member of the household.")
        }
        if method == .options {
            return Response(
                status: .ok,
                headers: [HTTPField.Name("DAV")!: "1, 3, calendar-access", .allow: Self.allow, .contentLength: "0"])
        }
        if [Self.move, Self.copy, Self.acl, .post].contains(method) {
            return Self.plain(403, "This server does not support \(method.rawValue) here.")
        }
        if [Self.lock, Self.unlock].contains(method) {
            return Response(status: .methodNotAllowed, headers: [.allow: Self.allow, .contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "Locks are not supported.\n")))
        }
        let limit = method == .put ? Self.maxICalendar : DAVXML.maximumBytes
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            return Self.error(DAVRefusal(status: 413, caldav: method == .put ? "max-resource-size" : nil, reason: "The request is too large."))
        }
        let body: [UInt8]
        do {
            body = Array(buffer: try await request.body.collect(upTo: limit))
        } catch {
            return Self.error(DAVRefusal(status: 413, caldav: method == .put ? "max-resource-size" : nil, reason: "The request is too large."))
        }
        // A device with many requests in flight has them answered one at a time, the others
        // waiting (their bodies read, so that none times out) without a thread, so that another
        // member's request finds a worker free. The turn lasts until the answer is written: a
        // streamed answer holds it (through the request its responses are made from) until its
        // last byte is sent, or it is dropped.
        await turns.enter(client)
        let turn = DAVTurn(turns, client)
        let r = DAVRequest(
            site: site, member: identity.member, path: path, method: method, depth: request.headers[HTTPField.Name("Depth")!],
            body: body, ifMatch: request.headers[.ifMatch], ifNoneMatch: request.headers[.ifNoneMatch],
            contentType: request.headers[.contentType], requested: fullPath, turn: turn)
        let work: @Sendable () throws -> Response = {
            do {
                switch method {
                case .get, .head: return try DAVRead.get(r, head: method == .head)
                case .put: return try DAVWrite.put(r)
                case .delete: return try DAVWrite.delete(r)
                case Self.propfind: return try DAVRead.propfind(r)
                case Self.report: return try DAVRead.report(r)
                case Self.proppatch: return try DAVRead.proppatch(r)
                default: return Self.plain(405, "Not supported.")
                }
            } catch let refusal as DAVRefusal {
                return Self.error(refusal)
            } catch let error as DAVXMLError {
                return Self.plain(400, error.reason)
            } catch let error as PageError {
                return Self.plain(error.status, error.text ?? error.title ?? "The request failed.")
            }
        }
        let writes = method == .put || method == .delete
        return writes ? try await site.workers.write(work) : try await site.workers.read(work)
    }

    // MARK: Answers

    static func plain(_ status: Int, _ text: String, headers: HTTPFields = [:]) -> Response {
        var h = headers
        h[.contentType] = "text/plain; charset=utf-8"
        return Response(status: .init(code: status), headers: h, body: .init(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    static func error(_ refusal: DAVRefusal) -> Response {
        let bytes: [UInt8]
        if let c = refusal.caldav {
            bytes = DAVWriter.error(DAVNamespace.caldav, c, reason: refusal.reason)
        } else if let d = refusal.dav {
            bytes = DAVWriter.error(DAVNamespace.dav, d, reason: refusal.reason)
        } else {
            return plain(refusal.status, refusal.reason)
        }
        return xml(refusal.status, bytes)
    }

    /// Bytes of a streamed answer gathered before each write.
    static let chunkBytes = 64 * 1024

    /// A 207 Multi-Status answer of `targets`, written as it is made (docs/CALDAV.md, "Limits").
    ///
    /// Its size is bounded first, from the targets and the properties asked for
    /// (`DAVProps.bound`): over the site's `caldavAnswerBytes`, nothing is written and the
    /// request is refused with 507 `DAV:number-of-matches-within-limits`. Otherwise each
    /// response is made and written in turn, `chunkBytes` at a time, so that no answer is ever
    /// whole in memory.
    static func multistatus(
        _ props: DAVProps, _ wanted: DAVPropRequest, _ targets: [DAVTarget], syncToken: String? = nil
    ) throws -> Response {
        let limit = props.r.site.config.caldavAnswerBytes
        var bound = DAVWriter.multistatusBound(syncToken: syncToken)
        for target in targets {
            switch target {
            case .resource(let href, let resource): bound += props.bound(href, resource, wanted)
            case .status(let href, _): bound += DAVWriter.responseBound(href: href)
            }
            if bound > limit {
                throw DAVRefusal(
                    status: 507, dav: "number-of-matches-within-limits",
                    reason: "The answer would be larger than this server gives at once (\(Self.size(limit))): "
                        + "ask for fewer properties, or for fewer items (a time range, a multiget).")
            }
        }
        let body = ResponseBody { writer in
            // `props.r.turn` is held until this is done or dropped: the client's next request
            // waits for the last byte of this answer.
            var w = DAVWriter()
            w.open(DAVNamespace.dav, "multistatus")
            for target in targets {
                switch target {
                case .resource(let href, let resource): w.response(props.entry(href, resource, wanted))
                case .status(let href, let status): w.response(.status(href: href, status: status))
                }
                if w.count >= chunkBytes { try await writer.write(ByteBuffer(bytes: w.take())) }
            }
            if let syncToken { w.element(DAVNamespace.dav, "sync-token", text: syncToken) }
            try await writer.write(ByteBuffer(bytes: w.finish()))
            try await writer.finish(nil)
        }
        return Response(status: .init(code: 207), headers: [.contentType: "application/xml; charset=utf-8"], body: body)
    }

    /// `32 MiB`, `48 KiB`, `100 bytes`.
    static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : bytes >= 1 << 10 ? "\(bytes >> 10) KiB" : "\(bytes) bytes"
    }

    static func xml(_ status: Int, _ bytes: [UInt8], headers: HTTPFields = [:]) -> Response {
        var h = headers
        h[.contentType] = "application/xml; charset=utf-8"
        return Response(status: .init(code: status), headers: h, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// A client's turn, from `DAVTurns.enter`: the next of its requests goes on when the last
/// reference to this goes (the handler's, or a streamed answer's once written or dropped).
final class DAVTurn: Sendable {
    let turns: DAVTurns
    let client: String

    init(_ turns: DAVTurns, _ client: String) {
        self.turns = turns
        self.client = client
    }

    deinit { turns.leave(client) }
}

/// Turns per client: one request of a client at a time is read or written and its answer sent;
/// the others wait, in the order they came, without holding a thread.
final class DAVTurns: Sendable {
    private struct Client {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let clients = Mutex<[String: Client]>([:])

    init() {}

    /// Returns when it is `client`'s turn.
    func enter(_ client: String) async {
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let now = clients.withLock { all -> Bool in
                var c = all[client] ?? Client()
                defer { all[client] = c }
                if c.busy {
                    c.waiting.append(turn)
                    return false
                }
                c.busy = true
                return true
            }
            if now { turn.resume() }
        }
    }

    /// Ends `client`'s turn: the next of its requests, if any, goes on.
    func leave(_ client: String) {
        let next = clients.withLock { all -> CheckedContinuation<Void, Never>? in
            guard var c = all[client] else { return nil }
            if c.waiting.isEmpty {
                all[client] = nil
                return nil
            }
            let next = c.waiting.removeFirst()
            all[client] = c
            return next
        }
        next?.resume()
    }
}
