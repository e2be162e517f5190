import FileKit
import Glibc
import GitKit
import SystemPackage
public import TodoCore

extension Household {
    /// What one command writes: the tasks it changed (written to their files), any other files,
    /// the commit message, and a value handed back to the caller.
    public struct Update<Value> {
        public var tasks: [Task]
        public var files: [(String, [UInt8])]
        public var message: String
        public var value: Value
        /// More tasks, made one at a time as they are written rather than held together (a
        /// large import): such a change takes `commitBulk`.
        var made: TaskSource?

        public init(tasks: [Task], files: [(String, [UInt8])] = [], message: String, value: Value) {
            self.tasks = tasks
            self.files = files
            self.message = message
            self.value = value
        }
    }

    /// Tasks a change makes one at a time: `each` hands every one of them, in turn, to the
    /// function it is given, which writes it and lets it go (`commitBulk` calls it once).
    struct TaskSource {
        var each: ((Task) throws -> Void) throws -> Void
    }

    /// The household as of the current commit, without taking the lock.
    public func snapshot() throws(StoreError) -> Snapshot {
        do {
            return try Snapshot(repo: repo)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// Runs one change under the household lock: `body` reads the current state and says what
    /// to write; this makes it exactly one commit on `main` (none if nothing changed) and brings
    /// the index and work tree up to date.
    ///
    /// Crash safety: the paths about to change are recorded in `.git/todo-pending` before the
    /// branch moves and cleared after the work tree is written; the next command finding the
    /// record puts those paths back to the committed state, so an interrupted change never
    /// looks like a hand edit.
    @discardableResult
    public func update<Value>(
        _ body: (Snapshot) throws -> Update<Value>
    ) throws(StoreError) -> Value {
        try transact(body).value
    }

    /// `update`, which also hands back the commit it made (its id in hex; nil when nothing changed).
    /// `committed` is told that commit while the lock is still held, for a local record of it.
    func transact<Value>(
        _ body: (Snapshot) throws -> Update<Value>, committed: (String) -> Void = { _ in }
    ) throws(StoreError) -> (value: Value, commit: String?) {
        do {
            return try withLock { () throws -> (Value, String?) in
                try recoverInterruptedChange()
                let snap = try Snapshot(repo: repo)
                // A member acting through a front end whose latest roster entry is `left` makes
                // no commit, whoever moved `main` to that roster (docs/FORMAT.md, "Members").
                if let actor, snap.standing(of: actor.name) == .left { throw StoreError.memberLeft(actor.name) }
                let change = try body(snap)
                try commit(change, on: snap)
                let head = try repo.resolve(reference: Self.branch)
                let made = head == snap.commit ? nil : head?.hex
                if let made { committed(made) }
                return (change.value, made)
            }
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// Holds the household's kernel lock while `body` runs. Stale `*.lock` files that a killed
    /// process left are removed once we hold it: no other `todo` can be writing.
    func withLock<T>(_ body: () throws -> T) throws -> T {
        guard let lock = try FileLock.acquire(path: repo.gitDirectory + "todo.lock", timeout: Self.lockTimeout) else {
            throw StoreError.locked(repo: path, seconds: Int(Self.lockTimeout))
        }
        removeStaleLockFiles()
        defer { withExtendedLifetime(lock) {} }
        return try body()
    }

    private func removeStaleLockFiles() {
        // `sharedindex.todo-tmp`: a shared index a `todo` built before commit cea69ae was writing when killed.
        for stale in ["index.lock", "HEAD.lock", "config.lock", "packed-refs.lock", "refs/heads/main.lock", "sharedindex.todo-tmp"] {
            unlink(repo.gitDirectory + stale)
        }
    }

    /// Finishes a change a killed command left half-written (its record names paths), so that
    /// even a command that only reads leaves the work tree and index matching `HEAD`: only when
    /// no other `todo` holds the lock (it never waits), and silently (what commands read comes
    /// from the commit either way; otherwise the next writing command finishes it).
    /// Whether a command was stopped in the middle of a change (its record is not empty and no
    /// command holds the household lock, so the change is not in flight): the next command that
    /// writes finishes it.
    public var hasInterruptedChange: Bool {
        var st = stat()
        guard stat(pendingPath, &st) == 0, st.st_size > 0 else { return false }
        return !FileLock.isHeld(path: repo.gitDirectory + "todo.lock")
    }

    public func finishInterruptedChangeIfFree() {
        var st = stat()
        guard stat(pendingPath, &st) == 0, st.st_size > 0 else { return }
        guard let lock = lockIfFree() else { return }
        // Only when the lock is free and without waiting: a recovery that fails here is done by the next change, which reports its failure.
        try? recoverInterruptedChange()
        withExtendedLifetime(lock) {}
    }

    /// The household lock if no other `todo` holds it now (never waits), with the stale
    /// `*.lock` files a killed process left removed; nil otherwise.
    func lockIfFree() -> FileLock? {
        // Held by another todo (or the lock file cannot be made): nil, as the doc comment says; callers then skip optional work.
        guard let lock = try? FileLock.acquire(path: repo.gitDirectory + "todo.lock", timeout: 0) else { return nil }
        removeStaleLockFiles()
        return lock
    }

    /// Above this many files, one change is written as a pack; up to it, as loose objects.
    static let bulkThreshold = 64
    /// Above this many paths, one status scan of the work tree beats checking path by path.
    static let scanThreshold = 4096

    var pendingPath: String { repo.gitDirectory + "todo-pending" }

    /// Records, durably, the paths a change is about to write in the work tree, and the loose
    /// objects it is about to write unsynced (`object <id>` lines after the paths). The record is
    /// one file written in place and emptied afterwards, never removed: no new file per command,
    /// and one `fdatasync` (the first time also an fsync of `.git`, which gains its name).
    func recordPending(_ paths: [String], objects: [ObjectID] = []) throws {
        let lines = paths + objects.map { Self.objectLinePrefix + $0.hex }
        let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        var created = false
        let fd: FileDescriptor
        switch Result(catching: { () throws(FileError) in try WholeFile.open(pendingPath, .writeOnly, options: .truncate) }) {
        case .success(let opened): fd = opened
        case .failure(let e) where e.errno == .noSuchFileOrDirectory:
            fd = try WholeFile.open(pendingPath, .writeOnly, options: [.create, .truncate])
            created = true
        case .failure(let e): throw e
        }
        defer { _ = try? fd.close() }  // the bytes were written and fsynced, or their failure already thrown
        try WholeFile.writeAll(fd, bytes, path: pendingPath)
        if fdatasync(fd.rawValue) != 0 { throw FileError(.fsync, path: pendingPath, errno: Errno(rawValue: Glibc.errno)) }
        if created { try Durability.sync(repo.gitDirectory) }
    }

    /// How the pending-change record marks an object id; no path todo writes starts so.
    static let objectLinePrefix = "object "

    /// Empties the pending-change record: the change is complete.
    func clearPending() {
        truncate(pendingPath, 0)
    }

    /// Puts back to the committed state the paths an interrupted command was changing, and
    /// removes the loose objects it left damaged (only a machine that stopped before they were
    /// made durable can do that; `main` never points at them then).
    func recoverInterruptedChange() throws {
        guard let bytes = try WholeFile.readIfPresent(pendingPath) else { return }
        let text = String(decoding: bytes, as: UTF8.self)
        var paths: [String] = []
        var objects: [ObjectID] = []
        for line in text.split(separator: "\n").map(String.init) where !line.isEmpty {
            if line.hasPrefix(Self.objectLinePrefix) {
                if let id = ObjectID(hex: String(line.dropFirst(Self.objectLinePrefix.count))) { objects.append(id) }
            } else {
                paths.append(line)
            }
        }
        if paths.isEmpty && objects.isEmpty { return }
        if try repo.removeDamagedLooseObjects(objects) > 0 {
            // Durably gone before the record that names them is.
            try Durability.syncFileSystem(holding: repo.gitDirectory)
        }
        for p in paths { unlink("\(path)/\(p)\(temporarySuffix)") }
        if !paths.isEmpty, let head = try repo.resolve(reference: Self.branch) {
            // The index first: a process killed between writing a file and staging it leaves a
            // work-tree file that already matches the commit, which checkout alone would skip.
            try repo.resetIndex(to: head, paths: paths)
            try repo.checkout(tree: try repo.commit(head).tree, paths: paths)
        }
        clearPending()
    }

    /// Refuses to write over files that have changes nobody committed: their index entry or
    /// work-tree file differs from `tree` (the commit `main` points at). Only the files about to
    /// be written are checked, so the cost does not grow with the household; for a change of
    /// more than `scanThreshold` files one scan of the work tree is quicker, and its findings
    /// are narrowed to those files.
    func refuseHandEdits(_ paths: [String], committed tree: ObjectID?) throws {
        let dirty: [String]
        if paths.count > Self.scanThreshold {
            let writing = Set(paths)
            dirty = try repo.dirtyPaths(pathspec: ["tasks/", MergeSetup.attributesPath]).filter(writing.contains)
        } else {
            dirty = try repo.pathsDiffering(from: tree, paths: paths)
        }
        if !dirty.isEmpty { throw StoreError.handEdits(repo: path, paths: dirty.sorted()) }
    }

    /// Makes `change` one commit on `main`. The objects are built in memory first, so that
    /// the pending-change record can name them before any is on disk; then, for a change of up
    /// to `bulkThreshold` files, three sync calls in all (docs/FORMAT.md,
    /// "Concurrency and crashes"): the record's `fdatasync`; the objects written loose and
    /// unsynced, the new branch value in `main.lock` and the reflogs, one `syncfs`; the rename
    /// of `main.lock` and one fsync of `refs/heads`. A change of more than `bulkThreshold`
    /// files goes in as one pack that libgit2 fsyncs before the record is written.
    func commit<Value>(_ change: Update<Value>, on snap: Snapshot) throws {
        if let made = change.made { return try commitBulk(change, made, on: snap) }
        var files = change.files
        for task in change.tasks { files.append((task.id.path, TaskCodec.encode(task))) }
        try refuseHandEdits(files.map(\.0), committed: snap.tree)
        let memory = try BulkWriter(path: path)
        let writer = memory.repository
        // Skip files whose bytes are already committed: a command that changes nothing commits nothing.
        var changes: [TreeChange] = []
        var written: [(path: String, bytes: [UInt8], blob: ObjectID)] = []
        for (path, bytes) in files {
            let blob = try writer.writeBlob(bytes)
            if try isCommitted(path, as: blob, in: snap) { continue }
            changes.append(.upsert(path: path, blob: blob))
            written.append((path, bytes, blob))
        }
        if changes.isEmpty { return }
        let tree = try writer.updateTree(snap.tree, changes)
        let sig = try signatureNow()
        let parents = snap.commit.map { [$0] } ?? []
        let commit = try writer.createCommit(
            tree: tree, parents: parents, author: sig, committer: sig, message: change.message + "\n")
        let objects = try memory.objects(reaching: [commit], from: parents, missingFrom: repo)
        let bulk = files.count > Self.bulkThreshold
        if Durability.batches && !bulk {
            try recordPending(written.map(\.path), objects: objects)
            try memory.store(objects, into: repo, loose: true, synced: false)
        } else {
            try memory.store(objects, into: repo, loose: !bulk)
            try recordPending(written.map(\.path))
        }
        try repo.moveBranch(Self.branch, to: commit, expected: snap.commit, committer: sig, message: change.message)
        try updateWorkTree(written)
        clearPending()
        // Packing after a bulk write is housekeeping: a failure loses nothing and the next housekeeping packs.
        if bulk { _ = try? repo.consolidatePacks(above: Self.packLimit) }
    }

    /// `commit` for a change of many files (`Update.made`), in memory that does not grow with
    /// their number beyond a path and an id each: each file is encoded and its blob written to
    /// a `PackSpool` as it is made; the hand-edit check then sees every path, before anything
    /// is in the household. The trees and commit, made in memory, join the blobs in that one
    /// pack (fsynced); the record of the paths, the branch, the work tree written back from the blobs
    /// one file at a time, and the index staged once follow as for any bulk change.
    /// Pack files are mapped at most `bulkPackMapping` bytes at a time meanwhile: the new pack
    /// is read as it is indexed and again for the work tree.
    func commitBulk<Value>(_ change: Update<Value>, _ made: TaskSource, on snap: Snapshot) throws {
        try GitLibrary.withPackMapping(limitedTo: Self.bulkPackMapping) { try writeBulk(change, made, on: snap) }
    }

    /// At most this many bytes of pack files mapped at a time while a bulk change is written.
    static let bulkPackMapping = 16 << 20

    private func writeBulk<Value>(_ change: Update<Value>, _ made: TaskSource, on snap: Snapshot) throws {
        let spool = try PackSpool(repository: repo)
        var written: [(path: String, blob: ObjectID)] = []
        func put(_ path: String, _ bytes: [UInt8]) throws {
            let blob = try PackSpool.blobID(bytes)
            // Skip files whose bytes are already committed, as `commit` does.
            if try isCommitted(path, as: blob, in: snap) { return }
            try spool.add(bytes, as: blob)
            written.append((path, blob))
        }
        for (path, bytes) in change.files { try put(path, bytes) }
        for task in change.tasks { try put(task.id.path, TaskCodec.encode(task)) }
        try made.each { task in try put(task.id.path, TaskCodec.encode(task)) }
        if written.isEmpty { return }
        let paths = written.map(\.path)
        try refuseHandEdits(paths, committed: snap.tree)
        let memory = try BulkWriter(path: path)
        let writer = memory.repository
        let changes = written.map { TreeChange.upsert(path: $0.path, blob: $0.blob) }
        let sig = try signatureNow()
        let parents = snap.commit.map { [$0] } ?? []
        // The trees and commit are made in memory over blobs only the spool holds, and go in
        // with them as one pack; where libgit2's check that a tree's blobs exist must stay on
        // (not one command), the blobs go in first, as a pack of their own.
        func makeCommit() throws -> ObjectID {
            try writer.createCommit(
                tree: try writer.updateTree(snap.tree, changes), parents: parents, author: sig, committer: sig,
                message: change.message + "\n")
        }
        let commit: ObjectID
        if let made = try GitLibrary.withoutObjectChecks(makeCommit) {
            commit = made
        } else {
            try spool.finish()
            commit = try makeCommit()
        }
        try spool.add(try writer.objectsMissing(reaching: [commit], from: parents), from: writer)
        try spool.finish()
        try recordPending(paths)
        try repo.moveBranch(Self.branch, to: commit, expected: snap.commit, committer: sig, message: change.message)
        var folders = Set<String>()
        for (path, blob) in written { try writeWorkTreeFile(path, try repo.readBlob(blob), folders: &folders) }
        try repo.stage(written)
        clearPending()
        // Packing after a bulk write is housekeeping: a failure loses nothing and the next housekeeping packs.
        _ = try? repo.consolidatePacks(above: Self.packLimit)
    }

    /// Whether `snap`'s commit has `blob` at `path` as a plain file already.
    func isCommitted(_ path: String, as blob: ObjectID, in snap: Snapshot) throws -> Bool {
        guard let tree = snap.tree, let entry = try repo.treeEntry(tree, path: path) else { return false }
        return entry.id == blob && entry.mode == 0o100644
    }

    /// This member, now, as a commit's author and committer.
    func signatureNow() throws -> Signature {
        let me = try identity()
        let now = clock.nowMillis()
        return Signature(name: me.name, email: me.email, time: now / 1000, offsetMinutes: clock.offsetMinutes(now))
    }

    /// Brings `paths` in the work tree and index to their state in `tree`: files written and
    /// staged as `updateWorkTree` does, files the tree no longer has removed by libgit2.
    func writeCommitted(_ paths: [String], of tree: ObjectID) throws {
        var files: [(path: String, bytes: [UInt8], blob: ObjectID)] = []
        var gone: [String] = []
        for p in paths {
            if let entry = try repo.treeEntry(tree, path: p), entry.kind == .blob {
                files.append((p, try repo.readBlob(entry.id), entry.id))
            } else {
                gone.append(p)
            }
        }
        if !gone.isEmpty { try repo.checkout(tree: tree, paths: gone) }
        try updateWorkTree(files)
    }

    /// Writes committed files into the work tree (atomically, by rename) and stages them.
    func updateWorkTree(_ files: [(path: String, bytes: [UInt8], blob: ObjectID)]) throws {
        var folders = Set<String>()
        for (path, bytes, _) in files { try writeWorkTreeFile(path, bytes, folders: &folders) }
        try repo.stage(files.map { ($0.path, $0.blob) })
    }

    /// Writes one committed file into the work tree, making its folder unless `folders` (the
    /// folders already made or found by this change) has it.
    func writeWorkTreeFile(_ path: String, _ bytes: [UInt8], folders: inout Set<String>) throws {
        let full = "\(self.path)/\(path)"
        if let slash = full.lastIndex(of: "/") {
            let folder = String(full[..<slash])
            if folders.insert(folder).inserted, mkdir(folder, 0o755) != 0, errno != EEXIST {
                try makeDirectories(folder)
            }
        }
        try writeFile(full, bytes, sync: false, inPlace: true)
    }
}

/// Added to a file's name while it is written, before the rename that makes it whole.
let temporarySuffix = ".todo-tmp"

/// The whole file as text; nil when it does not exist or cannot be read (for the callers to
/// whom an unreadable file means the same as none: a cache, a marker).
func readFile(_ path: String) -> String? {
    // Only for files whose absence and unreadability mean the same (the doc comment).
    guard let bytes = try? WholeFile.read(path) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
}

func writeFile(_ path: String, _ text: String, sync: Bool) throws(FileError) {
    try writeFile(path, Array(text.utf8), sync: sync)
}

/// Replaces `path` atomically (`WholeFile.replace`; with `sync`, durably). With `inPlace`, the
/// file is created or overwritten directly instead: for files that a record of the change puts
/// right after a crash (the work tree, the pending-change record itself). Rewriting a file
/// keeps its inode, and on some file systems creating inodes is the dearest part of a small
/// write.
func writeFile(_ path: String, _ bytes: [UInt8], sync: Bool, inPlace: Bool = false) throws(FileError) {
    if inPlace {
        try WholeFile.write(path, bytes, sync: sync)
    } else {
        try WholeFile.replace(path, with: bytes, durable: sync, suffix: temporarySuffix)
    }
}
