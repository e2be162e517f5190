import Glibc
import CLibgit2

// Packing a repository's objects into one pack with deltas, and removing what the new pack
// holds (docs/FORMAT.md, "Housekeeping"). libgit2 never does this by itself: every change
// leaves loose objects, and a household's object store would only grow.
//
// Safe with other writers at work, on a local disk or a network share: the new pack is durable
// before anything is removed; only objects the new pack's index (read back from disk) holds are
// removed; packs that appear during the run are never touched; unreachable loose objects are
// handed back to the caller, never removed here.

/// What one packing run did.
public struct PackingOutcome: Sendable {
    /// `pack-<sha1>`; nil when the repository holds no object to pack.
    public var packName: String?
    /// Objects in the new pack.
    public var objectsPacked = 0
    public var looseRemoved = 0
    public var packsRemoved = 0
    /// Loose objects found at the start that the new pack does not hold: unreachable from every
    /// reference, reflog and the index when the pack was computed.
    public var unreachable: [LooseObject] = []
    /// Every reference and the index, as they were both before and after the pack was computed;
    /// nil when they moved meanwhile (then nothing may be concluded about `unreachable`).
    public var references: String?
    /// A geometric run's: loose objects neither the new pack nor a kept pack holds, left where
    /// they are (it does not decide whether anything reaches them).
    public var looseLeft = 0
}

extension Repository {
    /// Writes every object reachable from the references, reflogs and index, and every object of
    /// the packs present at the start, into one new pack with deltas; makes it durable (pack,
    /// index, folder); then removes the loose objects and the old packs (without `.keep`) that
    /// the new pack's index holds. `staleTemporaries`: libgit2 temporary files in
    /// `objects/pack` older than this time (seconds since the epoch) are removed too.
    ///
    /// `checkpoint` is called with `packed` once the new pack is durable, `loose-half` when half
    /// the loose objects it holds are removed, and `old-pack-index` when the first old pack has
    /// lost its index but not yet its pack (tests stop the process there).
    public func packEverything(
        removingTemporariesOlderThan staleTemporaries: Double, checkpoint: (String) -> Void = { _ in }
    ) throws -> PackingOutcome {
        finishPackRemoval()
        let objects = gitDirectory + "objects"
        let folder = objects + "/pack/"
        // What is there at the start: only these are ever removed.
        let loose = Self.looseObjects(in: objects)
        let oldPacks = Self.packNames(in: objects).filter { access(folder + $0 + ".keep", F_OK) != 0 }
        var outcome = PackingOutcome()
        let referencesBefore = try referenceState()

        let builder = try PackBuilder(self)
        try insertReachable(into: builder.handle)
        try builder.insertObjects(ofPacks: oldPacks, in: folder, of: self)
        let referencesAfter = try referenceState()
        outcome.references = referencesBefore == referencesAfter ? referencesBefore : nil
        outcome.objectsPacked = builder.count
        if outcome.objectsPacked == 0 {
            outcome.unreachable = loose
            return outcome
        }
        try write(builder, replacing: oldPacks, loose: loose, kept: nil, into: &outcome, checkpoint: checkpoint)
        // What killed runs left: libgit2's temporary files, and packs whose index a run had
        // removed (their objects are in a newer pack; a reader never uses a pack without index).
        for name in listDirectory(folder)
        where name.hasPrefix("pack_git2_") || (name.hasSuffix(".pack") && access(folder + name.dropLast(5) + ".idx", F_OK) != 0) {
            var st = stat()
            if stat(folder + name, &st) == 0, Double(st.st_mtim.tv_sec) < staleTemporaries { unlink(folder + name) }
        }
        syncDirectory(folder)
        return outcome
    }

    /// A geometric repack (docs/FORMAT.md, "Geometric packing"): the packs above the split are
    /// kept as they are; one new pack holds the commits since them (walked from every tip back
    /// to a commit a kept pack holds, with paths) and every object of the packs rolled up. Then
    /// the same removals as `packEverything`, except that a loose object neither pack holds is
    /// left (`looseLeft`), never judged unreachable. Nil when the split keeps no pack: then
    /// only `packEverything` will do.
    public func packGeometrically(checkpoint: (String) -> Void = { _ in }) throws -> PackingOutcome? {
        finishPackRemoval()
        let objects = gitDirectory + "objects"
        let folder = objects + "/pack/"
        let loose = Self.looseObjects(in: objects)
        var packs: [GeometricSplit.Pack] = []
        for name in Self.packNames(in: objects) where access(folder + name + ".keep", F_OK) != 0 {
            guard let count = Self.objectCount(packIndex: folder + name + ".idx") else { continue }
            packs.append(.init(name: name, objects: count, writtenWhole: Self.isWrittenWhole(pack: folder + name + ".pack")))
        }
        let split = GeometricSplit(packs: packs, looseObjects: loose.count)
        if split.kept.isEmpty { return nil }
        var outcome = PackingOutcome()
        if split.rolled.isEmpty && loose.isEmpty { return outcome }
        let kept = try PackSet(split.kept.map { folder + $0 + ".idx" })
        let builder = try PackBuilder(self)
        try insertCommits(since: kept, into: builder.handle)
        try builder.insertObjects(ofPacks: split.rolled, in: folder, of: self)
        outcome.objectsPacked = builder.count
        if outcome.objectsPacked > 0 {
            try write(builder, replacing: split.rolled, loose: loose, kept: kept, into: &outcome, checkpoint: checkpoint)
        } else {
            removeLoose(loose, heldBy: [], kept: kept, into: &outcome, checkpoint: checkpoint)
        }
        syncDirectory(folder)
        return outcome
    }

