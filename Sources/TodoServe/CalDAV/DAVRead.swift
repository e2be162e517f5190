import HTTPTypes
import Hummingbird
import NIOCore
import TodoCore
import TodoStore

extension Site {
    /// The household as CalDAV sees it now: built once per commit and household day.
    func davState(_ h: HouseholdReader) throws -> DAVState {
        let snap = try store { () throws(StoreError) in try h.snapshot() }
        let today = h.clock.today
        let commit = snap.commitHex
        return try davViews.state(key: commit + "/" + today.description) {
            let (tasks, blobs) = try store { () throws(StoreError) in try davViews.tasks(snap) }
            let zone = try store { () throws(StoreError) in try h.zone() }
            return DAVState(
                commit: commit, today: today, tasks: tasks, blobs: blobs, context: snap.turnContext(h.clock), zone: zone.rules,
                days: config.caldavDays, perTask: davViews.perTask)
        }
    }

    /// The household as it was at an older commit and day: the tasks whose blobs `only` names
    /// (their files' blobs then), or every task (nil).
    func davState(_ h: HouseholdReader, old snap: Snapshot, day: CivilDate, only: [TaskID: String]?) throws -> DAVState {
        var tasks: [Task] = []
        let blobs: [TaskID: String]
        if let only {
            for (id, blob) in only { if let t = snap.task(blob: blob, id: id) { tasks.append(t) } }
            blobs = only
        } else {
            tasks = try store { () throws(StoreError) in try snap.loadAllFromFiles() }.tasks
            blobs = try store { () throws(StoreError) in try snap.taskBlobs() }
        }
        let zone = try store { () throws(StoreError) in try h.zone() }
        return DAVState(
            commit: snap.commitHex, today: day, tasks: tasks, blobs: blobs, context: snap.turnContext(h.clock), zone: zone.rules,
            days: config.caldavDays)
    }
}

/// GET, PROPFIND, REPORT and PROPPATCH (docs/CALDAV.md, "Reads and sync").
enum DAVRead {
    static func open(_ r: DAVRequest) throws -> (HouseholdReader, DAVState) {
        let h = try r.site.store { () throws(StoreError) in try r.site.openForReading() }
        return (h, try r.site.davState(h))
    }

    /// The collections of the member's home: Mine, Household, one per checklist.
    static func collections(_ state: DAVState) -> [DAVCollection] {
        [.mine, .household] + state.checklists.map { .list($0.id) }
    }

    static func exists(_ c: DAVCollection, _ state: DAVState) -> Bool {
        if case .list(let id) = c { return state.checklists.contains { $0.id == id } }
        return true
    }

    static func get(_ r: DAVRequest, head: Bool) throws -> Response {
        let (_, state) = try open(r)
        guard case .item(_, let c, let name) = r.path else {
            return DAVRoutes.plain(405, "A collection is read with PROPFIND or REPORT.", headers: [.allow: "OPTIONS, PROPFIND, REPORT"])
        }
        guard exists(c, state), let item = state.items(c, member: r.member).first(where: { $0.name == name }) else {
            return DAVRoutes.plain(404, "There is no such to-do.")
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/calendar; charset=utf-8; component=VTODO", .eTag: item.etag, .contentLength: String(item.bytes.count)],
            body: head ? .init() : .init(byteBuffer: ByteBuffer(bytes: item.bytes)))
    }

    // MARK: PROPFIND

    static func propfind(_ r: DAVRequest) throws -> Response {
        let (_, state) = try open(r)
        var wanted: DAVPropRequest = .all
        if !r.body.isEmpty {
            let root = try DAVXML.parse(r.body)
            guard root.is(DAVNamespace.dav, "propfind") else { throw DAVRefusal(status: 400, reason: "The body is not a propfind.") }
            wanted = try DAVPropRequest(root)
        }
        let depth = r.depth?.lowercased() ?? "0"
        guard depth == "0" || depth == "1" else {
            throw DAVRefusal(status: 403, dav: "propfind-finite-depth", reason: "Depth infinity is not supported; ask with depth 0 or 1.")
        }
        var targets: [DAVTarget] = []
        switch r.path {
        case .root:
            targets.append(.resource(r.requested, .root))
            if depth == "1" { targets.append(.resource(r.home, .home)) }
        case .home:
            targets.append(.resource(r.home, .home))
            if depth == "1" { for c in collections(state) { targets.append(.resource(r.href(c), .collection(c))) } }
        case .collection(_, let c):
            guard exists(c, state) else { return DAVRoutes.plain(404, "There is no such list.") }
            targets.append(.resource(r.href(c), .collection(c)))
            if depth == "1" {
                for item in state.items(c, member: r.member) { targets.append(.resource(r.href(c, item), .item(c, item))) }
            }
        case .item(_, let c, let name):
            guard exists(c, state), let item = state.items(c, member: r.member).first(where: { $0.name == name }) else {
                return DAVRoutes.plain(404, "There is no such to-do.")
            }
            targets.append(.resource(r.href(c, item), .item(c, item)))
        }
        return try DAVRoutes.multistatus(DAVProps(r: r, state: state), wanted, targets)
    }

