import Glibc
import CLibgit2

/// One entry of a tree.
public struct TreeEntry: Sendable {
    public enum Kind: Sendable { case blob, tree, commit, other }
    public let name: String
    public let id: ObjectID
    public let kind: Kind
    /// The raw git file mode (0o100644, 0o100755, 0o120000, 0o040000, 0o160000).
    public let mode: UInt32
}

/// What a commit says about itself.
public struct CommitInfo: Sendable {
    public let id: ObjectID
    public let tree: ObjectID
    public let parents: [ObjectID]
    public let author: Signature
    public let committer: Signature
    public let message: String
}

/// A change to make when building a tree from another.
public enum TreeChange: Sendable {
    case upsert(path: String, blob: ObjectID)
    case remove(path: String)
}

extension Repository {
    // MARK: Blobs

    /// Writes `bytes` as a blob and returns its id.
    public func writeBlob(_ bytes: [UInt8]) throws -> ObjectID {
        var oid = git_oid()
        try bytes.withUnsafeBytes { buf in
            try check(
                git_blob_create_from_buffer(&oid, handle, buf.baseAddress, buf.count),
                call: "git_blob_create_from_buffer")
        }
        return ObjectID(oid)
    }

    /// The bytes of a blob; throws when the blob is larger than `limit`.
    public func readBlob(_ id: ObjectID, limit: Int = Int.max) throws -> [UInt8] {
        var blob: OpaquePointer?
        var oid = id.raw
        try check(git_blob_lookup(&blob, handle, &oid), call: "git_blob_lookup")
        defer { git_blob_free(blob) }
        let size = Int(git_blob_rawsize(blob))
        if size > limit { throw BlobTooLarge(size: size) }
        guard size > 0, let raw = git_blob_rawcontent(blob) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: raw, count: size))
    }

    /// The size of a blob, read from the object header without loading the content.
    public func blobSize(_ id: ObjectID) throws -> Int {
        try withODB { odb in
            var size = 0
            var type = GIT_OBJECT_ANY
            var oid = id.raw
            try check(git_odb_read_header(&size, &type, odb, &oid), call: "git_odb_read_header")
            return size
        }
    }

    /// Calls `body` with the repository's object database, held for the call.
    func withODB<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, handle), call: "git_repository_odb")
        defer { git_odb_free(odb) }
        guard let odb else { throw GitError.missing("git_repository_odb") }
        return try body(odb)
    }

    // MARK: Trees

    /// The entries of a tree, in git's order.
    public func treeEntries(_ id: ObjectID) throws -> [TreeEntry] {
        try withTree(id) { tree in
            let count = git_tree_entrycount(tree)
            var entries: [TreeEntry] = []
            entries.reserveCapacity(count)
            for i in 0..<count {
                guard let entry = git_tree_entry_byindex(tree, i) else { continue }
                entries.append(Self.makeEntry(entry))
            }
            return entries
        }
    }

    /// The entry at a slash-separated path inside a tree; nil when absent.
    public func treeEntry(_ tree: ObjectID, path: String) throws -> TreeEntry? {
        try withTree(tree) { tree in
            var entry: OpaquePointer?
            let rc = git_tree_entry_bypath(&entry, tree, path)
            if rc == GIT_ENOTFOUND.rawValue { return nil }
            try check(rc, call: "git_tree_entry_bypath")
            defer { git_tree_entry_free(entry) }
            guard let entry else { return nil }
            return Self.makeEntry(entry)
        }
    }

    /// A new tree: `base` (nil for empty) with `changes` applied.
    public func updateTree(_ base: ObjectID?, _ changes: [TreeChange]) throws -> ObjectID {
        var baseTree: OpaquePointer?
        if var oid = base?.raw {
            try check(git_tree_lookup(&baseTree, handle, &oid), call: "git_tree_lookup")
        }
        defer { git_tree_free(baseTree) }
        // Keep the path strings alive for the duration of the call.
        let paths: [UnsafeMutablePointer<CChar>?] = changes.map {
            switch $0 {
            case .upsert(let path, _), .remove(let path): return strdup(path)
            }
        }
        defer { paths.forEach { free($0) } }
        var updates: [git_tree_update] = []
        updates.reserveCapacity(changes.count)
        for (i, change) in changes.enumerated() {
            var update = git_tree_update()
            update.path = UnsafePointer(paths[i])
            switch change {
            case .upsert(_, let blob):
                update.action = GIT_TREE_UPDATE_UPSERT
                update.id = blob.raw
                update.filemode = GIT_FILEMODE_BLOB
            case .remove:
                update.action = GIT_TREE_UPDATE_REMOVE
            }
            updates.append(update)
        }
        var out = git_oid()
        if baseTree == nil {
            // git_tree_create_updated needs a baseline: start from the empty tree.
            var builder: OpaquePointer?
            try check(git_treebuilder_new(&builder, handle, nil), call: "git_treebuilder_new")
            defer { git_treebuilder_free(builder) }
            var empty = git_oid()
            try check(git_treebuilder_write(&empty, builder), call: "git_treebuilder_write")
            try check(git_tree_lookup(&baseTree, handle, &empty), call: "git_tree_lookup")
        }
        try check(
            git_tree_create_updated(&out, handle, baseTree, updates.count, updates),
            call: "git_tree_create_updated")
        return ObjectID(out)
    }

    /// The id of the empty tree (written if needed).
    public func emptyTree() throws -> ObjectID { try updateTree(nil, []) }

    func withTree<T>(_ id: ObjectID, _ body: (OpaquePointer) throws -> T) throws -> T {
        var tree: OpaquePointer?
        var oid = id.raw
        try check(git_tree_lookup(&tree, handle, &oid), call: "git_tree_lookup")
        defer { git_tree_free(tree) }
        guard let tree else { throw GitError.missing("git_tree_lookup") }
        return try body(tree)
    }

    static func makeEntry(_ entry: OpaquePointer) -> TreeEntry {
        let kind: TreeEntry.Kind
        switch git_tree_entry_type(entry) {
        case GIT_OBJECT_BLOB: kind = .blob
        case GIT_OBJECT_TREE: kind = .tree
        case GIT_OBJECT_COMMIT: kind = .commit
        default: kind = .other
        }
        return TreeEntry(
            name: String(cString: git_tree_entry_name(entry)),
            id: ObjectID(git_tree_entry_id(entry)),
            kind: kind,
            mode: git_tree_entry_filemode_raw(entry).rawValue)
    }

    // MARK: Commits

    public func commit(_ id: ObjectID) throws -> CommitInfo {
        var commit: OpaquePointer?
        var oid = id.raw
        try check(git_commit_lookup(&commit, handle, &oid), call: "git_commit_lookup")
        defer { git_commit_free(commit) }
        var parents: [ObjectID] = []
        for i in 0..<git_commit_parentcount(commit) {
            if let p = git_commit_parent_id(commit, i) { parents.append(ObjectID(p)) }
        }
        return CommitInfo(
            id: id,
            tree: ObjectID(git_commit_tree_id(commit)),
            parents: parents,
            author: Signature(git_commit_author(commit)),
            committer: Signature(git_commit_committer(commit)),
            message: git_commit_message(commit).map { String(cString: $0) } ?? "")
    }

    /// A commit's tree and first parent, without making values of its signatures and message.
    public func commitTreeAndFirstParent(_ id: ObjectID) throws -> (tree: ObjectID, parent: ObjectID?) {
        var commit: OpaquePointer?
        var oid = id.raw
        try check(git_commit_lookup(&commit, handle, &oid), call: "git_commit_lookup")
        defer { git_commit_free(commit) }
        let parent = git_commit_parentcount(commit) > 0 ? git_commit_parent_id(commit, 0).map { ObjectID($0) } : nil
        return (ObjectID(git_commit_tree_id(commit)), parent)
    }

    /// Writes a commit object without moving any reference.
    public func createCommit(
        tree: ObjectID, parents: [ObjectID], author: Signature, committer: Signature, message: String
    ) throws -> ObjectID {
        var treeObj: OpaquePointer?
        var treeID = tree.raw
        try check(git_tree_lookup(&treeObj, handle, &treeID), call: "git_tree_lookup")
        defer { git_tree_free(treeObj) }
        var parentObjs: [OpaquePointer?] = []
        defer { parentObjs.forEach { git_commit_free($0) } }
        for parent in parents {
            var p: OpaquePointer?
            var pid = parent.raw
            try check(git_commit_lookup(&p, handle, &pid), call: "git_commit_lookup")
            parentObjs.append(p)
        }
        var out = git_oid()
        try author.withGitSignature { a in
            try committer.withGitSignature { c in
                try parentObjs.withUnsafeMutableBufferPointer { buf in
                    try check(
                        git_commit_create(
                            &out, handle, nil, a, c, "UTF-8", message, treeObj, parents.count, buf.baseAddress),
                        call: "git_commit_create")
                }
            }
        }
        return ObjectID(out)
    }

    /// Whether `ancestor` is reachable from `descendant` (or equal to it).
    public func isAncestor(_ ancestor: ObjectID, of descendant: ObjectID) throws -> Bool {
        if ancestor == descendant { return true }
        var a = ancestor.raw
        var d = descendant.raw
        let rc = git_graph_descendant_of(handle, &d, &a)
        try check(rc, call: "git_graph_descendant_of")
        return rc == 1
    }

    /// The best common ancestor of two commits; nil when they share no history.
    public func mergeBase(_ one: ObjectID, _ two: ObjectID) throws -> ObjectID? {
        var out = git_oid()
        var a = one.raw
        var b = two.raw
        let rc = git_merge_base(&out, handle, &a, &b)
        if rc == GIT_ENOTFOUND.rawValue { return nil }
        try check(rc, call: "git_merge_base")
        return ObjectID(out)
    }

    /// Commits reachable from `start` and not from any of `hidden`; with `sorted`, newest first
    /// (topological, then by time), which costs a walk of everything up front.
    public func walk(
        from start: ObjectID, hiding hidden: [ObjectID] = [], sorted: Bool = true, limit: Int? = nil,
        _ body: (ObjectID) throws -> Bool
    ) throws {
        var walker: OpaquePointer?
        try check(git_revwalk_new(&walker, handle), call: "git_revwalk_new")
        defer { git_revwalk_free(walker) }
        if sorted {
            try check(
                git_revwalk_sorting(walker, GIT_SORT_TOPOLOGICAL.rawValue | GIT_SORT_TIME.rawValue),
                call: "git_revwalk_sorting")
        }
        var s = start.raw
        try check(git_revwalk_push(walker, &s), call: "git_revwalk_push")
        for h in hidden {
            var raw = h.raw
            try check(git_revwalk_hide(walker, &raw), call: "git_revwalk_hide")
        }
        var oid = git_oid()
        while true {
            let rc = git_revwalk_next(&oid, walker)
            if rc == GIT_ITEROVER.rawValue { return }
            try check(rc, call: "git_revwalk_next")
            if try !body(ObjectID(oid)) { return }
        }
    }
}

/// A blob bigger than the caller allows.
public struct BlobTooLarge: Error, Sendable {
    public let size: Int
}
