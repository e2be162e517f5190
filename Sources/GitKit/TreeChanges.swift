import CLibgit2
import GitFormats
import Glibc

/// An entry of a tree that differs from the entry of the same name in an older tree (or has
/// none there): the entry, and the older entry of that name when there is one.
public struct ChangedEntry: Sendable {
    public let entry: TreeEntry
    public let old: TreeEntry?
}

/// Reads a history for the check of received commits: compares trees with older ones, entry by
/// entry, keeping the trees it read for the next comparison (walking a history, each commit's
/// trees are the new side once and the old side of the next commit's comparison), and reads
/// commits' trees and parents and blobs' sizes. Only the entries that differ become
/// `TreeEntry` values; the others are passed over by comparing names and ids in place. Forgets
/// everything past a few thousand trees. Not for use from several threads at once.
///
/// With `packs`, objects are read straight from the packs (`PackReader`), and parsed here as
/// strictly as libgit2 parses them; whatever is not in a pack, cannot be read there, or does
/// not parse here is read through libgit2, which gives the error, if any, it always gave.
public final class TreeChanges {
    private let repo: Repository
    private let reader: PackReader?
    private var trees: [ObjectID: ParsedTree] = [:]
    private let limit: Int

    public init(_ repo: Repository, limit: Int = 4096, packs: PackFiles? = nil) {
        self.repo = repo
        self.limit = limit
        reader = packs.map(PackReader.init)
    }

    /// The entries of `tree` whose name, id or mode differ from `old`'s entry of that name, or
    /// that `old` lacks (all of them when `old` is nil), in `tree`'s order. Both lists are in
    /// git's order, so the old entry of a name is found by walking the two together; a name out
    /// of byte order (possible only in a tree git would not write) finds no old entry and is
    /// returned as new.
    public func changed(_ tree: ObjectID, since old: ObjectID?) throws -> [ChangedEntry] {
        // Forgetting happens here only, never between the two lookups below.
        if trees.count + 2 > limit { trees.removeAll(keepingCapacity: true) }
        // Of two versions of a folder whose names are where they were, one is parsed and the
        // other taken from it (`sibling`).
        let new: ParsedTree
        var previous: ParsedTree?
        if let old {
            if let known = trees[tree] {
                new = known
                previous = try trees[old] ?? sibling(old, of: known) ?? lookup(old)
            } else {
                let parsed = try lookup(old)
                previous = parsed
                new = try sibling(tree, of: parsed) ?? lookup(tree)
            }
        } else {
            new = try lookup(tree)
        }
        if let previous, let (_, changed) = ParsedTree.sameLayout(new.bytes, as: previous) {
            return changed.map { ChangedEntry(entry: new.entry($0), old: previous.entry($0)) }
        }
        var next = 0
        var found: [ChangedEntry] = []
        for e in new.entries.indices {
            var match: Int?
            if let previous {
                while next < previous.entries.count {
                    let order = ParsedTree.compareNames(previous, next, new, e)
                    if order < 0 { next += 1; continue }
                    if order == 0 { match = next }
                    break
                }
            }
            if let o = match, let previous, previous.entries[o].mode == new.entries[e].mode, ParsedTree.sameID(previous, o, new, e) {
                continue
            }
            found.append(ChangedEntry(entry: new.entry(e), old: match.flatMap { previous?.entry($0) }))
        }
        return found
    }

    /// The size of object `id` (a blob's, for the checks of sizes).
    public func size(_ id: ObjectID) throws -> Int {
        if let size = reader?.size(id) { return size }
        return try repo.blobSize(id)
    }

    /// Commit `id`'s tree and first parent, as `Repository.commitTreeAndFirstParent` gives
    /// them. From the packs, a commit is taken only when it has the form git writes, which
    /// libgit2 parses in every case (`treeAndFirstParent`); any other is left to libgit2, which
    /// refuses it or not as it always did.
    public func commitTreeAndFirstParent(_ id: ObjectID) throws -> (tree: ObjectID, parent: ObjectID?) {
        if let (kind, bytes) = reader?.read(id), kind == .commit, let found = Self.treeAndFirstParent(bytes) {
            return found
        }
        return try repo.commitTreeAndFirstParent(id)
    }

    /// The tree and first parent a commit's content names, when it has the form git writes:
    /// "tree <id>", "parent <id>" lines, one or more "author" lines, a "committer" line, each
    /// signature "<name> <<email>>" with nothing or " <seconds>" and anything after; then
    /// anything. libgit2's commit parser takes all of these (it refuses only a missing id or
    /// signature, an e-mail without its brackets, a time that is not a number). Nil otherwise.
    static func treeAndFirstParent(_ bytes: [UInt8]) -> (tree: ObjectID, parent: ObjectID?)? {
        do {
            let header = try CommitHeader(bytes)
            guard let tree = ObjectID(raw: header.tree[...]) else { return nil }
            return (tree, header.parents.first.flatMap { ObjectID(raw: $0[...]) })
        } catch {
            // Not the form git writes: left to libgit2.
            return nil
        }
    }

    /// Tree `id` from the packs when it differs from `known` only inside ids
    /// (`ParsedTree.sameLayout`), remembered; nil otherwise.
    private func sibling(_ id: ObjectID, of known: ParsedTree) -> ParsedTree? {
        guard let (kind, bytes) = reader?.read(id), kind == .tree, let (tree, _) = ParsedTree.sameLayout(bytes, as: known) else { return nil }
        trees[id] = tree
        return tree
    }

