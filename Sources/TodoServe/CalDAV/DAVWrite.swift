import HTTPTypes
import Hummingbird
import NIOCore
import TodoCore
import TodoStore

/// PUT and DELETE (docs/CALDAV.md, "Changes from a client"): each one commit by the member,
/// through the store's device changes; refused whole when it cannot be mapped.
enum DAVWrite {
    static func put(_ r: DAVRequest) throws -> Response {
        guard case .item(_, let c, let name) = r.path else {
            throw DAVRefusal(status: 405, reason: "A to-do is written at its own address inside a list.")
        }
        if let refusal = refusal(ofName: name) { throw refusal }
        if let type = r.contentType?.lowercased(), !type.hasPrefix("text/calendar") {
            throw DAVRefusal(status: 415, caldav: "supported-calendar-data", reason: "A to-do is sent as text/calendar.")
        }
        let h = try r.site.store { () throws(StoreError) in try r.site.openForReading() }
        let state = try r.site.davState(h)
        guard DAVRead.exists(c, state) else { throw DAVRefusal(status: 409, reason: "There is no such list.") }
        let items = state.items(c, member: r.member)
        let existing = items.first { $0.name == name }
        // An address this collection served for a task or item that is no longer in it (done,
        // deleted, in another member's Mine, an item removed): the PUT still goes to that task.
        let served = existing == nil ? servedItem(name, in: c, member: r.member, state: state) : nil
        let calendar: ICalComponent
        var sent: VTodo
        do {
            calendar = try ICalendarReader.parse(r.body, maxBytes: DAVRoutes.maxICalendar)
            // RFC 4791 §5.3.2.1: a component these collections do not take has its own precondition.
            if let other = calendar.components.first(where: { $0.name != "VTODO" && $0.name != "VTIMEZONE" }) {
                throw DAVRefusal(
                    status: 403, caldav: "supported-calendar-component",
                    reason: "These lists hold to-dos only (VTODO), not \(other.name).")
            }
            sent = try VTodo.read(
                calendar, householdZone: state.zone, zoneNamed: HouseholdZone.load,
                generatedTurnLine: existing?.turnLine ?? served?.turnLine)
        } catch let refusal as DAVRefusal {
            throw refusal
        } catch let error as ICalendarError {
            throw DAVRefusal.calendarData(error.reason)
        }
        if r.ifNoneMatch?.trimmed() == "*", existing != nil {
            throw DAVRefusal.precondition("A to-do already exists at this address.")
        }
        let statement = VTodo.statement(calendar, householdZone: state.zone, zoneNamed: HouseholdZone.load)
        guard let existing else {
            // The task or item an address of this collection stood for, else (the same UID at
            // a new address) the task holding that UID: unless the PUT is a client's move
            // (`isMove`), the edit goes to it where it is, and it is not brought back.
            let elsewhere = served.flatMap { $0.vtodo.uid == sent.uid ? $0 : nil } ?? (served == nil ? held(sent.uid, name: name, state: state) : nil)
            if let elsewhere, try !isMove(r, elsewhere, into: c, version: sent.version, state: state, h) {
                return try applyElsewhere(r, elsewhere, sent: sent, statement: statement, state: state, h)
            }
            if r.ifMatch != nil { throw DAVRefusal.precondition("There is no to-do at this address any more.") }
            return try create(r, c, name: name, sent: sent, state: state, items: items)
        }
        let (base, baseItem) = try baseOf(r, existing, sent: sent, statement: statement, state: state, h)
        sent = sent.unescapingServed(existing.vtodo).unescapingServed(baseItem)
        if base == nil {
            sent = sent.withoutBase(current: existing.vtodo, statesStatus: statement.statesStatus, modified: statement.modified)
        }
        let effective = base == nil ? baseItem : DAVApply.effectiveBase(baseItem, current: existing.vtodo, sent: sent)
        let edits = try apply(sent, against: effective, kind: existing.kind, task: existing.task, state: state)
        // A task edited in Mine becomes the member's (never a chore's turn).
        let claim = existing.kind == .task && c == .mine
        let outcome = try change(r, existing, base: base, verb: verb(sent, was: existing.vtodo), DeviceChange(edits, claim: claim))
        r.site.afterChange(commit: outcome.commit)
        return try answer(r, c, name: name, sent: sent, status: 204)
    }

