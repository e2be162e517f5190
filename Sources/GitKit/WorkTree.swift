import Glibc
import GitFormats
import CLibgit2

extension Repository {
    /// Paths whose index or work-tree state differs from HEAD, including untracked files,
    /// limited to `pathspec` (e.g. `["tasks/"]`).
    /// With `exact`, the pathspec entries are literal paths rather than patterns. With
    /// `refreshIndex`, index entries whose file is unchanged but whose stat data is out of date
    /// (a copied or restored repository) get the file's, and the index is written, as `git
    /// status` does: the next call need not hash those files again. The caller must hold off
    /// other writers of the index.
    public func dirtyPaths(pathspec: [String], exact: Bool = false, refreshIndex: Bool = false) throws -> [String] {
        var opts = git_status_options()
        try check(git_status_options_init(&opts, UInt32(GIT_STATUS_OPTIONS_VERSION)), call: "git_status_options_init")
        opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR
        opts.flags =
            GIT_STATUS_OPT_INCLUDE_UNTRACKED.rawValue | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS.rawValue
            | GIT_STATUS_OPT_EXCLUDE_SUBMODULES.rawValue
        if exact { opts.flags |= GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH.rawValue }
        if refreshIndex {
            opts.flags |= GIT_STATUS_OPT_UPDATE_INDEX.rawValue
            try replaceSplitIndex()
        }
        return try withWholeIndex { try withStrArray(pathspec) { specs in
            opts.pathspec = specs
            var list: OpaquePointer?
            try check(git_status_list_new(&list, handle, &opts), call: "git_status_list_new")
            defer { git_status_list_free(list) }
            var paths: [String] = []
            for i in 0..<git_status_list_entrycount(list) {
                guard let entry = git_status_byindex(list, i) else { continue }
                if let d = entry.pointee.index_to_workdir ?? entry.pointee.head_to_index,
                    let p = d.pointee.new_file.path ?? d.pointee.old_file.path
                {
                    paths.append(String(cString: p))
                }
            }
            return paths
        } }
    }

    /// Which of `paths` differ, in the index or in the work tree, from what `tree` holds there
    /// (content, file mode, presence; nil `tree` means nothing). Each path costs one `lstat`
    /// and, when a file is there, one read and hash: no scan of the rest of the work tree.
    public func pathsDiffering(from tree: ObjectID?, paths: [String]) throws -> [String] {
        guard !paths.isEmpty, let workDirectory else { return [] }
        if let file = loadIndexFile() {
            return try pathsDiffering(from: tree, paths: paths, workDirectory: workDirectory) { file.lookup($0) }
        }
        return try withWholeIndex {
            var index: OpaquePointer?
            try check(git_repository_index(&index, handle), call: "git_repository_index")
            defer { git_index_free(index) }
            // The repository keeps its index in memory: read it again if another process changed it.
            try check(git_index_read(index, 0), call: "git_index_read")
            return try pathsDiffering(from: tree, paths: paths, workDirectory: workDirectory) { path in
                for stage in 1...3 where git_index_get_bypath(index, path, Int32(stage)) != nil { return .conflicted }
                guard let staged = git_index_get_bypath(index, path, 0) else { return .absent }
                return .file(id: withUnsafeBytes(of: staged.pointee.id.id) { Array($0) }, mode: staged.pointee.mode)
            }
        }
    }

    /// The paths whose work-tree file differs from `tree` (the index is not read: for a few
    /// paths in a large household, cheaper than `pathsDiffering`).
    public func workFilesDiffering(from tree: ObjectID?, paths: [String]) throws -> [String] {
        guard !paths.isEmpty, let workDirectory else { return [] }
        return try pathsDiffering(from: tree, paths: paths, workDirectory: workDirectory, index: nil)
    }

    /// `pathsDiffering` with `lookup` telling what the index holds at a path (nil: the index is
    /// not compared).
    private func pathsDiffering(
        from tree: ObjectID?, paths: [String], workDirectory: String, index lookup: ((String) -> IndexFile.Lookup)?
    ) throws -> [String] {
        var root: OpaquePointer?
        if var oid = tree?.raw { try check(git_tree_lookup(&root, handle, &oid), call: "git_tree_lookup") }
        defer { git_tree_free(root) }
        var differing: [String] = []
        for path in paths {
            var expected: (id: git_oid, mode: UInt32)?
            if let root {
                var entry: OpaquePointer?
                let rc = git_tree_entry_bypath(&entry, root, path)
                if rc != GIT_ENOTFOUND.rawValue {
                    try check(rc, call: "git_tree_entry_bypath")
                    defer { git_tree_entry_free(entry) }
                    if let entry, let id = git_tree_entry_id(entry) {
                        expected = (id.pointee, git_tree_entry_filemode(entry).rawValue)
                    }
                }
            }
            // The index: stage 0 must match exactly, and no conflict stages may exist.
            let indexMatches: Bool
            switch lookup?(path) {
            case nil: indexMatches = true
            case .absent: indexMatches = expected == nil
            case .conflicted: indexMatches = false
            case .file(let id, let mode):
                indexMatches = expected.map { e in
                    mode == e.mode && withUnsafeBytes(of: e.id.id) { $0.elementsEqual(id) }
                } ?? false
            }
            if try !indexMatches || !workFile(workDirectory + path, matches: expected) { differing.append(path) }
        }
        return differing
    }

