import CLibgit2

/// Moving history between two repositories on the same machine (a path remote) without a
/// transport: work out what the other side lacks from the commits alone, and write it there as
/// one pack. libgit2's local transport instead marks every object of the other side's trees
/// as already present, which costs in proportion to the household, not to the change.
extension Repository {
    /// The objects a repository that holds `haves` (and all they reach) lacks to hold `tips`:
    /// each commit reachable from `tips` but not from `haves`, and for each of those, the trees
    /// and blobs of its tree that its first parent's tree does not have. Only subtrees whose
    /// ids differ are read, so the cost follows the size of the change. `haves` this
    /// repository does not know are ignored (the other side's history was rewritten: more is
    /// sent, never less).
    ///
    /// Commits are taken parents first, so that a tree already collected (and then skipped when
    /// it appears again) was collected against a parent whose objects are all sent or held:
    /// taken newest first, a tree that a later commit brings back (a revert) would be collected
    /// only against its own parent, and the older commit with the same tree would skip what
    /// it added.
    public func objectsMissing(reaching tips: [ObjectID], from haves: [ObjectID]) throws -> [ObjectID] {
        var walker: OpaquePointer?
        try check(git_revwalk_new(&walker, handle), call: "git_revwalk_new")
        defer { git_revwalk_free(walker) }
        try check(
            git_revwalk_sorting(walker, GIT_SORT_TOPOLOGICAL.rawValue | GIT_SORT_REVERSE.rawValue), call: "git_revwalk_sorting")
        for tip in tips {
            var raw = tip.raw
            try check(git_revwalk_push(walker, &raw), call: "git_revwalk_push")
        }
        for have in haves where try contains(have) {
            var raw = have.raw
            try check(git_revwalk_hide(walker, &raw), call: "git_revwalk_hide")
        }
        // One group per commit (the commit, then what it adds), returned newest first.
        var groups: [[ObjectID]] = []
        var seen = Set<ObjectID>()
        var oid = git_oid()
        while true {
            let rc = git_revwalk_next(&oid, walker)
            if rc == GIT_ITEROVER.rawValue { break }
            try check(rc, call: "git_revwalk_next")
            let commit = ObjectID(oid)
            var out = [commit]
            let info = try self.commit(commit)
            let parentTree = try info.parents.first.map { try self.commit($0).tree }
            if info.tree != parentTree, seen.insert(info.tree).inserted {
                out.append(info.tree)
                try collectTreeDifference(info.tree, against: parentTree, into: &out, seen: &seen)
            }
            groups.append(out)
        }
        return groups.reversed().flatMap { $0 }
    }

    /// Whether the object database holds `id`.
    public func contains(_ id: ObjectID) throws -> Bool {
        try withODB { Self.exists(id, in: $0) }
    }

    static func exists(_ id: ObjectID, in odb: OpaquePointer) -> Bool {
        var raw = id.raw
        return git_odb_exists(odb, &raw) != 0
    }

    /// Appends the entries of tree `id` (recursively) that `old` does not have with the same id.
    private func collectTreeDifference(
        _ id: ObjectID, against old: ObjectID?, into out: inout [ObjectID], seen: inout Set<ObjectID>
    ) throws {
        var tree: OpaquePointer?
        var raw = id.raw
        try check(git_tree_lookup(&tree, handle, &raw), call: "git_tree_lookup")
        defer { git_tree_free(tree) }
        var oldTree: OpaquePointer?
        if var o = old?.raw { try check(git_tree_lookup(&oldTree, handle, &o), call: "git_tree_lookup") }
        defer { git_tree_free(oldTree) }
        for i in 0..<git_tree_entrycount(tree) {
            guard let entry = git_tree_entry_byindex(tree, i), let name = git_tree_entry_name(entry),
                let entryID = git_tree_entry_id(entry)
            else { continue }
            let child = ObjectID(entryID.pointee)
            var oldChild: ObjectID?
            var oldIsTree = false
            if let oldTree, let before = git_tree_entry_byname(oldTree, name), let beforeID = git_tree_entry_id(before) {
                oldChild = ObjectID(beforeID.pointee)
                oldIsTree = git_tree_entry_type(before) == GIT_OBJECT_TREE
            }
            if oldChild == child { continue }
            switch git_tree_entry_type(entry) {
            case GIT_OBJECT_TREE:
                if seen.insert(child).inserted {
                    out.append(child)
                    try collectTreeDifference(child, against: oldIsTree ? oldChild : nil, into: &out, seen: &seen)
                }
            case GIT_OBJECT_BLOB:
                if seen.insert(child).inserted { out.append(child) }
            default:
                // A submodule's commit lives in another repository; there is nothing to copy.
                continue
            }
        }
    }

