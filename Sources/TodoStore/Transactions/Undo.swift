public import TodoCore

/// A field that someone changed after the commit being undone.
public struct UndoConflict: Sendable {
    public let task: Task
    public let short: String
    /// The field (`tag:<name>` for a tag).
    public let field: String
    /// The write that came after the commit: who and when.
    public let since: Authorship?
}

/// What `undo` did: the tasks it wrote back, or why it refused.
public enum UndoOutcome: Sendable {
    case undone(ChangeOutcome)
    /// Others changed these fields since; nothing was written.
    case refused([UndoConflict])
}

extension Household {
    /// This replica's own commits (not merges), newest first, among the last `depth` commits:
    /// the changes `undo` can take back. A commit is ours when the stamps it wrote carry this
    /// replica's id, whoever the git author is.
    public func undoableCommits(limit: Int = 10, depth: Int = 1_000) throws(StoreError) -> [HistoryEntry] {
        let replica = try replicaID()
        // The latest few commits first: reading a thousand commits' changes is only needed when
        // this replica's changes are further back.
        for d in [min(depth, max(2 * limit, 16)), depth] {
            var mine: [HistoryEntry] = []
            for entry in try history(limit: d) where Self.isOwn(entry, replica: replica) {
                mine.append(entry)
                if mine.count >= limit { return mine }
            }
            if d == depth { return mine }
        }
        return []
    }

    /// A commit of this replica's own: not a merge, and the stamps it wrote carry `replica`.
    public static func isOwn(_ entry: HistoryEntry, replica: String) -> Bool {
        !entry.isMerge && written(entry).contains(where: { $0.replica == replica })
    }

    /// Takes back `step.entry` as a new commit: every field and tag it wrote gets its earlier
    /// value back with a fresh stamp (so the undo wins on every replica after the next sync, even
    /// when the change was already synced); a task it created is deleted. Taking back an undo
    /// brings its change back: a redo. When a field was written again after the commit, nothing
    /// is written and the outcome names those writes, unless `force`. The commit made is
    /// recorded (`UndoRecord`), so that repeated undos go further back and `redo` finds it.
    public func undo(_ step: UndoStep, force: Bool) throws(StoreError) -> UndoOutcome {
        let entry = step.entry
        let stamper = try stamper()
        let (result, commit) = try transact { snap -> Update<Result<[ChangedTask], Refusal>> in
            var changed: [ChangedTask] = []
            var conflicts: [UndoConflict] = []
            let ids = entry.changes.map(\.id)
            let shorts = try snap.shortIDs(ids)
            for c in entry.changes {
                guard let after = c.after, var task = try snap.task(c.id) else { continue }
                let short = shorts[c.id] ?? String(c.id.hex.prefix(4))
                let stamp = stamper.stamp(after: task)
                var fields: [String] = []
                for (field, value, written) in Self.takeBack(before: c.before, after: after) {
                    if let (map, key) = ChoreFields.mapEntry(ofLogField: field) {
                        let now = task.extra[map]?[key].flatMap(ChoreFields.entryStamp)
                        if now != written {
                            conflicts.append(UndoConflict(task: task, short: short, field: field, since: now.map { Authorship($0) }))
                            if !force { continue }
                        }
                        if try Self.restoreEntry(map: map, key: key, value, into: &task, stamp: stamp) { fields.append(field) }
                    } else if field.hasPrefix("tag:") {
                        let tag = String(field.dropFirst(4))
                        if task.tagStates[tag]?.stamp != after.tagStates[tag]?.stamp {
                            conflicts.append(UndoConflict(task: task, short: short, field: field, since: task.tagStates[tag].map { Authorship($0.stamp) }))
                            if !force { continue }
                        }
                        let present = value == .bool(true)
                        if (task.tagStates[tag]?.present ?? false) != present {
                            task.setTag(tag, present: present, stamp: stamp)
                            fields.append((present ? "+" : "-") + tag)
                        }
                    } else {
                        if task.stamps[field] != written {
                            conflicts.append(UndoConflict(task: task, short: short, field: field, since: task.stamps[field].map(Authorship.init)))
                            if !force { continue }
                        }
                        if task.value(of: field) != value {
                            try task.write(field, value, stamp: stamp)
                            fields.append(field)
                        }
                    }
                }
                changed.append(ChangedTask(task: task, short: short, fields: fields))
            }
            if !conflicts.isEmpty && !force {
                return Update(tasks: [], message: "", value: .failure(Refusal(conflicts: conflicts)))
            }
            let written = changed.filter(\.changed)
            return Update(
                tasks: written.map(\.task), message: CommitText.undo(step, written), value: .success(changed))
        } committed: { made in
            recordUndo(made: made, tookBack: entry.commit)
        }
        switch result {
        case .success(let tasks): return .undone(ChangeOutcome(tasks: tasks, commit: commit))
        case .failure(let refusal): return .refused(refusal.conflicts)
        }
    }

