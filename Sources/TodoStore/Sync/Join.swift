import Glibc
import GitKit
import TodoCore

// Joining a household whose remote has no history yet (docs/FORMAT.md, "Joining"). A clone of
// an empty remote is marked as waiting: its history is its own, nobody else has it, and pushing
// it would make it the household's and strand the creator's. So while waiting, a sync that
// finds the remote empty pushes nothing; the first sync that finds a history there takes it as
// `main` and brings this household's own commits onto it, then pushes as usual.

extension Household {
    /// The local mark (`.git/config`, never committed) of a household that waits for its
    /// remote's first history.
    static let waitingKey = "todo.waitingForRemote"

    /// Whether this household waits for its remote's first history: it was cloned from an empty
    /// remote and has not synced with a history since.
    public func isWaitingForRemote() -> Bool {
        // An unreadable setting is no waiting: the household then syncs as any other, which reports a broken config.
        ((try? repo.configString(Self.waitingKey)) ?? nil) == "true"
    }

    func setWaitingForRemote(_ waiting: Bool) throws {
        if waiting {
            try repo.setLocalConfig(Self.waitingKey, "true")
        } else {
            try repo.removeLocalConfig(Self.waitingKey)
        }
    }

    /// Whether `main` and `tip` have a commit in common.
    func sharesHistory(with tip: ObjectID) throws -> Bool {
        guard let head = try repo.resolve(reference: Self.branch) else { return false }
        return try repo.mergeBase(head, tip) != nil
    }

    /// A waiting household takes `remoteTip` (the remote's first history, fetched, checked and
    /// in the household) as `main`: each commit of its own that changed task files is made
    /// again on top, oldest first, with the same files (a task the remote also has is merged
    /// field by field), author and message; the old `main` is kept under `setAsidePrefix`. One
    /// compare-and-swap moves `main` from the old commits to the new ones, so a kill leaves one
    /// or the other, each holding every task of this household; the mark is removed only after.
    /// The caller holds the household lock.
    func joinLocked(remoteTip: ObjectID) throws -> MergeResult {
        let before = try Snapshot(repo: repo)
        var tip = remoteTip
        let collector = MergeCollector()
        if let head = before.commit {
            var own: [CommitInfo] = []
            var next: ObjectID? = head
            while let c = next {
                let info = try repo.commit(c)
                own.append(info)
                next = info.parents.first
            }
            // The new commits go to memory, then into the household in one write.
            let bulk = try BulkWriter(path: path)
            let writer = bulk.repository
            var tree = try repo.commit(remoteTip).tree
            let committer = try signatureNow()
            for info in own.reversed() {
                let parentTree = try info.parents.first.map { try repo.commit($0).tree }
                var changes: [TreeChange] = []
                for (id, old, new) in try changedTaskFiles(old: parentTree, new: info.tree) {
                    let current = try writer.treeEntry(tree, path: id.path)?.id
                    if current == new { continue }
                    guard let new else {
                        // Removed with git: removed here too, unless the file is the remote's.
                        if current != nil && current == old { changes.append(.remove(path: id.path)) }
                        continue
                    }
                    guard let current, current != old else {
                        changes.append(.upsert(path: id.path, blob: new))
                        continue
                    }
                    // The remote has the task too (imported from the same list): merged as a
                    // sync merges a task both sides added.
                    let sides = MergeSides(
                        path: id.path, ancestor: nil, ours: try writer.readBlob(current), theirs: try writer.readBlob(new))
                    if case .merged(let bytes) = collector.resolve(sides) {
                        changes.append(.upsert(path: id.path, blob: try writer.writeBlob(bytes)))
                    }
                }
                if changes.isEmpty { continue }
                tree = try writer.updateTree(tree, changes)
                tip = try writer.createCommit(tree: tree, parents: [tip], author: info.author, committer: committer, message: info.message)
            }
            if !collector.failures.isEmpty { throw StoreError.mergeFailed(collector.failures) }
            try bulk.flush(into: repo, reaching: [tip], from: [remoteTip])
            let aside = Self.setAsidePrefix + head.hex
            // Holding the household lock, a lock file on this ref was left by a join that was killed.
            unlink(repo.gitDirectory + aside + ".lock")
            try repo.updateReference(aside, to: head, expected: nil, force: true, message: "join: set aside")
        }
        let (_, diff) = try moveMain(from: before, to: tip, message: "join: the remote's history")
        try setWaitingForRemote(false)
        return MergeResult(
            kind: .fastForward, commit: tip.hex, entries: collector.entries, warnings: collector.warnings,
            changedTasks: diff.compactMap(\.0), futureWrites: [])
    }

    /// A sync refused because the remote's history is another household's.
    func unrelatedHistoriesError(url: String) -> SyncError {
        SyncError(.unrelatedHistories, .anotherHousehold(remote: redactedURL(url), household: name))
    }

    /// Whether the commit `tip` looks like a household's: it has a `tasks` folder or the merge
    /// setup in `.gitattributes`. A household's history starts with the merge setup.
    static func looksLikeHousehold(_ repo: Repository, tip: ObjectID) throws -> Bool {
        let tree = try repo.commit(tip).tree
        if let tasks = try repo.treeEntry(tree, path: "tasks"), tasks.kind == .tree { return true }
        guard let attributes = try repo.treeEntry(tree, path: MergeSetup.attributesPath), attributes.kind == .blob,
            // An unreadable attributes file is no sign of a household: the caller refuses the remote as not one.
            let bytes = try? repo.readBlob(attributes.id, limit: 1 << 16)
        else { return false }
        return String(decoding: bytes, as: UTF8.self).contains("merge=todo")
    }
}
