import TodoCore

extension Household {
    /// Makes the value a conflict-log entry lost current again, as a new edit whose stamp is
    /// newer than everything in the task (so it wins on every replica after the next sync).
    public func restoreConflict(_ prefix: String) throws(StoreError) -> ChangeOutcome {
        let stamper = try stamper()
        let (result, commit) = try transact { snap in
            let c = try snap.conflict(prefix)
            guard var task = try snap.task(c.entry.task) else { throw StoreError.taskNotFound(c.entry.task.hex) }
            let fields = try Self.restore(c.entry, into: &task, stamp: stamper.stamp(after: task))
            let short = try snap.shortIDs([task.id])[task.id] ?? String(task.id.hex.prefix(4))
            return Update(
                tasks: fields.isEmpty ? [] : [task],
                message: CommitText.conflictRestored(task, short: short, fields: fields),
                value: ChangedTask(task: task, short: short, fields: fields))
        }
        return ChangeOutcome(tasks: [result], commit: commit)
    }

    /// Writes what `entry` lost into `task`; returns the fields that changed (`tag:<name>` for tags).
    static func restore(_ entry: ConflictEntry, into task: inout Task, stamp: FieldStamp) throws -> [String] {
        var fields: [String] = []
        func set(_ field: String, _ value: JSONValue) throws {
            if let (map, key) = ChoreFields.mapEntry(ofLogField: field) {
                if try restoreEntry(map: map, key: key, value, into: &task, stamp: stamp) { fields.append(field) }
            } else if field.hasPrefix("tag:") {
                let tag = String(field.dropFirst(4))
                let present = value == .bool(true)
                if (task.tagStates[tag]?.present ?? false) != present {
                    task.setTag(tag, present: present, stamp: stamp)
                    fields.append(field)
                }
            } else if task.value(of: field) != value {
                try task.write(field, value, stamp: stamp)
                fields.append(field)
            }
        }
        switch entry.kind {
        case .field, .tag:
            try set(entry.field, entry.lost.value)
        case .deletedEdit:
            try set("deleted", .bool(false))
            try set(entry.field, entry.lost.value)
        case .invalidFile:
            guard case .string(let text)? = entry.lost.value["data"], entry.lost.value["encoding"] == .string("utf8"),
                let old = try? TaskCodec.decode(Array(text.utf8), expectedID: task.id)  // a version that is no task: refused as unreadableVersion (below)
            else {
                throw StoreError.nothingToRestore(.unreadableVersion)
            }
            for field in Task.stampedFields { if let v = old.value(of: field) { try set(field, v) } }
            for (tag, state) in old.tagStates { try set("tag:" + tag, .bool(state.present)) }
        case .modifyDelete:
            throw StoreError.nothingToRestore(.nothingLost)
        }
        return fields
    }

    /// Writes a chore or checklist map entry's lost value (docs/MERGE.md) back with `stamp`;
    /// false when the entry already says it.
    static func restoreEntry(map: String, key: String, _ value: JSONValue, into task: inout Task, stamp: FieldStamp)
        throws(StoreError) -> Bool
    {
        let date = CivilDate(iso: Substring(key))
        switch (map, value) {
        case ("occurrences", .string(let s)):
            guard let date, let state = OccurrenceState(rawValue: s) else { break }
            if task.occurrenceEntries[key]?.state == state { return false }
            task.setOccurrence(date, state, stamp: stamp)
            return true
        case ("completions", .string(let s)):
            guard let state = CompletionState(rawValue: s) else { break }
            guard let current = task.completions.first(where: { $0.key == key }) else {
                // Taking back a completion the task does not have: nothing to take back.
                if state == .undone { return false }
                break
            }
            if current.state == state { return false }
            task.setCompletion(key, state, stamp: stamp)
            return true
        case ("turns", .string(let member)):
            guard let date else { break }
            if (task.turnEntries[key]?.member ?? "") == member { return false }
            task.setTurn(date, member, stamp: stamp)
            return true
        case ("rotations", .array(let parts)):
            let names = parts.compactMap(\.stringValue)
            guard let date, names.count == parts.count, names.allSatisfy({ !$0.isEmpty }) else { break }
            if task.rotationEntries[date]?.names == names { return false }
            task.setRotationEntry(date, names, stamp: stamp)
            return true
        case ("rotations", .null):
            // No change from this date: the rotation in force the day before holds on.
            guard let date else { break }
            let before = task.rotation(on: date.adding(days: -1))
            if task.rotationEntries[date]?.names == before { return false }
            task.setRotationEntry(date, before, stamp: stamp)
            return true
        case ("items", .array(let parts)):
            guard parts.count == 2, let state = parts[0].stringValue.flatMap(ItemState.init), let text = parts[1].stringValue,
                !Checklist.normalised(text).isEmpty, Checklist.key(text) == key
            else { break }
            let current = task.checklist.first { $0.key == key }
            if let current, current.state == state, current.text == text { return false }
            // The item keeps its place: its `added` stamp stays.
            task.setItem(ChecklistItem(key: key, state: state, text: text, added: current?.added ?? stamp, stamp: stamp))
            return true
        default: break
        }
        throw StoreError.nothingToRestore(.unreadableEntry)
    }
}