    /// Copies `objects` (all in this repository) into `destination`, leaving out what it
    /// already has. Up to `looseLimit` go in as loose objects (one fsync each when the library
    /// fsyncs), so that small, frequent transfers do not pile up packs; more go in as one pack,
    /// indexed and fsynced by libgit2 there, holding every object whole (zlib stored blocks, no
    /// deltas): for a household's small files, searching for deltas and compressing would take
    /// longer than moving the bytes. A pack appears whole or not at all. `objects` come in the
    /// order `objectsMissing` gives (each commit before the trees and blobs it adds, and before
    /// its parent); loose objects are written in reverse, so that a commit or tree is never on
    /// disk before what it refers to, even if this process is killed halfway.
    public func copy(_ objects: [ObjectID], to destination: Repository, looseLimit: Int = Repository.looseLimit) throws {
        try withODB { source in
            try destination.withODB { target in
                let objects = objects.filter { !Self.exists($0, in: target) }
                if objects.isEmpty { return }
                if objects.count <= looseLimit {
                    for id in objects.reversed() {
                        try Self.read(id, from: source) { type, content in
                            var written = git_oid()
                            try check(git_odb_write(&written, target, content.baseAddress, content.count, type), call: "git_odb_write")
                        }
                    }
                    return
                }
                var pack = PackStream(count: objects.count)
                for id in objects {
                    try Self.read(id, from: source) { type, content in pack.append(type: type, content) }
                }
                let bytes = pack.finish()
                var writer: UnsafeMutablePointer<git_odb_writepack>?
                try check(git_odb_write_pack(&writer, target, nil, nil), call: "git_odb_write_pack")
                guard let writer else { throw GitError.missing("git_odb_write_pack") }
                defer { writer.pointee.free(writer) }
                var stats = git_indexer_progress()
                try bytes.withUnsafeBytes { buffer in
                    try check(writer.pointee.append(writer, buffer.baseAddress, buffer.count, &stats), call: "git_odb_writepack.append")
                }
                try check(writer.pointee.commit(writer, &stats), call: "git_odb_writepack.commit")
            }
        }
    }

    /// Up to this many objects, loose files are cheaper than a pack, and leave no pack behind.
    public static let looseLimit = 16

    /// Calls `body` with the type and content of object `id` in `odb`.
    static func read(_ id: ObjectID, from odb: OpaquePointer, _ body: (git_object_t, UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        var object: OpaquePointer?
        var raw = id.raw
        try check(git_odb_read(&object, odb, &raw), call: "git_odb_read")
        defer { git_odb_object_free(object) }
        let data = git_odb_object_data(object)?.assumingMemoryBound(to: UInt8.self)
        try body(git_odb_object_type(object), UnsafeBufferPointer(start: data, count: git_odb_object_size(object)))
    }
}

/// The bytes of a version 2 pack file: header, each object whole (a type-and-size header, then
/// its content as a zlib stream of stored blocks), and the SHA-1 trailer.
struct PackStream {
    private var bytes: [UInt8] = []

    init(count: Int) {
        bytes = Array("PACK".utf8) + Self.bigEndian(2) + Self.bigEndian(UInt32(count))
    }

    mutating func append(type: git_object_t, _ content: UnsafeBufferPointer<UInt8>) {
        // Type and size: 3 type bits and the low 4 size bits, then 7 size bits a byte.
        var size = content.count
        var first = UInt8(truncatingIfNeeded: type.rawValue & 7) << 4 | UInt8(size & 0x0F)
        size >>= 4
        if size > 0 { first |= 0x80 }
        bytes.append(first)
        while size > 0 {
            var next = UInt8(size & 0x7F)
            size >>= 7
            if size > 0 { next |= 0x80 }
            bytes.append(next)
        }
        // zlib: header (deflate, 32K window, no dictionary, check bits), stored blocks of at
        // most 65,535 bytes, Adler-32 of the content.
        bytes += [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, content.count - offset)
            let final: UInt8 = offset + length == content.count ? 1 : 0
            bytes += [final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            if length > 0 { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: content[offset..<offset + length])) }
            offset += length
        } while offset < content.count
        bytes += Self.bigEndian(Self.adler32(content))
    }

    mutating func finish() -> [UInt8] {
        var hash = SHA1()
        hash.update(bytes)
        return bytes + hash.finish()
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
    }

    static func adler32(_ data: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        var index = 0
        while index < data.count {
            // 5,552 bytes is the most that cannot overflow before the modulo.
            let end = min(index + 5_552, data.count)
            while index < end {
                a &+= UInt32(data[index])
                b &+= a
                index += 1
            }
            a %= 65_521
            b %= 65_521
        }
        return b << 16 | a
    }
}
