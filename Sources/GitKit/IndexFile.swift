import CLibgit2
import CInterposers
import GitFormats
import Glibc

/// git's index (versions 2 and 3, whole or split) read and rewritten directly, for changes of a
/// few entries. libgit2 parses every entry into a hash map and checksums the file with its
/// collision-detecting SHA-1 on each read and write: at 10,000 tasks (a 1.1 MB index) that was
/// most of what a one-task change cost beyond the same change at 100 tasks. Here a read only
/// notes where each entry starts, a lookup is a binary search, and a change splices the new
/// entries into the bytes; checksums use the CPU's SHA instructions.
///
/// The files are mapped, not read: at 100,000 tasks (an 11 MB index) reading it into fresh
/// memory was most of a one-task change, and only the pages a change looks at are touched. git
/// and libgit2 replace the index by renaming a new file over it, so a mapping keeps the file as
/// it was read.
///
/// From `splitThreshold` entries the index is kept split, as git's `core.splitIndex` keeps it
/// (docs/FORMAT.md, "The git index"): the entries as of the last rebase in
/// `sharedindex.<sha1>`, and in the index only what changed since, so that a change writes and
/// checksums a few kilobytes, not the whole household's entries.
///
/// Anything this does not know how to keep exactly (version 4, required extensions other than
/// `link`, a bad checksum) makes `load` return nil, and the caller uses libgit2.
struct IndexFile {
    /// The index file itself.
    let top: IndexBytes
    /// The shared index a split index names; nil when the index is whole.
    let shared: IndexBytes?
    /// For a split index: which of `top`'s entries replaces each replaced shared position.
    let replacement: [Int: Int]
    /// For a split index: the shared positions removed.
    let deleted: Set<Int>
    /// `top`'s entries from here on are entries of their own (sorted); those before replace
    /// shared ones.
    let firstAdded: Int
    /// The index file's change time, size and inode when read, to tell whether it changed since.
    let stamp: Stamp

    /// Whether the index is split (a `link` naming a shared index).
    var isSplit: Bool { shared != nil }

    /// How many entries the index holds, shared or its own.
    var count: Int { (shared?.count ?? 0) - deleted.count + top.count - firstAdded }

    struct Stamp: Equatable {
        var seconds: Int
        var nanoseconds: Int
        var size: Int
        var inode: UInt64

        init(seconds: Int, nanoseconds: Int, size: Int, inode: UInt64) {
            self.seconds = seconds
            self.nanoseconds = nanoseconds
            self.size = size
            self.inode = inode
        }

        /// The stamp of the file `st` describes.
        init(_ st: stat) {
            self.init(seconds: Int(st.st_mtim.tv_sec), nanoseconds: Int(st.st_mtim.tv_nsec), size: Int(st.st_size), inode: UInt64(st.st_ino))
        }
    }

    /// A note, written beside the index after `IndexFile` wrote it, of that file's stamp and
    /// checksum: while the index is still that file (same inode, size and modification time,
    /// to the nanosecond), a later read need not checksum its megabyte again. Any other writer
    /// (git, libgit2) replaces the file, so the note no longer matches and the checksum is
    /// checked. The note is not synced: a lost or torn note only means one more checksum.
    /// The same note is kept of the shared index last found whole.
    struct Written {
        var stamp: Stamp
        /// The file's trailing SHA-1, which has the form of an object id.
        var checksum: ObjectID

        /// `inode size seconds nanoseconds checksum-hex`, one line.
        static func load(_ path: String) -> Written? {
            guard let bytes = readBytes(path), bytes.count < 160 else { return nil }
            let fields = String(decoding: bytes, as: UTF8.self).split(separator: " ")
            guard fields.count == 5, let inode = UInt64(fields[0]), let size = Int(fields[1]), let seconds = Int(fields[2]),
                let nanoseconds = Int(fields[3]), fields[4].last == "\n", let checksum = ObjectID(hex: String(fields[4].dropLast()))
            else { return nil }
            return Written(stamp: Stamp(seconds: seconds, nanoseconds: nanoseconds, size: size, inode: inode), checksum: checksum)
        }