    /// Colours, orders and names are the household's, not a client's: every property is refused.
    static func proppatch(_ r: DAVRequest) throws -> Response {
        let root = try DAVXML.parse(r.body)
        var names: [DAVProp] = []
        for update in root.children where update.namespace == DAVNamespace.dav && (update.name == "set" || update.name == "remove") {
            for prop in update.children(DAVNamespace.dav, "prop") {
                for p in prop.children { names.append(DAVProp(p.namespace, p.name)) }
            }
        }
        let href: String
        switch r.path {
        case .root: href = r.requested
        case .home: href = r.home
        case .collection(_, let c): href = r.href(c)
        case .item(_, let c, let n): href = r.href(c) + DAVWriter.encodePathSegment(n)
        }
        return DAVRoutes.xml(207, DAVWriter.multistatus([.propstats(href: href, [DAVPropstat(status: 403, props: names)])]))
    }

    // MARK: REPORT

    static func report(_ r: DAVRequest) throws -> Response {
        let (h, state) = try open(r)
        let root = try DAVXML.parse(r.body)
        let c: DAVCollection
        switch r.path {
        case .collection(_, let col): c = col
        case .item(_, let col, _): c = col
        default:
            throw DAVRefusal(status: 403, dav: "supported-report", reason: "Reports are answered on a list.")
        }
        guard exists(c, state) else { return DAVRoutes.plain(404, "There is no such list.") }
        let wanted = try DAVPropRequest(root)
        let props = DAVProps(r: r, state: state)
        if root.is(DAVNamespace.caldav, "calendar-multiget") {
            let items = state.items(c, member: r.member)
            let byName = Dictionary(items.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
            var targets: [DAVTarget] = []
            for href in root.children(DAVNamespace.dav, "href") {
                let text = href.text.trimmed()
                let name = percentDecoded(Substring(text.split(separator: "/").last ?? ""))
                if text.hasPrefix(r.href(c)) || !text.hasPrefix("/"), let item = byName[name] {
                    targets.append(.resource(r.href(c, item), .item(c, item)))
                } else {
                    targets.append(.status(text, 404))
                }
            }
            return try DAVRoutes.multistatus(props, wanted, targets)
        }
        if root.is(DAVNamespace.caldav, "calendar-query") {
            let filter = root.child(DAVNamespace.caldav, "filter")
            if let filter { try DAVFilter.validate(filter) }
            var targets: [DAVTarget] = []
            for item in state.items(c, member: r.member) {
                if let filter, !DAVFilter.matches(filter, item, zone: state.zone) { continue }
                targets.append(.resource(r.href(c, item), .item(c, item)))
            }
            return try DAVRoutes.multistatus(props, wanted, targets)
        }
        if root.is(DAVNamespace.dav, "sync-collection") {
            return try DAVSync.answer(r, h, state, c, root, wanted)
        }
        throw DAVRefusal(status: 403, dav: "supported-report", reason: "This report is not supported.")
    }
}

/// What a PROPFIND or REPORT asked for.
enum DAVPropRequest: Sendable {
    case all
    case names
    /// The properties named, each once, in the order first named.
    case props([(String, String)])

    /// The most distinct properties one request may name (docs/CALDAV.md, "Limits").
    static let maximumProperties = 64

    init(_ root: DAVElement) throws(DAVRefusal) {
        if root.child(DAVNamespace.dav, "propname") != nil {
            self = .names
        } else if let prop = root.child(DAVNamespace.dav, "prop") {
            var seen = Set<String>()
            var list: [(String, String)] = []
            for p in prop.children where seen.insert(p.namespace + "\u{0}" + p.name).inserted {
                list.append((p.namespace, p.name))
                if list.count > Self.maximumProperties {
                    throw DAVRefusal(
                        status: 403,
                        reason: "The request names more than \(Self.maximumProperties) different properties; ask for fewer.")
                }
            }
            self = .props(list)
        } else {
            self = .all
        }
    }
}
