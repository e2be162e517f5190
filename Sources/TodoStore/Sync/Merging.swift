import Glibc
import GitKit
public import TodoCore

/// What merging another line of history into `main` did.
public struct MergeResult: Sendable {
    public enum Kind: Sendable { case upToDate, fastForward, merged }
    public let kind: Kind
    /// The new tip of `main` (hex).
    public let commit: String?
    /// Conflict entries this merge added.
    public let entries: [ConflictEntry]
    public let warnings: [MergeWarning]
    /// Task files the merge changed in our work tree.
    public let changedTasks: [TaskID]
    /// Writes received that are stamped over a day ahead of our clock (their member's clock
    /// looks wrong).
    public let futureWrites: [Authorship]
}

/// Collects what the field-level merge reports, file by file, during one merge.
final class MergeCollector {
    var entries: [ConflictEntry] = []
    var warnings: [MergeWarning] = []
    var failures: [MergeFailure] = []

    func resolve(_ sides: MergeSides) -> DriverOutcome {
        guard Snapshot.isTaskPath(sides.path) else {
            failures.append(MergeFailure(path: sides.path, reason: .noReadableSide(ours: "not a task file", theirs: "not a task file")))
            return .conflict
        }
        switch TaskMerge.merge(base: sides.ancestor, ours: sides.ours, theirs: sides.theirs, path: sides.path) {
        case .merged(let bytes, let entries, let warnings):
            self.entries += entries
            self.warnings += warnings
            return .merged(bytes)
        case .failed(let failure):
            failures.append(failure)
            return .conflict
        }
    }
}

extension Snapshot {
    /// `tasks/<aa>/<32 hex>.json` with `<aa>` the id's first two characters.
    static func isTaskPath(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0] == "tasks" && taskID(fileName: String(parts[2]), dir: String(parts[1])) != nil
    }
}

extension Household {
    /// Merges the commit `reference` points at into `main`, under the household lock.
    public func merge(reference: String, message: String) throws(StoreError) -> MergeResult {
        do {
            return try withLock { () throws -> MergeResult in
                try recoverInterruptedChange()
                guard let theirs = try repo.resolve(reference: reference) else {
                    throw StoreError.taskNotFound(reference)
                }
                return try mergeLocked(theirs: theirs, message: { _ in message })
            }
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// Merges `theirs` into `main`; the caller holds the lock. Fast-forwards when `main` has
    /// nothing of its own; otherwise merges field by field and commits with both parents.
    func mergeLocked(theirs: ObjectID, message: (MergeCounts) -> String) throws -> MergeResult {
        let head = try repo.resolve(reference: Self.branch)
        let before = try Snapshot(repo: repo)
        if let head, try repo.isAncestor(theirs, of: head) {
            return MergeResult(kind: .upToDate, commit: head.hex, entries: [], warnings: [], changedTasks: [], futureWrites: [])
        }
        var kind = MergeResult.Kind.fastForward
        var newCommit = theirs
        let collector = MergeCollector()
        if let head, try !repo.isAncestor(head, of: theirs) {
            guard let base = try repo.mergeBase(head, theirs) else { throw StoreError.unrelatedHistories }
            kind = .merged
            let baseTree = try repo.commit(base).tree
            let ourTree = try repo.commit(head).tree
            // The merge's objects go to memory, then into the household in one write.
            let bulk = try BulkWriter(path: path)
            let writer = bulk.repository
            let merge = TreeMerge(repo: writer) { collector.resolve($0) }
            let (changes, unmerged) = try merge.changes(base: baseTree, ours: ourTree, theirs: try repo.commit(theirs).tree)
            for path in unmerged where !collector.failures.contains(where: { $0.path == path }) {
                collector.failures.append(
                    MergeFailure(path: path, reason: .noReadableSide(ours: "not a plain file", theirs: "not a plain file")))
            }
            if !collector.failures.isEmpty { throw StoreError.mergeFailed(collector.failures) }
            let tree = try writer.updateTree(ourTree, changes)
            let counting = try Snapshot(repo: writer, commit: head)
            let counts = MergeCounts(
                changed: try counting.changedFiles(oldTasks: before.tasksTree, newTasks: try Self.tasksTree(writer, tree)).count,
                conflicts: collector.entries.count, authors: try authors(from: theirs, since: head))
            let sig = try signatureNow()
            newCommit = try writer.createCommit(
                tree: tree, parents: [head, theirs], author: sig, committer: sig, message: message(counts) + "\n")
            try bulk.flush(into: repo, reaching: [newCommit], from: [head, theirs])
        }
        let (after, diff) = try moveMain(from: before, to: newCommit, message: "merge")
        var future: [Authorship] = []
        let now = clock.nowMillis()
        for (id, _, blob) in diff {
            // A file that cannot be decoded has no stamps to look at; the check of what was received reports it.
            guard let id, let blob, let task = try? after.decode(blob: blob, id: id) else { continue }
            future += TaskMerge.futureStamps(in: task, now: now).map(Authorship.init)
        }
        return MergeResult(
            kind: kind, commit: newCommit.hex, entries: collector.entries, warnings: collector.warnings,
            changedTasks: diff.compactMap(\.0), futureWrites: future)
    }

    /// Points `main` at `newCommit` in place of `before.commit` (compare-and-swap) and brings
    /// the task files and `.gitattributes` that differ in the work tree and index to
    /// `newCommit`'s, recorded in `.git/todo-pending` while in flight; refuses, before anything
    /// is written, when one of them was changed by hand. `newCommit`'s objects are in the
    /// household already. Returns the new state and the task files that changed.
    func moveMain(from before: Snapshot, to newCommit: ObjectID, message: String) throws
        -> (after: Snapshot, diff: [(TaskID?, ObjectID?, ObjectID?)])
    {
        let after = try Snapshot(repo: repo, commit: newCommit)
        let diff = try before.changedFiles(oldTasks: before.tasksTree, newTasks: after.tasksTree)
        var paths = diff.compactMap { $0.0?.path }
        if try before.tree.flatMap({ try repo.treeEntry($0, path: MergeSetup.attributesPath)?.id })
            != (try after.tree.flatMap { try repo.treeEntry($0, path: MergeSetup.attributesPath)?.id })
        {
            paths.append(MergeSetup.attributesPath)
        }
        try refuseHandEdits(paths, committed: before.tree)
        try recordPending(paths)
        try repo.updateReference(Self.branch, to: newCommit, expected: before.commit, message: message)
        if let tree = after.tree { try writeCommitted(paths, of: tree) }
        clearPending()
        return (after, diff)
    }

    static func tasksTree(_ repo: Repository, _ root: ObjectID) throws -> ObjectID? {
        try repo.treeEntry(root, path: "tasks").flatMap { $0.kind == .tree ? $0.id : nil }
    }

    /// Who wrote the commits in `theirs` that `head` does not have, in first-seen order.
    func authors(from theirs: ObjectID, since head: ObjectID) throws -> [String] {
        var names: [String] = []
        try repo.walk(from: theirs, hiding: [head]) { oid in
            let name = try repo.commit(oid).author.name
            if !names.contains(name) { names.append(name) }
            return names.count < 10
        }
        return names
    }
}

/// Counts for a merge commit's message.
public struct MergeCounts: Sendable {
    public let changed: Int
    public let conflicts: Int
    public let authors: [String]
}