        /// Replaces the note (not synced); failures are ignored, as the note is only a hint.
        func save(_ path: String) {
            let line = Array("\(stamp.inode) \(stamp.size) \(stamp.seconds) \(stamp.nanoseconds) \(checksum.hex)\n".utf8)
            let temporary = path + ".tmp"
            let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            if fd < 0 { return }
            let written = (try? writeAll(fd, line, what: temporary)) != nil  // the note is only a hint: one not written is remade
            close(fd)
            if !written || rename(temporary, path) != 0 { unlink(temporary) }
        }
    }

    /// Where a repository keeps its index and the notes (`Written`) of it.
    struct Place {
        /// The git directory, with a trailing slash.
        var gitDirectory: String
        var index: String { gitDirectory + "index" }
        func shared(_ checksum: ObjectID) -> String { gitDirectory + "sharedindex." + checksum.hex }
        var indexNote: String { gitDirectory + "todo/index-written" }
        var sharedNote: String { gitDirectory + "todo/sharedindex-checked" }
    }

    /// The split index's rebase comes when the entries outside the shared index exceed this
    /// percentage of it (git's `splitIndex.maxPercentChange` default).
    static let maxPercentChange = 20

    /// Whether `outside` entries (replaced, deleted or its own) may stand beside a shared index
    /// of `shared` entries.
    static func fitsOutside(_ outside: Int, of shared: Int) -> Bool { outside * 100 <= maxPercentChange * shared }

    /// The index in `place`; nil when there is none or it is one `IndexFile` does not handle.
    /// A file a note (`Written`) names is not checksummed again. A shared index that vanished
    /// while the index was read (another writer rebased) makes it read the index again.
    static func load(_ place: Place) -> IndexFile? {
        for _ in 0..<3 {
            switch read(place) {
            case .read(let file): return file
            case .unreadable: return nil
            case .sharedGone: continue
            }
        }
        return nil
    }

    /// For an index `load` could not read: the shared index it names when it is a split index
    /// (whose shared index is then missing or damaged); nil otherwise.
    static func sharedIndexNamed(_ place: Place) -> ObjectID? {
        guard let (mapping, _) = map(place.index), let top = IndexBytes.read(mapping, checked: false, allowLink: true),
            let link = top.link, let shared = link.sharedID, !shared.isZero
        else { return nil }
        return shared
    }

    private enum Reading {
        case read(IndexFile)
        case unreadable
        /// The shared index the index names is not there.
        case sharedGone
    }

    private static func read(_ place: Place) -> Reading {
        guard let (topMapping, stamp) = map(place.index) else { return .unreadable }
        let checked = note(place.indexNote, matches: topMapping, stamp: stamp)
        guard let top = IndexBytes.read(topMapping, checked: checked, allowLink: true) else { return .unreadable }
        guard let link = top.link, let linkShared = link.sharedID, !linkShared.isZero else {
            // A link naming no shared index may set no position.
            do { _ = try top.linkPositions(below: 0) } catch { return .unreadable }
            return .read(IndexFile(top: top, shared: nil, replacement: [:], deleted: [], firstAdded: 0, stamp: stamp))
        }
        let sharedPath = place.shared(linkShared)
        guard let (sharedMapping, sharedStamp) = map(sharedPath) else {
            if access(sharedPath, F_OK) != 0 && errno == ENOENT { return .sharedGone }
            return .unreadable
        }
        let sharedChecked = note(place.sharedNote, matches: sharedMapping, stamp: sharedStamp)
        guard let shared = IndexBytes.read(sharedMapping, checked: sharedChecked, allowLink: false),
            ObjectID(raw: Array(shared.bytes.suffix(20))[...]) == linkShared
        else { return .unreadable }
        if !sharedChecked { Written(stamp: sharedStamp, checksum: linkShared).save(place.sharedNote) }
        // The positions must be in the shared index, none both deleted and replaced; the
        // replacements have empty names and the entries of its own do not (as git requires).
        let positions: (deleted: [Int], replaced: [Int])
        do {
            positions = try top.linkPositions(below: shared.count)
        } catch {
            // A position outside the shared index, or a bitmap that does not decode.
            return .unreadable
        }
        let deleted = Set(positions.deleted)
        guard positions.replaced.count <= top.count, positions.replaced.allSatisfy({ !deleted.contains($0) }) else { return .unreadable }
        var replacement: [Int: Int] = [:]
        for (k, position) in positions.replaced.enumerated() {
            guard top.path(at: k).isEmpty else { return .unreadable }
            replacement[position] = k
        }
        for k in positions.replaced.count..<top.count where top.path(at: k).isEmpty { return .unreadable }
        return .read(
            IndexFile(top: top, shared: shared, replacement: replacement, deleted: deleted, firstAdded: positions.replaced.count, stamp: stamp))
    }

