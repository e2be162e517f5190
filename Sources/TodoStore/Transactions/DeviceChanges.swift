public import TodoCore

/// What a device changed in one task (docs/CALDAV.md, "Changes from a client"), as values: the
/// front end translates what the device sent into these, and the store applies them by its own
/// rules (`Household.deviceChange`), as it applies a `TaskEdit` from the command line or the
/// page. No front end writes a task's fields itself.
public enum DeviceEdit: Sendable, Equatable {
    // The task's own fields.
    case title(String)
    case notes(String)
    case due(Due?)
    case priority(Priority)
    case alarm(TaskAlarm?)
    case tag(String, present: Bool)
    /// Done.
    case complete
    /// Open again (a completion undone).
    case reopen
    /// Deleted (restorable), as `todo delete`.
    case delete
    /// Back from deleted: a device moving a task it had deleted into one of its lists.
    case restore
    /// The acting member becomes the assignee (a task moved into their own list).
    case assignToActor
    /// A device removing the task from the acting member's lists: a done task is hidden from
    /// their lists (the others still see it), an open one is deleted.
    case clear
    /// The property lines the device sent that the task has no field for, kept for it.
    case keptLines([String])
    /// The address the device keeps the task at.
    case href(String)

    // One occurrence of a chore.
    /// A tick: a completion by the acting member, credited for `day` (at most today).
    case completeOccurrence(CivilDate, day: CivilDate)
    /// An un-tick: only the acting member's own credits on that date are taken back.
    case uncompleteOccurrence(CivilDate)
    /// A skipped occurrence open again.
    case reopenOccurrence(CivilDate)
    case skipOccurrence(CivilDate)
    /// Hidden from the acting member's lists (a done occurrence the device cleared).
    case hideOccurrence(CivilDate)
    case occurrenceKeptLines(CivilDate, [String])

    // One checklist item, by key.
    /// New text: an item whose text now has another key is removed and the new one takes its
    /// place in the order, its UID and its address.
    case itemText(key: String, text: String)
    case itemChecked(key: String, Bool)
    case removeItem(key: String)
    case itemKeptLines(key: String, [String])
    /// A new item with the device's UID and address. An item whose text is already on the list
    /// (not removed) is not added again and keeps its text and tick, as for `todo edit
    /// --add-item`: `StoreError.itemExists`.
    case addItem(text: String, checked: Bool, uid: String, href: String, kept: [String])
}

/// A device's change of one task: its edits, and whether a task (not a chore) edited in the
/// acting member's own list becomes theirs when anything else changed.
public struct DeviceChange: Sendable, Equatable {
    public var edits: [DeviceEdit]
    public var claim: Bool

    public init(_ edits: [DeviceEdit] = [], claim: Bool = false) {
        self.edits = edits
        self.claim = claim
    }
}

extension Household {
    /// Applies a device's change to task `id`, as a merge between two members would
    /// (docs/CALDAV.md, "The base of a PUT"): the edits are applied to the version the device
    /// started from (`base`; nil: the current one), stamped now and after every stamp of both;
    /// when the task changed since that base, the result is merged with the current task by
    /// docs/MERGE.md's rules, the base as ancestor, so another member's change of another field
    /// survives and a lost value of the same field is logged. Every value is checked by the
    /// rules every front end shares (`FieldRules`, `DateBounds`, the kept lines' bounds) before
    /// anything is written. The acting member is the household's (`ChangeMaker.member`).
    public func deviceChange(_ id: TaskID, base: Task?, verb: String, _ change: DeviceChange) throws(StoreError) -> ChangeOutcome {
        let stamper = try stamper()
        let member = try identity().name
        let today = clock.today
        var context = TurnContext.plain
        let (result, commit) = try transact { (snap: Snapshot) throws -> Update<ChangedTask> in
            context = snap.turnContext(clock)
            guard let current = try snap.task(id) else { throw StoreError.taskNotFound(id.hex) }
            let stamp = stamper.stamp(after: [current, base])
            var device = base ?? current
            var apply = DeviceApply(task: device, current: current, stamp: stamp, member: member, context: context, today: today)
            for edit in change.edits { try apply.apply(edit) }
            if change.claim, !apply.fields.isEmpty, apply.task.recurrence == nil, apply.task.assignee != member {
                try apply.apply(.assignToActor)
            }
            device = apply.task
            let fields = apply.fields
            if !fields.isEmpty { try Self.mustHoldDatesInBounds(device, before: base ?? current) }
            var result = current
            if !fields.isEmpty {
                if let base, base != current {
                    let outcome = TaskMerge.merge(
                        base: TaskCodec.encode(base), ours: TaskCodec.encode(current), theirs: TaskCodec.encode(device), path: id.path)
                    let bytes: [UInt8]
                    switch outcome {
                    case .merged(let b, _, _): bytes = b
                    case .failed(let failure): throw StoreError.mergeFailed([failure])
                    }
                    do {
                        result = try TaskCodec.decode(bytes, expectedID: id)
                    } catch {
                        throw StoreError.malformedTask(path: id.path, reason: "\(error)")
                    }
                } else {
                    result = device
                }
            }
            let short = try snap.shortIDs([id])[id] ?? String(id.hex.prefix(4))
            let changed = ChangedTask(task: result, short: short, fields: result == current ? [] : fields)
            return Update(tasks: changed.changed ? [result] : [], message: CommitText.list(verb, [changed]), value: changed)
        }
        return ChangeOutcome(tasks: [result], commit: commit, context: context)
    }
}
