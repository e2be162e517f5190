public import TodoCore

/// What `done` or `skip` does to a chore's current occurrence.
public enum OccurrenceAction: String, Sendable {
    case done, skip

    var state: OccurrenceState { self == .done ? .done : .skipped }
}

extension Task {
    /// A chore with a rotation: `--assign` gives the current occurrence, not the whole chore.
    var takesTurns: Bool { isChore && !rotation.isEmpty }
}

extension ChoreSchedule {
    /// Whether `member` doing occurrence `date` adds a credit: not when they already have one
    /// on it (a second `done --on` of the same date says nothing new). A date after today that
    /// is not the current occurrence has not come yet (`done --on`, and a phone's tick).
    func takesCredit(on date: CivilDate, by member: String, task: String) throws(StoreError) -> Bool {
        if date > today && date != current { throw StoreError.notYetDue(task: task, date: date, current: current) }
        return !credits(on: date).contains { $0.member == member }
    }
}

extension Household {
    /// `done` (plain tasks: marked done; chores: the current occurrence completed, credited to
    /// this member on today's date) or `skip` (chores only), in one commit. `on` names one
    /// occurrence instead of the current one (a missed one caught up later). With `all`, a
    /// catch-up chore has every open occurrence up to today marked; a calendar chore has only
    /// the current one due. A chore's fields name the occurrence dates written (`YYYY-MM-DD`); a
    /// plain task's, `status`.
    public func complete(_ ids: [String], _ action: OccurrenceAction, all: Bool = false, on date: CivilDate? = nil)
        throws(StoreError) -> ChangeOutcome
    {
        let today = clock.today
        try Self.mustBeInBounds(date, field: "on")
        return try change(ids: ids, verb: action.rawValue) { task, stamp, context in
            let short = String(task.id.hex.prefix(8))
            guard let r = task.recurrence else {
                guard action == .done, date == nil else { throw StoreError.notAChore(short) }
                guard task.status != .done else { return [] }
                try task.write("status", .string("done"), stamp: stamp)
                return ["status"]
            }
            let schedule = ChoreSchedule(task, recurrence: r, today: today, context: context)
            var dates: [CivilDate]
            if let date {
                guard schedule.occurrences.isOccurrence(date) else { throw StoreError.notAnOccurrence(task: short, date: date) }
                switch action {
                case .done:
                    if try !schedule.takesCredit(on: date, by: stamp.member, task: short) { return [] }
                case .skip:
                    if schedule.status(of: date) == .skipped { return [] }
                }
                dates = [date]
            } else {
                guard let current = schedule.current else { return [] }
                dates = [current]
                // After-done: the dates after the current one move with it, so it is the only one.
                if all, schedule.mode == .catchUp, !schedule.occurrences.afterDone, current <= today {
                    // Bounded: at most two years of daily occurrences past the current one.
                    dates = schedule.upcoming(366 * 2).filter { $0 <= today }
                }
            }
            for d in dates {
                switch action {
                case .done: task.complete(d, member: stamp.member, day: today, stamp: stamp)
                case .skip: task.setOccurrence(d, .skipped, stamp: stamp)
                }
            }
            return dates.map(\.description)
        }
    }

    /// `reopen` of a chore: the latest done or skipped occurrence is open again, and the
    /// completions credited to it are undone; plain tasks as `set(.reopen)`.
    public func reopen(_ ids: [String]) throws(StoreError) -> ChangeOutcome {
        let today = clock.today
        return try change(ids: ids, verb: "reopen") { task, stamp, context in
            guard let r = task.recurrence else {
                guard task.status != .open else { return [] }
                try task.write("status", .string("open"), stamp: stamp)
                return ["status"]
            }
            let schedule = ChoreSchedule(task, recurrence: r, today: today, context: context)
            var dates = Set(schedule.credits.map(\.occurrence))
            for (key, e) in task.occurrenceEntries where e.state != .open {
                if let d = CivilDate(iso: Substring(key)) { dates.insert(d) }
            }
            guard let last = dates.filter({ [.done, .skipped].contains(schedule.status(of: $0)) }).max() else { return [] }
            task.setOccurrence(last, .open, stamp: stamp)
            for c in schedule.credits(on: last) { if let key = c.key { task.setCompletion(key, .undone, stamp: stamp) } }
            return [last.description]
        }
    }

