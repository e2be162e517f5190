import TodoCore
import TodoStore

/// The properties of each kind of resource (docs/CALDAV.md, "Reads and sync").
struct DAVProps {
    enum Resource {
        case root, home
        case collection(DAVCollection)
        case item(DAVCollection, DAVItem)
    }

    let r: DAVRequest
    let state: DAVState

    typealias Name = (String, String)
    static let d = DAVNamespace.dav
    static let c = DAVNamespace.caldav
    static let cs = DAVNamespace.calendarServer

    /// What `allprop` and `propname` name for each kind (calendar-data only when asked for).
    func names(_ resource: Resource) -> [Name] {
        let d = Self.d, c = Self.c, cs = Self.cs
        switch resource {
        case .root: return [(d, "resourcetype"), (d, "displayname"), (d, "current-user-principal"), (d, "current-user-privilege-set")]
        case .home:
            return [
                (d, "resourcetype"), (d, "displayname"), (d, "current-user-principal"), (d, "principal-URL"), (c, "calendar-home-set"),
                (d, "owner"), (d, "current-user-privilege-set"), (d, "supported-report-set"),
            ]
        case .collection:
            return [
                (d, "resourcetype"), (d, "displayname"), (c, "calendar-description"), (c, "supported-calendar-component-set"),
                (d, "supported-report-set"), (d, "current-user-privilege-set"), (d, "owner"), (cs, "getctag"), (d, "sync-token"),
                (c, "supported-calendar-data"), (c, "max-resource-size"), (d, "current-user-principal"),
            ]
        case .item:
            return [(d, "resourcetype"), (d, "getetag"), (d, "getcontenttype"), (d, "getcontentlength"), (d, "getlastmodified")]
        }
    }

    /// At most how many bytes `entry(href, resource, wanted)` writes. An item's properties are
    /// bounded from what the item holds without writing them (its calendar data by the length
    /// its escaped bytes were counted at when it was rendered); any other property is measured
    /// by writing it once.
    func bound(_ href: String, _ resource: Resource, _ wanted: DAVPropRequest) -> Int {
        var n = DAVWriter.responseBound(href: href)
        switch wanted {
        case .names:
            for (ns, name) in names(resource) { n += DAVWriter.tagsBound(ns, name) }
        case .all:
            for (ns, name) in names(resource) { n += bound(ns, name, resource) }
        case .props(let list):
            for (ns, name) in list { n += bound(ns, name, resource) }
        }
        return n
    }

    static let contentType = "text/calendar; charset=utf-8; component=VTODO"

    /// At most how many bytes one property of `resource` takes in an answer, found or not.
    func bound(_ ns: String, _ name: String, _ resource: Resource) -> Int {
        let d = Self.d
        if case .item(_, let item) = resource {
            let tags = DAVWriter.tagsBound(ns, name)
            switch (ns, name) {
            case (d, "resourcetype"): return tags
            // `"<blob>.<8 hex>"`, its quotes written `&quot;`.
            case (d, "getetag"): return tags + DAVWriter.escapedLength(item.blob) + 9 + 12
            case (d, "getcontenttype"): return tags + Self.contentType.utf8.count
            case (d, "getcontentlength"): return tags + 20
            case (d, "getlastmodified"): return tags + 29
            case (Self.c, "calendar-data"): return tags + item.xmlLength
            default: break
            }
        }
        return value(ns, name, resource).map(DAVWriter.bound) ?? DAVWriter.tagsBound(ns, name)
    }

    func entry(_ href: String, _ resource: Resource, _ wanted: DAVPropRequest) -> DAVResponseEntry {
        switch wanted {
        case .names:
            return .propstats(href: href, [DAVPropstat(status: 200, props: names(resource).map { DAVProp($0.0, $0.1) })])
        case .all:
            return .propstats(href: href, [DAVPropstat(status: 200, props: names(resource).compactMap { value($0.0, $0.1, resource) })])
        case .props(let list):
            var found: [DAVProp] = []
            var missing: [DAVProp] = []
            for (ns, name) in list {
                if let p = value(ns, name, resource) { found.append(p) } else { missing.append(DAVProp(ns, name)) }
            }
            var stats: [DAVPropstat] = []
            if !found.isEmpty { stats.append(DAVPropstat(status: 200, props: found)) }
            if !missing.isEmpty { stats.append(DAVPropstat(status: 404, props: missing)) }
            if stats.isEmpty { stats.append(DAVPropstat(status: 200, props: [])) }
            return .propstats(href: href, stats)
        }
    }