    /// The file at `path` mapped, and its stamp; nil when it cannot be opened or mapped, or
    /// is too short or too long to be an index.
    private static func map(_ path: String) -> (MappedFile, Stamp)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size >= 32, st.st_size < 1 << 30, let mapping = MappedFile(fd, size: Int(st.st_size)) else {
            return nil
        }
        return (mapping, Stamp(st))
    }

    /// Whether the note at `notePath` names this very file, checksum included.
    private static func note(_ notePath: String, matches mapping: MappedFile, stamp: Stamp) -> Bool {
        guard let note = Written.load(notePath), note.stamp == stamp else { return false }
        return note.checksum == ObjectID(raw: Array(mapping.bytes.suffix(20))[...])
    }

    // MARK: Reading

    /// What the index holds at one path.
    enum Lookup: Equatable {
        case absent
        /// A stage-0 entry: its object id (20 bytes) and raw mode.
        case file(id: [UInt8], mode: UInt32)
        /// Conflict stages.
        case conflicted
    }

    func lookup(_ path: String) -> Lookup {
        let key = Array(path.utf8)
        var found = Lookup.absent
        // An entry of the index's own at a path stands for every shared entry there.
        for k in top.entries(at: key, in: firstAdded..<top.count) {
            if top.stage(at: k) != 0 { return .conflicted }
            let (id, mode) = top.object(at: k)
            found = .file(id: id, mode: mode)
        }
        if found != .absent { return found }
        guard let shared else { return .absent }
        for position in shared.entries(at: key, in: 0..<shared.count) where !deleted.contains(position) {
            if shared.stage(at: position) != 0 { return .conflicted }
            let (id, mode) = replacement[position].map(top.object) ?? shared.object(at: position)
            found = .file(id: id, mode: mode)
        }
        return found
    }

    /// Calls `body` with every entry's object id, raw mode and path, in order within the
    /// shared index and within the index's own entries.
    func forEachEntry(_ body: (_ id: ObjectID, _ mode: UInt32, _ path: String) throws -> Void) rethrows {
        // An id is always 20 bytes: an entry's fixed part holds them.
        if let shared {
            shared.locateAll()
            for position in 0..<shared.count where !deleted.contains(position) {
                let (id, mode) = replacement[position].map(top.object) ?? shared.object(at: position)
                guard let oid = ObjectID(raw: id[...]) else { continue }
                try body(oid, mode, String(decoding: shared.path(at: position), as: UTF8.self))
            }
        }
        for k in firstAdded..<top.count {
            let (id, mode) = top.object(at: k)
            guard let oid = ObjectID(raw: id[...]) else { continue }
            try body(oid, mode, String(decoding: top.path(at: k), as: UTF8.self))
        }
    }

    // MARK: Bytes

    static func appendU32(_ out: inout [UInt8], _ v: UInt32) { BigEndian.append(&out, v) }

    static func appendU16(_ out: inout [UInt8], _ v: UInt16) { BigEndian.append(&out, v) }
}

extension IndexBytes {
    /// The index file in `mapping` (`IndexBytes`), its checksum verified unless `checked`; nil
    /// when it is not one read here (the caller then uses libgit2, or reports the file).
    static func read(_ mapping: MappedFile, checked: Bool, allowLink: Bool) -> IndexBytes? {
        do {
            return try IndexBytes(
                bytes: mapping.bytes, owner: mapping, checksum: checked ? nil : { IndexFile.sha1([.mapped($0[...])]) }, allowLink: allowLink)
        } catch {
            // Not an index kept here: libgit2 reads it, or the caller says it cannot be read.
            return nil
        }
    }
}

extension IndexBytes.Link {
    /// The shared index's checksum as an id; nil only for a link not 20 bytes long, which
    /// `IndexBytes` never gives.
    var sharedID: ObjectID? { ObjectID(raw: shared[...]) }
}