    /// `swap`: this member's next turn of the chore and `member`'s next turn change hands.
    /// The fields name the two dates, this member's first.
    public func swapTurn(_ id: String, with member: String) throws(StoreError) -> ChangeOutcome {
        try changeTurns(id, verb: "swap", with: member) { task, schedule, mine, stamp throws(StoreError) in
            guard let theirs = schedule.nextTurn(of: member) else {
                throw StoreError.noComingTurn(task: String(task.id.hex.prefix(8)), member: member)
            }
            try Self.mustBePresent(stamp.member, on: theirs, schedule.context.roster)
            task.setTurn(mine, member, stamp: stamp)
            task.setTurn(theirs, stamp.member, stamp: stamp)
            return [mine.description, theirs.description]
        }
    }

    /// `pass`: `member` takes this member's next turn; the rotation goes on from this member as
    /// if they had taken it. The field names the date.
    public func passTurn(_ id: String, to member: String) throws(StoreError) -> ChangeOutcome {
        try changeTurns(id, verb: "pass", with: member) { task, _, mine, stamp throws(StoreError) in
            task.setTurn(mine, member, stamp: stamp)
            return [mine.description]
        }
    }

    /// One change of turns between this member and `member` on a rotating chore: `body` gets
    /// the schedule and this member's next turn, after the checks both commands share.
    func changeTurns(
        _ id: String, verb: String, with member: String,
        _ body: (inout Task, ChoreSchedule, CivilDate, FieldStamp) throws(StoreError) -> [String]
    ) throws(StoreError) -> ChangeOutcome {
        let today = clock.today
        return try change(ids: [id], verb: verb) { task, stamp, context in
            let short = String(task.id.hex.prefix(8))
            let schedule = try Self.rotating(task, today: today, naming: member, context: context)
            guard stamp.member != member else { throw StoreError.sameMember(task: short, member: member) }
            guard let mine = schedule.nextTurn(of: stamp.member) else { throw StoreError.noComingTurn(task: short, member: stamp.member) }
            try Self.mustBePresent(member, on: mine, context.roster)
            return try body(&task, schedule, mine, stamp)
        }
    }

    /// The schedule of a chore with a rotation that has `member`; throws otherwise.
    /// Throws unless `member` is present (neither left nor away) on `date`.
    static func mustBePresent(_ member: String, on date: CivilDate, _ roster: Roster) throws(StoreError) {
        guard let m = roster.member(member), m.state(on: date) != .present else { return }
        throw StoreError.memberAbsent(member: member, date: date, away: m.hasLeft(on: date) ? nil : m.awayWindow(on: date))
    }

    static func rotating(_ task: Task, today: CivilDate, naming member: String, context: TurnContext) throws(StoreError) -> ChoreSchedule {
        let short = String(task.id.hex.prefix(8))
        guard let r = task.recurrence else { throw StoreError.notAChore(short) }
        let rotation = task.rotation
        guard !rotation.isEmpty else { throw StoreError.noRotation(short) }
        guard rotation.contains(member) else { throw StoreError.notInRotation(task: short, member: member, rotation: rotation) }
        return ChoreSchedule(task, recurrence: r, today: today, context: context)
    }

    /// Throws unless a chore that repeats from when it was done has an interval rule (`Nd`,
    /// `Nw`, `Nmonths`), and, when `settingCatchUp`, unless it does not repeat so.
    static func checkAnchor(_ task: Task, settingCatchUp: Bool = false) throws(StoreError) {
        guard let r = task.recurrence, task.anchor == .done else { return }
        let short = String(task.id.hex.prefix(8))
        guard r.rule.isInterval else { throw StoreError.afterDoneNeedsInterval(task: short, rule: r.rule) }
        if settingCatchUp { throw StoreError.catchUpAfterDone(short) }
    }

