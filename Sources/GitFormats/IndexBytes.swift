/// One file in git's index format (versions 2 and 3), whole (not split), its entries located.
/// A lookup is a binary search over the entries.
///
/// Entries have no fixed size, so finding the middle one means knowing where each starts: a
/// pass over every entry's flags, unless the file carries git's own table of where each block
/// of entries starts (the optional IEOT and EOIE extensions, which git writes for its threaded
/// reads): with it, only the entries a lookup visits are read.
///
/// Every read goes through `ByteReader`: an entry the table places wrongly (a file whose
/// checksum holds but whose table lies) reads as empty, never past the entries.
public struct IndexBytes {
    /// What keeps `bytes` valid (a mapping), held as long as this value.
    private let owner: AnyObject?
    /// The file's bytes, valid while this value lives.
    public let bytes: UnsafeRawBufferPointer
    public let version: UInt32
    /// How many entries the file holds.
    public let count: Int
    /// Where the entries end (extensions or the checksum begin).
    public let entriesEnd: Int
    private let table: EntryTable

    public static let headerSize = 12
    public static let fixedEntrySize = 62
    /// The most entries an index may hold here: files of up to 1 GB (GitKit maps no larger),
    /// each entry at least 64 bytes long.
    public static let maxEntries = (1 << 30) / 64

    /// The file in `bytes` (kept valid by `owner`), its trailing checksum verified with
    /// `checksum` when one is given; refused when it is not an index this reads (another
    /// version, a split index, another required extension, a bad checksum, anything cut
    /// short). A split index is refused with `FormatProblem.splitIndex` as soon as its `link`
    /// is found: nothing of the link is decoded.
    public init(bytes: UnsafeRawBufferPointer, owner: AnyObject?, checksum: ((UnsafeRawBufferPointer) -> [UInt8])?) throws(FormatError) {
        self.owner = owner
        self.bytes = bytes
        var reader = ByteReader(bytes, part: .index)
        guard bytes.count >= Self.headerSize + 20 else { throw .truncated(.index, at: bytes.count, needed: Self.headerSize + 20 - bytes.count) }
        guard reader.consume("DIRC".utf8) else { throw .badSignature(.index, at: 0) }
        version = try reader.readUInt32()
        guard version == 2 || version == 3 else { throw .unsupportedVersion(.index, version: version) }
        count = Int(try reader.readUInt32())
        let end = bytes.count - 20
        if let checksum {
            guard let body = reader.slice(at: 0, count: end), checksum(body).elementsEqual(bytes[end...]) else {
                throw .invalid(.index, .badChecksum, at: end)
            }
        }
        guard count <= (end - Self.headerSize) / Self.fixedEntrySize else { throw .invalid(.index, .countTooLarge, at: 8) }
        let table: EntryTable
        if let blocks = Self.entryBlocks(bytes, count: count, end: end) {
            table = EntryTable(blocks: blocks.list, entriesEnd: blocks.entriesEnd)
        } else {
            table = try EntryTable.scan(bytes, count: count, end: end, version: version)
        }
        self.table = table
        entriesEnd = table.entriesEnd
        try Self.extensions(bytes, from: entriesEnd, end: end)
    }

    /// The extensions from `offset`: `link` (a split index) and any other required one
    /// (lower-case first letter) refuse the file; optional ones (caches such as TREE) are
    /// passed over (and dropped when the file is rewritten).
    private static func extensions(_ bytes: UnsafeRawBufferPointer, from offset: Int, end: Int) throws(FormatError) {
        var reader = ByteReader(bytes, at: offset, end: end, part: .indexExtension)
        while !reader.isAtEnd {
            let at = reader.offset
            let signature = Array(try reader.readBytes(4))
            let length = Int(try reader.readUInt32())
            let body = reader.offset
            guard length <= reader.remaining else { throw .truncated(.indexExtension, at: body, needed: length - reader.remaining) }
            if signature == Array("link".utf8) { throw reader.fail(.splitIndex, at: at) }
            if !(signature[0] >= 0x41 && signature[0] <= 0x5A) { throw reader.fail(.unknownRequiredExtension, at: at) }
            try reader.seek(to: body + length)
        }
    }

