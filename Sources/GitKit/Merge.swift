import CLibgit2

/// What a custom merge driver says about one path.
public enum DriverOutcome: Sendable {
    /// The merged file's bytes.
    case merged([UInt8])
    /// Leave the path conflicted (the caller reports why).
    case conflict
}

/// The three sides of one path given to a merge driver; nil where a side has no file.
public struct MergeSides: Sendable {
    public let path: String
    public let ancestor: [UInt8]?
    public let ours: [UInt8]?
    public let theirs: [UInt8]?

    public init(path: String, ancestor: [UInt8]?, ours: [UInt8]?, theirs: [UInt8]?) {
        self.path = path
        self.ancestor = ancestor
        self.ours = ours
        self.theirs = theirs
    }
}

/// The custom merge driver registered with libgit2 under one name, process-wide.
///
/// libgit2's driver callback has no payload, so the resolver lives in a global set once at
/// start-up, before any concurrency.
public enum MergeDriver {
    public typealias Resolver = (MergeSides) -> DriverOutcome

    nonisolated(unsafe) static var resolver: Resolver?
    nonisolated(unsafe) static var driver = git_merge_driver()
    nonisolated(unsafe) static var registeredName: String?

    /// Registers `resolve` as the driver called `name` (idempotent).
    public static func register(name: String, _ resolve: @escaping Resolver) throws {
        resolver = resolve
        if registeredName != nil { return }
        driver.version = UInt32(GIT_MERGE_DRIVER_VERSION)
        driver.apply = { _, pathOut, modeOut, mergedOut, _, src in
            MergeDriver.apply(pathOut: pathOut, modeOut: modeOut, mergedOut: mergedOut, src: src)
        }
        try check(git_merge_driver_register(name, &driver), call: "git_merge_driver_register")
        registeredName = name
    }

    static func apply(
        pathOut: UnsafeMutablePointer<UnsafePointer<CChar>?>?, modeOut: UnsafeMutablePointer<UInt32>?,
        mergedOut: UnsafeMutablePointer<git_buf>?, src: OpaquePointer?
    ) -> Int32 {
        guard let resolver, let src, let repo = git_merge_driver_source_repo(src) else {
            return GIT_PASSTHROUGH.rawValue
        }
        let ancestor = git_merge_driver_source_ancestor(src)
        let ours = git_merge_driver_source_ours(src)
        let theirs = git_merge_driver_source_theirs(src)
        guard let named = ours ?? theirs, let cPath = named.pointee.path else { return GIT_EMERGECONFLICT.rawValue }
        func content(_ entry: UnsafePointer<git_index_entry>?) -> [UInt8]? {
            guard let entry else { return nil }
            var oid = entry.pointee.id
            var blob: OpaquePointer?
            guard git_blob_lookup(&blob, repo, &oid) == 0 else { return nil }
            defer { git_blob_free(blob) }
            let size = Int(git_blob_rawsize(blob))
            guard size > 0, let raw = git_blob_rawcontent(blob) else { return [] }
            return [UInt8](UnsafeRawBufferPointer(start: raw, count: size))
        }
        let sides = MergeSides(
            path: String(cString: cPath), ancestor: content(ancestor), ours: content(ours), theirs: content(theirs))
        switch resolver(sides) {
        case .conflict:
            return GIT_EMERGECONFLICT.rawValue
        case .merged(let bytes):
            let rc = bytes.withUnsafeBytes { buf -> Int32 in
                guard let base = buf.baseAddress, buf.count > 0 else { return git_buf_set(mergedOut, "", 0) }
                return git_buf_set(mergedOut, base.assumingMemoryBound(to: CChar.self), buf.count)
            }
            if rc != 0 { return rc }
            pathOut?.pointee = cPath
            modeOut?.pointee = GIT_FILEMODE_BLOB.rawValue
            return 0
        }
    }
}

/// A path the merge left conflicted: the blob ids of its sides (nil where a side has no file).
public struct MergeConflict: Sendable {
    public let path: String
    public let ancestor: ObjectID?
    public let ours: ObjectID?
    public let theirs: ObjectID?
}

