import TodoCore

/// What `done` or `skip` does to a chore's current occurrence.
public enum OccurrenceAction: String, Sendable {
    case done, skip

    var state: OccurrenceState { self == .done ? .done : .skipped }
}

extension Task {
    /// A chore with a rotation: `--assign` gives the current occurrence, not the whole chore.
    var takesTurns: Bool { isChore && !rotation.isEmpty }
}

extension Household {
    /// `done` (plain tasks: marked done; chores: the current occurrence completed) or `skip`
    /// (chores only), in one commit. With `through`, every open occurrence up to that date is
    /// marked, or the current one alone when it is later. A chore's fields name the occurrence
    /// dates written (`YYYY-MM-DD`); a plain task's, `status`.
    public func complete(_ ids: [String], _ action: OccurrenceAction, through: CivilDate? = nil) throws(StoreError)
        -> ChangeOutcome
    {
        try change(ids: ids, verb: action.rawValue) { task, stamp in
            guard task.isChore else {
                guard action == .done else { throw StoreError.notAChore(String(task.id.hex.prefix(8))) }
                guard task.status != .done else { return [] }
                try task.write("status", .string("done"), stamp: stamp)
                return ["status"]
            }
            guard let current = task.currentOccurrence else { return [] }
            var dates = [current]
            if let through, current <= through {
                // Bounded: at most one year of daily occurrences past the current one.
                dates = task.upcomingOccurrences(366 * 2).filter { $0 <= through }
            }
            for d in dates { task.setOccurrence(d, action.state, stamp: stamp) }
            return dates.map(\.description)
        }
    }

    /// `reopen` of a chore: the latest done or skipped occurrence is open again; plain tasks as
    /// `set(.reopen)`.
    public func reopen(_ ids: [String]) throws(StoreError) -> ChangeOutcome {
        try change(ids: ids, verb: "reopen") { task, stamp in
            guard task.isChore else {
                guard task.status != .open else { return [] }
                try task.write("status", .string("open"), stamp: stamp)
                return ["status"]
            }
            guard let last = task.occurrenceEntries.filter({ $0.value.state != .open }).keys.max(),
                let date = CivilDate(iso: Substring(last))
            else { return [] }
            task.setOccurrence(date, .open, stamp: stamp)
            return [last]
        }
    }

    /// A new task's chore and checklist fields.
    static func addChoreFields(_ new: NewTask, to task: inout Task, stamp: FieldStamp) {
        if let r = new.recurrence {
            task.setRecurrence(r, stamp: stamp)
            if !new.rotation.isEmpty { task.setRotation(new.rotation, stamp: stamp) }
        }
        for (n, text) in new.items.enumerated() { addItem(text, to: &task, stamp: stamp, position: n) }
    }

    /// The `added` stamp of the item at `position` among those one command adds: the counter
    /// goes up by one per item, so they keep the order given.
    static func addedStamp(_ stamp: FieldStamp, position: Int) -> FieldStamp {
        let (counter, overflow) = stamp.stamp.counter.addingReportingOverflow(UInt32(clamping: position))
        if overflow || position < 0 { return stamp }
        var s = stamp
        s.stamp.counter = counter
        return s
    }

    /// Adds (or re-adds) an item; false when it is already there and not removed.
    @discardableResult
    static func addItem(_ text: String, to task: inout Task, stamp: FieldStamp, position: Int = 0) -> Bool {
        let clean = Checklist.normalised(text)
        let key = Checklist.key(clean)
        if let old = task.checklist.first(where: { $0.key == key }) {
            if old.state != .removed { return false }
            task.setItem(ChecklistItem(key: key, state: .open, text: clean, added: old.added, stamp: stamp))
        } else {
            task.setItem(
                ChecklistItem(key: key, state: .open, text: clean, added: addedStamp(stamp, position: position), stamp: stamp))
        }
        return true
    }

    /// The item a person named: a 1-based index among the items shown, or the text.
    static func findItem(_ name: String, in task: Task) throws(StoreError) -> ChecklistItem {
        let visible = task.visibleItems
        if let n = Int(name), n >= 1, n <= visible.count { return visible[n - 1] }
        let key = Checklist.key(name)
        guard let item = task.checklist.first(where: { $0.key == key && $0.state != .removed }) else {
            throw StoreError.itemNotFound(task: String(task.id.hex.prefix(8)), item: name)
        }
        return item
    }

