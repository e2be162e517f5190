import HTTPTypes
import Hummingbird
import NIOCore
import TodoCore
import TodoStore

extension DAVWrite {
    // MARK: Creating

    static func create(
        _ r: DAVRequest, _ c: DAVCollection, name: String, sent: VTodo, state: DAVState, items: [DAVItem]
    ) throws -> Response {
        if let href = holder(ofUID: sent.uid, in: c, r, state: state) {
            throw DAVRefusal(
                status: 403, caldav: "no-uid-conflict",
                reason: "The UID \(DisplayText.invisiblesShown(sent.uid)) is already the UID of \(href): give the new to-do another UID.")
        }
        if case .list(let id) = c {
            guard state.task(id) != nil else { throw DAVRefusal(status: 409, reason: "There is no such list.") }
            let listItem = DAVItem(
                name: name, task: id, kind: .task, blob: state.blobs[id] ?? "", vtodo: sent, turnLine: nil, bytes: [])
            let add = DeviceEdit.addItem(text: sent.summary, checked: sent.status == .completed, uid: sent.uid, href: name, kept: sent.kept)
            let outcome = try change(r, listItem, base: nil, verb: "edit", DeviceChange([add]))
            // The store adds no item whose text is already on the list (as `--add-item`).
            guard outcome.tasks.first?.changed == true else {
                throw DAVRefusal(
                    status: 409,
                    reason: "\"\(DisplayText.invisiblesShown(sent.summary))\" is already on the list: tick or edit that item instead.")
            }
            r.site.afterChange(commit: outcome.commit)
            return try answer(r, c, name: name, sent: sent, status: 201)
        }
        // The same UID elsewhere: a move (Apple sends DELETE and PUT); the task keeps its id.
        if let moved = state.tasks.first(where: { $0.id != HouseholdSettings.id && uid(of: $0) == sent.uid }) {
            let item = DAVItem(name: name, task: moved.id, kind: .task, blob: state.blobs[moved.id] ?? "", vtodo: sent, turnLine: nil, bytes: [])
            guard moved.recurrence == nil else {
                throw DAVRefusal.object("A repeating chore's occurrences cannot be moved between lists.")
            }
            var before = DAVRender.base(moved, CalDAVRecord(moved).item)
            before.uid = sent.uid
            before.due = moved.due
            if moved.status == .done { before.status = .completed }
            var edits = try DAVApply.task(sent, against: before)
            edits.append(.restore)
            if c == .mine { edits.append(.assignToActor) }
            edits.append(.href(name))
            let outcome = try change(r, item, base: nil, verb: "edit", DeviceChange(edits))
            r.site.afterChange(commit: outcome.commit)
            return try answer(r, c, name: name, sent: sent, status: 201)
        }
        var new = NewTask(title: sent.summary)
        new.notes = sent.notes
        new.assignee = c == .mine ? r.member : nil
        new.due = sent.due
        new.priority = sent.priority
        new.tags = DAVApply.tags(sent.categories)
        new.alarm = sent.alarm
        if sent.rrule != nil || sent.rruleText != nil {
            guard let rule = sent.rrule.flatMap(RepeatRule.init) else {
                let text = sent.rruleText ?? ""
                throw DAVRefusal.object("The repeat rule \(text) cannot be kept: daily, weekly (or on weekdays) and monthly rules with an interval can.")
            }
            new.recurrence = Recurrence(rule: rule, from: sent.due?.date ?? state.today)
        }
        var record = CalDAVRecord()
        record.item = CalDAVRecord.Entry(uid: sent.uid, href: name, kept: sent.kept)
        new.caldav = record.json
        // A UID that is a task id of ours never names a new task: the client's UID is kept as is.
        let added = try DAVRefusal.storing(r.site) { () throws(StoreError) in try r.site.openForChange(member: r.member).add(new) }
        var commit = added.commit
        if sent.status == .completed, new.recurrence == nil, let id = added.tasks.first?.task.id {
            let done = try DAVRefusal.storing(r.site) { () throws(StoreError) in
                try r.site.openForChange(member: r.member).deviceChange(id, base: nil, verb: "done", DeviceChange([.complete]))
            }
            commit = done.commit ?? commit
        }
        r.site.afterChange(commit: commit)
        return try answer(r, c, name: name, sent: sent, status: 201)
    }

    // MARK: Helpers

    /// Runs a device change on the item's task as the member.
    static func change(_ r: DAVRequest, _ item: DAVItem, base: Task?, verb: String, _ change: DeviceChange) throws -> ChangeOutcome {
        try DAVRefusal.storing(r.site) { () throws(StoreError) in
            try r.site.openForChange(member: r.member).deviceChange(item.task, base: base, verb: verb, change)
        }
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

    /// Whether an If-Match list names `etag` (strong comparison; a weak tag never matches).
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { $0.trimmed() == etag }
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
