/// One file in git's index format (versions 2 and 3), mapped and its entries located: the
/// index itself, or the shared part of a split index. A read notes where each entry starts and
/// reads the extensions it must understand; a lookup is a binary search over the entries.
struct IndexBytes {
    private let mapping: MappedFile
    /// The file's bytes, valid while this value lives.
    var bytes: UnsafeRawBufferPointer { mapping.bytes }
    let version: UInt32
    /// Where each entry starts, in file order.
    let starts: [Int]
    /// Where the entries end (extensions or the checksum begin).
    let entriesEnd: Int
    /// The split index's `link` extension, when the file has one.
    let link: Link?

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
        let count = Int(IndexFile.u32(bytes, 8))
        let end = bytes.count - 20
        if !checked {
            guard IndexFile.sha1([.mapped(bytes[0..<end])]).elementsEqual(bytes[end...]) else { return nil }
        }
        guard count <= (end - Self.headerSize) / Self.fixedEntrySize else { return nil }
        var starts: [Int] = []
        starts.reserveCapacity(count)
        var offset = Self.headerSize
        for _ in 0..<count {
            guard offset + Self.fixedEntrySize <= end else { return nil }
            let flags = Int(IndexFile.u16(bytes, offset + 60))
            let extended = flags & 0x4000 != 0
            if extended && version < 3 { return nil }
            let pathStart = offset + Self.fixedEntrySize + (extended ? 2 : 0)
            guard pathStart <= end else { return nil }
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
        // Extensions: `link` is read; any other required one (lower-case first letter) is not
        // understood; optional ones (caches such as TREE) are dropped when the file is rewritten.
        var link: Link?
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

    var count: Int { starts.count }

    func entryStart(_ entry: Int) -> Int { entry < starts.count ? starts[entry] : entriesEnd }

    /// The bytes of entry `entry`, padding included.
    func entryBytes(_ entry: Int) -> Slice<UnsafeRawBufferPointer> { bytes[starts[entry]..<entryStart(entry + 1)] }

    func flags(at entry: Int) -> Int { Int(IndexFile.u16(bytes, starts[entry] + 60)) }

    func path(at entry: Int) -> Slice<UnsafeRawBufferPointer> {
        let start = starts[entry]
        let flags = flags(at: entry)
        let pathStart = start + Self.fixedEntrySize + (flags & 0x4000 != 0 ? 2 : 0)
        var length = flags & 0xFFF
        if length == 0xFFF { length = bytes[pathStart..<entriesEnd].firstIndex(of: 0).map { $0 - pathStart } ?? 0 }
        return bytes[pathStart..<pathStart + length]
    }

    func stage(at entry: Int) -> Int { (flags(at: entry) >> 12) & 3 }

    /// The entry's object id (20 bytes) and raw mode.
    func object(at entry: Int) -> (id: [UInt8], mode: UInt32) {
        let start = starts[entry]
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
}