    /// Whether the work-tree file at `full` is what `expected` describes (absent when nil).
    private func workFile(_ full: String, matches expected: (id: git_oid, mode: UInt32)?) throws -> Bool {
        var st = stat()
        if lstat(full, &st) != 0 {
            if errno == ENOENT || errno == ENOTDIR { return expected == nil }
            throw GitError.system(errno: errno, call: "lstat")
        }
        guard let expected else { return false }
        return try file(full, described: st, holds: expected.id, mode: expected.mode)
    }

    /// Whether the file at `path`, which `st` describes, is a regular file of `mode` (0o100644
    /// or 0o100755, by its executable bit) holding the blob `id`.
    func file(_ path: UnsafePointer<CChar>, described st: stat, holds id: git_oid, mode: UInt32) throws -> Bool {
        guard (st.st_mode & S_IFMT) == S_IFREG, (st.st_mode & 0o111 != 0) == (mode == 0o100755) else { return false }
        var actual = git_oid()
        try check(git_odb_hashfile(&actual, path, GIT_OBJECT_BLOB), call: "git_odb_hashfile")
        var want = id
        return git_oid_equal(&actual, &want) != 0
    }

    /// Makes the index and work tree match `tree` at exactly these paths, discarding anything else
    /// there. A path absent from `tree` is removed.
    public func checkout(tree: ObjectID, paths: [String]) throws {
        guard !paths.isEmpty else { return }
        try replaceSplitIndex()
        var opts = git_checkout_options()
        try check(git_checkout_options_init(&opts, UInt32(GIT_CHECKOUT_OPTIONS_VERSION)), call: "git_checkout_options_init")
        opts.checkout_strategy =
            GIT_CHECKOUT_FORCE.rawValue | GIT_CHECKOUT_REMOVE_UNTRACKED.rawValue
            | GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH.rawValue
        try withStrArray(paths) { specs in
            opts.paths = specs
            try withObject(tree) { obj in
                try check(git_checkout_tree(handle, obj, &opts), call: "git_checkout_tree")
            }
        }
    }

    /// Sets the index entries of `paths` to what `commit` has (removing those it lacks), like
    /// `git reset COMMIT -- PATHS`; the work tree is left alone.
    public func resetIndex(to commit: ObjectID, paths: [String]) throws {
        guard !paths.isEmpty else { return }
        try replaceSplitIndex()
        try withStrArray(paths) { specs in
            try withObject(commit) { obj in
                var array = specs
                try check(git_reset_default(handle, obj, &array), call: "git_reset_default")
            }
        }
    }

    /// Makes the index and the whole work tree match `tree`, discarding local changes: each file
    /// holds its blob's bytes as they are, as every other file `todo` writes does (no
    /// `.gitattributes` filter such as end-of-line conversion, whose look-ups cost two
    /// `realpath` calls and an attribute search per file). `progress` gets the files written
    /// and their number now and then.
    public func checkoutAll(tree: ObjectID, progress: ((_ done: Int, _ total: Int) -> Void)? = nil) throws {
        try replaceSplitIndex()
        var opts = git_checkout_options()
        try check(git_checkout_options_init(&opts, UInt32(GIT_CHECKOUT_OPTIONS_VERSION)), call: "git_checkout_options_init")
        opts.checkout_strategy = GIT_CHECKOUT_FORCE.rawValue
        opts.disable_filters = 1
        final class Box {
            let report: (Int, Int) -> Void
            init(_ report: @escaping (Int, Int) -> Void) { self.report = report }
        }
        let box = progress.map(Box.init)
        if let box {
            opts.progress_payload = Unmanaged.passUnretained(box).toOpaque()
            opts.progress_cb = { _, done, total, payload in
                guard let payload, total > 0, done % 128 == 0 || done == total else { return }
                Unmanaged<Box>.fromOpaque(payload).takeUnretainedValue().report(done, total)
            }
        }
        try withExtendedLifetime(box) {
            try withObject(tree) { obj in
                try check(git_checkout_tree(handle, obj, &opts), call: "git_checkout_tree")
            }
        }
    }

