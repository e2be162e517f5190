import TodoCore

/// Applies a device's edits (`DeviceEdit`) to the version of a task the device started from,
/// by the store's rules: each value checked (`FieldRules`, the kept lines' bounds), each field
/// stamped, the names of the fields written kept for the commit (`fields`).
struct DeviceApply {
    var task: Task
    /// The task as it is now (the device's version may be older).
    let current: Task
    let stamp: FieldStamp
    /// The acting member: credits, hiding and a claim are theirs.
    let member: String
    let context: TurnContext
    let today: CivilDate
    private(set) var fields: [String] = []
    /// Item keys a new text moved to another key, so later edits of the same item follow it.
    private var movedItems: [String: String] = [:]

    init(task: Task, current: Task, stamp: FieldStamp, member: String, context: TurnContext, today: CivilDate) {
        self.task = task
        self.current = current
        self.stamp = stamp
        self.member = member
        self.context = context
        self.today = today
    }

    mutating func apply(_ edit: DeviceEdit) throws(StoreError) {
        switch edit {
        case .title(let text): try write("title", .string(FieldChecks.checked(.title, text, FieldRules.title)))
        case .notes(let text): try write("notes", .string(FieldChecks.checked(.notes, text, FieldRules.notes)))
        case .due(let date): try write("due", date.map { .string($0.description) } ?? .null)
        case .priority(let p): try write("priority", .string(p.rawValue))
        case .alarm(let alarm): try write("alarm", alarm.map { .string($0.text) } ?? .null)
        case .tag(let tag, let present):
            let name = present ? try FieldChecks.checked(.tag, tag, FieldRules.tag) : tag
            task.setTag(name, present: present, stamp: stamp)
            note((present ? "+" : "-") + name)
        case .complete: try write("status", .string("done"))
        case .reopen: try write("status", .string("open"))
        case .delete: try write("deleted", .bool(true))
        case .restore: if task.deleted { try write("deleted", .bool(false)) }
        case .assignToActor: if task.assignee != member { try write("assignee", .string(member)) }
        case .clear:
            if task.status == .done {
                let who = member
                try record { $0.hide("", from: who) }
            } else {
                try write("deleted", .bool(true))
            }
        case .keptLines(let lines):
            let kept = try Self.kept(lines)
            try record { $0.item.kept = kept }
        case .href(let href):
            if CalDAVRecord(task).item.href != href { try record { $0.item.href = href } }
        case .completeOccurrence(let date, let day):
            if try task.deviceComplete(date, member: member, day: min(day, today), stamp: stamp, context: context, today: today) {
                note(date.description)
            }
        case .uncompleteOccurrence(let date):
            if task.deviceUncomplete(date, member: member, stamp: stamp, context: context, today: today) { note(date.description) }
        case .reopenOccurrence(let date):
            task.setOccurrence(date, .open, stamp: stamp)
            note(date.description)
        case .skipOccurrence(let date):
            task.setOccurrence(date, .skipped, stamp: stamp)
            note(date.description)
        case .hideOccurrence(let date):
            let who = member
            try record { $0.hide(date.description, from: who) }
        case .occurrenceKeptLines(let date, let lines):
            let kept = try Self.kept(lines)
            try record { r in
                var entry = r.occurrences[date.description] ?? CalDAVRecord.Entry()
                entry.kept = kept
                r.occurrences[date.description] = entry
            }
        case .itemText(let key, let text): try itemText(key, text)
        case .itemChecked(let key, let checked):
            var item = try item(key)
            guard checked != (item.state == .checked) else { return }
            item.state = checked ? .checked : .open
            setItem(item)
        case .removeItem(let key):
            guard var item = try? item(key) else { return }  // not on the list: nothing to remove
            item.state = .removed
            setItem(item)
        case .itemKeptLines(let key, let lines):
            let kept = try Self.kept(lines)
            let item = try item(key)
            try record { r in
                var entry = r.items[item.key] ?? CalDAVRecord.Entry()
                entry.kept = kept
                r.items[item.key] = entry.isEmpty ? nil : entry
            }
        case .addItem(let text, let checked, let uid, let href, let kept):
            let clean = try FieldChecks.checked(.item, text, FieldRules.item)
            let lines = try Self.kept(kept)
            let key = Checklist.key(clean)
            let existing = task.checklist.first { $0.key == key }
            // On the list already: not added again; its text and tick stay (as `--add-item`).
            if let existing, existing.state != .removed { return }
            setItem(
                ChecklistItem(key: key, state: checked ? .checked : .open, text: clean, added: existing?.added ?? stamp, stamp: stamp),
                keepRemoved: false)
            try record { $0.items[key] = CalDAVRecord.Entry(uid: uid, href: href, kept: lines) }
        }
    }

    // MARK: Checklist items

