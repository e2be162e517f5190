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
        if let type = r.contentType?.lowercased(), !type.hasPrefix("text/calendar") {
            throw DAVRefusal(status: 415, caldav: "supported-calendar-data", reason: "A to-do is sent as text/calendar.")
        }
        let h = try r.site.store { () throws(StoreError) in try r.site.openForReading() }
        let state = try r.site.davState(h)
        guard DAVRead.exists(c, state) else { throw DAVRefusal(status: 409, reason: "There is no such list.") }
        let items = state.items(c, member: r.member)
        let existing = items.first { $0.name == name }
        let calendar: ICalComponent
        let sent: VTodo
        do {
            calendar = try ICalendarReader.parse(r.body, maxBytes: DAVRoutes.maxICalendar)
            // RFC 4791 §5.3.2.1: a component these collections do not take has its own precondition.
            if let other = calendar.components.first(where: { $0.name != "VTODO" && $0.name != "VTIMEZONE" }) {
                throw DAVRefusal(
                    status: 403, caldav: "supported-calendar-component",
                    reason: "These lists hold to-dos only (VTODO), not \(other.name).")
            }
            sent = try VTodo.read(calendar, householdZone: state.zone, zoneNamed: HouseholdZone.load, generatedTurnLine: existing?.turnLine)
        } catch let refusal as DAVRefusal {
            throw refusal
        } catch let error as ICalendarError {
            throw DAVRefusal.calendarData(error.reason)
        }
        if r.ifNoneMatch?.trimmed() == "*", existing != nil {
            throw DAVRefusal.precondition("A to-do already exists at this address.")
        }
        guard let existing else {
            if r.ifMatch != nil { throw DAVRefusal.precondition("There is no to-do at this address any more.") }
            return try create(r, c, name: name, sent: sent, state: state, items: items)
        }
        // The version the client started from: the X-TODO-VERSION its body kept (what its data
        // was made from), else its If-Match. An If-Match the server cannot know is a 412, and so
        // is a body's version it cannot know without an If-Match; neither: the current item.
        var base: Task?
        var matched: Task?
        if let tag = r.ifMatch?.trimmed(), tag != "*" {
            guard let blob = blob(ofETag: tag) else { throw DAVRefusal.precondition("This version of the to-do is unknown here.") }
            matched = try baseTask(r, h, blob: blob, id: existing.task)
        }
        if let version = sent.version, version != existing.blob {
            let snap = try r.site.store { () throws(StoreError) in try h.snapshot() }
            base = snap.task(blob: version, id: existing.task)
            // A version that is no version of this task, and no If-Match to go by: unknown.
            if base == nil && matched == nil { throw DAVRefusal.precondition("This version of the to-do is unknown here.") }
        }
        base = base ?? matched
        let baseItem: VTodo
        if let base {
            guard let v = DAVRender.vtodo(of: base, kind: existing.kind, member: r.member, state: state) else {
                throw DAVRefusal.precondition("This version of the to-do is unknown here.")
            }
            baseItem = DAVApply.effectiveBase(v, current: existing.vtodo, sent: sent)
        } else {
            baseItem = existing.vtodo
        }
        let outcome = try change(r, existing, base: base, verb: verb(sent, was: existing.vtodo)) { t, stamp, context, today in
            switch existing.kind {
            case .task:
                var fields = try DAVApply.task(sent, against: baseItem, to: &t, stamp: stamp, name: name, member: r.member)
                // A task moved into Mine from Household becomes the member's (never a chore's turn).
                if c == .mine, t.assignee != r.member, !fields.isEmpty, t.recurrence == nil {
                    try t.write("assignee", .string(r.member), stamp: stamp)
                    fields.append("assignee")
                }
                return fields
            case .occurrence(let date):
                return try DAVApply.occurrence(
                    sent, against: baseItem, date: date, to: &t, stamp: stamp, member: r.member, context: context, today: today,
                    zone: state.zone)
            case .item(let key):
                return try DAVApply.item(sent, against: baseItem, key: key, to: &t, stamp: stamp)
            }
        }
        r.site.afterChange(commit: outcome.commit)
        return try answer(r, c, name: name, sent: sent, status: 204)
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
        if let tag = r.ifMatch?.trimmed(), tag != "*", blob(ofETag: tag) == nil {
            throw DAVRefusal.precondition("This version of the to-do is unknown here.")
        }
        let verb: String
        switch item.kind {
        case .task: verb = item.vtodo.status == .completed ? "clear" : "delete"
        case .occurrence: verb = item.vtodo.status == .needsAction || item.vtodo.status == .inProcess ? "skip" : "clear"
        case .item: verb = "edit"
        }
        let outcome = try change(r, item, base: nil, verb: verb) { t, stamp, context, today in
            var record = CalDAVRecord(t)
            switch item.kind {
            case .task:
                if t.status == .done {
                    record.hide("", from: r.member)
                    try t.write(CalDAVRecord.field, record.json, stamp: stamp)
                    return [CalDAVRecord.field]
                }
                try t.write("deleted", .bool(true), stamp: stamp)
                return ["deleted"]
            case .occurrence(let date):
                if item.vtodo.status == .needsAction || item.vtodo.status == .inProcess {
                    t.setOccurrence(date, .skipped, stamp: stamp)
                    return [date.description]
                }
                record.hide(date.description, from: r.member)
                try t.write(CalDAVRecord.field, record.json, stamp: stamp)
                return [CalDAVRecord.field]
            case .item(let key):
                guard var entry = t.checklist.first(where: { $0.key == key }) else { return [] }
                entry.state = .removed
                entry.stamp = stamp
                t.setItem(entry)
                return ["item"]
            }
        }
        r.site.afterChange(commit: outcome.commit)
        return Response(status: .noContent)
    }

    // MARK: Creating

    static func create(
        _ r: DAVRequest, _ c: DAVCollection, name: String, sent: VTodo, state: DAVState, items: [DAVItem]
    ) throws -> Response {
        if items.contains(where: { $0.vtodo.uid == sent.uid }) {
            throw DAVRefusal(status: 403, caldav: "no-uid-conflict", reason: "Another to-do of this list has the same UID.")
        }
        if case .list(let id) = c {
            guard state.task(id) != nil else { throw DAVRefusal(status: 409, reason: "There is no such list.") }
            let listItem = DAVItem(
                name: name, task: id, kind: .task, blob: state.blobs[id] ?? "", vtodo: sent, turnLine: nil, bytes: [])
            let outcome = try change(r, listItem, base: nil, verb: "edit") { t, stamp, _, _ in
                try DAVApply.addItem(sent, name: name, to: &t, stamp: stamp)
            }
            r.site.afterChange(commit: outcome.commit)
            return try answer(r, c, name: name, sent: sent, status: 201)
        }
        // The same UID elsewhere: a move (Apple sends DELETE and PUT); the task keeps its id.
        if let moved = state.tasks.first(where: { $0.id != HouseholdSettings.id && uid(of: $0) == sent.uid }) {
            let item = DAVItem(name: name, task: moved.id, kind: .task, blob: state.blobs[moved.id] ?? "", vtodo: sent, turnLine: nil, bytes: [])
            let outcome = try change(r, item, base: nil, verb: "edit") { t, stamp, _, _ in
                guard t.recurrence == nil else {
                    throw DAVRefusal.object("A repeating chore's occurrences cannot be moved between lists.")
                }
                var before = DAVRender.base(t, CalDAVRecord(t).item)
                before.uid = sent.uid
                before.due = t.due
                if t.status == .done { before.status = .completed }
                var fields = try DAVApply.task(sent, against: before, to: &t, stamp: stamp, name: name, member: r.member)
                if t.deleted {
                    try t.write("deleted", .bool(false), stamp: stamp)
                    fields.append("deleted")
                }
                if c == .mine, t.assignee != r.member {
                    try t.write("assignee", .string(r.member), stamp: stamp)
                    fields.append("assignee")
                }
                var record = CalDAVRecord(t)
                if record.item.href != name {
                    record.item.href = name
                    try t.write(CalDAVRecord.field, record.json, stamp: stamp)
                    fields.append(CalDAVRecord.field)
                }
                return fields
            }
            r.site.afterChange(commit: outcome.commit)
            return try answer(r, c, name: name, sent: sent, status: 201)
        }
        guard case .success(let title) = FieldRules.title(sent.summary) else { throw DAVRefusal.object("The title is empty or too long.") }
        guard case .success(let notes) = FieldRules.notes(sent.notes) else { throw DAVRefusal.object("The notes are too long.") }
        var new = NewTask(title: title)
        new.notes = notes
        new.assignee = c == .mine ? r.member : nil
        new.due = sent.due
        new.priority = sent.priority
        new.tags = try DAVApply.tags(sent.categories)
        new.alarm = sent.alarm
        if sent.rrule != nil || sent.rruleText != nil {
            guard let rule = sent.rrule.flatMap(RepeatRule.init) else {
                let text = sent.rruleText ?? ""
                throw DAVRefusal.object("The repeat rule \(text) cannot be kept: daily, weekly (or on weekdays) and monthly rules with an interval can.")
            }
            new.recurrence = Recurrence(rule: rule, from: sent.due?.date ?? state.today)
        }
        var record = CalDAVRecord()
        record.item = CalDAVRecord.Entry(uid: sent.uid, href: name, kept: try DAVApply.kept(sent.kept))
        new.caldav = record.json
        // A UID that is a task id of ours never names a new task: the client's UID is kept as is.
        let added = try DAVRefusal.storing(r.site) { () throws(StoreError) in try r.site.openForChange(member: r.member).add(new) }
        var commit = added.commit
        if sent.status == .completed, new.recurrence == nil, let id = added.tasks.first?.task.id {
            let done = try DAVRefusal.storing(r.site) { () throws(StoreError) in
                try r.site.openForChange(member: r.member).deviceChange(id, base: nil, verb: "done") { t, stamp, _, _ in
                    do { try t.write("status", .string("done"), stamp: stamp) } catch { return [] }
                    return ["status"]
                }
            }
            commit = done.commit ?? commit
        }
        r.site.afterChange(commit: commit)
        return try answer(r, c, name: name, sent: sent, status: 201)
    }

    // MARK: Helpers

    /// Runs a device change on the item's task as the member; a refusal inside stays a refusal.
    static func change(
        _ r: DAVRequest, _ item: DAVItem, base: Task?, verb: String,
        _ apply: @escaping (inout Task, FieldStamp, TurnContext, CivilDate) throws -> [String]
    ) throws -> ChangeOutcome {
        var refusal: DAVRefusal?
        let outcome = try DAVRefusal.storing(r.site) { () throws(StoreError) in
            try r.site.openForChange(member: r.member).deviceChange(item.task, base: base, verb: verb) { t, stamp, context, today throws(StoreError) in
                do {
                    return try apply(&t, stamp, context, today)
                } catch let e as DAVRefusal {
                    refusal = e
                    return []
                } catch let e as StoreError {
                    throw e
                } catch {
                    refusal = DAVRefusal.object("The to-do cannot be stored: \(error).")
                    return []
                }
            }
        }
        if let refusal { throw refusal }
        return outcome
    }

    /// The answer to a PUT: the item's ETag only when the stored item is byte for byte what
    /// was sent (RFC 4791 §5.3.4), so a client fetches a merged or adjusted item (and with it
    /// the server's X-TODO-VERSION).
    static func answer(_ r: DAVRequest, _ c: DAVCollection, name: String, sent: VTodo, status: Int) throws -> Response {
        let h = try r.site.store { () throws(StoreError) in try r.site.openForReading() }
        let state = try r.site.davState(h)
        var headers: HTTPFields = [:]
        if let item = state.items(c, member: r.member).first(where: { $0.name == name }), item.bytes == r.body {
            headers[.eTag] = item.etag
        }
        return Response(status: .init(code: status), headers: headers)
    }

    static func baseTask(_ r: DAVRequest, _ h: HouseholdReader, blob: String, id: TaskID) throws -> Task {
        let snap = try r.site.store { () throws(StoreError) in try h.snapshot() }
        guard let t = snap.task(blob: blob, id: id) else { throw DAVRefusal.precondition("This version of the to-do is unknown here.") }
        return t
    }

    /// The blob an ETag of ours names; nil for any other tag.
    static func blob(ofETag tag: String) -> String? {
        var t = Substring(tag)
        if t.hasPrefix("W/") { t = t.dropFirst(2) }
        guard t.hasPrefix("\""), t.hasSuffix("\""), t.count >= 2 else { return nil }
        let inner = t.dropFirst().dropLast()
        let blob = inner.split(separator: ".").first.map(String.init) ?? ""
        guard blob.utf8.count == 40, blob.utf8.allSatisfy(isLowerHex) else { return nil }
        return blob
    }

    /// The commit's verb, as the CLI's for the same change: `done`, `reopen`, `skip`, else `edit`.
    static func verb(_ sent: VTodo, was: VTodo) -> String {
        guard sent.status != was.status else { return "edit" }
        switch sent.status {
        case .completed: return "done"
        case .cancelled: return "skip"
        case .needsAction, .inProcess: return "reopen"
        }
    }

    static func uid(of t: Task) -> String { CalDAVRecord(t).item.uid ?? t.id.hex }
}