    /// The entry table of a file with git's EOIE (last) and IEOT extensions, when they are
    /// there and consistent: each block's first entry and where it starts, and where the
    /// entries end. A block's entries are not read here: each is checked as it is walked.
    private static func entryBlocks(_ bytes: UnsafeRawBufferPointer, count: Int, end: Int) -> (list: [EntryTable.Block], entriesEnd: Int)? {
        let reader = ByteReader(bytes, end: end, part: .indexExtension)
        let eoie = end - 32
        guard count > 0, eoie > headerSize, reader.matches("EOIE".utf8, at: eoie), reader.uint32(at: eoie + 4) == 24,
            let entriesEnd = reader.uint32(at: eoie + 8).map(Int.init)
        else { return nil }
        guard entriesEnd >= headerSize, entriesEnd + 8 <= eoie, reader.matches("IEOT".utf8, at: entriesEnd),
            let length = reader.uint32(at: entriesEnd + 4).map(Int.init)
        else { return nil }
        guard length >= 4, (length - 4) % 8 == 0, entriesEnd + 8 + length <= eoie, reader.uint32(at: entriesEnd + 8) == 1 else { return nil }
        var blocks: [EntryTable.Block] = []
        var first = 0
        var previous = headerSize - 1
        for at in stride(from: entriesEnd + 12, to: entriesEnd + 8 + length, by: 8) {
            guard let offset = reader.uint32(at: at).map(Int.init), let n = reader.uint32(at: at + 4).map(Int.init) else { return nil }
            // Blocks in order, each entry at least the smallest entry's 64 bytes long.
            guard offset > previous, offset < entriesEnd, n > 0, n <= (entriesEnd - offset) / 64, first + n <= count else { return nil }
            guard blocks.isEmpty ? offset == headerSize : true else { return nil }
            blocks.append(EntryTable.Block(first: first, offset: offset))
            first += n
            previous = offset
        }
        guard first == count else { return nil }
        return (blocks, entriesEnd)
    }

    /// Where blocks of entries start (each block's first entry and its offset, ascending, the
    /// first at entry 0): git's entry table's blocks, or every `IndexWriter.blockSize`-th entry.
    var blockStarts: [EntryTable.Block] { table.blockStarts(count: count, every: IndexWriter.blockSize) }

    private var reader: ByteReader { ByteReader(bytes, end: entriesEnd, part: .indexEntry) }

    /// Where entry `entry` starts; `entriesEnd` for `count` (and anything outside the entries).
    public func entryStart(_ entry: Int) -> Int {
        entry >= 0 && entry < count ? table.start(entry, in: bytes, version: version) : entriesEnd
    }

    /// The bytes of entry `entry`, padding included.
    public func entryBytes(_ entry: Int) -> Slice<UnsafeRawBufferPointer> { entries(from: entry, to: entry + 1) }

    /// The bytes of entries `from..<to`. A table that lies gives fewer bytes, never a trap.
    public func entries(from: Int, to: Int) -> Slice<UnsafeRawBufferPointer> {
        let start = entryStart(from)
        return reader.clampedSlice(start..<max(start, entryStart(to)))
    }

    /// Locates every entry at once (one pass), for work that visits them all in order; a
    /// file whose table was wrong keeps the table's answers.
    public func locateAll() { table.locateAll(in: bytes, count: count, version: version) }

    /// The entry's 16 bits of flags (0 for an entry outside the entries).
    public func flags(at entry: Int) -> Int { Int(reader.uint16(at: entryStart(entry) + 60) ?? 0) }

    public func path(at entry: Int) -> Slice<UnsafeRawBufferPointer> {
        let reader = self.reader
        let start = entryStart(entry)
        let flags = Int(reader.uint16(at: start + 60) ?? 0)
        let pathStart = start + Self.fixedEntrySize + (flags & 0x4000 != 0 ? 2 : 0)
        var length = flags & 0xFFF
        if length == 0xFFF { length = reader.firstIndex(of: 0, from: pathStart).map { $0 - pathStart } ?? 0 }
        return reader.clampedSlice(pathStart..<pathStart + length)
    }

    public func stage(at entry: Int) -> Int { (flags(at: entry) >> 12) & 3 }

    /// The entry's object id (20 bytes; zeros for an entry outside the entries) and raw mode.
    public func object(at entry: Int) -> (id: [UInt8], mode: UInt32) {
        let reader = self.reader
        let start = entryStart(entry)
        let id = reader.slice(at: start + 40, count: 20).map(Array.init) ?? [UInt8](repeating: 0, count: 20)
        return (id, reader.uint32(at: start + 24) ?? 0)
    }

    /// The first entry in `range` whose path is not less than `path` (byte order, as git
    /// sorts); `range` must be sorted by path.
    public func lowerBound(_ path: [UInt8], in range: Range<Int>) -> Int {
        var low = range.lowerBound
        var high = range.upperBound
        while low < high {
            let mid = (low + high) / 2
            if self.path(at: mid).lexicographicallyPrecedes(path) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The entries in `range` (sorted by path) whose path is `path`.
    public func entries(at path: [UInt8], in range: Range<Int>) -> Range<Int> {
        let low = lowerBound(path, in: range)
        var high = low
        while high < range.upperBound, self.path(at: high).elementsEqual(path) { high += 1 }
        return low..<high
    }
}