    /// Writes `builder`'s pack into `objects/pack`, makes it durable, then removes what it holds
    /// (docs/FORMAT.md, "Durability", steps 1–4): loose objects it holds, or that `kept` holds;
    /// the packs of `old` whose every object it holds. A loose object held by neither is
    /// `unreachable` for a full repack (`kept` nil), `looseLeft` for a geometric one.
    private func write(
        _ builder: PackBuilder, replacing old: [String], loose: [LooseObject], kept: PackSet?,
        into outcome: inout PackingOutcome, checkpoint: (String) -> Void
    ) throws {
        let folder = gitDirectory + "objects/pack/"
        try check(git_packbuilder_write(builder.handle, folder, 0, nil, nil), call: "git_packbuilder_write")
        guard let written = git_packbuilder_name(builder.handle).map({ "pack-" + String(cString: $0) }) else {
            throw GitError.missing("git_packbuilder_name")
        }
        outcome.packName = written
        // Durable before anything goes, whatever the library's own fsync setting was.
        try Durability.sync(folder + written + ".pack")
        try Durability.sync(folder + written + ".idx")
        try Durability.sync(folder)
        checkpoint("packed")

        // Only what the index on disk says the new pack holds.
        let held = Set(try self.objects(inPackIndex: folder + written + ".idx"))
        removeLoose(loose, heldBy: held, kept: kept, into: &outcome, checkpoint: checkpoint)
        let replaced = old.filter { name in
            guard name != written, let ids = try? self.objects(inPackIndex: folder + name + ".idx") else { return false }  // an old pack whose index cannot be read is kept, never removed
            return ids.allSatisfy(held.contains)
        }
        if replaced.isEmpty { return }
        // Named first, so that a run killed between a pack's index and its pack leaves nothing
        // the next run does not finish (`finishPackRemoval`).
        writeRemovalRecord(replaced)
        for name in replaced {
            // The index first: readers find packs by their indexes.
            unlink(folder + name + ".idx")
            if outcome.packsRemoved == 0 { checkpoint("old-pack-index") }
            removePackFiles(name)
            outcome.packsRemoved += 1
        }
        unlink(removalRecordPath)
    }

    /// Removes each of `loose` that `held` (the new pack's ids) or `kept` holds; one held by
    /// neither is `unreachable` for a full repack (`kept` nil), `looseLeft` for a geometric one.
    private func removeLoose(
        _ loose: [LooseObject], heldBy held: Set<ObjectID>, kept: PackSet?, into outcome: inout PackingOutcome,
        checkpoint: (String) -> Void
    ) {
        let half = loose.count / 2
        for (n, object) in loose.enumerated() {
            if n == half && n > 0 { checkpoint("loose-half") }
            if held.contains(object.id) || kept?.contains(object.id) == true {
                if unlink(object.path) == 0 { outcome.looseRemoved += 1 }
            } else if kept == nil {
                outcome.unreachable.append(object)
            } else {
                outcome.looseLeft += 1
            }
        }
    }

    /// Where a run names the packs it is about to remove (`pack-<sha1>` lines).
    var removalRecordPath: String { gitDirectory + "todo-removing-packs" }

    private func writeRemovalRecord(_ names: [String]) {
        let fd = Glibc.open(removalRecordPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { return }
        // Not synced: after a power loss the record may be gone, and a pack without its index
        // stays for `git gc` (it is only garbage).
        _ = try? writeAll(fd, Array(names.map { $0 + "\n" }.joined().utf8), what: removalRecordPath)
        close(fd)
    }

    /// The files of pack `name` but its index.
    private func removePackFiles(_ name: String) {
        let folder = gitDirectory + "objects/pack/"
        for suffix in [".pack", ".rev", ".bitmap"] { unlink(folder + name + suffix) }
    }

    /// Finishes what a killed run began: each pack its record names whose index is already
    /// gone (every object of it was in a newer, durable pack) loses its other files. Called by
    /// every run, before it lists the packs.
    public func finishPackRemoval() {
        guard let bytes = readBytes(removalRecordPath) else { return }
        let folder = gitDirectory + "objects/pack/"
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let name = String(line)
            guard name.hasPrefix("pack-"), !name.contains("/"), access(folder + name + ".idx", F_OK) != 0 else { continue }
            removePackFiles(name)
        }
        unlink(removalRecordPath)
    }