/// The in-memory index a merge of two commits produced. Resolve its conflicts, then write a tree.
public final class MergedIndex {
    let handle: OpaquePointer
    unowned let repo: Repository

    init(handle: OpaquePointer, repo: Repository) {
        self.handle = handle
        self.repo = repo
    }

    deinit { git_index_free(handle) }

    /// The conflicts libgit2 left: those the driver refused and those it never sees
    /// (modify/delete, and anything not a plain file on both sides).
    public func conflicts() throws -> [MergeConflict] {
        var iterator: OpaquePointer?
        try check(git_index_conflict_iterator_new(&iterator, handle), call: "git_index_conflict_iterator_new")
        defer { git_index_conflict_iterator_free(iterator) }
        var result: [MergeConflict] = []
        while true {
            var a: UnsafePointer<git_index_entry>?
            var o: UnsafePointer<git_index_entry>?
            var t: UnsafePointer<git_index_entry>?
            let rc = git_index_conflict_next(&a, &o, &t, iterator)
            if rc == GIT_ITEROVER.rawValue { break }
            try check(rc, call: "git_index_conflict_next")
            guard let named = o ?? t ?? a, let p = named.pointee.path else { continue }
            result.append(
                MergeConflict(
                    path: String(cString: p), ancestor: a.map { ObjectID($0.pointee.id) },
                    ours: o.map { ObjectID($0.pointee.id) }, theirs: t.map { ObjectID($0.pointee.id) }))
        }
        return result
    }

    /// Replaces the conflict at `path` with a plain file holding `blob`.
    public func resolve(path: String, blob: ObjectID) throws {
        try check(git_index_conflict_remove(handle, path), call: "git_index_conflict_remove")
        var entry = git_index_entry()
        entry.id = blob.raw
        entry.mode = GIT_FILEMODE_BLOB.rawValue
        try path.withCString { p in
            entry.path = p
            try check(git_index_add(handle, &entry), call: "git_index_add")
        }
    }

    /// Every path in the merged index with its blob id and mode.
    public func entries() -> [(path: String, id: ObjectID, mode: UInt32)] {
        var out: [(String, ObjectID, UInt32)] = []
        for i in 0..<git_index_entrycount(handle) {
            guard let e = git_index_get_byindex(handle, i), let p = e.pointee.path else { continue }
            out.append((String(cString: p), ObjectID(e.pointee.id), e.pointee.mode))
        }
        return out
    }

    /// Writes the merged tree; fails with `isUnmerged` while conflicts remain.
    public func writeTree() throws -> ObjectID {
        var oid = git_oid()
        try check(git_index_write_tree_to(&oid, handle, repo.handle), call: "git_index_write_tree_to")
        return ObjectID(oid)
    }
}

extension Repository {
    /// Merges two commits in memory (no work tree involved) with the named driver as the
    /// default for every path, rename detection off.
    public func mergeCommits(ours: ObjectID, theirs: ObjectID, driver: String) throws -> MergedIndex {
        var opts = git_merge_options()
        try check(git_merge_options_init(&opts, UInt32(GIT_MERGE_OPTIONS_VERSION)), call: "git_merge_options_init")
        opts.flags = 0
        var ourCommit: OpaquePointer?
        var theirCommit: OpaquePointer?
        var o = ours.raw
        var t = theirs.raw
        try check(git_commit_lookup(&ourCommit, handle, &o), call: "git_commit_lookup")
        defer { git_commit_free(ourCommit) }
        try check(git_commit_lookup(&theirCommit, handle, &t), call: "git_commit_lookup")
        defer { git_commit_free(theirCommit) }
        var index: OpaquePointer?
        try driver.withCString { name in
            opts.default_driver = name
            try check(git_merge_commits(&index, handle, ourCommit, theirCommit, &opts), call: "git_merge_commits")
        }
        guard let index else { throw GitError.missing("git_merge_commits") }
        return MergedIndex(handle: index, repo: self)
    }
}
