import TodoCore

extension Household {
    /// Changes one task's fields and tags (only those that differ) in one commit.
    /// Held to `FieldRules` as `add` is.
    public func edit(_ id: String, _ given: TaskEdit) throws(StoreError) -> ChangeOutcome {
        let edit = try FieldChecks.ruled(given)
        let values = edit.values
        let today = clock.today
        return try change(ids: [id], verb: "edit") { task, stamp, context in
            if case .set(let due)? = edit.due, due != task.due { try Self.mustBeInBounds(due.date, field: "due") }
            if case .set(let r)? = edit.recurrence, r.from != task.recurrence?.from { try Self.mustBeInBounds(r.from, field: "repeat") }
            // Rule, rotation, items, and a take-over of the current turn (docs/FORMAT.md, "Chores").
            var fields = try Self.editChoreFields(edit, of: &task, stamp: stamp, today: today, context: context)
            for (field, value) in values where task.value(of: field) != value && !(field == "assignee" && task.takesTurns) {
                try task.write(field, value, stamp: stamp)
                fields.append(field)
            }
            for tag in edit.addTags where task.tagStates[tag]?.present != true {
                task.setTag(tag, present: true, stamp: stamp)
                fields.append("+\(tag)")
            }
            for tag in edit.removeTags where task.tagStates[tag]?.present == true {
                task.setTag(tag, present: false, stamp: stamp)
                fields.append("-\(tag)")
            }
            return fields
        }
    }

    /// Marks tasks done or open, deletes or restores them: one commit for all that changed.
    public func set(_ state: TaskState, ids: [String]) throws(StoreError) -> ChangeOutcome {
        let (field, value) = state.write
        return try change(ids: ids, verb: state.rawValue) { task, stamp in
            guard task.value(of: field) != value else { return [] }
            try task.write(field, value, stamp: stamp)
            return [field]
        }
    }

    /// Resolves every id first (all or nothing), applies `apply` to each task with a fresh stamp,
    /// and commits the tasks that changed in one commit named after `verb`. `apply` returns the
    /// fields it wrote.
    func change(
        ids: [String], verb: String, apply: (inout Task, FieldStamp) throws -> [String]
    ) throws(StoreError) -> ChangeOutcome {
        try change(ids: ids, verb: verb) { (task: inout Task, stamp: FieldStamp, _: TurnContext) throws -> [String] in
            try apply(&task, stamp)
        }
    }

    /// `change`, with what chores' turns depend on (the roster as the change finds it).
    func change(
        ids: [String], verb: String, apply: (inout Task, FieldStamp, TurnContext) throws -> [String]
    ) throws(StoreError) -> ChangeOutcome {
        let stamper = try stamper()
        var context = TurnContext.plain
        let (results, commit) = try transact { snap in
            context = snap.turnContext(clock)
            var seen = Set<TaskID>()
            var tasks: [Task] = []
            for prefix in ids {
                let id = try snap.resolve(prefix)
                guard seen.insert(id).inserted else { continue }
                guard let task = try snap.task(id) else { throw StoreError.taskNotFound(prefix) }
                tasks.append(task)
            }
            let shorts = try snap.shortIDs(tasks.map(\.id))
            var results: [ChangedTask] = []
            for var task in tasks {
                let fields = try apply(&task, stamper.stamp(after: task), context)
                results.append(ChangedTask(task: task, short: shorts[task.id] ?? String(task.id.hex.prefix(4)), fields: fields))
            }
            let changed = results.filter(\.changed)
            return Update(tasks: changed.map(\.task), message: CommitText.list(verb, changed), value: results)
        }
        return ChangeOutcome(tasks: results, commit: commit, context: context)
    }
}
