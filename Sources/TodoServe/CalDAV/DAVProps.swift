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
            return [(d, "resourcetype"), (d, "getetag"), (d, "getcontenttype"), (d, "getcontentlength")]
        }
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
            return DAVProp(d, name, .text("text/calendar; charset=utf-8; component=VTODO"))
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

    static func privileges(_ w: inout DAVWriter, _ names: [String]) {
        for p in names {
            w.open(DAVNamespace.dav, "privilege")
            w.empty(DAVNamespace.dav, p)
            w.close()
        }
    }
}
