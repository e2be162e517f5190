import CInterposers
import Dispatch
import Glibc
import CLibgit2
import GitFormats
import Synchronization

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
    /// longer than moving the bytes (housekeeping recognises such a pack, `isWrittenWhole`, and
    /// repacks it with deltas once it weighs something). A pack appears whole or not at all. `objects` come in the
    /// order `objectsMissing` gives (each commit before the trees and blobs it adds, and before
    /// its parent); loose objects are written in reverse, so that a commit or tree is never on
    /// disk before what it refers to, even if this process is killed halfway.
    /// With `synced: false`, loose objects are written by GitKit itself (`todo_write_loose_object`),
    /// without fsync whatever the library's process-wide setting, for a caller that makes them
    /// durable before anything points at them.
    /// `progress` gets the objects read and the total now and then; it returns false to stop
    /// (a `GitError`).
    public func copy(
        _ objects: [ObjectID], to destination: Repository, looseLimit: Int = Repository.looseLimit, synced: Bool = true,
        progress: (_ done: Int, _ total: Int) -> Bool = { _, _ in true }
    ) throws {
        let objectsFolder = destination.gitDirectory + "objects"
        try withODB { source in
            try destination.withODB { target in
                let objects = objects.filter { !Self.exists($0, in: target) }
                if objects.isEmpty { return }
                if objects.count <= looseLimit {
                    for id in objects.reversed() {
                        try Self.read(id, from: source) { type, content in
                            if synced {
                                var written = git_oid()
                                try check(git_odb_write(&written, target, content.baseAddress, content.count, type), call: "git_odb_write")
                                return
                            }
                            let code = todo_write_loose_object(objectsFolder, id.hex, git_object_type2string(type), content.baseAddress, content.count)
                            if code != 0 { throw GitError.system(errno: -code, call: "write \(objectsFolder)/\(id.hex.prefix(2))/\(id.hex.dropFirst(2))") }
                        }
                    }
                    return
                }
                try Self.writePack(into: target, count: objects.count) { pack in
                    for (n, id) in objects.enumerated() {
                        if n % 512 == 0, !progress(n, objects.count) {
                            throw GitError(code: GIT_EUSER.rawValue, errorClass: 0, message: "the copy was stopped", function: "copy")
                        }
                        try Self.read(id, from: source) { type, content in try pack.append(type: UInt8(truncatingIfNeeded: type.rawValue), content) }
                    }
                    _ = progress(objects.count, objects.count)
                }
            }
        }
    }

    /// Writes one pack of `count` objects into `odb`, made by `body` through a `PackWriter`.
    /// The indexer gets the pack a megabyte at a time: it writes a temporary file and renames
    /// it into place at commit (fsynced as the library is set to), so the whole pack is never
    /// in memory and appears whole or not at all.
    static func writePack(into odb: OpaquePointer, count: Int, _ body: (inout PackWriter) throws -> Void) throws {
        var writer: UnsafeMutablePointer<git_odb_writepack>?
        try check(git_odb_write_pack(&writer, odb, nil, nil), call: "git_odb_write_pack")
        guard let writer else { throw GitError.missing("git_odb_write_pack") }
        defer { writer.pointee.free(writer) }
        var stats = git_indexer_progress()
        var pack = PackWriter(count: count, hash: SHA1()) { chunk in
            try chunk.withUnsafeBytes { buffer in
                try check(writer.pointee.append(writer, buffer.baseAddress, buffer.count, &stats), call: "git_odb_writepack.append")
            }
        }
        try body(&pack)
        try pack.finish()
        try check(writer.pointee.commit(writer, &stats), call: "git_odb_writepack.commit")
    }

    /// Copies every object `source` holds into this repository, for a first copy of a
    /// repository on the same machine: each of its packs streamed whole through libgit2's
    /// indexer, which checks it (every object inflated, its deltas resolved, its id computed
    /// again) and writes its index anew, then its loose objects (read, so checked, and written
    /// as one pack). Nothing is compressed again and no delta searched, as `git clone
    /// --no-local` reuses what the other side's packs hold. With several packs and cores, a
    /// second thread (on its own handle) indexes packs beside this one, largest first: the
    /// indexer uses one core, as git's `index-pack` does not. `progress` gets the objects done
    /// and the total now and then, over all packs, on this thread; it returns false to stop (a
    /// `GitError`). A pack removed meanwhile (someone repacked `source`) is skipped: its
    /// objects are in the new pack or loose, which may not be copied; the caller checks that
    /// what it needs is here.
    public func copyEverything(from source: Repository, progress: (_ done: Int, _ total: Int) -> Bool) throws {
        let objects = source.gitDirectory + "objects"
        let names = Self.packNames(in: objects)
        // The total is the packs' object counts (from their headers), then the loose objects.
        let packs = names.map { PackCopy.Pack(path: objects + "/pack/" + $0 + ".pack", count: Self.packObjectCount(objects + "/pack/" + $0 + ".pack") ?? 0) }
        let loose = Self.looseObjects(in: objects).map(\.id)
        let total = packs.reduce(0) { $0 + $1.count } + loose.count
        let copy = PackCopy(packs.sorted { $0.count > $1.count })
        let helper = packs.count > 1 && sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 ? Handoff(try Repository.open(path: gitDirectory)) : nil
        if let helper {
            PackCopy.queue.async {
                defer { copy.ended.signal() }
                do {
                    try helper.repo.withODB { odb in
                        while let pack = copy.take() {
                            try Self.index(pack, into: odb) { indexed in
                                copy.state.withLock { $0.helperIndexed = indexed }
                                return !copy.stopped.load(ordering: .relaxed)
                            }
                            copy.state.withLock { $0.finished += pack.count; $0.helperIndexed = 0 }
                        }
                    }
                } catch {
                    copy.state.withLock { $0.failure = error }
                    copy.stopped.store(true, ordering: .relaxed)
                }
            }
        }
        func stopped() -> GitError { GitError(code: GIT_EUSER.rawValue, errorClass: 0, message: "the copy was stopped", function: "copyEverything") }
        do {
            try withoutActuallyEscaping(progress) { progress in
                try withODB { odb in
                    while let pack = copy.take() {
                        try Self.index(pack, into: odb) { indexed in
                            progress(copy.state.withLock { $0.finished + $0.helperIndexed } + indexed, total)
                        }
                        copy.state.withLock { $0.finished += pack.count }
                    }
                }
            }
        } catch {
            copy.stopped.store(true, ordering: .relaxed)
            if helper != nil { copy.ended.wait() }
            throw error
        }
        if helper != nil { copy.ended.wait() }
        if let failure = copy.state.withLock({ $0.failure }) { throw failure }
        var done = total - loose.count
        if !progress(done, total) { throw stopped() }
        try source.copy(loose.filter { (try? source.contains($0)) == true }, to: self)  // cannot be looked up in the source: left out of the copy, as an object the source lacks
        done += loose.count
        if !progress(done, total) { throw stopped() }
    }

    /// Streams the pack file at `pack.path` through a new indexer of `odb`; `report` gets the
    /// objects indexed so far and returns false to stop. A pack that cannot be opened (removed
    /// meanwhile) is skipped.
    static func index(_ pack: PackCopy.Pack, into odb: OpaquePointer, report: @escaping (Int) -> Bool) throws {
        let fd = Glibc.open(pack.path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return }
        defer { close(fd) }
        final class Context {
            let report: (Int) -> Bool
            init(_ report: @escaping (Int) -> Bool) { self.report = report }
        }
        let context = Context(report)
        var writer: UnsafeMutablePointer<git_odb_writepack>?
        try withExtendedLifetime(context) {
            try check(
                git_odb_write_pack(&writer, odb, { stats, payload in
                    guard let stats, let payload else { return 0 }
                    return Unmanaged<Context>.fromOpaque(payload).takeUnretainedValue().report(Int(stats.pointee.indexed_objects)) ? 0 : -1
                }, Unmanaged.passUnretained(context).toOpaque()), call: "git_odb_write_pack")
            guard let writer else { throw GitError.missing("git_odb_write_pack") }
            defer { writer.pointee.free(writer) }
            var stats = git_indexer_progress()
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n < 0 {
                    throw GitError(code: -1, errorClass: 0, message: "\(pack.path): \(String(cString: strerror(errno)))", function: "read")
                }
                if n == 0 { break }
                try buffer.withUnsafeBytes { try check(writer.pointee.append(writer, $0.baseAddress, n, &stats), call: "git_odb_writepack.append") }
            }
            try check(writer.pointee.commit(writer, &stats), call: "git_odb_writepack.commit")
        }
    }

    /// The object count in a pack file's header; nil when it cannot be read.
    static func packObjectCount(_ path: String) -> Int? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return nil }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 12)
        guard header.withUnsafeMutableBytes({ Glibc.read(fd, $0.baseAddress, 12) }) == 12, header[0..<4].elementsEqual("PACK".utf8) else {
            return nil
        }
        return header[8..<12].reduce(0) { $0 << 8 | Int($1) }
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