    /// The commits reachable from the tips (`packingTips`) that no pack of `kept` holds, and
    /// everything their trees hold that `kept` does not, into `builder`: trees and blobs with
    /// their paths, as git gives them, so that each folder's and each task file's versions are
    /// tried against each other (libgit2's own walk names blobs only). A tip that is not a
    /// commit goes in with all it refers to, unless kept.
    private func insertCommits(since kept: PackSet, into builder: OpaquePointer?) throws {
        var pending: [ObjectID] = []
        var visited = Set<ObjectID>()
        for tip in try packingTips() where !kept.contains(tip) && visited.insert(tip).inserted {
            var raw = tip.raw
            var object: OpaquePointer?
            if git_commit_lookup(&object, handle, &raw) == 0 {
                git_commit_free(object)
                pending.append(tip)
            } else {
                try check(git_packbuilder_insert_recur(builder, &raw, nil), call: "git_packbuilder_insert_recur")
            }
        }
        var seen = Set<ObjectID>()
        while let id = pending.popLast() {
            let commit = try self.commit(id)
            var raw = id.raw
            try check(git_packbuilder_insert(builder, &raw, nil), call: "git_packbuilder_insert")
            try insertTree(commit.tree, path: "", unless: kept, seen: &seen, into: builder)
            for parent in commit.parents where !kept.contains(parent) && visited.insert(parent).inserted {
                pending.append(parent)
            }
        }
    }

    /// Tree `id` at `path` and what it holds, but what `seen` has or `kept` holds.
    private func insertTree(
        _ id: ObjectID, path: String, unless kept: PackSet, seen: inout Set<ObjectID>, into builder: OpaquePointer?
    ) throws {
        guard seen.insert(id).inserted, !kept.contains(id) else { return }
        var raw = id.raw
        try check(git_packbuilder_insert(builder, &raw, path), call: "git_packbuilder_insert")
        for entry in try treeEntries(id) {
            let full = path.isEmpty ? entry.name : path + "/" + entry.name
            switch entry.kind {
            case .tree:
                try insertTree(entry.id, path: full, unless: kept, seen: &seen, into: builder)
            case .blob:
                guard seen.insert(entry.id).inserted, !kept.contains(entry.id) else { continue }
                var blob = entry.id.raw
                try check(git_packbuilder_insert(builder, &blob, full), call: "git_packbuilder_insert")
            default:
                continue  // a submodule's commit: not in this repository
            }
        }
    }

    /// Everything the references, `HEAD`, the reflogs and the index reach, into `builder`.
    private func insertReachable(into builder: OpaquePointer?) throws {
        try insertCommits(since: try PackSet([]), into: builder)
        guard workDirectory != nil else { return }
        switch readIndex() {
        case .whole(let file):
            try file.forEachEntry { id, mode, path in
                guard mode != 0o160000, try contains(id) else { return }
                var oid = id.raw
                try check(git_packbuilder_insert(builder, &oid, path), call: "git_packbuilder_insert")
            }
            return
        case .split:
            // Not read (docs/FORMAT.md, "The git index"), and not replaced here: housekeeping
            // does not hold the household's lock. What only a split index reaches is a change
            // staged by hand; its loose blob is kept while it is younger than the grace period.
            return
        case .other:
            break
        }
        var index: OpaquePointer?
        try check(git_repository_index(&index, handle), call: "git_repository_index")
        defer { git_index_free(index) }
        for i in 0..<git_index_entrycount(index) {
            guard let entry = git_index_get_byindex(index, i), entry.pointee.mode != 0o160000 else { continue }
            var raw = entry.pointee.id
            let id = ObjectID(raw)
            guard try contains(id) else { continue }
            try check(git_packbuilder_insert(builder, &raw, entry.pointee.path), call: "git_packbuilder_insert")
        }
    }

    /// What a repack starts from: every reference's target, `HEAD`'s, and every object a
    /// reflog entry names, once each, only those the repository has.
    private func packingTips() throws -> [ObjectID] {
        var tips: [ObjectID] = []
        var names: [String] = ["HEAD"]
        try forEachReference { name, target, _ in
            names.append(name)
            if let target { tips.append(target) }
        }
        if let head = try? resolve(reference: "HEAD") { tips.append(head) }  // no HEAD (an unborn branch): nothing more to keep
        for name in names {
            var reflog: OpaquePointer?
            guard git_reflog_read(&reflog, handle, name) == 0 else { continue }
            defer { git_reflog_free(reflog) }
            for i in 0..<git_reflog_entrycount(reflog) {
                guard let entry = git_reflog_entry_byindex(reflog, i) else { continue }
                for oid in [git_reflog_entry_id_old(entry), git_reflog_entry_id_new(entry)] {
                    if let oid, git_oid_is_zero(oid) == 0 { tips.append(ObjectID(oid.pointee)) }
                }
            }
        }
        var seen = Set<ObjectID>()
        var present: [ObjectID] = []
        // A reflog may name a commit that is gone (git's reflog expiry removes such lines).
        for tip in tips where seen.insert(tip).inserted { if try contains(tip) { present.append(tip) } }
        return present
    }
}
