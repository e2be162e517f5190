/// git's EWAH-compressed bitmaps as its index stores them (the `link` extension of a split
/// index): a 32-bit bit count, a 32-bit count of 64-bit words, the words, and the position of
/// the last run-length word, all big-endian. Each run-length word says how many words of all
/// zeros (or all ones) come first (bits 1–32, bit 0 the value) and how many literal words
/// follow it (bits 33–63); bit `i` of the bitmap is bit `i % 64` of word `i / 64`.
enum EWAH {
    /// The positions of the set bits of the bitmap at `offset` in `bytes`, in order, and where
    /// the bitmap ends; nil when it is cut short, malformed or sets a position at or above
    /// `limit` (so a hostile bitmap cannot ask for more work than the positions allowed).
    static func decode(_ bytes: UnsafeRawBufferPointer, at offset: Int, end: Int, limit: Int) -> (bits: [Int], end: Int)? {
        guard offset >= 0, offset + 8 <= end else { return nil }
        let wordCount = Int(IndexFile.u32(bytes, offset + 4))
        let wordsStart = offset + 8
        guard wordCount <= (end - wordsStart) / 8, wordsStart + wordCount * 8 + 4 <= end else { return nil }
        func word(_ i: Int) -> UInt64 {
            var w: UInt64 = 0
            for k in 0..<8 { w = w << 8 | UInt64(bytes[wordsStart + i * 8 + k]) }
            return w
        }
        var bits: [Int] = []
        var position = 0  // the bit the next word starts at
        var i = 0
        while i < wordCount {
            let marker = word(i)
            let running = Int((marker >> 1) & 0xFFFF_FFFF)
            let literals = Int(marker >> 33)
            i += 1
            if marker & 1 == 1 && running > 0 {
                // A run of ones: every position in it must be below the limit.
                guard position + running * 64 <= limit else { return nil }
                bits.append(contentsOf: position..<position + running * 64)
            }
            // Positions stop counting at the limit (no bit may be set there or beyond), so no
            // count of words can overflow them.
            position = min(position + running * 64, limit)
            guard literals <= wordCount - i else { return nil }
            for _ in 0..<literals {
                var w = word(i)
                i += 1
                while w != 0 {
                    let bit = position + w.trailingZeroBitCount
                    guard bit < limit else { return nil }
                    bits.append(bit)
                    w &= w - 1
                }
                position = min(position + 64, limit)
            }
        }
        return (bits, wordsStart + wordCount * 8 + 4)
    }

    /// The bitmap setting exactly `bits` (ascending, each once), as git writes one: a
    /// run-length word before each group of consecutive literal words, and one empty
    /// run-length word for no bits.
    static func encode(_ bits: [Int]) -> [UInt8] {
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
        IndexFile.appendU32(&out, UInt32(bits.last.map { $0 + 1 } ?? 0))
        IndexFile.appendU32(&out, UInt32(words.count))
        for w in words {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((w >> UInt64(shift)) & 0xFF)) }
        }
        IndexFile.appendU32(&out, UInt32(lastMarker))
        return out
    }
}
