#if canImport(Glibc)
import Glibc
#endif

/// The one way this module reads untrusted bytes: a cursor over a buffer whose every read is
/// checked against the buffer's end (as swift-nio's `ByteBuffer` or gitoxide's decoders read),
/// throwing a `FormatError` that names `part` and the offset, never trapping, in release builds
/// too. The `…(at:)` accessors read at an absolute offset without moving and answer nil out of
/// range. Offsets are from the start of `bytes`; `end` may stop reads before the buffer's end
/// (a pack's trailing checksum, an index's entries).
public struct ByteReader {
    public let bytes: UnsafeRawBufferPointer
    /// Reads stop here (never past `bytes.count`).
    public let end: Int
    /// The next byte the cursor reads.
    public private(set) var offset: Int
    /// The structure read, for the errors.
    public let part: FormatPart

    public init(_ bytes: UnsafeRawBufferPointer, at offset: Int = 0, end: Int? = nil, part: FormatPart) {
        self.bytes = bytes
        self.end = max(0, min(end ?? bytes.count, bytes.count))
        self.offset = max(0, offset)
        self.part = part
    }

    public var remaining: Int { max(0, end - offset) }
    public var isAtEnd: Bool { offset >= end }

    // MARK: Absolute reads (no cursor), nil out of range

    /// Whether `count` bytes from `at` lie inside `0..<end`.
    @inline(__always) public func contains(_ at: Int, count: Int) -> Bool { at >= 0 && count >= 0 && at <= end && count <= end - at }

    /// The big-endian integer of type `T` at `at`.
    @inline(__always) public func integer<T: FixedWidthInteger>(at: Int, as: T.Type = T.self) -> T? {
        guard contains(at, count: MemoryLayout<T>.size), let base = bytes.baseAddress else { return nil }
        return T(bigEndian: base.loadUnaligned(fromByteOffset: at, as: T.self))
    }

    @inline(__always) public func byte(at: Int) -> UInt8? { integer(at: at) }
    @inline(__always) public func uint16(at: Int) -> UInt16? { integer(at: at) }
    @inline(__always) public func uint32(at: Int) -> UInt32? { integer(at: at) }
    @inline(__always) public func uint64(at: Int) -> UInt64? { integer(at: at) }

    /// The `count` bytes at `at`, without copying.
    @inline(__always) public func slice(at: Int, count: Int) -> UnsafeRawBufferPointer? {
        guard contains(at, count: count) else { return nil }
        guard count > 0, let base = bytes.baseAddress else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: base + at, count: count)
    }

    /// Bytes `range` as a slice of `bytes`, clamped to `0..<end` (an empty slice when the
    /// range lies outside).
    public func clampedSlice(_ range: Range<Int>) -> Slice<UnsafeRawBufferPointer> {
        let low = min(max(0, range.lowerBound), end)
        let high = min(max(low, range.upperBound), end)
        return bytes[low..<high]
    }

    /// Whether the bytes at `at` are `expected`.
    public func matches(_ expected: some Collection<UInt8>, at: Int) -> Bool {
        guard let found = slice(at: at, count: expected.count) else { return false }
        return found.elementsEqual(expected)
    }

    /// The first offset from `from` before `end` whose byte is `value`.
    public func firstIndex(of value: UInt8, from: Int) -> Int? {
        guard from >= 0, from < end, let base = bytes.baseAddress else { return nil }
        guard let found = memchr(base + from, Int32(value), end - from) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    // MARK: Cursor reads, throwing

    @inline(__always) func short(_ count: Int) -> FormatError { .truncated(part, at: offset, needed: count - remaining) }

    public func fail(_ problem: FormatProblem, at: Int? = nil) -> FormatError { .invalid(part, problem, at: at ?? offset) }

    /// The big-endian integer of type `T` at the cursor, moving past it.
    @inline(__always) public mutating func readInteger<T: FixedWidthInteger>(as: T.Type = T.self) throws(FormatError) -> T {
        guard let value: T = integer(at: offset) else { throw short(MemoryLayout<T>.size) }
        offset += MemoryLayout<T>.size
        return value
    }

    public mutating func readUInt8() throws(FormatError) -> UInt8 { try readInteger() }
    public mutating func readUInt16() throws(FormatError) -> UInt16 { try readInteger() }
    public mutating func readUInt32() throws(FormatError) -> UInt32 { try readInteger() }
    public mutating func readUInt64() throws(FormatError) -> UInt64 { try readInteger() }

    /// The next `count` bytes, without copying.
    public mutating func readBytes(_ count: Int) throws(FormatError) -> UnsafeRawBufferPointer {
        guard count >= 0, let value = slice(at: offset, count: count) else { throw short(max(count, 0)) }
        offset += count
        return value
    }

    public mutating func skip(_ count: Int) throws(FormatError) {
        guard count >= 0, contains(offset, count: count) else { throw short(max(count, 0)) }
        offset += count
    }

    /// Moves the cursor to `at` (at most `end`).
    public mutating func seek(to at: Int) throws(FormatError) {
        guard at >= 0, at <= end else { throw .truncated(part, at: at, needed: at - end) }
        offset = at
    }

    /// Whether the next bytes are `expected`; moves past them when they are.
    public mutating func consume(_ expected: some Collection<UInt8>) -> Bool {
        guard matches(expected, at: offset) else { return false }
        offset += expected.count
        return true
    }

    /// git's little-endian base-128 number (a delta's sizes): seven bits a byte, low first.
    public mutating func readLittleBase128() throws(FormatError) -> Int {
        var value = 0
        var shift = 0
        while true {
            guard shift <= 56 else { throw fail(.numberTooLong) }
            let c = try readUInt8()
            value |= Int(c & 0x7F) << shift
            shift += 7
            if c & 0x80 == 0 { return value }
        }
    }
}
