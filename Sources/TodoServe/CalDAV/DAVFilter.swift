import TodoCore

/// calendar-query's filter (RFC 4791 §9.7), evaluated on an item as it is served.
enum DAVFilter {
    static let c = DAVNamespace.caldav

    /// The collations a text-match may name (RFC 4791 §7.5): the two every server has.
    static let collations: Set<String> = ["i;ascii-casemap", "i;octet"]

    /// Refuses a filter this server cannot answer as asked (RFC 4791 §7.5, §9.9): a text-match
    /// in another collation (403 `supported-collation`), a time-range whose bound is not a UTC
    /// date-time or whose end is not after its start (403 `valid-filter`).
    static func validate(_ e: DAVElement) throws(DAVRefusal) {
        if e.is(c, "text-match"), let collation = e.attribute("collation"), !collations.contains(collation) {
            throw DAVRefusal(
                status: 403, caldav: "supported-collation",
                reason: "The collation \(collation.prefix(64)) is not supported: use i;ascii-casemap or i;octet.")
        }
        if e.is(c, "time-range") {
            let start = e.attribute("start"), end = e.attribute("end")
            for bound in [start, end].compactMap({ $0 }) where utc(bound) == nil {
                throw DAVRefusal(
                    status: 403, caldav: "valid-filter",
                    reason: "A time-range's start and end are UTC date-times, as 20261130T000000Z; \(bound.prefix(64)) is not.")
            }
            if let start = start.flatMap(utc), let end = end.flatMap(utc), end <= start {
                throw DAVRefusal(status: 403, caldav: "valid-filter", reason: "A time-range's end must be after its start.")
            }
        }
        for child in e.children { try validate(child) }
    }

    static func matches(_ filter: DAVElement, _ item: DAVItem, zone: TimeZoneRules) -> Bool {
        if let answer = byKind(filter, item, zone) { return answer }
        // The item's own bytes, read back by the one iCalendar reader: what the client would see.
        guard let calendar = try? ICalendarReader.parse(item.bytes) else { return false }  // never: the server wrote them
        for f in filter.children(c, "comp-filter") where !component(f, calendar, item, zone) { return false }
        return true
    }

    /// The answer without reading the item back, for the filter nearly every client sends:
    /// VCALENDAR, in it VTODO, with at most a time-range (an item is one VCALENDAR holding one
    /// VTODO, and a time-range is judged from the item's fields); nil for any other filter.
    static func byKind(_ filter: DAVElement, _ item: DAVItem, _ zone: TimeZoneRules) -> Bool? {
        for calendar in filter.children where calendar.namespace == c {
            guard calendar.name == "comp-filter" else { return nil }
            guard (calendar.attribute("name") ?? "").uppercased() == "VCALENDAR" else { return false }
            for todo in calendar.children {
                guard todo.is(c, "comp-filter"), (todo.attribute("name") ?? "").uppercased() == "VTODO" else { return nil }
                guard todo.children.allSatisfy({ $0.is(c, "time-range") }) else { return nil }
                if let range = todo.child(c, "time-range"), !inRange(range, item, zone) { return false }
            }
        }
        return true
    }

    static func component(_ f: DAVElement, _ comp: ICalComponent, _ item: DAVItem, _ zone: TimeZoneRules) -> Bool {
        guard (f.attribute("name") ?? "").uppercased() == comp.name else { return false }
        if let range = f.child(c, "time-range"), comp.name == "VTODO", !inRange(range, item, zone) { return false }
        for pf in f.children(c, "prop-filter") where !property(pf, comp) { return false }
        for cf in f.children(c, "comp-filter") {
            let name = (cf.attribute("name") ?? "").uppercased()
            let subs = comp.components.filter { $0.name == name }
            if cf.child(c, "is-not-defined") != nil {
                if !subs.isEmpty { return false }
                continue
            }
            if !subs.contains(where: { component(cf, $0, item, zone) }) { return false }
        }
        return true
    }

    static func property(_ pf: DAVElement, _ comp: ICalComponent) -> Bool {
        let name = (pf.attribute("name") ?? "").uppercased()
        let props = comp.properties.filter { $0.name == name }
        if pf.child(c, "is-not-defined") != nil { return props.isEmpty }
        guard !props.isEmpty else { return false }
        guard let tm = pf.child(c, "text-match") else { return true }
        let negate = tm.attribute("negate-condition")?.lowercased() == "yes"
        let octet = tm.attribute("collation") == "i;octet"
        let needle = octet ? tm.text : tm.text.lowercased()
        let found = props.contains { p in
            let value = octet ? p.textValue : p.textValue.lowercased()
            return needle.isEmpty || value.contains(needle)
        }
        return found != negate
    }

    /// RFC 4791 §9.9 for a VTODO without DTSTART: by DUE, else by COMPLETED, else always.
    static func inRange(_ range: DAVElement, _ item: DAVItem, _ zone: TimeZoneRules) -> Bool {
        let start = range.attribute("start").flatMap(utc) ?? Int64.min
        let end = range.attribute("end").flatMap(utc) ?? Int64.max
        if let due = item.vtodo.due {
            let seconds = zone.utc(fromLocal: Int64(due.date.daysSinceEpoch) * 86_400 + Int64((due.minutes ?? 0) * 60))
            return start < seconds && seconds <= end
        }
        if let done = item.vtodo.completed {
            let seconds = done / 1000
            return start <= seconds && seconds <= end
        }
        return true
    }

    /// A time-range bound, `YYYYMMDDTHHMMSSZ`, as seconds since the epoch; nil for any other form.
    static func utc(_ s: String) -> Int64? {
        // Any other form is refused before a filter is evaluated (`validate`).
        guard let t = try? ICalDateTime(s, tzid: nil), t.zone == .utc, let seconds = t.seconds else { return nil }
        return Int64(t.date.daysSinceEpoch) * 86_400 + Int64(seconds)
    }
}