    /// Stages work-tree files whose blobs are already written: each entry takes `blob` as its
    /// id and the file's stat data, so nothing is read or hashed again.
    public func stage(_ files: [(path: String, blob: ObjectID)]) throws {
        guard let workDirectory, !files.isEmpty else { return }
        try replaceSplitIndex()
        if let file = loadIndexFile(), files.count <= Self.directIndexLimit {
            var entries: [(path: String, entry: [UInt8])] = []
            for (path, blob) in files {
                var st = stat()
                if lstat(workDirectory + path, &st) != 0 {
                    throw GitError(code: -1, errorClass: 0, message: "\(path): \(String(cString: strerror(errno)))", function: "lstat")
                }
                entries.append((path, IndexFile.entry(path: path, id: withUnsafeBytes(of: blob.raw.id) { Array($0) }, stat: st)))
            }
            if let rewrite = file.replacing(entries) {
                try writeIndex(rewrite)
                return
            }
        }
        var index: OpaquePointer?
        try check(git_repository_index(&index, handle), call: "git_repository_index")
        defer { git_index_free(index) }
        // The repository keeps its index in memory: read it again if another process changed it.
        try check(git_index_read(index, 0), call: "git_index_read")
        for (path, blob) in files {
            var st = stat()
            if lstat(workDirectory + path, &st) != 0 {
                throw GitError(code: -1, errorClass: 0, message: "\(path): \(String(cString: strerror(errno)))", function: "lstat")
            }
            var entry = git_index_entry()
            entry.ctime = git_index_time(seconds: Int32(truncatingIfNeeded: st.st_ctim.tv_sec), nanoseconds: UInt32(st.st_ctim.tv_nsec))
            entry.mtime = git_index_time(seconds: Int32(truncatingIfNeeded: st.st_mtim.tv_sec), nanoseconds: UInt32(st.st_mtim.tv_nsec))
            entry.dev = UInt32(truncatingIfNeeded: st.st_dev)
            entry.ino = UInt32(truncatingIfNeeded: st.st_ino)
            entry.mode = GIT_FILEMODE_BLOB.rawValue
            entry.uid = st.st_uid
            entry.gid = st.st_gid
            entry.file_size = UInt32(truncatingIfNeeded: st.st_size)
            entry.id = blob.raw
            entry.flags_extended = UInt16(GIT_INDEX_ENTRY_UPTODATE.rawValue)
            try path.withCString { cPath in
                entry.path = cPath
                try check(git_index_add(index, &entry), call: "git_index_add")
            }
        }
        try check(git_index_write(index), call: "git_index_write")
    }

    /// Up to this many files, `stage` splices entries into the index file itself; more go
    /// through libgit2.
    static let directIndexLimit = 256

    /// Replaces the index as git does: `index.lock` created exclusively, written, renamed.
    func writeIndex(_ rewrite: IndexFile.Rewrite) throws {
        let place = indexPlace
        indexFile = nil
        let lock = place.index + ".lock"
        let fd = try createLockFile(lock, errorClass: GIT_ERROR_INDEX, what: "the index")
        do {
            try IndexFile.emit(rewrite, to: fd, what: lock)
        } catch {
            close(fd)
            unlink(lock)
            throw error
        }
        var st = stat()
        let stamped = fstat(fd, &st) == 0
        close(fd)
        if rename(lock, place.index) != 0 {
            let err = errno
            unlink(lock)
            throw GitError.system(errno: err, call: "rename \(lock)")
        }
        if stamped, let checksum = ObjectID(raw: rewrite.file.checksum[...]) {
            mkdir(gitDirectory + "todo", 0o755)
            IndexFile.Written(stamp: IndexFile.Stamp(st), checksum: checksum).save(place.indexNote)
        }
    }

    func withObject<T>(_ id: ObjectID, _ body: (OpaquePointer) throws -> T) throws -> T {
        var obj: OpaquePointer?
        var oid = id.raw
        try check(git_object_lookup(&obj, handle, &oid, GIT_OBJECT_ANY), call: "git_object_lookup")
        defer { git_object_free(obj) }
        guard let obj else { throw GitError.missing("git_object_lookup") }
        return try body(obj)
    }
}

/// Calls `body` with a git_strarray whose strings live only for the call.
func withStrArray<T>(_ strings: [String], _ body: (git_strarray) throws -> T) throws -> T {
    let cStrings: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    defer { cStrings.forEach { free($0) } }
    var mutable = cStrings
    return try mutable.withUnsafeMutableBufferPointer { buf in
        try body(git_strarray(strings: buf.baseAddress, count: strings.count))
    }
}
