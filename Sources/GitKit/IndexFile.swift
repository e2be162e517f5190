import CLibgit2
import CInterposers
import GitFormats
import Glibc

/// git's index (versions 2 and 3, whole) read and rewritten directly, for changes of a few
/// entries. libgit2 parses every entry into a hash map and checksums the file with its
/// collision-detecting SHA-1 on each read and write: at 10,000 tasks (a 1.1 MB index) that was
/// most of what a one-task change cost beyond the same change at 100 tasks. Here a read only
/// notes where each entry starts, a lookup is a binary search, and a change splices the new
/// entries into the bytes (`IndexWriter`); checksums use the CPU's SHA instructions.
///
/// The file is mapped, not read: at 100,000 tasks (an 11 MB index) reading it into fresh
/// memory was most of a one-task change, and only the pages a change looks at are touched. git
/// and libgit2 replace the index by renaming a new file over it, so a mapping keeps the file as
/// it was read.
///
/// A split index (git's `core.splitIndex`, docs/FORMAT.md "The git index") is never read:
/// `load` says it found one, and the repository replaces it by a whole index made from HEAD
/// (`Repository.replaceSplitIndex`). Anything else this does not know how to keep exactly
/// (version 4, a required extension, a bad checksum) makes `load` say so, and the caller uses
/// libgit2.
struct IndexFile {
    /// The index file.
    let entries: IndexBytes
    /// The index file's change time, size and inode when read, to tell whether it changed since.
    let stamp: Stamp

    /// How many entries the index holds.
    var count: Int { entries.count }

    /// What `load` found.
    enum Found {
        case whole(IndexFile)
        /// A split index: its `link` extension was found, and nothing of it decoded.
        case split
        /// No index, or one `IndexFile` does not handle (libgit2 then reads it, or says what is
        /// wrong with it).
        case other
    }

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
        var indexNote: String { gitDirectory + "todo/index-written" }
    }

    /// The index in `place`. A file a note (`Written`) names is not checksummed again.
    static func load(_ place: Place) -> Found {
        guard let (mapping, stamp) = map(place.index) else { return .other }
        let checked = note(place.indexNote, matches: mapping, stamp: stamp)
        do {
            let entries = try IndexBytes(bytes: mapping.bytes, owner: mapping, checksum: checked ? nil : { IndexFile.sha1([.mapped($0[...])]) })
            return .whole(IndexFile(entries: entries, stamp: stamp))
        } catch .invalid(_, .splitIndex, _) {
            return .split
        } catch {
            // Not an index kept here: libgit2 reads it, or says what is wrong with it.
            return .other
        }
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
        var found = Lookup.absent
        for k in entries.entries(at: Array(path.utf8), in: 0..<entries.count) {
            if entries.stage(at: k) != 0 { return .conflicted }
            let (id, mode) = entries.object(at: k)
            found = .file(id: id, mode: mode)
        }
        return found
    }

    /// Calls `body` with every entry's object id, raw mode and path, in order.
    func forEachEntry(_ body: (_ id: ObjectID, _ mode: UInt32, _ path: String) throws -> Void) rethrows {
        entries.locateAll()
        for k in 0..<entries.count {
            let (id, mode) = entries.object(at: k)
            // An id is always 20 bytes: an entry's fixed part holds them.
            guard let oid = ObjectID(raw: id[...]) else { continue }
            try body(oid, mode, String(decoding: entries.path(at: k), as: UTF8.self))
        }
    }
}
