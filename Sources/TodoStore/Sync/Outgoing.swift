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
        let problem: SendRefusal
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
            return Refusal(path: bad.path, problem: .unreadableTask(reason: bad.reason), commit: commit)
        }
        if let (info, problem) = try Incoming.firstProblem(repo, tip: head, have: hidden) {
            return Refusal(path: "", problem: .disallowed(problem), commit: info)
        }
        return nil
    }

    /// Throws the data error that stops a push when `check` finds something.
    static func validate(_ repo: Repository, head: ObjectID, remote: ObjectID?) throws {
        guard let r = try check(repo, head: head, remote: remote) else { return }
        let by = r.commit.map(CommitFacts.init)
        switch r.problem {
        case .disallowed(let violation):
            // Receivers check every commit, so a later commit that removes the path does not
            // make this one acceptable: what is sent must not descend from it. It has never been
            // sent, so the doctor's repair sets the unsent commits aside (DoctorUnsent.swift).
            throw SyncError(.unsendable, .unsendablePath(violation, commit: by))
        case .unreadableTask(let reason):
            throw SyncError(.unsendable, .unsendableFile(path: r.path, reason: reason, commit: by))
        }
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

/// Why something here may not be sent.
public enum SendRefusal: Sendable {
    /// A changed task file that cannot be read as a task: the reader's reason.
    case unreadableTask(reason: String)
    /// A commit not yet sent adds what the format does not allow.
    case disallowed(FormatViolation)
}
