import Glibc

/// One file in git's index format (versions 2 and 3), mapped and its entries located: the
/// index itself, or the shared part of a split index. A lookup is a binary search over the
/// entries.
///
/// Entries have no fixed size, so finding the middle one means knowing where each starts: a
/// pass over every entry's flags. At 100,000 tasks that pass over the shared index's 11 MB was
/// a sixth of a one-task change, so the shared indexes `todo` writes carry git's own table of
/// where each block of entries starts (the optional IEOT and EOIE extensions, which git writes
/// for its threaded reads): with it, only the entries a lookup visits are read.
struct IndexBytes {
    private let mapping: MappedFile
    /// The file's bytes, valid while this value lives.
    var bytes: UnsafeRawBufferPointer { mapping.bytes }
    let version: UInt32
    /// How many entries the file holds.
    let count: Int
    /// Where the entries end (extensions or the checksum begin).
    let entriesEnd: Int
    /// The split index's `link` extension, when the file has one.
    let link: Link?
    private let table: EntryTable

    /// What a split index adds to its shared index (docs/FORMAT.md, "The git index").
    struct Link {
        /// The checksum of `sharedindex.<hex>`.
        var shared: ObjectID
        /// Positions in the shared index, ascending: entries removed.
        var deleted: [Int]
        /// Positions in the shared index, ascending: entries replaced by this file's first
        /// entries, in order.
        var replaced: [Int]
    }

    static let headerSize = 12
    static let fixedEntrySize = 62
    /// Entries in each block of the entry table a shared index is written with.
    static let blockSize = 32

    /// The file mapped in `mapping`, its checksum verified unless `checked`; nil when it is
    /// not an index this reads (another version, a required extension other than `link`, a
    /// `link` where `allowLink` is false, a bad checksum, anything cut short).
    init?(mapping: MappedFile, checked: Bool, allowLink: Bool) {
        self.mapping = mapping
        let bytes = mapping.bytes
        guard bytes.count >= Self.headerSize + 20, bytes[0] == 0x44, bytes[1] == 0x49, bytes[2] == 0x52, bytes[3] == 0x43 else {
            return nil  // not DIRC
        }
        version = IndexFile.u32(bytes, 4)
        guard version == 2 || version == 3 else { return nil }
        count = Int(IndexFile.u32(bytes, 8))
        let end = bytes.count - 20
        if !checked {
            guard IndexFile.sha1([.mapped(bytes[0..<end])]).elementsEqual(bytes[end...]) else { return nil }
        }
        guard count <= (end - Self.headerSize) / Self.fixedEntrySize else { return nil }
        let table: EntryTable
        if let blocks = Self.entryBlocks(bytes, count: count, end: end) {
            table = EntryTable(blocks: blocks.list, entriesEnd: blocks.entriesEnd)
        } else {
            guard let scanned = EntryTable.scan(bytes, count: count, end: end, version: version) else { return nil }
            table = scanned
        }
        self.table = table
        entriesEnd = table.entriesEnd
        // Extensions: `link` is read; any other required one (lower-case first letter) is not
        // understood; optional ones (caches such as TREE) are dropped when the file is rewritten.
        var link: Link?
        var offset = entriesEnd
        while offset < end {
            guard offset + 8 <= end else { return nil }
            let signature = Array(bytes[offset..<offset + 4])
            let length = Int(IndexFile.u32(bytes, offset + 4))
            guard length <= end - offset - 8 else { return nil }
            let body = offset + 8
            if signature == Array("link".utf8) {
                guard allowLink, link == nil, length >= 20, let shared = ObjectID(raw: Array(bytes[body..<body + 20])[...]) else { return nil }
                link = Link(shared: shared, deleted: [], replaced: [])
                if length > 20 {
                    // Both bitmaps, or neither. Their positions are checked against the shared
                    // index when it is read; here only against what an index could hold.
                    let limit = Int(UInt32.max)
                    guard let deleted = EWAH.decode(bytes, at: body + 20, end: body + length, limit: limit),
                        let replaced = EWAH.decode(bytes, at: deleted.end, end: body + length, limit: limit),
                        replaced.end == body + length
                    else { return nil }
                    link?.deleted = deleted.bits
                    link?.replaced = replaced.bits
                }
            } else if !(signature[0] >= 0x41 && signature[0] <= 0x5A) {
                return nil
            }
            offset = body + length
        }
        self.link = link
    }