    /// A new task's chore and checklist fields.
    static func addChoreFields(_ new: NewTask, to task: inout Task, stamp: FieldStamp) {
        if let r = new.recurrence {
            task.setRecurrence(r, stamp: stamp)
            if !new.rotation.isEmpty { task.setRotation(new.rotation, stamp: stamp) }
            if new.anchor != .due { task.setAnchor(new.anchor, stamp: stamp) }
            if new.schedule != .calendar { task.setScheduleMode(new.schedule, stamp: stamp) }
            if new.rotate != .order { task.setRotateMode(new.rotate, stamp: stamp) }
        }
        for (n, text) in new.items.enumerated() { addItem(text, to: &task, stamp: stamp, position: n) }
        if let alarm = new.alarm { task.setAlarm(alarm, stamp: stamp) }
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

    /// How `TaskEdit`'s item lists name an item by its key: `key:` and 16 lowercase hex digits.
    public static let itemKeyPrefix = "key:"

    /// The item a person named: a 1-based index among the items shown, its key
    /// (`key:<16 hex>`), or the text.
    static func findItem(_ name: String, in task: Task) throws(StoreError) -> ChecklistItem {
        let visible = task.visibleItems
        if let n = Int(name), n >= 1, n <= visible.count { return visible[n - 1] }
        // `key:<16 hex>` names the item by its key, which no other item's change shifts.
        let named = name.hasPrefix(Self.itemKeyPrefix) ? name.dropFirst(Self.itemKeyPrefix.count) : ""
        let byKey = named.utf8.count == 16 && named.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
        let key = byKey ? String(named) : Checklist.key(name)
        guard let item = task.checklist.first(where: { $0.key == key && $0.state != .removed }) else {
            throw StoreError.itemNotFound(task: String(task.id.hex.prefix(8)), item: name)
        }
        return item
    }

    /// The chore and checklist parts of `edit`; returns the fields written (`repeat`,
    /// `rotation`, `turn` for a take-over of the current occurrence, `+item`, `x item`, `-item`).
    static func editChoreFields(
        _ edit: TaskEdit, of task: inout Task, stamp: FieldStamp, today: CivilDate, context: TurnContext
    ) throws -> [String] {
        var fields: [String] = []
        // A rotation given with a new rule holds from the rule's start; alone, from tomorrow.
        var rotationFrom = today.adding(days: 1)
        if case .set(let r)? = edit.recurrence, task.recurrence != r { rotationFrom = r.from }
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
            // From the next household day: turns already announced stay (docs/FORMAT.md, "Turns").
            if task.isChore { task.changeRotation(names, from: rotationFrom, stamp: stamp) } else { task.setRotation(names, stamp: stamp) }
            fields.append("rotation")
        }
        if let anchor = edit.anchor, anchor != task.anchor, task.isChore {
            task.setAnchor(anchor, stamp: stamp)
            fields.append("anchor")
        }
        if let mode = edit.schedule, mode != task.scheduleMode, task.isChore {
            task.setScheduleMode(mode, stamp: stamp)
            fields.append("schedule")
        }
        // Only what this edit asks is checked: a file merged into an odd pair still takes other edits.
        if edit.recurrence != nil || edit.anchor == .done || edit.schedule == .catchUp {
            try Self.checkAnchor(task, settingCatchUp: edit.schedule == .catchUp)
        }
        switch edit.alarm {
        case .set(let a)? where task.alarm != a:
            task.setAlarm(a, stamp: stamp)
            fields.append("alarm")
        case .clear? where task.value(of: "alarm") != nil && task.value(of: "alarm") != .null:
            task.setAlarm(nil, stamp: stamp)
            fields.append("alarm")
        default: break
        }
        if let mode = edit.rotate, mode != task.rotateMode, task.isChore {
            task.setRotateMode(mode, stamp: stamp)
            fields.append("rotate")
        }
        // On a rotating chore, --assign takes over the current occurrence only.
        if case .set(let who)? = edit.assignee, task.takesTurns, let schedule = task.schedule(today: today, context: context),
            let current = schedule.current, schedule.turn(on: current) != who
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
    /// A new imported task's rule, rotation, schedule and rotate, its chore and checklist maps
    /// (from `list --json`, as they were) or occurrences (from Taskwarrior); for a Taskwarrior
    /// task, the record of what the file said (docs/FORMAT.md, "The last import").
    static func importChore(_ item: ImportedTask, into task: inout Task, stamp: FieldStamp) {
        if let r = item.recurrence {
            task.setRecurrence(r, stamp: stamp)
            if !item.rotation.isEmpty { task.setRotation(item.rotation, stamp: stamp) }
            // Each of these fields takes a string, and the record a JSON object: these writes cannot fail.
            if let a = item.anchor { try? task.write("anchor", .string(a), stamp: stamp) }
            if let s = item.schedule { try? task.write("schedule", .string(s), stamp: stamp) }  // a string: cannot fail
            if let r = item.rotate { try? task.write("rotate", .string(r), stamp: stamp) }  // a string: cannot fail
        }
        if let a = item.alarm, let alarm = TaskAlarm(a) { task.setAlarm(alarm, stamp: stamp) }
        for (map, value) in item.maps { task.extra[map] = value }
        for o in item.occurrences { task.setOccurrence(o.date, o.state, stamp: stamp) }
        if item.updatesExisting { try? task.write(ImportRecord.field, ImportRecord.make(item), stamp: stamp) }  // a JSON object: cannot fail
    }
}
