import Glibc
import CLibgit2

/// Keeping the number of pack files small. Syncs add a pack whenever they bring in more than a
/// few objects, and libgit2 looks an object up pack by pack: after months of syncing from cron,
/// hundreds of packs would slow every command down.
extension Repository {
    /// When `objects/pack` holds more than `limit` packs, writes every object of all but the
    /// largest into one new pack (with deltas, compressed, fsynced when the library fsyncs) and
    /// then removes those packs. Nothing is dropped: every object of a removed pack is in the
    /// new one, whether anything refers to it or not. Packs with a `.keep` file are left alone,
    /// as git leaves them. Returns how many packs were removed.
    @discardableResult
    public func consolidatePacks(above limit: Int) throws -> Int {
        let folder = gitDirectory + "objects/pack/"
        var packs: [(name: String, size: Int)] = []
        for entry in listDirectory(folder) where entry.hasSuffix(".pack") {
            let base = String(entry.dropLast(5))
            if access(folder + base + ".keep", F_OK) == 0 || access(folder + base + ".idx", F_OK) != 0 { continue }
            var st = stat()
            guard stat(folder + entry, &st) == 0 else { continue }
            packs.append((base, Int(st.st_size)))
        }
        if packs.count <= limit { return 0 }
        packs.sort { $0.size > $1.size }
        let merged = packs.dropFirst().map(\.name)

        var builder: OpaquePointer?
        try check(git_packbuilder_new(&builder, handle), call: "git_packbuilder_new")
        defer { git_packbuilder_free(builder) }
        _ = git_packbuilder_set_threads(builder, 0)
        var seen = Set<ObjectID>()
        for name in merged {
            for id in try objects(inPackIndex: folder + name + ".idx") where seen.insert(id).inserted {
                var raw = id.raw
                try check(git_packbuilder_insert(builder, &raw, nil), call: "git_packbuilder_insert")
            }
        }
        try check(git_packbuilder_write(builder, folder, 0, nil, nil), call: "git_packbuilder_write")
        let written = git_packbuilder_name(builder).map { "pack-" + String(cString: $0) }
        var removed = 0
        for name in merged where name != written {
            // The index first: a reader finds packs by their indexes.
            unlink(folder + name + ".idx")
            unlink(folder + name + ".pack")
            unlink(folder + name + ".rev")
            removed += 1
        }
        syncDirectory(folder)
        return removed
    }

    /// The ids of every object in one pack, read through its index.
    func objects(inPackIndex index: String) throws -> [ObjectID] {
        var odb: OpaquePointer?
        try check(git_odb_new(&odb), call: "git_odb_new")
        defer { git_odb_free(odb) }
        var backend: OpaquePointer?
        try check(git_odb_backend_one_pack(&backend, index), call: "git_odb_backend_one_pack")
        // The odb owns the backend from here on.
        try check(git_odb_add_backend(odb, backend, 1), call: "git_odb_add_backend")
        final class Collected { var ids: [ObjectID] = [] }
        let collected = Collected()
        let payload = Unmanaged.passUnretained(collected).toOpaque()
        try check(
            git_odb_foreach(
                odb,
                { oid, payload in
                    guard let oid, let payload else { return -1 }
                    let box = Unmanaged<Collected>.fromOpaque(payload).takeUnretainedValue()
                    box.ids.append(ObjectID(oid.pointee))
                    return 0
                }, payload), call: "git_odb_foreach")
        return withExtendedLifetime(collected) { collected.ids }
    }
}
