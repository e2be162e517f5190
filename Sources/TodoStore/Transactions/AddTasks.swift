import GitKit
import TodoCore

extension Household {
    /// Adds one task, stamped with this clone's member and clock, in one commit. With
    /// `new.id` the household already has, nothing is committed and the task is returned as
    /// it is (no fields written); an `id` that is not 32 lowercase hex digits is refused.
    /// The fields are held to `FieldRules` here, whatever the front end checked: a value the
    /// rules refuse is `fieldRefused`, one they trim is stored trimmed.
    public func add(_ given: NewTask) throws(StoreError) -> ChangeOutcome {
        let new = try FieldChecks.ruled(given)
        var chosen: TaskID?
        if let hex = new.id {
            guard let id = TaskID(hex), id != HouseholdSettings.id else { throw .invalidTaskID(hex) }
            chosen = id
        }
        try Self.mustBeInBounds(new.due?.date, field: "due")
        try Self.mustBeInBounds(new.recurrence?.from, field: "repeat")
        if new.anchor == .done, let r = new.recurrence {
            guard r.rule.isInterval else { throw .afterDoneNeedsInterval(task: nil, rule: r.rule) }
            guard new.schedule != .catchUp else { throw .catchUpAfterDone(nil) }
        }
        let stamper = try stamper()
        let (added, commit) = try transact { snap in
            var rng = IDSource.generator(for: "task \(snap.commit?.hex ?? "-") \(stamper.member)")
            if let chosen, let existing = try snap.task(chosen) {
                let short = try snap.shortIDs([chosen])[chosen] ?? String(chosen.hex.prefix(4))
                return Update(tasks: [], message: "", value: ChangedTask(task: existing, short: short, fields: []))
            }
            var id = chosen ?? TaskID.random(using: &rng)
            while chosen == nil, try snap.task(id) != nil { id = TaskID.random(using: &rng) }
            let stamp = stamper.stamp(after: nil)
            var task = Task(
                id: id, title: new.title, createdAt: isoMillis(stamper.clock.nowMillis()), createdBy: stamper.member,
                notes: new.notes, assignee: new.assignee, due: new.due, priority: new.priority)
            for field in Task.stampedFields { task.stamps[field] = stamp }
            for tag in new.tags { task.setTag(tag, present: true, stamp: stamp) }
            Self.addChoreFields(new, to: &task, stamp: stamp)
            if let caldav = new.caldav { try task.write("caldav", caldav, stamp: stamp) }
            let short = try snap.shortIDs([id], adding: [id])[id] ?? String(id.hex.prefix(4))
            return Update(
                tasks: [task], message: CommitText.added(task, short: short),
                value: ChangedTask(task: task, short: short, fields: Task.stampedFields))
        }
        return ChangeOutcome(tasks: [added], commit: commit)
    }

    /// Imports tasks from `todo list --json` or Taskwarrior's export in one commit. Tasks keep
    /// their ids; those the household already has are skipped, except a Taskwarrior task, which
    /// takes what changed in the file since its last import (`Task.reimport`). `file` names the
    /// source in the commit message (nil for standard input) and in the error for bad data.
    public func importTasks(_ bytes: [UInt8], file: String?) throws(StoreError) -> ImportOutcome {
        let now = clock.nowMillis()
        let imported: [ImportedTask]
        let notes: [ImportNote]
        do {
            let batch = try TaskImport.parseBatch(bytes, offsetMinutes: Int(clock.offsetMinutes(now)))
            (imported, notes) = (batch.tasks, batch.notes)
        } catch {
            throw .badImport(file: file ?? "-", error)
        }
        for (n, item) in imported.enumerated() {
            if let (field, date) = DateBounds.firstDateOutside(item) {
                throw .badImport(file: file ?? "-", ImportError(index: n, .dateOutOfRange(field: field, date: date, title: item.title)))
            }
        }
        let stamper = try stamper()
        let ((added, skipped, counts), commit) = try transact { snap in
            var rng = IDSource.generator(for: "import \(snap.commit?.hex ?? "-") \(stamper.member)")
            var existing = Set(try snap.loadAllIDs())
            // Re-imported tasks that changed, whole; new ones only as the item and its id, made
            // into tasks as they are written (`made`).
            var tasks: [Task] = []
            var fresh: [(item: Int, id: TaskID)] = []
            var skipped = 0
            var seen = Set<TaskID>()
            let stamp = stamper.stamp(after: nil)
            // Per field, what re-imported tasks changed and kept.
            var counts = ImportOutcome(imported: 0, skipped: 0, commit: nil)
            for (n, item) in imported.enumerated() {
                var id = item.id ?? TaskID.random(using: &rng)
                if existing.contains(id) {
                    if item.id != nil {
                        if item.updatesExisting, seen.insert(id).inserted, var old = try snap.task(id) {
                            let result = old.reimport(item, stamp: stamper.stamp(after: old))
                            counts.count(result)
                            if result.changed { tasks.append(old) }
                            if result.updated.isEmpty { skipped += 1 }
                        } else {
                            skipped += 1
                        }
                        continue
                    }
                    while existing.contains(id) { id = TaskID.random(using: &rng) }
                }
                existing.insert(id)
                seen.insert(id)
                fresh.append((n, id))
            }
            let count = tasks.count + fresh.count
            let made = TaskSource { write in
                for (n, id) in fresh {
                    let item = imported[n]
                    var task = Task(
                        id: id, title: item.title, createdAt: item.createdAt ?? isoMillis(now),
                        createdBy: item.createdBy ?? stamper.member, status: item.status, notes: item.notes,
                        assignee: item.assignee, due: item.due, priority: item.priority, deleted: item.deleted)
                    for field in Task.stampedFields { task.stamps[field] = stamp }
                    for tag in item.tags { task.setTag(tag, present: true, stamp: stamp) }
                    Self.importChore(item, into: &task, stamp: stamp)
                    try write(task)
                }
            }
            var update = Update(
                tasks: tasks, message: CommitText.imported(count, from: file),
                value: (count - counts.updated - counts.recorded, skipped, counts))
            if count > Self.bulkThreshold {
                update.made = made
            } else {
                try made.each { update.tasks.append($0) }
            }
            return update
        }
        var outcome = ImportOutcome(imported: added, skipped: skipped, commit: commit)
        (outcome.updated, outcome.recorded) = (counts.updated, counts.recorded)
        outcome.updatedFields = counts.updatedFields
        outcome.keptFields = counts.keptFields
        outcome.replacedFields = counts.replacedFields
        outcome.notes = notes
        return outcome
    }
}

extension ImportOutcome {
    /// Adds one re-imported task's changes to the counts.
    mutating func count(_ r: ReimportResult) {
        if !r.updated.isEmpty { updated += 1 }
        if r.recordOnly { recorded += 1 }
        for f in r.updated { updatedFields[f, default: 0] += 1 }
        for f in r.kept { keptFields[f, default: 0] += 1 }
        for f in r.replaced { replacedFields[f, default: 0] += 1 }
    }
}
