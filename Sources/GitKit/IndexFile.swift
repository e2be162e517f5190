import Glibc
import CInterposers

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
    private let top: IndexBytes
    /// The shared index a split index names; nil when the index is whole.
    private let shared: IndexBytes?
    /// For a split index: which of `top`'s entries replaces each replaced shared position.
    private let replacement: [Int: Int]
    /// For a split index: the shared positions removed.
    private let deleted: Set<Int>
    /// `top`'s entries from here on are entries of their own (sorted); those before replace
    /// shared ones.
    private let firstAdded: Int
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
    private static func fitsOutside(_ outside: Int, of shared: Int) -> Bool { outside * 100 <= maxPercentChange * shared }

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
        guard let (mapping, _) = map(place.index), let top = IndexBytes(mapping: mapping, checked: false, allowLink: true),
            let link = top.link, !link.shared.isZero
        else { return nil }
        return link.shared
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
        guard let top = IndexBytes(mapping: topMapping, checked: checked, allowLink: true) else { return .unreadable }
        guard let link = top.link, !link.shared.isZero else {
            guard top.link.map({ $0.deleted.isEmpty && $0.replaced.isEmpty }) ?? true else { return .unreadable }
            return .read(IndexFile(top: top, shared: nil, replacement: [:], deleted: [], firstAdded: 0, stamp: stamp))
        }
        let sharedPath = place.shared(link.shared)
        guard let (sharedMapping, sharedStamp) = map(sharedPath) else {
            if access(sharedPath, F_OK) != 0 && errno == ENOENT { return .sharedGone }
            return .unreadable
        }
        let sharedChecked = note(place.sharedNote, matches: sharedMapping, stamp: sharedStamp)
        guard let shared = IndexBytes(mapping: sharedMapping, checked: sharedChecked, allowLink: false),
            ObjectID(raw: Array(shared.bytes.suffix(20))[...]) == link.shared
        else { return .unreadable }
        if !sharedChecked { Written(stamp: sharedStamp, checksum: link.shared).save(place.sharedNote) }
        // The positions must be in the shared index, none both deleted and replaced; the
        // replacements have empty names and the entries of its own do not (as git requires).
        let deleted = Set(link.deleted)
        guard link.replaced.count <= top.count, link.deleted.last.map({ $0 < shared.count }) ?? true,
            link.replaced.last.map({ $0 < shared.count }) ?? true, link.replaced.allSatisfy({ !deleted.contains($0) })
        else { return .unreadable }
        var replacement: [Int: Int] = [:]
        for (k, position) in link.replaced.enumerated() {
            guard top.path(at: k).isEmpty else { return .unreadable }
            replacement[position] = k
        }
        for k in link.replaced.count..<top.count where top.path(at: k).isEmpty { return .unreadable }
        return .read(
            IndexFile(top: top, shared: shared, replacement: replacement, deleted: deleted, firstAdded: link.replaced.count, stamp: stamp))
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

    // MARK: Writing

    /// One stage-0 entry for a regular file (0o100644) with `st`'s stat data.
    static func entry(path: String, id: [UInt8], stat st: stat) -> [UInt8] {
        var out: [UInt8] = []
        let name = Array(path.utf8)
        out.reserveCapacity(IndexBytes.fixedEntrySize + name.count + 8)
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
        appendU16(&out, UInt16(min(name.count, 0xFFF)))
        out += name
        pad(&out, nameLength: name.count, extended: false)
        return out
    }

    /// The NUL bytes that end an entry of `nameLength` bytes of name: one to eight, to a
    /// multiple of eight.
    private static func pad(_ out: inout [UInt8], nameLength: Int, extended: Bool) {
        let fixed = IndexBytes.fixedEntrySize + (extended ? 2 : 0)
        out += [UInt8](repeating: 0, count: ((fixed + nameLength + 8) & ~7) - fixed - nameLength)
    }

    /// Entry bytes (fixed part, name, padding) with the name `name` in place of theirs, the
    /// other flags kept.
    private static func renamed(_ entry: some Collection<UInt8>, to name: some Collection<UInt8>) -> [UInt8] {
        var bytes = Array(entry)
        // Only a damaged file's table gives an entry shorter than its fixed part.
        if bytes.count < IndexBytes.fixedEntrySize + 2 { bytes += [UInt8](repeating: 0, count: IndexBytes.fixedEntrySize + 2 - bytes.count) }
        let flags = Int(bytes[60]) << 8 | Int(bytes[61])
        let extended = flags & 0x4000 != 0
        var out = Array(bytes[0..<IndexBytes.fixedEntrySize + (extended ? 2 : 0)])
        let newFlags = (flags & ~0xFFF) | min(name.count, 0xFFF)
        out[60] = UInt8(newFlags >> 8)
        out[61] = UInt8(newFlags & 0xFF)
        out += name
        pad(&out, nameLength: name.count, extended: extended)
        return out
    }

    /// A new index made of this one's bytes and new ones: written piece by piece, never
    /// gathered into one buffer (a fresh megabyte costs a page fault every 4 KB, more than
    /// the copy itself). A rebase of a split index also has a new shared index, written first.
    struct Rewrite {
        enum Piece {
            /// A run of one of the files as read (valid while `source` lives).
            case mapped(Slice<UnsafeRawBufferPointer>)
            case new([UInt8])
        }

        /// One file: its pieces, the last its trailing SHA-1, which is also `checksum`.
        struct File {
            let pieces: [Piece]
            let checksum: [UInt8]
        }

        let index: File
        /// The shared index the new index names, when it is a new one: written to
        /// `sharedindex.<checksum>` before the index.
        let shared: File?
        /// The shared index the new index names; nil when it is whole.
        let names: ObjectID?
        /// The index the mapped pieces are runs of.
        let source: IndexFile
    }

    /// When to keep the index split.
    enum SplitRule: Equatable {
        case never
        case always
        /// From this many entries (`core.splitIndex` unset).
        case from(Int)
    }

    /// The entries `todo` keeps split from when `core.splitIndex` is unset.
    static let splitThreshold = 10_000

    /// The index with `entries` (path, encoded stage-0 entry) put in: each replaces every
    /// stage of a path already there or is added in order; optional extensions (the cache
    /// tree) dropped. The result is whole or split as `rule` says, a split one rebased when
    /// too much of it is outside its shared index. nil when the same path is given twice.
    func replacing(_ entries: [(path: String, entry: [UInt8])], rule: SplitRule) -> Rewrite? {
        var changes = entries.map { (key: Array($0.path.utf8), entry: $0.entry) }
        changes.sort { $0.key.lexicographicallyPrecedes($1.key) }
        for i in changes.indices.dropFirst() where changes[i].key == changes[i - 1].key { return nil }
        let total = count + changes.count
        let wantSplit: Bool
        switch rule {
        case .never: wantSplit = false
        case .always: wantSplit = true
        case .from(let threshold): wantSplit = isSplit || total >= threshold
        }
        if !wantSplit {
            if !isSplit { return splicing(changes) }
            return Rewrite(index: Self.file(version: version, whole(applying: changes)), shared: nil, names: nil, source: self)
        }
        if isSplit, let split = splitUpdate(changes) { return split }
        // A rebase: every entry into a new shared index, and an index naming it.
        let shared = Self.file(version: version, whole(applying: changes), table: true)
        return Rewrite(
            index: Self.splitFile(version: version, shared: shared.checksum), shared: shared, names: ObjectID(raw: shared.checksum[...]),
            source: self)
    }

    /// The index whole again, as libgit2 can read it (a split one's entries all in one file).
    func unsplit() -> Rewrite {
        Rewrite(index: Self.file(version: version, whole(applying: [])), shared: nil, names: nil, source: self)
    }

    /// The version new files are written in: 3 when either file is (an entry may have
    /// extended flags), else 2.
    private var version: UInt32 { max(top.version, shared?.version ?? 2) }

    /// A whole index: the header, `entries` and the checksum; for a shared index (`table`),
    /// the entry table (IEOT, EOIE) before the checksum, so that its readers need not pass
    /// over every entry.
    private static func file(version: UInt32, _ entries: (pieces: [Rewrite.Piece], count: Int), table: Bool = false) -> Rewrite.File {
        var header = Array("DIRC".utf8)
        appendU32(&header, version)
        appendU32(&header, UInt32(entries.count))
        var pieces = [Rewrite.Piece.new(header)] + entries.pieces
        if table, entries.count > 0 {
            var sizes: [Int] = []
            sizes.reserveCapacity(entries.count)
            var end = IndexBytes.headerSize
            for piece in entries.pieces {
                switch piece {
                case .new(let entry): sizes.append(entry.count)  // one entry each
                case .mapped(let run):
                    var offset = run.startIndex
                    while offset < run.endIndex, let next = EntryTable.next(after: offset, in: run.base, end: run.endIndex, version: 3) {
                        sizes.append(next - offset)
                        offset = next
                    }
                }
            }
            end += sizes.reduce(0, +)
            pieces.append(.new(IndexBytes.entryTable(sizes: sizes, entriesEnd: end)))
        }
        let digest = sha1(pieces)
        pieces.append(.new(digest))
        return Rewrite.File(pieces: pieces, checksum: digest)
    }

    /// A split index: header, the replacing entries (names empty) in the order of their
    /// shared positions, the entries of its own in path order, the `link` extension, the
    /// checksum (none of either kind: the index right after a rebase). All new bytes: the
    /// file is small.
    private static func splitFile(
        version: UInt32, shared: [UInt8], replacements: [(position: Int, entry: [UInt8])] = [], deleted: [Int] = [],
        added: [[UInt8]] = []
    ) -> Rewrite.File {
        var out = Array("DIRC".utf8)
        appendU32(&out, version)
        appendU32(&out, UInt32(replacements.count + added.count))
        for (_, entry) in replacements { out += entry }
        for entry in added { out += entry }
        let deletedBits = EWAH.encode(deleted)
        let replacedBits = EWAH.encode(replacements.map(\.position))
        out += Array("link".utf8)
        appendU32(&out, UInt32(20 + deletedBits.count + replacedBits.count))
        out += shared
        out += deletedBits
        out += replacedBits
        let digest = sha1([.new(out)])
        out += digest
        return Rewrite.File(pieces: [.new(out)], checksum: digest)
    }

    /// A whole (not split) index with `changes` put in by splicing: runs of this file and
    /// the new entries.
    private func splicing(_ changes: [(key: [UInt8], entry: [UInt8])]) -> Rewrite {
        Rewrite(index: Self.file(version: top.version, splicedEntries(changes)), shared: nil, names: nil, source: self)
    }

    /// The entries of a whole index with `changes` spliced in.
    private func splicedEntries(_ changes: [(key: [UInt8], entry: [UInt8])]) -> (pieces: [Rewrite.Piece], count: Int) {
        var pieces: [Rewrite.Piece] = []
        var count = top.count
        var copiedUpTo = 0  // entries before this one are in `pieces`
        for (key, entry) in changes {
            let at = top.entries(at: key, in: copiedUpTo..<top.count)
            pieces.append(.mapped(top.entries(from: copiedUpTo, to: at.lowerBound)))
            count += 1 - at.count
            pieces.append(.new(entry))
            copiedUpTo = at.upperBound
        }
        pieces.append(.mapped(top.entries(from: copiedUpTo, to: top.count)))
        return (pieces, count)
    }

    /// The new split index with `changes` put in, naming the same shared index; nil when the
    /// entries outside it would then exceed `maxPercentChange` percent of it (time to rebase).
    private func splitUpdate(_ changes: [(key: [UInt8], entry: [UInt8])]) -> Rewrite? {
        // More changes than may stand outside the shared index: a rebase at once.
        guard let shared, let link = top.link, Self.fitsOutside(changes.count, of: shared.count) else { return nil }
        var replacements: [Int: [UInt8]] = [:]
        for (position, k) in replacement { replacements[position] = Array(top.entryBytes(k)) }
        var deleted = self.deleted
        // The index's own entries by path.
        var own: [[UInt8]: [[UInt8]]] = [:]
        for k in firstAdded..<top.count { own[Array(top.path(at: k)), default: []].append(Array(top.entryBytes(k))) }
        for (key, entry) in changes {
            own[key] = nil
            let positions = shared.entries(at: key, in: 0..<shared.count)
            if positions.count == 1, shared.stage(at: positions.lowerBound) == 0 {
                // One plain shared entry: replaced (git's form for a changed file), name empty.
                replacements[positions.lowerBound] = Self.renamed(entry, to: [UInt8]())
                deleted.remove(positions.lowerBound)
            } else {
                // None, or conflict stages: those go, and the entry is the index's own.
                for position in positions {
                    deleted.insert(position)
                    replacements[position] = nil
                }
                own[key] = [entry]
            }
        }
        let added = own.sorted { $0.key.lexicographicallyPrecedes($1.key) }.flatMap(\.value)
        let outside = replacements.count + deleted.count + added.count
        guard Self.fitsOutside(outside, of: shared.count) else { return nil }
        let file = Self.splitFile(
            version: version, shared: withUnsafeBytes(of: link.shared.raw.id) { Array($0) },
            replacements: replacements.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, deleted: deleted.sorted(),
            added: added)
        return Rewrite(index: file, shared: nil, names: link.shared, source: self)
    }

    /// Every entry, in order, with `changes` (sorted by path) put in, each replacing every
    /// entry at its path: runs of the files as read where nothing changed.
    private func whole(applying changes: [(key: [UInt8], entry: [UInt8])]) -> (pieces: [Rewrite.Piece], count: Int) {
        guard let shared else { return splicedEntries(changes) }
        shared.locateAll()
        // The index's own entries and the changes, in path order: each stands for every shared
        // entry at its path; a change also for the index's own entries there.
        var own: [(key: [UInt8], entries: [[UInt8]])] = []
        var c = 0
        var k = firstAdded
        while k < top.count || c < changes.count {
            if k < top.count, c == changes.count || top.path(at: k).lexicographicallyPrecedes(changes[c].key) {
                let key = Array(top.path(at: k))
                var group: [[UInt8]] = []
                while k < top.count, top.path(at: k).elementsEqual(key) {
                    group.append(Array(top.entryBytes(k)))
                    k += 1
                }
                own.append((key, group))
            } else {
                let key = changes[c].key
                while k < top.count, top.path(at: k).elementsEqual(key) { k += 1 }
                own.append((key, [changes[c].entry]))
                c += 1
            }
        }
        // Shared positions that are not copied as they are: deleted or replaced.
        let special = (Array(deleted) + Array(replacement.keys)).sorted()
        var pieces: [Rewrite.Piece] = []
        var count = 0
        var cursor = 0  // shared entries before this are done
        var s = 0  // special positions before this are done
        func copyShared(upTo end: Int) {
            while cursor < end {
                while s < special.count, special[s] < cursor { s += 1 }
                let stop = s < special.count ? min(special[s], end) : end
                if stop > cursor {
                    pieces.append(.mapped(shared.entries(from: cursor, to: stop)))
                    count += stop - cursor
                    cursor = stop
                }
                guard cursor < end else { break }
                // `cursor` is special: deleted, or replaced by the index's entry with the shared name.
                if let k = replacement[cursor] {
                    pieces.append(.new(Self.renamed(top.entryBytes(k), to: shared.path(at: cursor))))
                    count += 1
                }
                cursor += 1
            }
        }
        for (key, entries) in own {
            let at = shared.entries(at: key, in: cursor..<shared.count)
            copyShared(upTo: at.lowerBound)
            pieces += entries.map(Rewrite.Piece.new)
            count += entries.count
            cursor = at.upperBound
        }
        copyShared(upTo: shared.count)
        return (pieces, count)
    }

    /// SHA-1 of `pieces`.
    static func sha1(_ pieces: [Rewrite.Piece]) -> [UInt8] {
        let sha = SHA1()
        for piece in pieces {
            switch piece {
            case .mapped(let slice): sha.update(UnsafeRawBufferPointer(rebasing: slice))
            case .new(let b): sha.update(b)
            }
        }
        return sha.finish()
    }

    /// Writes `file`'s pieces to `fd` (`what` names the file in the error).
    static func emit(_ file: Rewrite.File, of rewrite: Rewrite, to fd: Int32, what: String) throws {
        try withExtendedLifetime(rewrite.source) {
            for piece in file.pieces {
                switch piece {
                case .mapped(let slice): try writeAll(fd, UnsafeRawBufferPointer(rebasing: slice), what: what)
                case .new(let b): try writeAll(fd, b, what: what)
                }
            }
        }
    }

    // MARK: Bytes

    static func u32(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }

    static func u16(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt16 { UInt16(b[at]) << 8 | UInt16(b[at + 1]) }

    static func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    static func appendU32(_ out: inout [UInt8], _ v: UInt32) { out += bigEndian(v) }

    static func appendU16(_ out: inout [UInt8], _ v: UInt16) {
        out.append(UInt8(v >> 8))
        out.append(UInt8(v & 0xFF))
    }
}
