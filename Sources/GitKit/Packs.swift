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

        let builder = try PackBuilder(self)
        try builder.insertObjects(ofPacks: merged, in: folder, of: self)
        try check(git_packbuilder_write(builder.handle, folder, 0, nil, nil), call: "git_packbuilder_write")
        let written = git_packbuilder_name(builder.handle).map { "pack-" + String(cString: $0) }
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

    /// Whether the pack at `path` (a `.pack` file) was written with its objects stored whole, as
    /// `PackWriter` writes them: its first object's zlib stream has the fastest level's header
    /// and opens with a stored block. git and libgit2's packbuilder compress every object (zlib's
    /// default level: another header, Huffman blocks), so their packs never look so; nor does a
    /// pack a server sent. Reads the first few dozen bytes; false when they cannot be read.
    public static func isWrittenWhole(pack path: String) -> Bool {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 32)
        let n = head.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard n > 12, head[0..<4].elementsEqual("PACK".utf8) else { return false }
        // The first object's type-and-size header: bytes with the high bit set continue it.
        var at = 12
        while at < n, head[at] & 0x80 != 0 { at += 1 }
        at += 1
        // zlib header 78 01, then the first deflate block: BTYPE (bits 1-2) 00 is stored.
        guard at + 2 < n else { return false }
        return head[at] == 0x78 && head[at + 1] == 0x01 && (head[at + 2] >> 1) & 3 == 0
    }

    /// The packs (`pack-<sha1>` names, as `packNames`) under `objectsDirectory` written with
    /// their objects whole (`isWrittenWhole`) and larger than `bytes`. A pack with a `.keep`
    /// file is never named: housekeeping leaves it, so naming it would make housekeeping due
    /// after every write.
    public static func packsWrittenWhole(in objectsDirectory: String, largerThan bytes: Int) -> [String] {
        packNames(in: objectsDirectory).filter { name in
            let path = objectsDirectory + "/pack/" + name
            var st = stat()
            return access(path + ".keep", F_OK) != 0 && stat(path + ".pack", &st) == 0 && Int(st.st_size) > bytes
                && isWrittenWhole(pack: path + ".pack")
        }
    }

    /// The ids of every object in one pack, read through its index.
    func objects(inPackIndex index: String) throws -> [ObjectID] {
        try PackSet([index]).ids()
    }
}
