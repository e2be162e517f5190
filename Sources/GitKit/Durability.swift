import Glibc
import CInterposers
import CLibgit2
import GitFormats

/// Making writes durable with few sync calls. libgit2 fsyncs each loose object, its folder, the
/// ref, its folder and each reflog and its folder: 15 calls for a one-file commit. A commit needs
/// only two orderings: its objects durable before the branch can point at them, and the branch
/// durable before the change is reported done. On Linux one `syncfs` makes every write before it
/// durable (data, inodes, directory entries; the file system's journal committed), so each
/// ordering costs one call.
public enum Durability {
    /// Whether one call can make a whole batch of writes durable here (Linux's syncfs: yes).
    public static let batches = true

    /// Makes every write so far to the file system holding `path` durable (syncfs), or, where
    /// the system has no syncfs, every write to every file system (sync).
    public static func syncFileSystem(holding path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw GitError.system(errno: errno, call: "open \(path)") }
        defer { close(fd) }
        if todo_syncfs(fd) == 0 { return }
        if errno != ENOSYS { throw GitError.system(errno: errno, call: "syncfs \(path)") }
        Glibc.sync()
    }

    /// fsync of one file or directory.
    public static func sync(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw GitError.system(errno: errno, call: "open \(path)") }
        defer { close(fd) }
        if fsync(fd) != 0 { throw GitError.system(errno: errno, call: "fsync \(path)") }
    }
}

extension Repository {
    /// Moves branch `name` (e.g. `refs/heads/main`) to `target` if it still points at `expected`
    /// (nil: only if it does not exist yet), appending to its reflog and HEAD's as libgit2
    /// would, with two sync calls: one `syncfs` once the new value sits in `<name>.lock` (so it
    /// also makes durable every object written before, loose and unsynced), then the reflog
    /// lines, the rename into place and one fsync of the folder. A crash before the
    /// rename leaves the branch where it was and a `.lock` file git ignores; after it, the
    /// branch moved, and everything it points at is on disk.
    ///
    /// Throws a GitError with `isModified` (`isExists` when `expected` is nil) if the branch
    /// moved, and `isLocked` if another writer holds `<name>.lock`.
    public func moveBranch(
        _ name: String, to target: ObjectID, expected: ObjectID?, committer: Signature, message: String
    ) throws {
        let git = gitDirectory
        let refPath = git + name
        let lockPath = refPath + ".lock"
        let fd = try createLockFile(lockPath, errorClass: GIT_ERROR_REFERENCE, what: name)
        var renamed = false
        defer { if !renamed { unlink(lockPath) } }
        do {
            defer { close(fd) }
            // Compare under the lock: nobody else can move the branch now.
            let current = try resolve(reference: name)
            if current != expected {
                let code = expected == nil ? GIT_EEXISTS : GIT_EMODIFIED
                throw GitError(
                    code: code.rawValue, errorClass: Int32(GIT_ERROR_REFERENCE.rawValue),
                    message: "\(name) moved: \(current?.hex ?? "none") is not \(expected?.hex ?? "none")",
                    function: "moveBranch")
            }
            try writeAll(fd, Array((target.hex + "\n").utf8), what: lockPath)
        }
        try Durability.syncFileSystem(holding: git)
        // The reflogs only after that sync: a line must never outlive, through a power loss,
        // the objects it names. A line lost with the power is only history.
        let line = Self.reflogLine(from: expected, to: target, committer: committer, message: message)
        try appendLine(line, to: git + "logs/" + name)
        if headPoints(to: name) { try appendLine(line, to: git + "logs/HEAD") }
        if rename(lockPath, refPath) != 0 { throw GitError.system(errno: errno, call: "rename \(lockPath)") }
        renamed = true
        try Durability.sync(String(refPath[..<(refPath.lastIndex(of: "/") ?? refPath.endIndex)]))
    }

