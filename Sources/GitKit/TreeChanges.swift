import CLibgit2
import Glibc

/// An entry of a tree that differs from the entry of the same name in an older tree (or has
/// none there): the entry, and the older entry of that name when there is one.
public struct ChangedEntry: Sendable {
    public let entry: TreeEntry
    public let old: TreeEntry?
}

/// Compares trees with older ones, entry by entry, keeping the trees it read (libgit2's parsed
/// objects) for the next comparison: walking a history, each commit's trees are the new side
/// once and the old side of the next commit's comparison. Only the entries that differ become
/// `TreeEntry` values; the others are passed over by comparing names and ids in place. Forgets
/// everything past a few thousand trees. Not for use from several threads at once.
public final class TreeChanges {
    private let repo: Repository
    private var trees: [ObjectID: OpaquePointer] = [:]
    private let limit: Int

    public init(_ repo: Repository, limit: Int = 4096) {
        self.repo = repo
        self.limit = limit
    }

    deinit {
        for tree in trees.values { git_tree_free(tree) }
    }

    /// The entries of `tree` whose name, id or mode differ from `old`'s entry of that name, or
    /// that `old` lacks (all of them when `old` is nil), in `tree`'s order. Both lists are in
    /// git's order, so the old entry of a name is found by walking the two together; a name out
    /// of byte order (possible only in a tree git would not write) finds no old entry and is
    /// returned as new.
    public func changed(_ tree: ObjectID, since old: ObjectID?) throws -> [ChangedEntry] {
        // Forgetting happens here only, never between the two lookups below.
        if trees.count + 2 > limit {
            for tree in trees.values { git_tree_free(tree) }
            trees.removeAll(keepingCapacity: true)
        }
        let new = try lookup(tree)
        let previous = try old.map { try lookup($0) }
        let count = git_tree_entrycount(new)
        let oldCount = previous.map { git_tree_entrycount($0) } ?? 0
        var next = 0
        var found: [ChangedEntry] = []
        for i in 0..<count {
            guard let e = git_tree_entry_byindex(new, i) else { continue }
            var match: OpaquePointer?
            if let previous, let name = git_tree_entry_name(e) {
                while next < oldCount, let o = git_tree_entry_byindex(previous, next), let oldName = git_tree_entry_name(o) {
                    let order = strcmp(oldName, name)
                    if order < 0 { next += 1; continue }
                    if order == 0 { match = o }
                    break
                }
            }
            if let o = match, git_oid_equal(git_tree_entry_id(o), git_tree_entry_id(e)) != 0,
                git_tree_entry_filemode_raw(o) == git_tree_entry_filemode_raw(e)
            {
                continue
            }
            found.append(ChangedEntry(entry: Repository.makeEntry(e), old: match.map { Repository.makeEntry($0) }))
        }
        return found
    }

    /// The parsed tree `id`, read once while it is remembered.
    private func lookup(_ id: ObjectID) throws -> OpaquePointer {
        if let known = trees[id] { return known }
        var tree: OpaquePointer?
        var oid = id.raw
        try check(git_tree_lookup(&tree, repo.handle, &oid), call: "git_tree_lookup")
        guard let tree else { throw GitError.missing("git_tree_lookup") }
        trees[id] = tree
        return tree
    }
}
