/// Writing git's index, whole (versions 2 and 3): a new file made of runs of one file as read
/// (`IndexBytes`) and new entries, as pieces that are never gathered into one buffer (at
/// 100,000 tasks a fresh 11 MB buffer costs a page fault every 4 KB, more than the copy). A
/// change of a few entries is spliced into the bytes as read: runs of unchanged entries are
/// copied as they are, the optional extensions (the cache tree) dropped.
///
/// Every file written ends with git's entry table (the optional `IEOT` extension, where each
/// block of entries starts, then `EOIE`, as git writes them for its threaded reads), so that
/// the next reader finds an entry by reading the table and the few entries of a binary
/// search, never every entry's length first (at 100,000 tasks that pass cost as much as the
/// file's SHA-1). A splice carries the table over: the blocks of the file as read keep their
/// first entries, moved by what was spliced in before them; new entries start a block once the
/// block they fall in holds `blockSize` entries before them.
public enum IndexWriter {
    public enum Piece {
        /// A run of a file as read (valid while the `IndexBytes` it came from lives).
        case mapped(Slice<UnsafeRawBufferPointer>)
        case new([UInt8])
    }

    /// One file: its pieces, the last the trailing SHA-1, which is also `checksum`.
    public struct File {
        public let pieces: [Piece]
        public let checksum: [UInt8]
    }

    /// A change to one path: the encoded stage-0 entry (`IndexEntry`) that replaces every
    /// entry (every stage) at `key`, the path's bytes.
    public struct Change {
        public var key: [UInt8]
        public var entry: [UInt8]

        public init(key: [UInt8], entry: [UInt8]) {
            self.key = key
            self.entry = entry
        }
    }

    /// Entries in a block of the entry table, as a new file's table is made.
    public static let blockSize = 32

    /// Where a block of entries starts in a file being written: its first entry and offset.
    public struct BlockStart: Equatable, Sendable {
        public var entry: Int
        public var offset: Int

        public init(entry: Int, offset: Int) {
            self.entry = entry
            self.offset = offset
        }
    }

    /// A whole index of `count` entries, all new (`entries`, one entry each, in order): the
    /// header, the entries, the entry table, and the checksum `sha1` makes of everything
    /// before it.
    public static func file(version: UInt32, entries: [[UInt8]], sha1: ([Piece]) -> [UInt8]) -> File {
        var starts: [BlockStart] = []
        var offset = IndexBytes.headerSize
        for (k, entry) in entries.enumerated() {
            if k % blockSize == 0 { starts.append(BlockStart(entry: k, offset: offset)) }
            offset += entry.count
        }
        return file(version: version, entries: entries.map(Piece.new), count: entries.count, blocks: starts, entriesEnd: offset, sha1: sha1)
    }

    /// The file: header, `entries` (`count` of them, ending at `entriesEnd`), the entry table of
    /// `blocks` (none for an empty index), the checksum.
    static func file(
        version: UInt32, entries: [Piece], count: Int, blocks: [BlockStart], entriesEnd: Int, sha1: ([Piece]) -> [UInt8]
    ) -> File {
        var header = Array("DIRC".utf8)
        BigEndian.append(&header, version)
        BigEndian.append(&header, UInt32(count))
        var pieces = [Piece.new(header)] + entries
        if count > 0, !blocks.isEmpty { pieces.append(.new(entryTable(blocks, count: count, entriesEnd: entriesEnd, sha1: sha1))) }
        let digest = sha1(pieces)
        pieces.append(.new(digest))
        return File(pieces: pieces, checksum: digest)
    }

    /// The `IEOT` and `EOIE` extensions for `blocks` (ascending, the first at entry 0) of a file
    /// of `count` entries ending at `entriesEnd`. EOIE's hash covers the signature and size of
    /// each extension before it (here IEOT's), as git's format says.
    static func entryTable(_ blocks: [BlockStart], count: Int, entriesEnd: Int, sha1: ([Piece]) -> [UInt8]) -> [UInt8] {
        var ieot = Array("IEOT".utf8)
        BigEndian.append(&ieot, UInt32(4 + 8 * blocks.count))
        BigEndian.append(&ieot, UInt32(1))
        for (i, block) in blocks.enumerated() {
            let next = i + 1 < blocks.count ? blocks[i + 1].entry : count
            BigEndian.append(&ieot, UInt32(block.offset))
            BigEndian.append(&ieot, UInt32(next - block.entry))
        }
        var eoie = Array("EOIE".utf8)
        BigEndian.append(&eoie, UInt32(24))
        BigEndian.append(&eoie, UInt32(entriesEnd))
        eoie += sha1([.new(Array(ieot[0..<8]))])
        return ieot + eoie
    }