    /// The version a PUT's client started from, and the item it had then (docs/CALDAV.md,
    /// "The base of a PUT"): the X-TODO-VERSION its body kept (what its data was made from),
    /// else its If-Match. An If-Match the server cannot know is a 412, and so is a body's
    /// version it cannot know without an If-Match. Neither: no base, and the item is the
    /// current one, the body read by the rules for a PUT without a base.
    static func baseOf(
        _ r: DAVRequest, _ item: DAVItem, sent: VTodo, statement: (statesStatus: Bool, modified: Int64?), state: DAVState,
        _ h: HouseholdReader
    ) throws -> (Task?, VTodo) {
        var base: Task?
        var matched: Task?
        if let tag = r.ifMatch?.trimmed(), tag != "*" {
            guard let blob = blob(ofETag: tag) else { throw DAVRefusal.precondition("This version of the to-do is unknown here.") }
            matched = try baseTask(r, h, blob: blob, id: item.task)
        }
        if let version = sent.version, version != item.blob {
            let snap = try r.site.store { () throws(StoreError) in try h.snapshot() }
            base = snap.task(blob: version, id: item.task)
            // A version that is no version of this task, and no If-Match to go by: unknown.
            if base == nil && matched == nil { throw DAVRefusal.precondition("This version of the to-do is unknown here.") }
        } else if sent.version != nil, sent.version == item.blob {
            // The body names the current version: that is its base.
            base = state.task(item.task)
        }
        base = base ?? matched
        guard let base else { return (nil, item.vtodo) }
        guard let v = DAVRender.vtodo(of: base, kind: item.kind, member: r.member, state: state) else {
            throw DAVRefusal.precondition("This version of the to-do is unknown here.")
        }
        return (base, v)
    }

    /// A PUT to an address that is no longer in the collection, for a task or item that still
    /// is in the household: applied to it as to an item still there, never creating one; the
    /// task stays where it is (done, deleted, in another member's Mine, the item removed).
    /// 204 without an ETag: the address holds nothing to fetch.
    static func applyElsewhere(
        _ r: DAVRequest, _ item: DAVItem, sent sentAsRead: VTodo, statement: (statesStatus: Bool, modified: Int64?),
        state: DAVState, _ h: HouseholdReader
    ) throws -> Response {
        guard let current = state.task(item.task),
            let now = DAVRender.vtodo(of: current, kind: item.kind, member: r.member, state: state)
        else { throw DAVRefusal(status: 409, reason: "The to-do is no longer in the household.") }
        let live = DAVItem(
            name: item.name, task: item.task, kind: item.kind, blob: state.blobs[item.task] ?? "", vtodo: now, turnLine: item.turnLine,
            bytes: [])
        let (found, baseItem) = try baseOf(r, live, sent: sentAsRead, statement: statement, state: state, h)
        var base = found
        var sent = sentAsRead.unescapingServed(now).unescapingServed(baseItem)
        if base == nil {
            sent = sent.withoutBase(current: now, statesStatus: statement.statesStatus, modified: statement.modified)
        } else if base == current {
            base = nil
        }
        // A field the task already has as sent is no change (the same PUT twice changes nothing).
        let effective = base == nil ? baseItem : DAVApply.effectiveBase(baseItem, current: now, sent: sent)
        // An item someone removed stays removed, with the client's text (the store's rule).
        let edits = try apply(sent, against: effective, kind: item.kind, task: item.task, state: state)
        let outcome = try change(r, live, base: base, verb: verb(sent, was: baseItem), DeviceChange(edits))
        r.site.afterChange(commit: outcome.commit)
        return Response(status: .noContent)
    }

    /// What a client changed in one item of `kind`, as the store's device edits.
    static func apply(_ sent: VTodo, against base: VTodo, kind: DAVItemKind, task: TaskID, state: DAVState) throws -> [DeviceEdit] {
        switch kind {
        case .task:
            return try DAVApply.task(sent, against: base, currentDone: state.task(task)?.status == .done)
        case .occurrence(let date):
            return try DAVApply.occurrence(sent, against: base, date: date, today: state.today, zone: state.zone)
        case .item(let key):
            return try DAVApply.item(sent, against: base, key: key)
        }
    }