    /// The entry table of a file with git's EOIE (last) and IEOT extensions, when they are
    /// there and consistent: each block's first entry and where it starts, and where the
    /// entries end. A block's entries are not read here: each is checked as it is walked.
    private static func entryBlocks(_ bytes: UnsafeRawBufferPointer, count: Int, end: Int) -> (list: [EntryTable.Block], entriesEnd: Int)? {
        let eoie = end - 32
        guard count > 0, eoie > headerSize, bytes[eoie..<eoie + 4].elementsEqual("EOIE".utf8), IndexFile.u32(bytes, eoie + 4) == 24 else {
            return nil
        }
        let entriesEnd = Int(IndexFile.u32(bytes, eoie + 8))
        guard entriesEnd >= headerSize, entriesEnd + 8 <= eoie, bytes[entriesEnd..<entriesEnd + 4].elementsEqual("IEOT".utf8) else { return nil }
        let length = Int(IndexFile.u32(bytes, entriesEnd + 4))
        guard length >= 4, (length - 4) % 8 == 0, entriesEnd + 8 + length <= eoie, IndexFile.u32(bytes, entriesEnd + 8) == 1 else { return nil }
        var blocks: [EntryTable.Block] = []
        var first = 0
        var previous = headerSize - 1
        for at in stride(from: entriesEnd + 12, to: entriesEnd + 8 + length, by: 8) {
            let offset = Int(IndexFile.u32(bytes, at))
            let n = Int(IndexFile.u32(bytes, at + 4))
            // Blocks in order, each entry at least the smallest entry's 64 bytes long.
            guard offset > previous, n > 0, n <= (entriesEnd - offset) / 64, first + n <= count else { return nil }
            guard blocks.isEmpty ? offset == headerSize : true else { return nil }
            blocks.append(EntryTable.Block(first: first, offset: offset))
            first += n
            previous = offset
        }
        guard first == count else { return nil }
        return (blocks, entriesEnd)
    }

    /// Where entry `entry` starts; `entriesEnd` for `count`.
    func entryStart(_ entry: Int) -> Int { entry < count ? table.start(entry, in: bytes, version: version) : entriesEnd }

    /// The bytes of entry `entry`, padding included.
    func entryBytes(_ entry: Int) -> Slice<UnsafeRawBufferPointer> { entries(from: entry, to: entry + 1) }

    /// The bytes of entries `from..<to`. A table that lies (a file whose checksum holds but
    /// whose entries are not where its table says) gives fewer bytes, never a trap.
    func entries(from: Int, to: Int) -> Slice<UnsafeRawBufferPointer> {
        let start = entryStart(from)
        return bytes[start..<max(start, entryStart(to))]
    }

    /// Locates every entry at once (one pass), for work that visits them all in order; a
    /// file whose table was wrong keeps the table's answers.
    func locateAll() { table.locateAll(in: bytes, count: count, version: version) }

    func flags(at entry: Int) -> Int { Int(IndexFile.u16(bytes, entryStart(entry) + 60)) }

    func path(at entry: Int) -> Slice<UnsafeRawBufferPointer> {
        let start = entryStart(entry)
        let flags = Int(IndexFile.u16(bytes, start + 60))
        let pathStart = start + Self.fixedEntrySize + (flags & 0x4000 != 0 ? 2 : 0)
        var length = flags & 0xFFF
        if length == 0xFFF { length = bytes[pathStart..<entriesEnd].firstIndex(of: 0).map { $0 - pathStart } ?? 0 }
        return bytes[pathStart..<max(pathStart, min(pathStart + length, entriesEnd))]
    }

    func stage(at entry: Int) -> Int { (flags(at: entry) >> 12) & 3 }

    /// The entry's object id (20 bytes) and raw mode.
    func object(at entry: Int) -> (id: [UInt8], mode: UInt32) {
        let start = entryStart(entry)
        return (Array(bytes[start + 40..<start + 60]), IndexFile.u32(bytes, start + 24))
    }

