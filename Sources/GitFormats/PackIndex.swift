#if canImport(Glibc)
import Glibc
#endif

/// A pack index, version 2 (git's `.idx`): the fan-out table, the sorted ids, their CRCs and
/// offsets (large offsets after them), the two checksums. Checked when made (signature,
/// version, a fan-out that never falls, tables that fit); each lookup checks what it reads.
public struct PackIndex {
    public let bytes: UnsafeRawBufferPointer
    /// How many objects the index lists.
    public let count: Int
    /// The size of the pack the index describes.
    public let packSize: Int

    static let fanOut = 8
    static let ids = 8 + 1024

    /// The index in `bytes` for a pack of `packSize` bytes.
    public init(_ bytes: UnsafeRawBufferPointer, packSize: Int) throws(FormatError) {
        var reader = ByteReader(bytes, part: .packIndex)
        guard bytes.count >= 8 + 1024 + 40 else { throw .truncated(.packIndex, at: bytes.count, needed: 8 + 1024 + 40 - bytes.count) }
        guard reader.consume([0xFF, 0x74, 0x4F, 0x63]) else { throw .badSignature(.packIndex, at: 0) }
        let version = try reader.readUInt32()
        guard version == 2 else { throw .unsupportedVersion(.packIndex, version: version) }
        var previous: UInt32 = 0
        for _ in 0..<256 {
            let n = try reader.readUInt32()
            guard n >= previous else { throw reader.fail(.fanOutDecreases, at: reader.offset - 4) }
            previous = n
        }
        // Ids, CRCs and offsets, then the checksums; large offsets between them, if any.
        guard Int(previous) <= (bytes.count - 1072) / 28 else { throw .invalid(.packIndex, .countTooLarge, at: Self.fanOut + 255 * 4) }
        self.bytes = bytes
        self.count = Int(previous)
        self.packSize = packSize
    }

    /// Whether `pack` opens as a pack does ("PACK") and is long enough to hold its header and
    /// trailing checksum.
    public static func checkPack(_ pack: UnsafeRawBufferPointer) throws(FormatError) {
        guard pack.count >= 32 else { throw .truncated(.pack, at: pack.count, needed: 32 - pack.count) }
        guard ByteReader(pack, part: .pack).matches([0x50, 0x41, 0x43, 0x4B], at: 0) else { throw .badSignature(.pack, at: 0) }
    }

    /// The position of object `id` (20 bytes) in the index; nil when it is not there.
    public func position(of id: UnsafeRawBufferPointer) -> Int? {
        let reader = ByteReader(bytes, part: .packIndex)
        guard id.count == 20, let key = id.baseAddress, let first = id.first else { return nil }
        let f = Int(first)
        guard var low = f == 0 ? 0 : reader.uint32(at: Self.fanOut + 4 * (f - 1)).map(Int.init),
            var high = reader.uint32(at: Self.fanOut + 4 * f).map(Int.init), low <= high, high <= count
        else { return nil }
        while low < high {
            let mid = (low + high) / 2
            guard let candidate = reader.slice(at: Self.ids + 20 * mid, count: 20), let at = candidate.baseAddress else { return nil }
            let order = memcmp(at, key, 20)
            if order == 0 { return mid }
            if order < 0 { low = mid + 1 } else { high = mid }
        }
        return nil
    }

    /// Where in the pack the object at `position` starts: after the pack's 12-byte header,
    /// before its 20-byte checksum.
    public func offset(at position: Int) throws(FormatError) -> Int {
        let reader = ByteReader(bytes, end: bytes.count - 40, part: .packIndex)
        guard position >= 0, position < count else { throw .invalid(.packIndex, .outOfRange, at: Self.ids) }
        let offsets = Self.ids + 24 * count
        let at = offsets + 4 * position
        guard let small = reader.uint32(at: at) else { throw .truncated(.packIndex, at: at, needed: 4) }
        var offset = Int(small)
        if offset & 0x8000_0000 != 0 {
            let large = offsets + 4 * count + 8 * (offset & 0x7FFF_FFFF)
            guard let value = reader.uint64(at: large), value < 1 << 62 else { throw .invalid(.packIndex, .outOfRange, at: at) }
            offset = Int(value)
        }
        guard offset >= 12, offset < packSize - 20 else { throw .invalid(.packIndex, .outOfRange, at: at) }
        return offset
    }

    /// The id of the object at `position`.
    public func id(at position: Int) -> UnsafeRawBufferPointer? {
        guard position >= 0, position < count else { return nil }
        return ByteReader(bytes, part: .packIndex).slice(at: Self.ids + 20 * position, count: 20)
    }

    /// The number of objects the index whose first 1,032 bytes are `head` lists (version 2,
    /// or version 1, which opens with the fan-out itself): the fan-out's last entry.
    public static func objectCount(head: UnsafeRawBufferPointer) throws(FormatError) -> Int {
        let reader = ByteReader(head, part: .packIndex)
        let versioned = reader.matches([0xFF, 0x74, 0x4F, 0x63], at: 0)
        let at = (versioned ? 8 : 0) + 255 * 4
        guard let n = reader.uint32(at: at) else { throw .truncated(.packIndex, at: head.count, needed: at + 4 - head.count) }
        return Int(n)
    }
}