    /// `index` with `changes` put in: each replaces every entry at its path or is added in
    /// order. nil when the same path is given twice.
    public static func splice(_ index: IndexBytes, _ changes: [Change], sha1: ([Piece]) -> [UInt8]) -> File? {
        var changes = changes
        changes.sort { $0.key.lexicographicallyPrecedes($1.key) }
        for i in changes.indices.dropFirst() where changes[i].key == changes[i - 1].key { return nil }
        var splice = Splice(index)
        for change in changes {
            let at = index.entries(at: change.key, in: splice.copiedUpTo..<index.count)
            splice.copy(upTo: at.lowerBound)
            splice.add(change.entry, replacing: at)
        }
        splice.copy(upTo: index.count)
        return file(
            version: index.version, entries: splice.pieces, count: splice.count, blocks: splice.blocks, entriesEnd: splice.offset,
            sha1: sha1)
    }

    /// A splice under way: the pieces so far, and where the new file's blocks start.
    private struct Splice {
        let index: IndexBytes
        /// The blocks of the file as read, by first entry.
        let oldBlocks: [EntryTable.Block]
        /// The first of `oldBlocks` not yet passed.
        var nextOld = 0
        var pieces: [Piece] = []
        var blocks = [BlockStart(entry: 0, offset: IndexBytes.headerSize)]
        /// Entries before this one of the file as read are in `pieces` (or replaced).
        var copiedUpTo = 0
        /// Entries in the new file so far, and where the next one starts.
        var count = 0
        var offset = IndexBytes.headerSize

        init(_ index: IndexBytes) {
            self.index = index
            oldBlocks = index.blockStarts
        }

        /// Copies the entries of the file as read from `copiedUpTo` to `end`, each block that
        /// starts among them starting a block in the new file.
        mutating func copy(upTo end: Int) {
            let start = copiedUpTo
            guard end > start else { return }
            let run = index.entries(from: start, to: end)
            let base = index.entryStart(start)
            while nextOld < oldBlocks.count, oldBlocks[nextOld].first < start { nextOld += 1 }
            while nextOld < oldBlocks.count, oldBlocks[nextOld].first < end {
                let block = oldBlocks[nextOld]
                startBlock(at: count + block.first - start, offset: offset + block.offset - base, always: true)
                nextOld += 1
            }
            pieces.append(.mapped(run))
            count += end - start
            offset += run.count
            copiedUpTo = end
        }

        /// Adds `entry` in place of the entries `replaced` (an empty range where it is added).
        /// It starts a block when it takes the place of a block's first entry, or when the
        /// block it falls in already holds `blockSize` entries.
        mutating func add(_ entry: [UInt8], replacing replaced: Range<Int>) {
            while nextOld < oldBlocks.count, oldBlocks[nextOld].first < replaced.lowerBound { nextOld += 1 }
            let takesAFirst = !replaced.isEmpty && nextOld < oldBlocks.count && oldBlocks[nextOld].first == replaced.lowerBound
            startBlock(at: count, offset: offset, always: takesAFirst)
            // The blocks whose first entry is replaced or removed: passed.
            while nextOld < oldBlocks.count, oldBlocks[nextOld].first < replaced.upperBound { nextOld += 1 }
            pieces.append(.new(entry))
            count += 1
            offset += entry.count
            copiedUpTo = replaced.upperBound
        }

        private mutating func startBlock(at entry: Int, offset: Int, always: Bool) {
            guard let last = blocks.last, entry > last.entry else { return }
            if always || entry - last.entry >= blockSize { blocks.append(BlockStart(entry: entry, offset: offset)) }
        }
    }
}