    /// The tree `id`, read once while it is remembered.
    private func lookup(_ id: ObjectID) throws -> ParsedTree {
        if let known = trees[id] { return known }
        let tree: ParsedTree
        if let (kind, bytes) = reader?.read(id), kind == .tree, let parsed = ParsedTree(bytes) {
            tree = parsed
        } else {
            var object: OpaquePointer?
            var oid = id.raw
            try check(git_tree_lookup(&object, repo.handle, &oid), call: "git_tree_lookup")
            guard let object else { throw GitError.missing("git_tree_lookup") }
            defer { git_tree_free(object) }
            tree = ParsedTree(libgit2: object)
        }
        trees[id] = tree
        return tree
    }
}

/// A tree's content with where each entry is: parsed as libgit2 parses a tree (an octal mode,
/// a space, a name of at least one byte ended by a NUL, 20 bytes of id), but stricter: whatever
/// libgit2 might take and this does not is left to libgit2.
struct ParsedTree {
    typealias Entry = TreeFormat.Entry

    let bytes: [UInt8]
    let entries: [Entry]

    private init(bytes: [UInt8], entries: [Entry]) {
        self.bytes = bytes
        self.entries = entries
    }

    /// Nil for content this does not parse (`TreeFormat.entries`).
    init?(_ bytes: [UInt8]) {
        do {
            entries = try TreeFormat.entries(bytes)
        } catch {
            // Left to libgit2, which refuses it or not as it always did.
            return nil
        }
        self.bytes = bytes
    }

    /// The entries of a tree libgit2 parsed, written out as a tree's content.
    init(libgit2 tree: OpaquePointer) {
        var bytes: [UInt8] = []
        var entries: [Entry] = []
        for i in 0..<git_tree_entrycount(tree) {
            guard let e = git_tree_entry_byindex(tree, i), let name = git_tree_entry_name(e) else { continue }
            let mode = git_tree_entry_filemode_raw(e).rawValue
            let start = bytes.count
            bytes += Array(String(mode, radix: 8).utf8) + [0x20]
            let nameStart = bytes.count
            bytes += UnsafeRawBufferPointer(start: name, count: strlen(name))
            entries.append(Entry(mode: mode, start: start, name: nameStart, length: bytes.count - nameStart))
            bytes.append(0)
            bytes += withUnsafeBytes(of: git_tree_entry_id(e)!.pointee.id) { Array($0) }
        }
        self.bytes = bytes
        self.entries = entries
    }

    /// Entry `i` as a value; its kind from its mode, as libgit2 gives it.
    func entry(_ i: Int) -> TreeEntry {
        let e = entries[i]
        let kind: TreeEntry.Kind
        switch e.mode & 0o170000 {
        case 0o160000: kind = .commit
        case 0o040000: kind = .tree
        default: kind = .blob
        }
        return TreeEntry(
            name: String(decoding: bytes[e.name..<e.name + e.length], as: UTF8.self),
            id: ObjectID(raw: bytes[e.name + e.length + 1..<e.name + e.length + 21])!,
            kind: kind, mode: e.mode)
    }

    /// When `bytes` (a tree's content) differ from `old`'s only inside entries' ids (the same
    /// modes and names in the same places, as a history's versions of a folder mostly are):
    /// the tree they make, `old`'s entries over these bytes (parsing them would find the same
    /// ones, an id being 20 bytes whatever they are), and the entries whose ids differ, found
    /// by comparing halves of the two trees' bytes. Nil otherwise. An entry in the same place
    /// with the same bytes is unchanged, even in a tree whose names are out of order (where the
    /// walk by name would report it).
    static func sameLayout(_ bytes: [UInt8], as old: ParsedTree) -> (tree: ParsedTree, changed: [Int])? {
        let count = old.entries.count
        guard count > 0, bytes.count == old.bytes.count else { return nil }
        var changed: [Int] = []
        var same = true
        bytes.withUnsafeBufferPointer { a in
            old.bytes.withUnsafeBufferPointer { b in
                func split(_ low: Int, _ high: Int) {
                    guard same else { return }
                    let from = old.entries[low].start
                    let to = high < count ? old.entries[high].start : bytes.count
                    if memcmp(a.baseAddress! + from, b.baseAddress! + from, to - from) == 0 { return }
                    if high - low == 1 {
                        // The mode, name and NUL must be the same: only the id may differ.
                        let e = old.entries[low]
                        if memcmp(a.baseAddress! + e.start, b.baseAddress! + e.start, e.name + e.length + 1 - e.start) != 0 {
                            same = false
                            return
                        }
                        changed.append(low)
                        return
                    }
                    let middle = (low + high) / 2
                    split(low, middle)
                    split(middle, high)
                }
                split(0, count)
            }
        }
        guard same else { return nil }
        return (ParsedTree(bytes: bytes, entries: old.entries), changed)
    }

    /// The order of entry `i` of `a` and entry `j` of `b` by name, as `strcmp` orders them.
    static func compareNames(_ a: ParsedTree, _ i: Int, _ b: ParsedTree, _ j: Int) -> Int {
        let x = a.entries[i]
        let y = b.entries[j]
        let order = a.bytes.withUnsafeBufferPointer { ab in
            b.bytes.withUnsafeBufferPointer { bb in memcmp(ab.baseAddress! + x.name, bb.baseAddress! + y.name, min(x.length, y.length)) }
        }
        if order != 0 { return Int(order) }
        return x.length < y.length ? -1 : x.length > y.length ? 1 : 0
    }

    /// Whether entry `i` of `a` and entry `j` of `b` name the same object.
    static func sameID(_ a: ParsedTree, _ i: Int, _ b: ParsedTree, _ j: Int) -> Bool {
        let x = a.entries[i]
        let y = b.entries[j]
        return a.bytes.withUnsafeBufferPointer { ab in
            b.bytes.withUnsafeBufferPointer { bb in
                memcmp(ab.baseAddress! + x.name + x.length + 1, bb.baseAddress! + y.name + y.length + 1, 20) == 0
            }
        }
    }
}