    /// The chore and checklist parts of `edit`; returns the fields written (`repeat`,
    /// `rotation`, `turn` for a take-over of the current occurrence, `+item`, `x item`, `-item`).
    static func editChoreFields(_ edit: TaskEdit, of task: inout Task, stamp: FieldStamp) throws -> [String] {
        var fields: [String] = []
        switch edit.recurrence {
        case .set(let r)? where task.recurrence != r:
            task.setRecurrence(r, stamp: stamp)
            fields.append("repeat")
        case .clear? where task.isChore:
            task.setRecurrence(nil, stamp: stamp)
            fields.append("repeat")
        default: break
        }
        if let names = edit.rotation, names != task.rotation {
            task.setRotation(names, stamp: stamp)
            fields.append("rotation")
        }
        // On a rotating chore, --assign takes over the current occurrence only.
        if case .set(let who)? = edit.assignee, task.takesTurns, let current = task.currentOccurrence,
            task.turn(on: current) != who
        {
            task.setTurn(current, who, stamp: stamp)
            fields.append("turn")
        }
        // Resolve every name first, against the items as they were: indexes stay those `show` printed.
        let checks = try edit.checkItems.map { name throws(StoreError) in try findItem(name, in: task) }
        let unchecks = try edit.uncheckItems.map { name throws(StoreError) in try findItem(name, in: task) }
        let removals = try edit.removeItems.map { name throws(StoreError) in try findItem(name, in: task) }
        // Checked and unchecked in one edit says two things; a removal after either is one.
        let checked = Set(checks.map(\.key))
        if let both = unchecks.first(where: { checked.contains($0.key) }) {
            throw StoreError.itemCheckedAndUnchecked(task: String(task.id.hex.prefix(8)), item: both.text)
        }
        for (n, text) in edit.addItems.enumerated() where addItem(text, to: &task, stamp: stamp, position: n) {
            fields.append("+" + Checklist.normalised(text))
        }
        for (items, state, mark) in [(checks, ItemState.checked, "x "), (unchecks, .open, "o "), (removals, .removed, "-")] {
            for var item in items {
                guard let now = task.checklist.first(where: { $0.key == item.key }), now.state != state else { continue }
                item.state = state
                item.stamp = stamp
                task.setItem(item)
                fields.append(mark + item.text)
            }
        }
        return fields
    }
}

extension Household {
    /// A new imported task's rule, occurrences, take-overs and items.
    static func importChore(_ item: ImportedTask, into task: inout Task, stamp: FieldStamp) {
        if let r = item.recurrence {
            task.setRecurrence(r, stamp: stamp)
            if !item.rotation.isEmpty { task.setRotation(item.rotation, stamp: stamp) }
        }
        for o in item.occurrences { task.setOccurrence(o.date, o.state, stamp: stamp) }
        for turn in item.turns { task.setTurn(turn.date, turn.member, stamp: stamp) }
        for (n, i) in item.items.enumerated() where !Checklist.normalised(i.text).isEmpty {
            let key = Checklist.key(i.text)
            task.setItem(ChecklistItem(key: key, state: i.state, text: Checklist.normalised(i.text),
                added: addedStamp(stamp, position: n), stamp: stamp))
        }
    }

    /// Brings a task imported before up to date with the file, as one edit with `stamp`:
    /// fields, tags, rule and occurrences that differ. Returns whether anything changed.
    static func reimport(_ item: ImportedTask, into task: inout Task, stamp: FieldStamp) -> Bool {
        var changed = false
        let values: [(String, JSONValue)] = [
            ("title", .string(item.title)), ("status", .string(item.status.rawValue)), ("notes", .string(item.notes)),
            ("assignee", item.assignee.map { .string($0) } ?? .null), ("due", item.due.map { .string($0.description) } ?? .null),
            ("priority", .string(item.priority.rawValue)), ("deleted", .bool(item.deleted)),
        ]
        for (field, value) in values where task.value(of: field) != value {
            try? task.write(field, value, stamp: stamp)
            changed = true
        }
        let wanted = Set(item.tags)
        for (tag, state) in task.tagStates where state.present && !wanted.contains(tag) {
            task.setTag(tag, present: false, stamp: stamp)
            changed = true
        }
        for tag in wanted where task.tagStates[tag]?.present != true {
            task.setTag(tag, present: true, stamp: stamp)
            changed = true
        }
        if item.recurrence != task.recurrence, item.recurrence != nil || task.isChore {
            task.setRecurrence(item.recurrence, stamp: stamp)
            changed = true
        }
        let entries = task.occurrenceEntries
        for o in item.occurrences where entries[o.date.description]?.state != o.state {
            task.setOccurrence(o.date, o.state, stamp: stamp)
            changed = true
        }
        return changed
    }
}