    /// Whether a PUT of a task's UID at a new address is a client's move (Apple's DELETE then
    /// PUT, or PUT then DELETE), which brings the task to this collection: without If-Match,
    /// of a task still in one of the member's lists, or one the member's own CalDAV DELETE
    /// deleted, unless the body's version of the task was in this collection (then the client
    /// is sending an edit of what it was served here). Any other PUT to such a task is an
    /// edit that leaves it where it is.
    static func isMove(
        _ r: DAVRequest, _ item: DAVItem, into c: DAVCollection, version: String?, state: DAVState, _ h: HouseholdReader
    ) throws -> Bool {
        guard case .task = item.kind, r.ifMatch == nil, let t = state.task(item.task), t.recurrence == nil else { return false }
        if let version {
            let snap = try r.site.store { () throws(StoreError) in try h.snapshot() }
            if let base = snap.task(blob: version, id: t.id),
                DAVRender.items(of: base, in: c, member: r.member, state: state).contains(where: { $0.kind == .task })
            {
                return false
            }
        }
        if t.deleted {
            guard let stamp = t.deletedStamp else { return false }
            return stamp.member == r.member && stamp.stamp.replica == r.site.replica
        }
        return [DAVCollection.mine, .household].contains { c in
            state.items(c, member: r.member).contains { $0.task == t.id && $0.kind == .task }
        }
    }

    /// The task (not a chore) whose own UID is `uid`, as an item at `name`.
    static func held(_ uid: String, name: String, state: DAVState) -> DAVItem? {
        guard let t = state.tasks.first(where: { $0.id != HouseholdSettings.id && $0.recurrence == nil && Self.uid(of: $0) == uid }) else {
            return nil
        }
        return DAVItem(
            name: name, task: t.id, kind: .task, blob: state.blobs[t.id] ?? "", vtodo: DAVRender.taskVTodo(t, record: CalDAVRecord(t)),
            turnLine: nil, bytes: [])
    }

    /// The item an address of `collection` stood for, when it is no longer there: a task's
    /// (its client's href, else its UID's), an occurrence's (`<base>-<YYYYMMDD>.ics`) or a
    /// checklist item's, of a task the household still holds (deleted ones included).
    static func servedItem(_ name: String, in collection: DAVCollection, member: String, state: DAVState) -> DAVItem? {
        func item(_ t: Task, _ kind: DAVItemKind, _ v: VTodo, turnLine: String? = nil) -> DAVItem {
            DAVItem(name: name, task: t.id, kind: kind, blob: state.blobs[t.id] ?? "", vtodo: v, turnLine: turnLine, bytes: [])
        }
        switch collection {
        case .list(let id):
            guard let t = state.task(id) else { return nil }
            let record = CalDAVRecord(t)
            for i in t.checklist {
                let v = DAVRender.checklistVTodo(t, i, record: record)
                if (record.items[i.key]?.href ?? (v.uid + ".ics")) == name { return item(t, .item(i.key), v) }
            }
            return nil
        case .mine, .household:
            guard name.hasSuffix(".ics") else { return nil }
            let stem = String(name.dropLast(4))
            for t in state.tasks where t.id != HouseholdSettings.id {
                let record = CalDAVRecord(t)
                let base = record.item.uid ?? t.id.hex
                if let r = t.recurrence {
                    guard stem.utf8.count == base.utf8.count + 9, stem.hasPrefix(base + "-"),
                        let date = try? ICalDateTime(String(stem.suffix(8)), tzid: nil).date  // not a date: not an occurrence's name
                    else { continue }
                    let schedule = ChoreSchedule(t, recurrence: r, today: state.today, context: state.context)
                    let v = DAVRender.occurrenceVTodo(t, schedule, date, record: record, member: member)
                    let turn = collection == .household ? schedule.assignee(on: date).map { "Turn: \($0)" } : nil
                    return item(t, .occurrence(date), v, turnLine: turn)
                }
                if (record.item.href ?? (base + ".ics")) == name { return item(t, .task, DAVRender.taskVTodo(t, record: record)) }
            }
            return nil
        }
    }

