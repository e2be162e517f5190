import TodoCore
import TodoStore

/// The outcome of changing one task.
struct Changed {
    let task: Task
    let short: String
    let changed: Bool
}

extension Household {
    /// Resolves every id first (all or nothing), applies `apply` to each task with a fresh stamp,
    /// and commits the tasks that changed in one commit named after `verb`.
    func change(
        ids: [String], verb: String, apply: (inout Task, FieldStamp) throws -> Bool
    ) throws -> [Changed] {
        let stamper = try stamper()
        return try update { snap in
            var seen = Set<TaskID>()
            var tasks: [Task] = []
            for prefix in ids {
                let id = try snap.resolve(prefix)
                guard seen.insert(id).inserted else { continue }
                guard let task = try snap.task(id) else { throw StoreError.taskNotFound(prefix) }
                tasks.append(task)
            }
            let shorts = try snap.shortIDs(tasks.map(\.id))
            var results: [Changed] = []
            var changed: [Task] = []
            for var task in tasks {
                let did = try apply(&task, stamper.stamp(after: task))
                if did { changed.append(task) }
                results.append(Changed(task: task, short: shorts[task.id] ?? String(task.id.hex.prefix(4)), changed: did))
            }
            let names = results.filter(\.changed).map { "\(CommitText.title($0.task.title)) (\($0.short))" }
            let message = names.count <= 3
                ? "\(verb): " + names.joined(separator: ", ")
                : "\(verb): \(names.count) tasks: " + names.joined(separator: ", ")
            return Household.Update(tasks: changed, message: message, value: results)
        }
    }
}
