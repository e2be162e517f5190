import CLibgit2
import Dispatch
import Glibc
import Synchronization

extension Repository {
    /// Writes `tree` into the work tree of a repository that has none yet (nothing but `.git`
    /// in its folder, no index): the folders, then the files on up to `threads` threads, a
    /// folder's files on one thread, then the index. What `checkoutAll` does for a new member's
    /// first checkout, with the blobs read from `packs` (through libgit2 when they are not
    /// there) and the files of different folders written side by side. `progress` gets the
    /// files written and their number on the calling thread, every 128 files and at the end.
    ///
    /// False, with nothing written, when the work tree is not empty or `tree` holds anything
    /// but folders (at most 32 deep) and regular files (mode 0o100644) with plain names
    /// (letters, digits, `.`, `_`, `-`; not `.`, `..` or `.git`): the caller checks out with
    /// libgit2, which knows the rest. A failure to write is thrown; what was written stays, for the caller to remove.
    public func writeFreshWorkTree(tree: ObjectID, packs: PackFiles, threads: Int, progress: ((Int, Int) -> Void)? = nil) throws -> Bool {
        guard let root = workDirectory, listDirectory(root).allSatisfy({ $0 == ".git" }), access(indexPlace.index, F_OK) != 0 else {
            return false
        }
        var folders: [String] = []
        var files: [(path: String, id: ObjectID)] = []
        let trees = TreeChanges(self, packs: packs)
        func collect(_ id: ObjectID, _ prefix: String, depth: Int = 0) throws -> Bool {
            // Folders in folders past any household's: libgit2's checkout, without recursing here.
            guard depth < Self.freshDepth else { return false }
            for change in try trees.changed(id, since: nil) {
                let e = change.entry
                guard Self.isPlainName(e.name) else { return false }
                switch e.mode {
                case 0o040000:
                    folders.append(prefix + e.name)
                    guard try collect(e.id, prefix + e.name + "/", depth: depth + 1) else { return false }
                case 0o100644:
                    files.append((prefix + e.name, e.id))
                default:
                    return false
                }
            }
            return true
        }
        guard try collect(tree, "") else { return false }
        for folder in folders where mkdir(root + folder, 0o777) != 0 {
            throw GitError.system(errno: errno, call: "mkdir \(root + folder)")
        }
        // A folder's files together, for one thread: creating files in one folder from two
        // threads at once makes them wait for each other.
        var runs: [Range<Int>] = []
        var start = 0
        for i in files.indices.dropFirst() where Self.folder(of: files[i].path) != Self.folder(of: files[i - 1].path) {
            runs.append(start..<i)
            start = i
        }
        if !files.isEmpty { runs.append(start..<files.count) }
        let written = FreshFiles(count: files.count)
        var reported = 0
        func report(_ done: Int) {
            guard let progress, done > reported, done >= reported + 128 || done == files.count else { return }
            reported = done
            progress(done, files.count)
        }
        let list = files
        let folderRuns = runs
        let gitDirectory = self.gitDirectory
        // Runs of files until none is left; `done` (on the calling thread only) gets the count
        // of files written after each.
        let work: @Sendable (_ done: ((Int) -> Void)?) -> Void = { done in
            let reader = PackReader(packs)
            var libgit2: Repository?
            while let run = written.take(folderRuns) {
                for i in folderRuns[run] {
                    let (path, id) = list[i]
                    do {
                        let bytes: [UInt8]
                        if let (kind, content) = reader.read(id), kind == .blob {
                            bytes = content
                        } else {
                            if libgit2 == nil { libgit2 = try Repository.open(path: gitDirectory) }
                            bytes = try libgit2!.readBlob(id)
                        }
                        written.set(i, try Self.writeNewFile(root + path, bytes))
                    } catch {
                        written.fail(error)
                        return
                    }
                    done?(written.done)
                }
            }
        }
        // The other threads on a queue of their own (the global queues' few threads may all be
        // held by callers that wait), this one with them.
        let others = DispatchGroup()
        for _ in 1..<max(1, min(threads, folderRuns.count)) { Self.freshQueue.async(group: others) { work(nil) } }
        work(report)
        others.wait()
        if let error = written.failure { throw error }
        report(files.count)
        // The index: every entry with its file's stat data, written as `stage` writes one.
        var index: OpaquePointer?
        try check(git_repository_index(&index, handle), call: "git_repository_index")
        defer { git_index_free(index) }
        try check(git_index_write(index), call: "git_index_write")
        guard let empty = loadIndexFile() else { throw GitError.missing("IndexFile.load") }
        let stats = written.stats
        let entries = files.indices.map { i in
            (path: files[i].path, entry: IndexFile.entry(path: files[i].path, id: withUnsafeBytes(of: files[i].id.raw.id) { Array($0) }, stat: stats[i]))
        }
        guard let rewrite = empty.replacing(entries) else { throw GitError.missing("IndexFile.replacing") }
        // libgit2's copy of the empty index is read again (the file changed) before it is next
        // used.
        try writeIndex(rewrite)
        return true
    }

    /// Where `writeFreshWorkTree`'s other threads run.
    static let freshQueue = DispatchQueue(label: "todo.fresh-checkout", attributes: .concurrent)

    /// The depth of folders `writeFreshWorkTree` writes (a household has two: `tasks/xx`).
    static let freshDepth = 32

    /// A name `writeFreshWorkTree` writes: letters, digits, `.`, `_`, `-`; not `.`, `..`, `.git`.
    static func isPlainName(_ name: String) -> Bool {
        guard !name.isEmpty, name != ".", name != "..", name.lowercased() != ".git" else { return false }
        return name.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x5F || c == 0x2D
        }
    }

    private static func folder(of path: String) -> Substring {
        path.utf8.lastIndex(of: 0x2F).map { path[..<$0] } ?? ""
    }

    /// Creates the file at `path` (it must not exist) with `bytes`; its stat data.
    private static func writeNewFile(_ path: String, _ bytes: [UInt8]) throws -> stat {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        if fd < 0 { throw GitError.system(errno: errno, call: "open \(path)") }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw GitError.system(errno: errno, call: "write \(path)")
            }
            done += n
        }
        var st = stat()
        if fstat(fd, &st) != 0 { throw GitError.system(errno: errno, call: "fstat \(path)") }
        return st
    }
}

/// What the threads of `writeFreshWorkTree` share: the next run of files to write, each file's
/// stat data (each slot written by one thread), the files done, the first failure.
private final class FreshFiles: Sendable {
    private struct State {
        var next = 0
        var done = 0
        var failure: (any Error)?
        /// One slot a file, set by the thread that writes the file.
        var stats: [stat]
    }

    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(stats: Array(repeating: stat(), count: count)))
    }

    /// Each file's stat data, once all are written.
    var stats: [stat] { state.withLock { $0.stats } }

    /// The index of the next run to write; nil when none is left or one failed.
    func take(_ runs: [Range<Int>]) -> Int? {
        state.withLock { s in
            guard s.failure == nil, s.next < runs.count else { return nil }
            s.next += 1
            return s.next - 1
        }
    }

    func set(_ i: Int, _ st: stat) {
        state.withLock {
            $0.stats[i] = st
            $0.done += 1
        }
    }

    var done: Int { state.withLock { $0.done } }

    func fail(_ error: any Error) {
        state.withLock { if $0.failure == nil { $0.failure = error } }
    }

    var failure: (any Error)? { state.withLock { $0.failure } }
}