    /// The item `key` names now (following a new text's new key).
    private func item(_ key: String) throws(StoreError) -> ChecklistItem {
        let now = movedItems[key] ?? key
        guard let item = task.checklist.first(where: { $0.key == now }) else {
            throw StoreError.itemNotFound(task: String(task.id.hex.prefix(8)), item: Household.itemKeyPrefix + now)
        }
        return item
    }

    /// Writes `item`, stamped. An item someone removed meanwhile stays removed (with the
    /// device's text): a device's edit never brings back what another member took off the list.
    private mutating func setItem(_ item: ChecklistItem, keepRemoved: Bool = true) {
        var item = item
        item.stamp = stamp
        if keepRemoved, wasRemoved(item.key) { item.state = .removed }
        task.setItem(item)
        note("item")
    }

    /// Whether the item `key` is removed in the task as it is now.
    private func wasRemoved(_ key: String) -> Bool { current.checklist.first { $0.key == key }?.state == .removed }

    private mutating func itemText(_ key: String, _ text: String) throws(StoreError) {
        let clean = try FieldChecks.checked(.item, text, FieldRules.item)
        var item = try item(key)
        let newKey = Checklist.key(clean)
        if newKey == item.key {
            item.text = clean
            setItem(item)
            return
        }
        // Another key: the old item is removed and the new one takes its place in the order
        // (its `added` stamp), its UID and its address.
        var old = item
        old.state = .removed
        setItem(old)
        let existing = task.checklist.first { $0.key == newKey }
        let state = wasRemoved(item.key) ? .removed : item.state
        setItem(ChecklistItem(key: newKey, state: state, text: clean, added: existing?.added ?? item.added, stamp: stamp), keepRemoved: false)
        let id = task.id.hex
        try record { r in
            var entry = r.items[item.key] ?? CalDAVRecord.Entry()
            if entry.uid == nil { entry.uid = "\(id)-\(item.key)" }
            if entry.href == nil { entry.href = "\(id)-\(item.key).ics" }
            r.items[item.key] = nil
            r.items[newKey] = entry
        }
        movedItems[key] = newKey
    }

    // MARK: Fields

    private mutating func write(_ field: String, _ value: JSONValue) throws(StoreError) {
        do {
            try task.write(field, value, stamp: stamp)
        } catch {
            throw StoreError.malformedTask(path: task.id.path, reason: "\(error)")
        }
        note(field)
    }

    private mutating func record(_ change: (inout CalDAVRecord) -> Void) throws(StoreError) {
        var r = CalDAVRecord(task)
        change(&r)
        try write(CalDAVRecord.field, r.json)
    }

    private mutating func note(_ field: String) {
        if !fields.contains(field) { fields.append(field) }
    }

    /// Kept property lines, within the record's bounds (docs/CALDAV.md).
    static func kept(_ lines: [String]) throws(StoreError) -> [String] {
        guard lines.count <= CalDAVRecord.maxKeptLines else {
            throw StoreError.fieldRefused(field: .keptLines, value: "", problem: .tooLong(limit: CalDAVRecord.maxKeptLines))
        }
        guard lines.allSatisfy({ $0.utf8.count <= CalDAVRecord.maxKeptLine }) else {
            throw StoreError.fieldRefused(field: .keptLines, value: "", problem: .tooLong(limit: CalDAVRecord.maxKeptLine))
        }
        return lines
    }
}

extension Task {
    /// A device's tick of occurrence `date`: a completion by `member`, credited for `day` (the
    /// household day of the device's COMPLETED time, as `done --on`). Nothing when the member
    /// already has a credit on that date.
    /// A turn after today that is not the current occurrence is not yet due, as for `done --on`.
    mutating func deviceComplete(_ date: CivilDate, member: String, day: CivilDate, stamp: FieldStamp, context: TurnContext, today: CivilDate)
        throws(StoreError) -> Bool
    {
        guard let r = recurrence else { return false }
        let schedule = ChoreSchedule(self, recurrence: r, today: today, context: context)
        guard try schedule.takesCredit(on: date, by: member, task: String(id.hex.prefix(8))) else { return false }
        complete(date, member: member, day: day, stamp: stamp)
        return true
    }

    /// A device's un-tick of occurrence `date`: only `member`'s own credits on it are taken
    /// back; the occurrence is open again when no other credit stands on it.
    mutating func deviceUncomplete(_ date: CivilDate, member: String, stamp: FieldStamp, context: TurnContext, today: CivilDate) -> Bool {
        guard let r = recurrence else { return false }
        let schedule = ChoreSchedule(self, recurrence: r, today: today, context: context)
        let credits = schedule.credits(on: date)
        let mine = credits.filter { $0.member == member }
        guard !mine.isEmpty else { return false }
        for c in mine { if let key = c.key { setCompletion(key, .undone, stamp: stamp) } }
        if mine.count == credits.count { setOccurrence(date, .open, stamp: stamp) }
        return true
    }
}