    /// One property's value; nil when this resource does not have it.
    func value(_ ns: String, _ name: String, _ resource: Resource) -> DAVProp? {
        let d = Self.d, c = Self.c
        let home = r.home
        switch (ns, name) {
        case (d, "current-user-principal"): return DAVProp(d, name, .hrefs([home]))
        case (d, "resourcetype"):
            switch resource {
            case .root: return DAVProp(d, name, .xml { $0.empty(d, "collection") })
            case .home: return DAVProp(d, name, .xml { w in w.empty(d, "collection"); w.empty(d, "principal") })
            case .collection: return DAVProp(d, name, .xml { w in w.empty(d, "collection"); w.empty(c, "calendar") })
            case .item: return DAVProp(d, name)
            }
        case (d, "displayname"):
            switch resource {
            case .root: return DAVProp(d, name, .text("todo: \(r.site.household)"))
            case .home: return DAVProp(d, name, .text(r.member))
            case .collection(let col): return DAVProp(d, name, .text(displayName(col)))
            case .item: return nil
            }
        case (d, "principal-URL"):
            if case .home = resource { return DAVProp(d, name, .hrefs([home])) }
            return nil
        case (c, "calendar-home-set"):
            if case .home = resource { return DAVProp(c, name, .hrefs([home])) }
            return nil
        case (d, "owner"):
            switch resource {
            case .home, .collection: return DAVProp(d, name, .hrefs([home]))
            default: return nil
            }
        case (d, "current-user-privilege-set"):
            switch resource {
            case .root, .home:
                return DAVProp(d, name, .xml { w in Self.privileges(&w, ["read", "read-current-user-privilege-set"]) })
            case .collection, .item:
                return DAVProp(d, name, .xml { w in
                    Self.privileges(&w, ["read", "write", "write-content", "write-properties", "bind", "unbind", "read-current-user-privilege-set"])
                })
            }
        case (d, "supported-report-set"):
            switch resource {
            case .home, .collection:
                return DAVProp(d, name, .xml { w in
                    for (rns, rname) in [(c, "calendar-query"), (c, "calendar-multiget"), (d, "sync-collection")] {
                        w.open(d, "supported-report")
                        w.open(d, "report")
                        w.empty(rns, rname)
                        w.close()
                        w.close()
                    }
                })
            default: return nil
            }
        case (c, "supported-calendar-component-set"):
            guard case .collection = resource else { return nil }
            return DAVProp(c, name, .xml { w in w.empty(c, "comp", attributes: [("name", "VTODO")]) })
        case (c, "supported-calendar-data"):
            guard case .collection = resource else { return nil }
            return DAVProp(c, name, .xml { w in w.empty(c, "calendar-data", attributes: [("content-type", "text/calendar"), ("version", "2.0")]) })
        case (c, "max-resource-size"):
            guard case .collection = resource else { return nil }
            return DAVProp(c, name, .text(String(DAVRoutes.maxICalendar)))
        case (c, "calendar-description"):
            guard case .collection(let col) = resource else { return nil }
            switch col {
            case .mine: return DAVProp(c, name, .text("\(r.member)'s tasks and turns"))
            case .household: return DAVProp(c, name, .text("Everything else the household has to do"))
            case .list: return DAVProp(c, name, .text("A checklist"))
            }
        case (Self.cs, "getctag"), (d, "sync-token"):
            guard case .collection = resource else { return nil }
            return DAVProp(ns, name, .text(state.token))
        case (d, "getetag"):
            guard case .item(_, let item) = resource else { return nil }
            return DAVProp(d, name, .text(item.etag))
        case (d, "getcontenttype"):
            guard case .item = resource else { return nil }
            return DAVProp(d, name, .text(Self.contentType))
        case (d, "getlastmodified"):
            guard case .item(_, let item) = resource, let t = state.task(item.task) else { return nil }
            return DAVProp(d, name, .text(Self.httpDate(Self.lastChange(t))))
        case (d, "getcontentlength"):
            guard case .item(_, let item) = resource else { return nil }
            return DAVProp(d, name, .text(String(item.bytes.count)))
        case (c, "calendar-data"):
            guard case .item(_, let item) = resource else { return nil }
            return DAVProp(c, name, .text(String(decoding: item.bytes, as: UTF8.self)))
        default:
            return nil
        }
    }

    func displayName(_ c: DAVCollection) -> String {
        switch c {
        case .mine: "Mine"
        case .household: "Household"
        case .list(let id): state.task(id)?.title ?? "List"
        }
    }

    /// When a task last changed, in milliseconds: its latest stamp, else (a task imported without
    /// stamps) its creation, else 0.
    static func lastChange(_ t: Task) -> Int64 {
        if let wall = t.maxStamp?.wall { return wall }
        // `YYYY-MM-DDTHH:MM:SS.mmmZ`, as the store writes it.
        let text = Array(t.createdAt.utf8)
        guard text.count >= 19, let date = CivilDate(iso: Substring(t.createdAt).prefix(10)) else { return 0 }
        func number(_ range: Range<Int>) -> Int64? { Int64(String(decoding: text[range], as: UTF8.self)) }
        guard let h = number(11..<13), let m = number(14..<16), let sec = number(17..<19) else { return 0 }
        return (Int64(date.daysSinceEpoch) * 86_400 + h * 3600 + m * 60 + sec) * 1000
    }

    /// A time in milliseconds since the epoch as RFC 1123 (HTTP) writes it, in GMT:
    /// `Sat, 28 Nov 2026 21:29:32 GMT`, always 29 bytes: a time before 1970 or after 9999 (a
    /// stamp from a hand-edited file) is written as the nearest of those.
    static func httpDate(_ millis: Int64) -> String {
        let seconds = min(max(millis, 0), 253_402_300_799_999) / 1000
        let days = seconds / 86_400
        let date = CivilDate(daysSinceEpoch: Int(days))
        let time = Int(seconds - days * 86_400)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        return "\(weekdays[date.weekday]), \(two(date.day)) \(months[date.month - 1]) \(date.year)"
            + " \(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60)) GMT"
    }

    static func privileges(_ w: inout DAVWriter, _ names: [String]) {
        for p in names {
            w.open(DAVNamespace.dav, "privilege")
            w.empty(DAVNamespace.dav, p)
            w.close()
        }
    }
}
