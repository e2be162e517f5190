import GitKit
public import TodoCore

/// One commit in a household's history, with what it did to each task.
public struct HistoryEntry: Sendable {
    public let commit: String
    public let authorName: String
    public let authorEmail: String
    /// Seconds since the epoch, and the author's zone offset in minutes.
    public let time: Int64
    public let offsetMinutes: Int32
    public let message: String
    public let isMerge: Bool
    public let changes: [TaskChange]
}

/// What one commit did to one task.
public struct TaskChange: Sendable {
    public let id: TaskID
    public let before: Task?
    public let after: Task?
    /// The fields whose values differ (`tags` for tag changes); empty for a new task.
    public let fields: [String]
    public var isNew: Bool { before == nil }
}

extension Household {
    /// The history, newest first: every commit, or only those that changed task `id`; only
    /// commits made at or after `since` (seconds since the epoch), only those whose author's
    /// name or email is `author` (case aside).
    public func history(of id: TaskID? = nil, limit: Int? = nil, since: Int64? = nil, author: String? = nil)
        throws(StoreError) -> [HistoryEntry]
    {
        let author = author?.lowercased()
        do {
            guard let head = try repo.resolve(reference: Self.branch) else { return [] }
            var entries: [HistoryEntry] = []
            try repo.walk(from: head) { oid in
                let info = try repo.commit(oid)
                if let since, info.author.time < since { return true }
                if let author, info.author.name.lowercased() != author && info.author.email.lowercased() != author {
                    return true
                }
                let parentTree = try info.parents.first.map { try repo.commit($0).tree }
                let diffs: [(TaskID, ObjectID?, ObjectID?)]
                if let id {
                    let new = try repo.treeEntry(info.tree, path: id.path)?.id
                    let old = try parentTree.flatMap { try repo.treeEntry($0, path: id.path)?.id }
                    if new == old { return true }
                    diffs = [(id, old, new)]
                } else {
                    diffs = try changedTaskFiles(old: parentTree, new: info.tree)
                }
                let changes = diffs.map { (tid, old, new) -> TaskChange in
                    // A version that cannot be decoded is compared as absent: log shows the change as a whole file.
                    let before = old.flatMap { try? decodeBlob($0, id: tid) }
                    let after = new.flatMap { try? decodeBlob($0, id: tid) }  // absent: as above
                    return TaskChange(id: tid, before: before, after: after, fields: changedFields(before, after))
                }
                entries.append(
                    HistoryEntry(
                        commit: oid.hex, authorName: info.author.name, authorEmail: info.author.email,
                        time: info.author.time, offsetMinutes: info.author.offsetMinutes, message: info.message, isMerge: info.parents.count > 1,
                        changes: changes))
                return limit.map { entries.count < $0 } ?? true
            }
            return entries
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    func decodeBlob(_ blob: ObjectID, id: TaskID) throws -> Task {
        try TaskCodec.decode(try repo.readBlob(blob, limit: TaskCodec.maxFileSize), expectedID: id)
    }

    /// Task files that differ between two root trees, found by comparing subtree ids so that
    /// only changed fan-out directories are read.
    func changedTaskFiles(old: ObjectID?, new: ObjectID?) throws -> [(TaskID, ObjectID?, ObjectID?)] {
        func sub(_ tree: ObjectID?, _ name: String) throws -> ObjectID? {
            guard let tree, let e = try repo.treeEntry(tree, path: name), e.kind == .tree else { return nil }
            return e.id
        }
        func entries(_ tree: ObjectID?) throws -> [String: TreeEntry] {
            guard let tree else { return [:] }
            var map: [String: TreeEntry] = [:]
            for e in try repo.treeEntries(tree) { map[e.name] = e }
            return map
        }
        let oldTasks = try sub(old, "tasks")
        let newTasks = try sub(new, "tasks")
        if oldTasks == newTasks { return [] }
        let oldDirs = try entries(oldTasks)
        let newDirs = try entries(newTasks)
        var out: [(TaskID, ObjectID?, ObjectID?)] = []
        for name in Set(oldDirs.keys).union(newDirs.keys).sorted() {
            let o = oldDirs[name]
            let n = newDirs[name]
            if o?.id == n?.id { continue }
            let oldFiles = try entries(o?.kind == .tree ? o?.id : nil)
            let newFiles = try entries(n?.kind == .tree ? n?.id : nil)
            for file in Set(oldFiles.keys).union(newFiles.keys).sorted() {
                guard let id = Snapshot.taskID(fileName: file, dir: name) else { continue }
                let ob = oldFiles[file]?.id
                let nb = newFiles[file]?.id
                if ob != nb { out.append((id, ob, nb)) }
            }
        }
        return out
    }
}

/// The fields whose values differ between two states of a task.
public func changedFields(_ before: Task?, _ after: Task?) -> [String] {
    guard let before, let after else { return [] }
    var fields: [String] = []
    for f in Task.fieldOrder where f != "id" && before.value(of: f) != after.value(of: f) { fields.append(f) }
    for key in Set(before.extra.keys).union(after.extra.keys).sorted() where before.extra[key] != after.extra[key] {
        fields.append(key)
    }
    if before.conflicts.count != after.conflicts.count { fields.append("conflicts") }
    return fields
}
