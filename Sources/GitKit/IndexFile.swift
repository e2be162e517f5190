import Glibc
import CInterposers

/// git's index file (versions 2 and 3) read and rewritten directly, for changes of a few
/// entries. libgit2 parses every entry into a hash map and checksums the file with its
/// collision-detecting SHA-1 on each read and write: at 10,000 tasks (a 1.1 MB index) that was
/// most of what a one-task change cost beyond the same change at 100 tasks. Here a read only
/// notes where each entry starts, a lookup is a binary search, and a change splices the new
/// entries into the bytes; the trailing checksum uses the CPU's SHA instructions.
///
/// The file is mapped, not read: at 100,000 tasks (an 11 MB index) reading it into fresh memory
/// was most of a one-task change, and only the pages a change looks at and copies are touched.
/// git and libgit2 replace the index by renaming a new file over it, so the mapping keeps the
/// file as it was read.
///
/// Anything this does not know how to keep exactly (version 4, extensions other than the cache
/// tree, which is dropped as git allows, a bad checksum) makes `load` return nil, and the
/// caller uses libgit2.
struct IndexFile {
    /// The file's bytes, valid while `mapping` lives.
    let bytes: UnsafeRawBufferPointer
    private let mapping: MappedFile
    /// Where each entry starts, in file order (sorted by path, then stage).
    private var starts: [Int]
    /// Where the entries end (extensions or the checksum begin).
    private var entriesEnd: Int
    let version: UInt32
    /// The file's change time, size and inode when read, to tell whether it changed since.
    let stamp: Stamp

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
            let written = (try? writeAll(fd, line, what: temporary)) != nil
            close(fd)
            if !written || rename(temporary, path) != 0 { unlink(temporary) }
        }
    }

    static let headerSize = 12
    static let fixedEntrySize = 62

    /// The index at `path`; nil when there is none or it is one `IndexFile` does not handle.
    /// When `written` (see `Written`) says this very file is one written here, its checksum
    /// is not computed again.
    static func load(_ path: String, written: String? = nil) -> IndexFile? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size >= 32, st.st_size < 1 << 30 else { return nil }
        let size = Int(st.st_size)
        guard let mapping = MappedFile(fd, size: size) else { return nil }
        let bytes = mapping.bytes
        let stamp = Stamp(st)
        let known = written.flatMap(Written.load).map { $0.stamp == stamp && $0.checksum == ObjectID(raw: Array(bytes[(size - 20)...])[...]) } ?? false
        return IndexFile(mapping: mapping, stamp: stamp, checked: known)
    }

    private init?(mapping: MappedFile, stamp: Stamp, checked: Bool) {
        self.mapping = mapping
        let bytes = mapping.bytes
        self.bytes = bytes
        self.stamp = stamp
        guard bytes[0] == 0x44, bytes[1] == 0x49, bytes[2] == 0x52, bytes[3] == 0x43 else { return nil }  // DIRC
        version = Self.u32(bytes, 4)
        guard version == 2 || version == 3 else { return nil }
        let count = Int(Self.u32(bytes, 8))
        let end = bytes.count - 20
        if !checked {
            guard Self.sha1([.old(0..<end)], of: bytes).elementsEqual(bytes[end...]) else { return nil }
        }
        var starts: [Int] = []
        starts.reserveCapacity(count + 1)
        var offset = Self.headerSize
        for _ in 0..<count {
            guard offset + Self.fixedEntrySize <= end else { return nil }
            let flags = Int(Self.u16(bytes, offset + 60))
            let extended = flags & 0x4000 != 0
            if extended && version < 3 { return nil }
            let pathStart = offset + Self.fixedEntrySize + (extended ? 2 : 0)
            var nameLength = flags & 0xFFF
            if nameLength == 0xFFF {
                guard let nul = bytes[pathStart..<end].firstIndex(of: 0) else { return nil }
                nameLength = nul - pathStart
            }
            starts.append(offset)
            offset += (pathStart - offset + nameLength + 8) & ~7
        }
        guard offset <= end else { return nil }
        entriesEnd = offset
        self.starts = starts
        // Extensions: only the cache tree, which a change makes stale and which is dropped.
        while offset < end {
            guard offset + 8 <= end else { return nil }
            let signature = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let length = Int(Self.u32(bytes, offset + 4))
            guard signature == "TREE", offset + 8 + length <= end else { return nil }
            offset += 8 + length
        }
    }

    // MARK: Reading

    private func path(at entry: Int) -> Slice<UnsafeRawBufferPointer> {
        let start = starts[entry]
        let flags = Int(Self.u16(bytes, start + 60))
        let pathStart = start + Self.fixedEntrySize + (flags & 0x4000 != 0 ? 2 : 0)
        var length = flags & 0xFFF
        if length == 0xFFF { length = bytes[pathStart...].firstIndex(of: 0).map { $0 - pathStart } ?? 0 }
        return bytes[pathStart..<pathStart + length]
    }

    private func stage(at entry: Int) -> Int { (Int(Self.u16(bytes, starts[entry] + 60)) >> 12) & 3 }

    /// The first entry whose path is not less than `path` (byte order, as git sorts).
    private func lowerBound(_ path: [UInt8]) -> Int {
        var low = 0
        var high = starts.count
        while low < high {
            let mid = (low + high) / 2
            if self.path(at: mid).lexicographicallyPrecedes(path) { low = mid + 1 } else { high = mid }
        }
        return low
    }

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
        var i = lowerBound(key)
        var found = Lookup.absent
        while i < starts.count, self.path(at: i).elementsEqual(key) {
            if stage(at: i) != 0 { return .conflicted }
            let start = starts[i]
            found = .file(id: Array(bytes[start + 40..<start + 60]), mode: Self.u32(bytes, start + 24))
            i += 1
        }
        return found
    }

    // MARK: Writing

    /// One stage-0 entry for a regular file (0o100644) with `st`'s stat data.
    static func entry(path: String, id: [UInt8], stat st: stat) -> [UInt8] {
        var out: [UInt8] = []
        let name = Array(path.utf8)
        out.reserveCapacity(fixedEntrySize + name.count + 8)
        for value in [
            UInt32(truncatingIfNeeded: st.st_ctim.tv_sec), UInt32(truncatingIfNeeded: st.st_ctim.tv_nsec),
            UInt32(truncatingIfNeeded: st.st_mtim.tv_sec), UInt32(truncatingIfNeeded: st.st_mtim.tv_nsec),
            UInt32(truncatingIfNeeded: st.st_dev), UInt32(truncatingIfNeeded: st.st_ino), UInt32(0o100644),
            UInt32(truncatingIfNeeded: st.st_uid), UInt32(truncatingIfNeeded: st.st_gid),
            UInt32(truncatingIfNeeded: st.st_size),
        ] {
            appendU32(&out, value)
        }
        out += id
        let flags = UInt16(min(name.count, 0xFFF))
        out.append(UInt8(flags >> 8))
        out.append(UInt8(flags & 0xFF))
        out += name
        let padded = (fixedEntrySize + name.count + 8) & ~7
        out += [UInt8](repeating: 0, count: padded - out.count)
        return out
    }

    /// A new index file made of this one's bytes and new ones: written piece by piece, never
    /// gathered into one buffer (a fresh megabyte costs a page fault every 4 KB, more than
    /// the copy itself).
    struct Rewrite {
        enum Piece {
            /// A run of the file as read.
            case old(Range<Int>)
            case new([UInt8])
        }

        let pieces: [Piece]
        /// The new file's trailing SHA-1 (also its last piece).
        let checksum: [UInt8]
    }

    /// The file with `entries` (path, encoded entry) put in: replacing every stage of a path
    /// already there, inserted in order otherwise; the cache tree dropped; a new checksum.
    func replacing(_ entries: [(path: String, entry: [UInt8])]) -> Rewrite? {
        var sorted = entries.map { (key: Array($0.path.utf8), entry: $0.entry) }
        sorted.sort { $0.key.lexicographicallyPrecedes($1.key) }
        var pieces: [Rewrite.Piece] = [.old(0..<8), .new([0, 0, 0, 0])]  // the entry count, set below
        var count = starts.count
        var copiedUpTo = 0  // entries before this one are in `pieces`
        for (key, entry) in sorted {
            let at = lowerBound(key)
            guard at >= copiedUpTo else { return nil }  // the same path twice
            pieces.append(.old(entryStart(copiedUpTo)..<entryStart(at)))
            var next = at
            while next < starts.count, path(at: next).elementsEqual(key) { next += 1 }
            count += 1 - (next - at)
            pieces.append(.new(entry))
            copiedUpTo = next
        }
        pieces.append(.old(entryStart(copiedUpTo)..<entriesEnd))
        pieces[1] = .new(Self.bigEndian(UInt32(count)))
        let digest = Self.sha1(pieces, of: bytes)
        pieces.append(.new(digest))
        return Rewrite(pieces: pieces, checksum: digest)
    }

    /// SHA-1 of `pieces`, whose `.old` runs are runs of `file`.
    static func sha1(_ pieces: [Rewrite.Piece], of file: UnsafeRawBufferPointer) -> [UInt8] {
        let sha = SHA1()
        for piece in pieces {
            switch piece {
            case .old(let r): sha.update(UnsafeRawBufferPointer(rebasing: file[r]))
            case .new(let b): sha.update(b)
            }
        }
        return sha.finish()
    }

    /// Writes `rewrite` to `fd` (`what` names the file in the error).
    func emit(_ rewrite: Rewrite, to fd: Int32, what: String) throws {
        try withExtendedLifetime(mapping) {
            for piece in rewrite.pieces {
                switch piece {
                case .old(let r): try writeAll(fd, UnsafeRawBufferPointer(rebasing: bytes[r]), what: what)
                case .new(let b): try writeAll(fd, b, what: what)
                }
            }
        }
    }

    private func entryStart(_ entry: Int) -> Int { entry < starts.count ? starts[entry] : entriesEnd }

    // MARK: Bytes

    static func u32(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }

    static func u16(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt16 { UInt16(b[at]) << 8 | UInt16(b[at + 1]) }

    static func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    static func appendU32(_ out: inout [UInt8], _ v: UInt32) { out += bigEndian(v) }

}
