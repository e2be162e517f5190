/// git's EWAH-compressed bitmaps as its index stores them (the `link` extension of a split
/// index): a 32-bit bit count, a 32-bit count of 64-bit words, the words, and the position of
/// the last run-length word, all big-endian. Each run-length word says how many words of all
/// zeros (or all ones) come first (bits 1–32, bit 0 the value) and how many literal words
/// follow it (bits 33–63); bit `i` of the bitmap is bit `i % 64` of word `i / 64`.
public enum EWAH {
    /// The positions of the set bits of the bitmap at `offset` in `bytes`, in order, and where
    /// the bitmap ends; refused when it is cut short, malformed or sets a position at or above
    /// `limit` (so a hostile bitmap cannot ask for more work than the positions allowed).
    /// Without `collect`, the bitmap is only checked: no position is kept (`bits` is empty).
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, at offset: Int, end: Int, limit: Int, collect: Bool = true
    ) throws(FormatError) -> (bits: [Int], end: Int) {
        var reader = ByteReader(bytes, at: offset, end: end, part: .ewah)
        guard offset >= 0, offset <= reader.end else { throw .truncated(.ewah, at: offset, needed: 8) }
        try reader.skip(4)  // the bit count, which git does not rely on either
        let wordCount = Int(try reader.readUInt32())
        guard wordCount <= (reader.remaining - 4) / 8 else { throw .truncated(.ewah, at: reader.offset, needed: wordCount * 8 + 4 - reader.remaining) }
        var bits: [Int] = []
        var position = 0  // the bit the next word starts at
        var i = 0
        while i < wordCount {
            let markerAt = reader.offset
            let marker = try reader.readUInt64()
            let running = Int((marker >> 1) & 0xFFFF_FFFF)
            let literals = Int(marker >> 33)
            i += 1
            if marker & 1 == 1 && running > 0 {
                // A run of ones: every position in it must be below the limit.
                guard position + running * 64 <= limit else { throw .invalid(.ewah, .bitOutOfRange, at: markerAt) }
                if collect { bits.append(contentsOf: position..<position + running * 64) }
            }
            // Positions stop counting at the limit (no bit may be set there or beyond), so no
            // count of words can overflow them.
            position = min(position + running * 64, limit)
            guard literals <= wordCount - i else { throw .invalid(.ewah, .countTooLarge, at: markerAt) }
            for _ in 0..<literals {
                let wordAt = reader.offset
                var w = try reader.readUInt64()
                i += 1
                if !collect, w != 0 {
                    // Only the highest bit can reach the limit.
                    guard position + 63 - w.leadingZeroBitCount < limit else { throw .invalid(.ewah, .bitOutOfRange, at: wordAt) }
                    w = 0
                }
                while w != 0 {
                    let bit = position + w.trailingZeroBitCount
                    guard bit < limit else { throw .invalid(.ewah, .bitOutOfRange, at: wordAt) }
                    bits.append(bit)
                    w &= w - 1
                }
                position = min(position + 64, limit)
            }
        }
        try reader.skip(4)  // the position of the last run-length word
        return (bits, reader.offset)
    }

    /// The bitmap setting exactly `bits` (ascending, each once), as git writes one: a
    /// run-length word before each group of consecutive literal words, and one empty
    /// run-length word for no bits.
    public static func encode(_ bits: [Int]) -> [UInt8] {
        var words: [UInt64] = []
        var lastMarker = 0
        var i = 0
        var nextWord = 0  // the first word not yet covered
        while i < bits.count {
            let first = bits[i] / 64
            var literals: [UInt64] = []
            var current = first
            var value: UInt64 = 0
            while i < bits.count, bits[i] / 64 <= current + 1 {
                if bits[i] / 64 != current {
                    literals.append(value)
                    value = 0
                    current += 1
                }
                value |= 1 << UInt64(bits[i] % 64)
                i += 1
            }
            literals.append(value)
            lastMarker = words.count
            words.append(UInt64(first - nextWord) << 1 | UInt64(literals.count) << 33)
            words += literals
            nextWord = current + 1
        }
        if words.isEmpty { words = [0] }
        var out: [UInt8] = []
        out.reserveCapacity(12 + words.count * 8)
        BigEndian.append(&out, UInt32(bits.last.map { $0 + 1 } ?? 0))
        BigEndian.append(&out, UInt32(words.count))
        for w in words {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((w >> UInt64(shift)) & 0xFF)) }
        }
        BigEndian.append(&out, UInt32(lastMarker))
        return out
    }
}

/// Big-endian numbers written into bytes, as git's binary formats store them.
public enum BigEndian {
    public static func bytes(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    public static func append(_ out: inout [UInt8], _ v: UInt32) { out += bytes(v) }

    public static func append(_ out: inout [UInt8], _ v: UInt16) {
        out.append(UInt8(v >> 8))
        out.append(UInt8(v & 0xFF))
    }
}

extension IndexBytes {
    /// The entry table, IEOT and EOIE, a shared index is written with: blocks of `blockSize`
    /// entries, whose lengths are `sizes` in order; the entries end at `entriesEnd`. `sha1`
    /// hashes the extensions' heads for EOIE.
    public static func entryTable(sizes: [Int], entriesEnd: Int, sha1: ([UInt8]) -> [UInt8]) -> [UInt8] {
        var ieot = Array("IEOT".utf8)
        let blocks = (sizes.count + blockSize - 1) / blockSize
        BigEndian.append(&ieot, UInt32(4 + 8 * blocks))
        BigEndian.append(&ieot, UInt32(1))
        var offset = headerSize
        for block in 0..<blocks {
            let range = block * blockSize..<min((block + 1) * blockSize, sizes.count)
            BigEndian.append(&ieot, UInt32(offset))
            BigEndian.append(&ieot, UInt32(range.count))
            offset += sizes[range].reduce(0, +)
        }
        var eoie = Array("EOIE".utf8)
        BigEndian.append(&eoie, UInt32(24))
        BigEndian.append(&eoie, UInt32(entriesEnd))
        // The hash of the extensions before it: each one's signature and size.
        eoie += sha1(Array(ieot[0..<8]))
        return ieot + eoie
    }

    /// Where the entry after the one at `offset` of `bytes` starts, for a writer walking runs
    /// of entries it copies; nil when that entry does not fit before `end`.
    public static func nextEntry(after offset: Int, in bytes: UnsafeRawBufferPointer, end: Int, version: UInt32) -> Int? {
        do throws(FormatError) {
            return try EntryTable.next(after: offset, in: bytes, end: end, version: version)
        } catch {
            return nil
        }
    }
}
