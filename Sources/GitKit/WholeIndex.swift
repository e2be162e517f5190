import CLibgit2
import GitFormats
import Glibc

/// The index is always whole (docs/FORMAT.md, "The git index"): a split index (git's
/// `core.splitIndex`, or one an older `todo` wrote) is one libgit2 cannot open, so it is never
/// read here, only replaced.
extension Repository {
    /// The index as `IndexFile` finds it, the copy read before reused while the file has not
    /// changed.
    func readIndex() -> IndexFile.Found {
        var st = stat()
        guard stat(indexPlace.index, &st) == 0 else { return .other }
        if let cached = indexFile, cached.stamp == IndexFile.Stamp(st) { return .whole(cached) }
        let found = IndexFile.load(indexPlace)
        if case .whole(let file) = found { indexFile = file } else { indexFile = nil }
        return found
    }

    /// The index through `IndexFile`; nil when it is split or one `IndexFile` does not handle.
    func loadIndexFile() -> IndexFile? {
        if case .whole(let file) = readIndex() { return file }
        return nil
    }

    /// Where the index and `IndexFile`'s notes of it are.
    var indexPlace: IndexFile.Place { IndexFile.Place(gitDirectory: gitDirectory) }

    /// Replaces a split index by a whole one made from HEAD (`indexFromHead`), before anything
    /// reads or changes the index; nothing to do for any other. The caller holds off other
    /// writers of the index (the household lock): a command that only reads uses
    /// `withWholeIndex` instead, which writes no index.
    func replaceSplitIndex() throws {
        guard case .split = readIndex() else { return }
        try writeIndex(try indexFromHead())
        // The shared parts no index names now.
        for name in listDirectory(gitDirectory) where name.hasPrefix("sharedindex.") { unlink(gitDirectory + name) }
    }

    /// A whole index (version 2) made from HEAD's tree (empty on an unborn branch), not from
    /// the index it replaces, whose shared part may be gone or damaged. An entry whose
    /// work-tree file holds exactly the committed blob, with the committed mode, gets the
    /// file's stat data; any other gets none (`IndexEntry.Stat.none`), so git and libgit2
    /// compare its file by content: a hand edit in the work tree stays one. A change staged by
    /// hand in the split index is not carried over: the work tree still holds it, and shows
    /// it, unless it was staged and then undone in the work tree.
    func indexFromHead() throws -> IndexFile.Rewrite {
        var entries: [(name: [UInt8], id: git_oid, mode: UInt32)] = []
        if let head = try resolve(reference: "HEAD") {
            try collectEntries(of: try commitTreeAndFirstParent(head).tree, prefix: [], into: &entries)
        }
        entries.sort { $0.name.lexicographicallyPrecedes($1.name) }
        var encoded: [[UInt8]] = []
        encoded.reserveCapacity(entries.count)
        for entry in entries {
            var data = IndexEntry.Stat.none
            if let st = workFileStat(entry.name, holding: entry.id, mode: entry.mode) { data = IndexFile.statData(st) }
            let id = withUnsafeBytes(of: entry.id.id) { Array($0) }
            encoded.append(IndexEntry.entry(name: entry.name, id: id, mode: entry.mode, stat: data))
        }
        return IndexFile.Rewrite(file: IndexWriter.file(version: 2, entries: encoded, sha1: IndexFile.sha1), source: nil)
    }

    /// Every blob, link and submodule entry under `tree`, with its path's bytes.
    private func collectEntries(of tree: ObjectID, prefix: [UInt8], into entries: inout [(name: [UInt8], id: git_oid, mode: UInt32)]) throws {
        try withTree(tree) { handle in
            for i in 0..<git_tree_entrycount(handle) {
                guard let entry = git_tree_entry_byindex(handle, i), let name = git_tree_entry_name(entry), let id = git_tree_entry_id(entry)
                else { continue }
                let path = prefix + Array(UnsafeRawBufferPointer(start: name, count: strlen(name)))
                let mode = git_tree_entry_filemode_raw(entry).rawValue
                if mode == 0o040000 {
                    try collectEntries(of: ObjectID(id), prefix: path + [0x2F], into: &entries)
                } else {
                    entries.append((path, id.pointee, mode))
                }
            }
        }
    }

    /// The stat data of the work-tree file at `name` when it is a regular file of `mode` whose
    /// content is the blob `id`; nil otherwise (no work tree, a link, a submodule, a file
    /// missing or different).
    private func workFileStat(_ name: [UInt8], holding id: git_oid, mode: UInt32) -> stat? {
        guard let workDirectory, mode == 0o100644 || mode == 0o100755 else { return nil }
        let path = Array(workDirectory.utf8CString.dropLast()) + name.map { CChar(bitPattern: $0) } + [0]
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        // A file that cannot be read is taken as different: its entry gets no stat data.
        return (try? file(path, described: st, holds: id, mode: mode)) == true ? st : nil
    }

    /// Runs `body` with libgit2 reading a whole index: the index itself, or, when it is split,
    /// one made from HEAD (`indexFromHead`) in a copy that is not the index (a command that
    /// only reads writes no index). The copy is written under `.git/todo`, opened by libgit2,
    /// which reads it at once, and removed before `body` runs.
    func withWholeIndex<T>(_ body: () throws -> T) throws -> T {
        guard case .split = readIndex() else { return try body() }
        let rewrite = try indexFromHead()
        mkdir(gitDirectory + "todo", 0o755)
        let copy = gitDirectory + "todo/index-whole-\(getpid())"
        let fd = Glibc.open(copy, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        if fd < 0 { throw GitError.system(errno: errno, call: "open \(copy)") }
        var index: OpaquePointer?
        do {
            defer {
                close(fd)
                unlink(copy)
            }
            try IndexFile.emit(rewrite, to: fd, what: copy)
            try check(git_index_open(&index, copy), call: "git_index_open")
        }
        defer { git_index_free(index) }
        try check(git_repository_set_index(handle, index), call: "git_repository_set_index")
        // Afterwards libgit2 reads the index from disk again.
        defer { _ = git_repository_set_index(handle, nil) }
        return try body()
    }
}