    /// The first entry in `range` whose path is not less than `path` (byte order, as git
    /// sorts); `range` must be sorted by path.
    func lowerBound(_ path: [UInt8], in range: Range<Int>) -> Int {
        var low = range.lowerBound
        var high = range.upperBound
        while low < high {
            let mid = (low + high) / 2
            if self.path(at: mid).lexicographicallyPrecedes(path) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The entries in `range` (sorted by path) whose path is `path`.
    func entries(at path: [UInt8], in range: Range<Int>) -> Range<Int> {
        let low = lowerBound(path, in: range)
        var high = low
        while high < range.upperBound, self.path(at: high).elementsEqual(path) { high += 1 }
        return low..<high
    }

    /// The entry table, IEOT and EOIE, a shared index is written with: blocks of `blockSize`
    /// entries, whose lengths are `sizes` in order; the entries end at `entriesEnd`.
    static func entryTable(sizes: [Int], entriesEnd: Int) -> [UInt8] {
        var ieot = Array("IEOT".utf8)
        let blocks = (sizes.count + blockSize - 1) / blockSize
        IndexFile.appendU32(&ieot, UInt32(4 + 8 * blocks))
        IndexFile.appendU32(&ieot, 1)
        var offset = headerSize
        for block in 0..<blocks {
            let range = block * blockSize..<min((block + 1) * blockSize, sizes.count)
            IndexFile.appendU32(&ieot, UInt32(offset))
            IndexFile.appendU32(&ieot, UInt32(range.count))
            offset += sizes[range].reduce(0, +)
        }
        var eoie = Array("EOIE".utf8)
        IndexFile.appendU32(&eoie, 24)
        IndexFile.appendU32(&eoie, UInt32(entriesEnd))
        // The hash of the extensions before it: each one's signature and size.
        eoie += IndexFile.sha1([.new(Array(ieot[0..<8]))])
        return ieot + eoie
    }
}

/// Where each entry of one index file starts: every entry's offset, found by one pass, or
/// git's table of blocks (IEOT), walked within a block when an entry is asked for.
final class EntryTable {
    struct Block {
        var first: Int
        var offset: Int
    }

    let entriesEnd: Int
    private var starts: [Int]?
    private let blocks: [Block]

    init(blocks: [Block], entriesEnd: Int) {
        self.blocks = blocks
        self.entriesEnd = entriesEnd
    }

    private init(starts: [Int], entriesEnd: Int) {
        self.starts = starts
        self.blocks = []
        self.entriesEnd = entriesEnd
    }

    /// The one pass over every entry (each entry's flags give its length); nil when an entry
    /// is cut short or has flags its version does not allow.
    static func scan(_ bytes: UnsafeRawBufferPointer, count: Int, end: Int, version: UInt32) -> EntryTable? {
        var offset = IndexBytes.headerSize
        let starts = [Int](unsafeUninitializedCapacity: count) { buffer, located in
            while located < count, let next = Self.next(after: offset, in: bytes, end: end, version: version) {
                buffer[located] = offset
                located += 1
                offset = next
            }
        }
        guard starts.count == count else { return nil }
        return EntryTable(starts: starts, entriesEnd: offset)
    }

    /// Replaces a block table by every entry's offset, when one pass finds them all (before
    /// the end the table gives): the pass, not the table, then says where each entry is.
    func locateAll(in bytes: UnsafeRawBufferPointer, count: Int, version: UInt32) {
        guard starts == nil, let scanned = Self.scan(bytes, count: count, end: entriesEnd, version: version) else { return }
        starts = scanned.starts
    }

    /// Where the entry after the one at `offset` starts; nil when that entry does not fit
    /// before `end` or its flags are wrong for `version`.
    static func next(after offset: Int, in bytes: UnsafeRawBufferPointer, end: Int, version: UInt32) -> Int? {
        guard let base = bytes.baseAddress, offset + IndexBytes.fixedEntrySize <= end else { return nil }
        let flags = Int(UInt16(bigEndian: base.loadUnaligned(fromByteOffset: offset + 60, as: UInt16.self)))
        let extended = flags & 0x4000 != 0
        if extended && version < 3 { return nil }
        let pathStart = offset + IndexBytes.fixedEntrySize + (extended ? 2 : 0)
        guard pathStart <= end else { return nil }
        var nameLength = flags & 0xFFF
        if nameLength == 0xFFF {
            guard let nul = memchr(base + pathStart, 0, end - pathStart) else { return nil }
            nameLength = base.distance(to: UnsafeRawPointer(nul)) - pathStart
        }
        let next = offset + ((pathStart - offset + nameLength + 8) & ~7)
        return next <= end ? next : nil
    }

    /// Where entry `entry` starts. In a block table, an entry that does not fit where the
    /// table says (a file whose checksum holds but whose table is wrong) reads as the end of
    /// the entries, never past them.
    func start(_ entry: Int, in bytes: UnsafeRawBufferPointer, version: UInt32) -> Int {
        if let starts { return starts[entry] }
        var low = 0
        var high = blocks.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if blocks[mid].first <= entry { low = mid } else { high = mid - 1 }
        }
        var offset = blocks[low].offset
        for _ in blocks[low].first..<entry {
            guard let next = Self.next(after: offset, in: bytes, end: entriesEnd, version: version) else {
                return entriesEnd - IndexBytes.fixedEntrySize - 2
            }
            offset = next
        }
        return min(offset, entriesEnd - IndexBytes.fixedEntrySize - 2)
    }
}
