import GitKit
import TodoCore

// Commits not yet sent that hold something other members' todo refuses (a path the format does
// not allow, a symbolic link, an executable or oversized file). Receivers check every commit,
// so a later commit that removes it does not help; what helps is not sending those commits.
// Nobody else has them, so setting them aside rewrites no one's history.

extension Household {
    /// Where `todo doctor --fix` keeps the unsent commits it set aside.
    static let setAsidePrefix = "refs/todo/set-aside/"

    /// The first unsent commit (on `main`, not on the remote's `main` as last fetched) that adds
    /// what receivers refuse; with `fix`, one new commit on the remote's `main` takes their place.
    func checkUnsent(fix: Bool) throws -> [DoctorFinding] {
        guard let url = try remoteURL(), !url.isEmpty, let head = try repo.resolve(reference: Self.branch) else { return [] }
        let tracking = try repo.resolve(reference: Self.trackingRef)
        if let tracking, try repo.isAncestor(head, of: tracking) { return [] }
        // Reported only when there is something to do: a sync says the rest.
        guard let (info, problem) = try Incoming.firstProblem(repo, tip: head, have: tracking.map { [$0] } ?? []) else { return [] }
        let found = DoctorFinding.Fact.unsentRefused(commit: CommitFacts(info), problem: problem)
        if let tracking, try !repo.isAncestor(tracking, of: head) {
            return [DoctorFinding("unsent", .problem, found, advice: .syncThenFix)]
        }
        guard fix else {
            return [
                DoctorFinding("unsent", .problem, found, advice: .setAsideUnsent(prefix: Self.setAsidePrefix), fixable: true)
            ]
        }
        let commit: ObjectID, aside: String, dropped: [String]
        do {
            (commit, aside, dropped) = try setAsideUnsent(head: head, tracking: tracking, problem: problem)
        } catch StoreError.handEdits(_, let paths) {
            return [
                DoctorFinding("unsent", .problem, found, advice: .handEditsBlockFix(paths: paths), fixable: true)
            ]
        }
        return [
            DoctorFinding(
                "unsent", .fixed,
                .unsentReplaced(
                    commit: CommitFacts(info), problem: problem, replacement: String(commit.hex.prefix(10)), dropped: dropped, setAside: aside))
        ]
    }

    /// Makes one commit on `tracking` (a root commit when nil) with `head`'s tree, less what
    /// receivers refuse, and points `main` at it; the old `main` is kept under
    /// `setAsidePrefix`. Returns the commit, the ref that keeps the old one, and the paths left
    /// out (or made regular files); none when a later commit already removed what `problem`
    /// describes.
    func setAsideUnsent(head: ObjectID, tracking: ObjectID?, problem: FormatViolation) throws -> (ObjectID, String, [String]) {
        try withLock {
            try recoverInterruptedChange()
            let headTree = try repo.commit(head).tree
            let remoteTree = try tracking.map { try repo.commit($0).tree }
            var changes: [TreeChange] = []
            var shown: [String] = []
            var files: [String] = []  // every work-tree path that changes
            for d in try Incoming.disallowed(repo, tree: headTree, old: nil, prefix: "", all: true) {
                shown.append(d.path)
                files += d.entry.kind == .tree ? try blobPaths(d.entry.id, prefix: d.path + "/") : [d.path]
                if d.entry.mode == 0o100755, Self.taskID(path: d.path) != nil, try repo.blobSize(d.entry.id) <= 1 << 20 {
                    changes.append(.upsert(path: d.path, blob: d.entry.id))  // the same bytes, not executable
                } else if let remoteTree, let theirs = try repo.treeEntry(remoteTree, path: d.path), theirs.mode == 0o100644 {
                    changes.append(.upsert(path: d.path, blob: theirs.id))
                } else {
                    changes.append(.remove(path: d.path))
                }
            }
            // Nothing changed by hand and not committed is overwritten.
            try refuseHandEdits(files, committed: headTree)
            let tree = try repo.updateTree(headTree, changes)
            let sig = try signatureNow()
            var replaced = 0
            try repo.walk(from: head, hiding: tracking.map { [$0] } ?? []) { _ in
                replaced += 1
                return true
            }
            let aside = Self.setAsidePrefix + head.hex
            let message = """
                doctor: \(replaced) unsent commit\(replaced == 1 ? "" : "s") as one, without what other members refuse

                The commits up to \(head.hex) held what other members' todo refuses
                (\(problem.historyText)\(shown.isEmpty ? ", removed since" : "; left out here: " + shown.joined(separator: ", "))).
                They were never sent. This commit holds every task as they left it; they are
                kept as \(aside).
                """
            let commit = try repo.createCommit(
                tree: tree, parents: tracking.map { [$0] } ?? [], author: sig, committer: sig, message: message + "\n")
            try repo.updateReference(aside, to: head, expected: nil, force: true, message: "doctor: set aside")
            try recordPending(files)
            try repo.moveBranch(Self.branch, to: commit, expected: head, committer: sig, message: "doctor: set aside unsent commits")
            try repo.resetIndex(to: commit, paths: files)
            try repo.checkout(tree: tree, paths: files)
            clearPending()
            return (commit, aside, shown)
        }
    }

    /// The paths of the files in `tree`, each prefixed with `prefix`.
    private func blobPaths(_ tree: ObjectID, prefix: String) throws -> [String] {
        var out: [String] = []
        for e in try repo.treeEntries(tree) {
            out += e.kind == .tree ? try blobPaths(e.id, prefix: prefix + e.name + "/") : [prefix + e.name]
        }
        return out
    }
}
