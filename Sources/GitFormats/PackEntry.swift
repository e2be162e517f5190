/// The header of one entry of a pack: its type, its inflated size, where its zlib stream
/// starts, and for a delta where its base is.
public struct PackEntryHeader: Equatable, Sendable {
    public enum Base: Equatable, Sendable {
        /// A whole object (commit 1, tree 2, blob 3, tag 4).
        case none
        /// An offset delta (type 6): the base's offset in the same pack.
        case offset(Int)
        /// A reference delta (type 7): the base's id, 20 bytes.
        case id([UInt8])
    }

    public let type: UInt8
    public let size: Int
    public let start: Int
    public let base: Base

    /// The header of the entry at `offset` of `pack` (whose last 20 bytes are its checksum,
    /// never part of an entry); sizes above `maxSize` are refused.
    public init(pack: UnsafeRawBufferPointer, at offset: Int, maxSize: Int) throws(FormatError) {
        var reader = ByteReader(pack, at: offset, end: pack.count - 20, part: .packEntry)
        guard offset >= 0, offset < reader.end else { throw .invalid(.packEntry, .outOfRange, at: offset) }
        var c = try reader.readUInt8()
        let type = (c >> 4) & 7
        var size = Int(c & 15)
        var shift = 4
        while c & 0x80 != 0 {
            guard shift <= 49 else { throw reader.fail(.numberTooLong) }
            c = try reader.readUInt8()
            size |= Int(c & 0x7F) << shift
            shift += 7
        }
        guard size <= maxSize else { throw .invalid(.packEntry, .tooLarge, at: offset) }
        self.type = type
        self.size = size
        switch type {
        case 1...4:
            base = .none
        case 6:
            let at = reader.offset
            c = try reader.readUInt8()
            var distance = Int(c & 0x7F)
            while c & 0x80 != 0 {
                guard distance < 1 << 48 else { throw reader.fail(.numberTooLong) }
                c = try reader.readUInt8()
                distance = ((distance + 1) << 7) | Int(c & 0x7F)
            }
            guard distance > 0, distance <= offset - 12 else { throw .invalid(.packEntry, .outOfRange, at: at) }
            base = .offset(offset - distance)
        case 7:
            base = .id(Array(try reader.readBytes(20)))
        default:
            throw .invalid(.packEntry, .unknownType, at: offset)
        }
        start = reader.offset
    }
}

/// git's deltas: two sizes (base, result) as little-endian base-128 numbers, then copy
/// instructions (from the base) and insert instructions (bytes of the delta).
public enum Delta {
    /// The base size and result size a delta's first bytes state.
    public static func sizes(_ delta: UnsafeRawBufferPointer) throws(FormatError) -> (base: Int, result: Int) {
        var reader = ByteReader(delta, part: .delta)
        let base = try reader.readLittleBase128()
        let result = try reader.readLittleBase128()
        return (base, result)
    }

    /// `base` with `delta` applied; refused when the delta is not one for `base` (its base size
    /// differs, a copy reaches past `base`, the result would differ from the size it states),
    /// is damaged, or states a result larger than `maxSize`.
    public static func apply(_ delta: [UInt8], to base: [UInt8], maxSize: Int) throws(FormatError) -> [UInt8] {
        var failure: FormatError?
        let result: [UInt8] = delta.withUnsafeBytes { d in
            base.withUnsafeBytes { b in
                do throws(FormatError) {
                    return try apply(d, to: b, maxSize: maxSize)
                } catch {
                    failure = error
                    return []
                }
            }
        }
        if let failure { throw failure }
        return result
    }

    public static func apply(_ delta: UnsafeRawBufferPointer, to base: UnsafeRawBufferPointer, maxSize: Int) throws(FormatError) -> [UInt8] {
        var reader = ByteReader(delta, part: .delta)
        let baseSize = try reader.readLittleBase128()
        guard baseSize == base.count else { throw reader.fail(.baseSizeMismatch, at: 0) }
        let sizeAt = reader.offset
        let size = try reader.readLittleBase128()
        guard size <= maxSize else { throw reader.fail(.tooLarge, at: sizeAt) }
        var failure: FormatError?
        let result = [UInt8](unsafeUninitializedCapacity: size) { out, count in
            count = 0
            var at = 0
            do throws(FormatError) {
                while !reader.isAtEnd {
                    let opAt = reader.offset
                    let op = try reader.readUInt8()
                    if op & 0x80 != 0 {
                        var from = 0
                        var length = 0
                        for bit in 0..<4 where op & (1 << bit) != 0 { from |= Int(try reader.readUInt8()) << (8 * bit) }
                        for bit in 0..<3 where op & (0x10 << bit) != 0 { length |= Int(try reader.readUInt8()) << (8 * bit) }
                        if length == 0 { length = 0x10000 }
                        guard from <= base.count, length <= base.count - from else { throw reader.fail(.copyOutsideBase, at: opAt) }
                        guard length <= size - at else { throw reader.fail(.resultSizeMismatch, at: opAt) }
                        if let source = base.baseAddress, let target = out.baseAddress {
                            (UnsafeMutableRawPointer(target) + at).copyMemory(from: source + from, byteCount: length)
                        }
                        at += length
                    } else if op != 0 {
                        let length = Int(op)
                        let bytes = try reader.readBytes(length)
                        guard length <= size - at else { throw reader.fail(.resultSizeMismatch, at: opAt) }
                        if let source = bytes.baseAddress, let target = out.baseAddress {
                            (UnsafeMutableRawPointer(target) + at).copyMemory(from: source, byteCount: length)
                        }
                        at += length
                    } else {
                        throw reader.fail(.reservedOpcode, at: opAt)
                    }
                }
                guard at == size else { throw reader.fail(.resultSizeMismatch) }
                count = size
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        return result
    }
}
