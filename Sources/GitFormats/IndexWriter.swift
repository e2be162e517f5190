/// Writing git's index, whole (versions 2 and 3): a new file made of runs of one file as read
/// (`IndexBytes`) and new entries, as pieces that are never gathered into one buffer (at
/// 100,000 tasks a fresh 11 MB buffer costs a page fault every 4 KB, more than the copy). A
/// change of a few entries is spliced into the bytes as read: runs of unchanged entries are
/// copied as they are, the optional extensions (the cache tree, the entry table) dropped.
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

    /// A whole index of `count` entries: the header, `entries`, and the checksum `sha1` makes
    /// of everything before it.
    public static func file(version: UInt32, entries: [Piece], count: Int, sha1: ([Piece]) -> [UInt8]) -> File {
        var header = Array("DIRC".utf8)
        BigEndian.append(&header, version)
        BigEndian.append(&header, UInt32(count))
        var pieces = [Piece.new(header)] + entries
        let digest = sha1(pieces)
        pieces.append(.new(digest))
        return File(pieces: pieces, checksum: digest)
    }

    /// `index` with `changes` put in: each replaces every entry at its path or is added in
    /// order. nil when the same path is given twice.
    public static func splice(_ index: IndexBytes, _ changes: [Change], sha1: ([Piece]) -> [UInt8]) -> File? {
        var changes = changes
        changes.sort { $0.key.lexicographicallyPrecedes($1.key) }
        for i in changes.indices.dropFirst() where changes[i].key == changes[i - 1].key { return nil }
        var pieces: [Piece] = []
        var count = index.count
        var copiedUpTo = 0  // entries before this one are in `pieces`
        for change in changes {
            let at = index.entries(at: change.key, in: copiedUpTo..<index.count)
            pieces.append(.mapped(index.entries(from: copiedUpTo, to: at.lowerBound)))
            count += 1 - at.count
            pieces.append(.new(change.entry))
            copiedUpTo = at.upperBound
        }
        pieces.append(.mapped(index.entries(from: copiedUpTo, to: index.count)))
        return file(version: index.version, entries: pieces, count: count, sha1: sha1)
    }
}