    struct Refusal: Error {
        let conflicts: [UndoConflict]
    }

    /// What undoing one task's change writes: each field, tag or chore or checklist entry
    /// (named as the conflict log names it) the change wrote, with the value to write back, and
    /// the stamp it still carries if nobody wrote it since.
    static func takeBack(before: Task?, after: Task) -> [(String, JSONValue, FieldStamp?)] {
        guard let before else {
            // The change created the task: take it back by deleting it.
            return [("deleted", .bool(true), after.stamps["deleted"])]
        }
        var out: [(String, JSONValue, FieldStamp?)] = []
        for field in Task.stampedFields + after.extra.keys.sorted() where after.stamps[field] != before.stamps[field] {
            out.append((field, before.value(of: field) ?? ChoreFields.absentFieldValue(field), after.stamps[field]))
        }
        for tag in after.tagStates.keys.sorted() where after.tagStates[tag] != before.tagStates[tag] {
            out.append(("tag:" + tag, .bool(before.tagStates[tag]?.present ?? false), after.tagStates[tag]?.stamp))
        }
        for (map, key, entry) in changedEntries(before: before, after: after) {
            let old = before.extra[map]?[key]
            let value = old.map { ChoreFields.entryValue(map: map, $0) } ?? ChoreFields.absentValue(map: map, like: entry)
            out.append((ChoreFields.logField(map: map, key: key), value, ChoreFields.entryStamp(entry)))
        }
        return out
    }

    /// The chore and checklist entries `after` has that `before` did not have as they are.
    static func changedEntries(before: Task?, after: Task) -> [(map: String, key: String, entry: JSONValue)] {
        var out: [(String, String, JSONValue)] = []
        for map in ChoreFields.maps.sorted() {
            guard case .object(let entries)? = after.extra[map] else { continue }
            for (key, entry) in entries where before?.extra[map]?[key] != entry { out.append((map, key, entry)) }
        }
        return out
    }

    /// The stamps a commit wrote: those its tasks carry after it and did not before.
    static func written(_ entry: HistoryEntry) -> [Stamp] {
        var out: [Stamp] = []
        for c in entry.changes {
            guard let after = c.after else { continue }
            for (field, s) in after.stamps where c.before?.stamps[field] != s { out.append(s.stamp) }
            for (tag, t) in after.tagStates where c.before?.tagStates[tag] != t { out.append(t.stamp.stamp) }
            for (_, _, entry) in changedEntries(before: c.before, after: after) {
                if let s = ChoreFields.entryStamp(entry) { out.append(s.stamp) }
            }
        }
        return out
    }
}

extension CommitText {
    /// `undo: <the change's subject>` (`redo: ` when the commit taken back is an undo), and
    /// which commit in the body.
    static func undo(_ step: UndoStep, _ changed: [ChangedTask]) -> String {
        let names = changed.prefix(3).map { "\(title($0.task.title)) (\($0.short))" }.joined(separator: ", ")
        let verb = step.isRedo ? "redo" : "undo"
        let body = step.isRedo ? "Takes back the undo \(step.entry.commit)" : "Undoes \(step.entry.commit)"
        return "\(verb): \(DisplayText.truncated(DisplayText.escaped(step.subject), 72))\n\n\(body): \(names)\(changed.count > 3 ? ", …" : "")"
    }
}
