import Glibc
import GitKit
public import TodoCore

// The cheap health checks that `todo list`, `show` and `status` run on every call: task files
// changed by hand and not committed, and committed task files that cannot be read.

extension Household {
    /// Task files in the work tree (or index) that differ from the last commit: every file is
    /// checked, as `git status` does (each index entry's size, modification time and inode
    /// against the file, the file hashed where those differ or are too recent to trust; files
    /// the index does not know). The cost grows with the household (about 40 ms at 10,000
    /// tasks): for `todo status` and `todo doctor`.
    ///
    /// With `repairing` (`doctor --fix`), when the household lock can be had at once, the check
    /// runs under it: a change a killed command left half done is finished, stale stat data in
    /// the index is refreshed (a copied household costs one hashing of every file, not one per
    /// call), and the folders found edited are recorded for `quickHandEdits`, which would not
    /// otherwise look again at a folder older than the index just written. Without it (a read:
    /// `status`, `doctor`) nothing is written.
    public func handEdits(repairing: Bool = false) throws(StoreError) -> [String] {
        let spec = ["tasks/", MergeSetup.attributesPath]
        do {
            if repairing, let lock = lockIfFree() {
                defer { withExtendedLifetime(lock) {} }
                // A change a killed command left half-written is finished first, not taken for edits.
                try? recoverInterruptedChange()
                let started = Self.now()
                // Another program (plain git) may hold the index's own lock: then no refresh.
                let found = try ((try? repo.dirtyPaths(pathspec: spec, refreshIndex: true)) ?? repo.dirtyPaths(pathspec: spec)).sorted()
                recordChecked(Self.folders(of: found), started: started)
                return found
            }
            let found = try repo.dirtyPaths(pathspec: spec)
            if found.isEmpty { return [] }
            return try confirmed { _ in try repo.dirtyPaths(pathspec: spec) } ?? found.sorted()
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// What `todo show` checks: `quickHandEdits(snap)` and, compared exactly, the task's own
    /// file (its index entry and work-tree file against the commit: one `lstat` and one hash),
    /// so a rewrite in place of the file being shown is seen too.
    public func handEdits(_ snap: Snapshot, task id: TaskID) throws(StoreError) -> [String] {
        let quick = try quickHandEdits(snap)
        do {
            // The file against the commit: one lstat and one hash, without reading the index
            // (a megabyte at 10,000 tasks).
            var own = try repo.workFilesDiffering(from: snap.tree, paths: [id.path])
            if !own.isEmpty {
                own = try confirmed { try repo.workFilesDiffering(from: $0.tree, paths: [id.path]) } ?? own
            }
            return Set(quick + own).sorted()
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// Task files added, removed or replaced by hand since `todo` (or git) last wrote the
    /// index, found from the modification times of the task folders: about 260 `lstat` calls at
    /// any household size. A folder changed after the index was written is compared file by
    /// file with the commit. An editor that saves by renaming a new file into place (vim,
    /// emacs, `sed -i`) changes the folder; one that rewrites a file in place does not, and
    /// only `handEdits()` sees that.
    public func quickHandEdits(_ snap: Snapshot) throws(StoreError) -> [String] {
        do {
            if try foldersDiffering(snap).isEmpty { return [] }
            return try confirmed { try foldersDiffering($0) } ?? foldersDiffering(snap)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// What looked edited, looked at again under the household lock, where no other `todo` is
    /// halfway through writing the work tree, and without the paths of an interrupted change
    /// (the next writing command puts those back). Nil when the lock cannot be had at all (a
    /// household we may not write); empty when another command holds it for long.
    private func confirmed(_ find: (Snapshot) throws -> [String]) throws -> [String]? {
        let lock: FileLock?
        do {
            lock = try FileLock.acquire(path: repo.gitDirectory + "todo.lock", timeout: 1)
        } catch {
            return nil
        }
        guard let lock else { return [] }
        defer { withExtendedLifetime(lock) {} }
        let pending = Set((readFile(pendingPath) ?? "").split(separator: "\n").map(String.init))
        return try find(Snapshot(repo: repo)).filter { !pending.contains($0) }.sorted()
    }

    /// The files of task folders changed since the index was written that differ from `snap`.
    /// `.git/todo/worktree-checked` names the folders that held edits, which are read again
    /// every time (a later command that writes the index does not make them clean), and its
    /// time says when every other folder was last found clean: it is written when many folders
    /// had to be read (after a copy of the household, say, which leaves every folder newer than
    /// the index) or when the set of edited folders changed.
    private func foldersDiffering(_ snap: Snapshot) throws -> [String] {
        guard let work = repo.workDirectory else { return [] }
        var st = stat()
        guard lstat(repo.gitDirectory + "index", &st) == 0 else { return [] }
        let indexTime = st.st_mtim
        let started = Self.now()
        let markerPath = checkedMarkerPath
        var checkedTime: timespec?
        var edited: Set<String> = []
        if lstat(markerPath, &st) == 0 {
            if Self.later(st.st_mtim, than: indexTime) { checkedTime = st.st_mtim }
            edited = Set((readFile(markerPath) ?? "").split(separator: "\n").map(String.init))
        }
        func changed(_ path: String) -> Bool? {
            var s = stat()
            guard lstat(path, &s) == 0 else { return nil }
            return !Self.later(indexTime, than: s.st_mtim) && checkedTime.map { Self.later(s.st_mtim, than: $0) } ?? true
        }
        let folders = try snap.fanout()
        var suspects: [(String, ObjectID?)] = []
        let known = Set(folders.map(\.name))
        if changed(work + "tasks") ?? (snap.tasksTree != nil) {
            for name in listDirectory(work + "tasks") where !known.contains(name) { suspects.append((name, nil)) }
        } else {
            for name in edited where !known.contains(name) { suspects.append((name, nil)) }
        }
        for f in folders where edited.contains(f.name) || changed(work + "tasks/" + f.name) ?? true {
            suspects.append((f.name, f.id))
        }
        var found: [String] = []
        for (name, tree) in suspects {
            var s = stat()
            if lstat(work + "tasks/" + name, &s) == 0 && (s.st_mode & S_IFMT) != S_IFDIR {
                found.append("tasks/" + name)
            } else {
                found += try repo.folderDiffers("tasks/" + name, from: tree)
            }
        }
        let editedNow = Self.folders(of: found)
        if suspects.count > Self.foldersWorthRecording || editedNow != edited {
            recordChecked(editedNow, started: started)
        }
        return found
    }

    var checkedMarkerPath: String { repo.gitDirectory + "todo/worktree-checked" }

    /// Records in `.git/todo/worktree-checked` that a check begun at `started` found edits in
    /// `folders` and nowhere else. Dated a little before the check began, so that a change
    /// made while it ran is looked at again; the file system's clock may lag the one read here
    /// by a tick.
    func recordChecked(_ folders: Set<String>, started: timespec) {
        mkdir(repo.gitDirectory + "todo", 0o755)
        // A cache of which folders were checked: without it the next command checks them again.
        if (try? writeFile(checkedMarkerPath, folders.sorted().joined(separator: "\n") + "\n", sync: false)) != nil {
            var times = [timespec(tv_sec: started.tv_sec - 1, tv_nsec: started.tv_nsec), timespec(tv_sec: started.tv_sec - 1, tv_nsec: started.tv_nsec)]
            utimensat(AT_FDCWD, checkedMarkerPath, &times, 0)
        }
    }

    /// The task folders (`ab` of `tasks/ab/...`) that paths are in.
    static func folders(of paths: [String]) -> Set<String> {
        Set(paths.compactMap { $0.split(separator: "/").dropFirst().first.map(String.init) })
    }

    static func now() -> timespec {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return t
    }

    /// Past this many folders read in one check, the result is recorded.
    static let foldersWorthRecording = 8

    static func later(_ a: timespec, than b: timespec) -> Bool {
        a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec > b.tv_nsec)
    }
}

/// `.git/todo/unreadable`: the committed task files that cannot be read, as of one `tasks`
/// tree, written with the list cache. `todo show` and `todo status` read it (a few bytes)
/// instead of the whole cache, and bring it up to date from the files that changed since.
///
/// File: the tree id (40 hex), newline, then one line per file: path, tab, reason.
enum UnreadableRecord {
    /// Past this many changed files since the record, the list cache is brought up to date
    /// instead (it writes a new record).
    static let patchLimit = 256

    static func path(_ repo: Repository) -> String { repo.gitDirectory + "todo/unreadable" }

    static func read(_ repo: Repository) -> (tree: ObjectID, bad: [BadFile])? {
        guard let text = readFile(path(repo)) else { return nil }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard !lines.isEmpty, let tree = ObjectID(hex: String(lines.removeFirst())) else { return nil }
        var bad: [BadFile] = []
        for line in lines {
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { return nil }
            bad.append(BadFile(path: String(parts[0]), reason: String(parts[1])))
        }
        return (tree, bad)
    }

    /// Written atomically; failures are ignored (it is only a cache).
    static func write(_ repo: Repository, tree: ObjectID, bad: [BadFile]) {
        func clean(_ s: String) -> String {
            String(s.unicodeScalars.map { $0 == "\n" || $0 == "\t" || $0 == "\r" ? " " : Character($0) })
        }
        var text = tree.hex + "\n"
        for b in bad { text += clean(b.path) + "\t" + clean(b.reason) + "\n" }
        mkdir(repo.gitDirectory + "todo", 0o755)
        // A cache: without it the next command reads the files again.
        try? writeFile(path(repo), text, sync: false)
    }
}

extension Snapshot {
    /// The committed task files that cannot be read (and entries in `tasks/` that are not task
    /// files). Cheap: from `.git/todo/unreadable`, corrected by the task files that changed
    /// since it was written; when there is none, or much changed, from the list cache.
    public func unreadable() throws(StoreError) -> [BadFile] {
        guard let tasksTree else { return [] }
        if let (tree, recorded) = UnreadableRecord.read(repo) {
            if tree == tasksTree { return recorded }
            if let patched = try? patchUnreadable(recorded, from: tree) { return patched }  // cannot patch: all files are read again below
        }
        let bad = try loadAllCached().bad
        UnreadableRecord.write(repo, tree: tasksTree, bad: bad)
        return bad
    }

    /// `recorded` (as of the tasks tree `tree`) brought up to this snapshot; nil when the
    /// difference is large or holds entries that are not task files.
    private func patchUnreadable(_ recorded: [BadFile], from tree: ObjectID) throws -> [BadFile]? {
        let diff = try changedFiles(oldTasks: tree, newTasks: tasksTree)
        guard diff.count <= UnreadableRecord.patchLimit else { return nil }
        var changed: Set<String> = []
        var found: [BadFile] = []
        for (id, _, blob) in diff {
            guard let id else { return nil }
            changed.insert(id.path)
            if let blob, let problem = try readProblem(blob: blob, id: id) { found.append(problem) }
        }
        return (recorded.filter { !changed.contains($0.path) } + found).sorted { $0.path < $1.path }
    }

    /// Why the task file `blob` cannot be read as task `id`; nil when it can.
    func readProblem(blob: ObjectID, id: TaskID) throws -> BadFile? {
        do {
            _ = try decode(blob: blob, id: id)
            return nil
        } catch {
            if case .malformedTask(let p, let reason) = error { return BadFile(path: p, reason: reason) }
            throw error
        }
    }
}
