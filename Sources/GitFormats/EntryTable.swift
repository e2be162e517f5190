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

    /// The one pass over every entry (each entry's flags give its length); refused when an
    /// entry is cut short or has flags its version does not allow.
    static func scan(_ bytes: UnsafeRawBufferPointer, count: Int, end: Int, version: UInt32) throws(FormatError) -> EntryTable {
        var offset = IndexBytes.headerSize
        var failure: FormatError?
        let starts = [Int](unsafeUninitializedCapacity: count) { buffer, located in
            do throws(FormatError) {
                while located < count {
                    let next = try Self.next(after: offset, in: bytes, end: end, version: version)
                    buffer[located] = offset
                    located += 1
                    offset = next
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return EntryTable(starts: starts, entriesEnd: offset)
    }

    /// Replaces a block table by every entry's offset, when one pass finds them all (before
    /// the end the table gives): the pass, not the table, then says where each entry is.
    func locateAll(in bytes: UnsafeRawBufferPointer, count: Int, version: UInt32) {
        guard starts == nil else { return }
        do throws(FormatError) {
            starts = try Self.scan(bytes, count: count, end: entriesEnd, version: version).starts
        } catch {
            // The table's answers stay: each entry it places is read within the entries.
            return
        }
    }

    /// Where blocks of entries start, for the table a new file is written with (`IndexWriter`):
    /// git's table's blocks when the file has one, else every `every`-th entry's start from the
    /// pass.
    func blockStarts(count: Int, every: Int) -> [Block] {
        if !blocks.isEmpty { return blocks }
        guard let starts else { return [] }
        return stride(from: 0, to: min(count, starts.count), by: every).map { Block(first: $0, offset: starts[$0]) }
    }

    /// Where the entry after the one at `offset` starts; refused when that entry does not fit
    /// before `end` or its flags are wrong for `version`.
    static func next(after offset: Int, in bytes: UnsafeRawBufferPointer, end: Int, version: UInt32) throws(FormatError) -> Int {
        let reader = ByteReader(bytes, end: end, part: .indexEntry)
        guard reader.contains(offset, count: IndexBytes.fixedEntrySize), let flags = reader.uint16(at: offset + 60).map(Int.init) else {
            throw .truncated(.indexEntry, at: offset, needed: IndexBytes.fixedEntrySize)
        }
        let extended = flags & 0x4000 != 0
        if extended && version < 3 { throw .invalid(.indexEntry, .badFlags, at: offset + 60) }
        let pathStart = offset + IndexBytes.fixedEntrySize + (extended ? 2 : 0)
        guard pathStart <= end else { throw .truncated(.indexEntry, at: offset, needed: pathStart - end) }
        var nameLength = flags & 0xFFF
        if nameLength == 0xFFF {
            guard let nul = reader.firstIndex(of: 0, from: pathStart) else { throw .truncated(.indexEntry, at: pathStart, needed: 1) }
            nameLength = nul - pathStart
        }
        let next = offset + ((pathStart - offset + nameLength + 8) & ~7)
        guard next <= end else { throw .truncated(.indexEntry, at: offset, needed: next - end) }
        return next
    }

    /// Where entry `entry` starts. In a block table, an entry that does not fit where the
    /// table says (a file whose checksum holds but whose table is wrong) reads as the end of
    /// the entries' last possible entry, never past them.
    func start(_ entry: Int, in bytes: UnsafeRawBufferPointer, version: UInt32) -> Int {
        if let starts { return entry < starts.count ? starts[entry] : entriesEnd }
        guard !blocks.isEmpty else { return entriesEnd }
        var low = 0
        var high = blocks.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if blocks[mid].first <= entry { low = mid } else { high = mid - 1 }
        }
        let fallback = max(IndexBytes.headerSize, entriesEnd - IndexBytes.fixedEntrySize - 2)
        var offset = blocks[low].offset
        var k = blocks[low].first
        while k < entry {
            do throws(FormatError) {
                offset = try Self.next(after: offset, in: bytes, end: entriesEnd, version: version)
            } catch {
                return fallback
            }
            k += 1
        }
        return min(offset, fallback)
    }
}
