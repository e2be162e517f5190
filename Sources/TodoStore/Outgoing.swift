import GitKit
import TodoCore

/// What a push may send: the same rules as for content received (`Incoming`), checked on every
/// commit the remote lacks, and every task file that differs from the remote's `main` must read
/// as the task its path names. A household that sent a broken file would make it vanish from
/// every other member's list; one that sent a disallowed path would stop everyone's sync.
enum Outgoing {
    /// A file that may not be sent, and the commit that put it there.
    struct Refusal {
        let path: String
        let problem: String
        let commit: CommitInfo?
    }

    /// Checks what pushing `head` over the remote's `remote` (nil: an empty remote) would send.
    /// Only commits between the two and files that differ are read, comparing subtree ids, so
    /// the cost follows what changed, not the size of the household.
    static func check(_ repo: Repository, head: ObjectID, remote: ObjectID?) throws -> Refusal? {
        let here = try Snapshot(repo: repo, commit: head)
        let there = try Snapshot(repo: repo, commit: remote)
        let hidden = remote.map { [$0] } ?? []
        for (id, _, blob) in try there.changedFiles(oldTasks: there.tasksTree, newTasks: here.tasksTree) {
            guard let id, let blob, let bad = try here.readProblem(blob: blob, id: id) else { continue }
            let commit = try introduced(repo, path: bad.path, blob: blob, head: head, hiding: hidden)
            return Refusal(path: bad.path, problem: "cannot be read as a task (\(bad.reason))", commit: commit)
        }
        if let (info, problem) = try Incoming.firstProblem(repo, tip: head, have: hidden) {
            return Refusal(path: "", problem: problem, commit: info)
        }
        return nil
    }

    /// Throws the data error that stops a push when `check` finds something.
    static func validate(_ repo: Repository, head: ObjectID, remote: ObjectID?) throws {
        guard let r = try check(repo, head: head, remote: remote) else { return }
        let by = r.commit.map { " (commit \($0.id.hex.prefix(10)) by \($0.author.name) <\($0.author.email)>)" } ?? ""
        if r.path.isEmpty {
            // Receivers check every commit, so a later commit that removes the path does not
            // make this one acceptable: what is sent must not descend from it. It has never been
            // sent, so `todo doctor --fix` sets the unsent commits aside (DoctorUnsent.swift).
            throw SyncError(
                .unsendable,
                "Nothing was sent: this household has \(r.problem)\(by), and other members' todo refuses every commit that adds it, even if a later one removes it.\nRepair it with `todo doctor --fix`: one new commit on the remote's main takes the place of the commits not yet sent, with every task as it is now and without that path; those commits, which nobody else has, are kept under refs/todo/set-aside/.")
        }
        throw SyncError(
            .unsendable,
            "Nothing was sent: the task file \(r.path) \(r.problem)\(by).\nRepair it with a new commit: `todo doctor --fix` restores its last readable version, or fix the file and commit it with git. Never rewrite history that others may have.")
    }

    /// The newest commit between `head` and `hiding` that has `blob` at `path` while none of its
    /// parents does: the one that wrote it.
    static func introduced(_ repo: Repository, path: String, blob: ObjectID, head: ObjectID, hiding: [ObjectID]) throws
        -> CommitInfo?
    {
        var found: CommitInfo?
        try repo.walk(from: head, hiding: hiding) { oid in
            let info = try repo.commit(oid)
            guard try repo.treeEntry(info.tree, path: path)?.id == blob else { return true }
            for parent in info.parents where try repo.treeEntry(repo.commit(parent).tree, path: path)?.id == blob {
                return true
            }
            found = info
            return false
        }
        return found
    }
}