    /// The address of the item that already has `uid`, for a new to-do in `collection`: an
    /// item of the same collection, an occurrence of a chore or a checklist item (served in
    /// any of the member's lists, or an occurrence's UID on any date). A task's own UID in
    /// another collection is not one: that is a move.
    static func holder(ofUID uid: String, in collection: DAVCollection, _ r: DAVRequest, state: DAVState) -> String? {
        if let same = state.items(collection, member: r.member).first(where: { $0.vtodo.uid == uid }) { return r.href(collection, same) }
        let lists = state.checklists.map { DAVCollection.list($0.id) }
        for c in [DAVCollection.mine, .household] + lists where c != collection {
            if let other = state.items(c, member: r.member).first(where: { $0.vtodo.uid == uid && $0.kind != .task }) {
                return r.href(c, other)
            }
        }
        // An occurrence not served today: `<base>-<YYYYMMDD>` of a chore.
        for t in state.tasks where t.recurrence != nil && !t.deleted {
            let base = CalDAVRecord(t).item.uid ?? t.id.hex
            guard uid.utf8.count == base.utf8.count + 9, uid.hasPrefix(base + "-"),
                (try? ICalDateTime(String(uid.suffix(8)), tzid: nil)) != nil  // not a date: not an occurrence's UID
            else { continue }
            return r.href(.household) + DAVWriter.encodePathSegment(uid + ".ics")
        }
        return nil
    }

    /// Why an item's name cannot be written: `.`, `..`, empty, or holding `/` once
    /// percent-decoded (clients resolve those to the collection or another address).
    static func refusal(ofName name: String) -> DAVRefusal? {
        guard name == "." || name == ".." || name.isEmpty || name.contains("/") else { return nil }
        return DAVRefusal(
            status: 403,
            reason: "A to-do's address cannot be named \".\", \"..\", be empty or hold \"/\": give it another name, such as its UID and .ics.")
    }

    /// The same for the part of an address after `/dav` that names no item because its last
    /// segment is empty or holds `/` once decoded: nil for any other address.
    static func refusal(ofAddress rest: Substring) -> DAVRefusal? {
        let segments = rest.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard segments.count >= 3, DAVKey.isKey(String(segments[segments.startIndex])),
            DAVCollection(segment: String(segments[segments.startIndex + 1])) != nil
        else { return nil }
        let name = segments.dropFirst(2).joined(separator: "/")
        if segments.count == 3, name.isEmpty { return nil }  // the collection itself
        let decoded = percentDecoded(Substring(name))
        return refusal(ofName: decoded)
    }

    static func delete(_ r: DAVRequest) throws -> Response {
        guard case .item(_, let c, let name) = r.path else {
            throw DAVRefusal(status: 403, reason: "Lists come from the household and cannot be deleted here.")
        }
        let h = try r.site.store { () throws(StoreError) in try r.site.openForReading() }
        let state = try r.site.davState(h)
        guard DAVRead.exists(c, state), let item = state.items(c, member: r.member).first(where: { $0.name == name }) else {
            return DAVRoutes.plain(404, "There is no such to-do.")
        }
        // A DELETE is not merged: only the current version is deleted (RFC 9110 §13.1.1).
        if let tag = r.ifMatch?.trimmed(), tag != "*", !matches(tag, item.etag) {
            throw DAVRefusal.precondition("The to-do changed since this version: fetch it again before deleting it.")
        }
        let verb: String
        switch item.kind {
        case .task: verb = item.vtodo.status == .completed ? "clear" : "delete"
        case .occurrence: verb = item.vtodo.status == .needsAction || item.vtodo.status == .inProcess ? "skip" : "clear"
        case .item: verb = "edit"
        }
        let edit: DeviceEdit
        switch item.kind {
        case .task: edit = .clear
        case .occurrence(let date):
            let open = item.vtodo.status == .needsAction || item.vtodo.status == .inProcess
            edit = open ? .skipOccurrence(date) : .hideOccurrence(date)
        case .item(let key): edit = .removeItem(key: key)
        }
        let outcome = try change(r, item, base: nil, verb: verb, DeviceChange([edit]))
        r.site.afterChange(commit: outcome.commit)
        return Response(status: .noContent)
    }
}
