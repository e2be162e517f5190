import GitKit
import TodoCore

/// A task file's last readable version in history.
struct ReadableVersion {
    let path: String
    let bytes: [UInt8]
    /// The commit that holds that version.
    let commit: ObjectID
}

extension Household {
    /// Unreadable or misplaced task files and paths the format does not allow; with `fix`, one
    /// commit restores every unreadable file that history has a readable version of.
    func checkTaskFiles(_ snap: Snapshot, bad: [BadFile], fix: Bool) throws -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        var restorable: [(BadFile, ReadableVersion)] = []
        for b in bad {
            guard let id = Self.taskID(path: b.path), let head = snap.commit else {
                findings.append(
                    DoctorFinding(
                        "task-file", .problem, path: b.path, .notATaskFile(path: b.path, reason: b.reason), advice: .removeWithGit(path: b.path)))
                continue
            }
            if let version = try lastReadable(id, path: b.path, head: head) {
                restorable.append((b, version))
            } else {
                findings.append(
                    DoctorFinding(
                        "task-file", .problem, path: b.path, .neverReadable(path: b.path, reason: b.reason), advice: .fixByHand))
            }
        }
        var refused: [String] = []
        if fix && !restorable.isEmpty {
            do {
                let commit = try restore(restorable.map(\.1))
                for (b, v) in restorable {
                    findings.append(
                        DoctorFinding(
                            "task-file", .fixed, path: b.path,
                            .restored(
                                path: b.path, reason: b.reason, from: String(v.commit.hex.prefix(10)),
                                in: commit.map { String($0.hex.prefix(10)) })))
                }
                restorable = []
            } catch StoreError.handEdits(_, let paths) {
                refused = paths
            }
        }
        for (b, v) in restorable {
            let advice: DoctorFinding.Advice =
                refused.isEmpty ? .restoreVersion(commit: String(v.commit.hex.prefix(10))) : .handEditsBlockFix(paths: refused)
            findings.append(
                DoctorFinding(
                    "task-file", .problem, path: b.path, .unreadable(path: b.path, reason: b.reason), advice: advice, fixable: true))
        }
        // Paths under tasks/ are the task files' own findings above; this is for the rest.
        if let tree = snap.tree,
            let bad = try Incoming.disallowed(repo, tree: tree, old: nil, prefix: "", all: false).first,
            !bad.path.hasPrefix("tasks/")
        {
            findings.append(
                DoctorFinding("task-file", .problem, .disallowedPath(bad.problem), advice: .removeWithNewCommit))
        }
        if findings.isEmpty { findings.append(DoctorFinding("task-file", .ok, .taskFilesReadable)) }
        return findings
    }

    /// The task id a path `tasks/<aa>/<id>.json` names; nil for any other path.
    static func taskID(path: String) -> TaskID? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "tasks" else { return nil }
        return Snapshot.taskID(fileName: String(parts[2]), dir: String(parts[1]))
    }

    /// The newest version of `path` in the history of `head` that reads as task `id`.
    func lastReadable(_ id: TaskID, path: String, head: ObjectID) throws -> ReadableVersion? {
        var judged: [ObjectID: Bool] = [:]
        var found: ReadableVersion?
        try repo.walk(from: head) { oid in
            let info = try repo.commit(oid)
            guard let entry = try repo.treeEntry(info.tree, path: path), entry.kind == .blob else { return true }
            if let known = judged[entry.id] {
                if !known { return true }
            }
            let bytes = try repo.readBlob(entry.id, limit: TaskCodec.maxFileSize + 1)
            let readable = (try? TaskCodec.decode(bytes, expectedID: id)) != nil  // whether it decodes is the question asked
            judged[entry.id] = readable
            if readable { found = ReadableVersion(path: path, bytes: bytes, commit: oid) }
            return !readable
        }
        return found
    }

    /// One commit that writes each version back, logging where each came from.
    func restore(_ versions: [ReadableVersion]) throws -> ObjectID? {
        let lines = versions.map { "\($0.path): restored from commit \($0.commit.hex)" }
        try update { _ in
            Household.Update(
                tasks: [], files: versions.map { ($0.path, $0.bytes) },
                message: "doctor: restore \(versions.count) unreadable task file\(versions.count == 1 ? "" : "s")\n\n"
                    + lines.joined(separator: "\n"),
                value: ())
        }
        return try repo.resolve(reference: Self.branch)
    }
}