    /// Creates `lock` exclusively, as git and libgit2 lock a file they are about to replace:
    /// its descriptor, or a GitError with `isLocked` when another writer holds it.
    func createLockFile(_ lock: String, errorClass: git_error_t, what: String) throws -> Int32 {
        let fd = Glibc.open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fd >= 0 { return fd }
        if errno == EEXIST {
            throw GitError(
                code: GIT_ELOCKED.rawValue, errorClass: Int32(errorClass.rawValue),
                message: "\(what) is locked by another writer (\(lock) exists)", function: "open")
        }
        throw GitError.system(errno: errno, call: "open \(lock)")
    }

    /// One reflog entry as git writes it: old and new ids, the committer, the time, a tab and
    /// the message on one line.
    static func reflogLine(from old: ObjectID?, to new: ObjectID, committer: Signature, message: String) -> [UInt8] {
        let sign = committer.offsetMinutes < 0 ? "-" : "+"
        let offset = abs(Int(committer.offsetMinutes))
        let zone = sign + String(format2: offset / 60) + String(format2: offset % 60)
        var text = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        while text.last == " " { text.removeLast() }
        let oldHex = old?.hex ?? String(repeating: "0", count: 40)
        return Array("\(oldHex) \(new.hex) \(committer.name) <\(committer.email)> \(committer.time) \(zone)\t\(text)\n".utf8)
    }

    private func headPoints(to name: String) -> Bool {
        var head: OpaquePointer?
        guard git_reference_lookup(&head, handle, "HEAD") == 0 else { return false }
        defer { git_reference_free(head) }
        guard git_reference_type(head) == GIT_REFERENCE_SYMBOLIC, let target = git_reference_symbolic_target(head) else {
            return false
        }
        return String(cString: target) == name
    }

    /// Appends one line with a single write (a reader never sees half of it unless the machine
    /// stops), creating the file and its folders if needed.
    private func appendLine(_ line: [UInt8], to path: String) throws {
        var fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 && errno == ENOENT, let slash = path.lastIndex(of: "/") {
            try makeFolders(String(path[..<slash]))
            fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        }
        if fd < 0 { throw GitError.system(errno: errno, call: "open \(path)") }
        defer { close(fd) }
        try writeAll(fd, line, what: path)
    }

    private func makeFolders(_ path: String) throws {
        if mkdir(path, 0o755) == 0 || errno == EEXIST { return }
        guard errno == ENOENT, let slash = path.lastIndex(of: "/") else {
            throw GitError.system(errno: errno, call: "mkdir \(path)")
        }
        try makeFolders(String(path[..<slash]))
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw GitError.system(errno: errno, call: "mkdir \(path)") }
    }

    /// Removes those of `ids` whose loose files are damaged (empty, cut short, not the object
    /// their name says): what a machine that stopped before a write was made durable can leave.
    /// Objects in packs and loose objects that read back whole are kept. Returns how many went.
    public func removeDamagedLooseObjects(_ ids: [ObjectID]) throws -> Int {
        let folder = gitDirectory + "objects"
        var removed = 0
        for id in ids {
            let hex = id.hex
            let file = "\(folder)/\(hex.prefix(2))/\(hex.dropFirst(2))"
            if access(file, F_OK) != 0 { continue }
            // Read here, not through libgit2, which never returns from a stream cut short.
            var size = 0
            var whole = false
            if let content = todo_inflate_file(file, 1 << 30, &size) {
                let bytes = UnsafeRawBufferPointer(start: content, count: size)
                let sha = SHA1()
                sha.update(bytes)
                whole = sha.finish() == withUnsafeBytes(of: id.raw.id) { Array($0) } && Self.headerFits(bytes)
                free(content)
            }
            if !whole && unlink(file) == 0 { removed += 1 }
        }
        return removed
    }
}

extension Repository {
    /// Whether a loose object's inflated content opens with a header (`LooseHeader`) whose
    /// size is that of the content after it.
    static func headerFits(_ content: UnsafeRawBufferPointer) -> Bool {
        do {
            let header = try LooseHeader(content)
            return header.size == content.count - header.contentStart
        } catch {
            // A header git would not read: damaged.
            return false
        }
    }
}

extension String {
    /// Two decimal digits, zero-padded.
    fileprivate init(format2 value: Int) {
        self = value < 10 ? "0\(value)" : "\(value)"
    }
}
