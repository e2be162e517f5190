/// A running hash of a stream of bytes, for the trailer `PackWriter` ends a pack with (SHA-1:
/// GitKit supplies one through libcrypto).
public protocol StreamHash: AnyObject {
    func update(_ bytes: [UInt8])
    /// The digest of everything given (once: the hash is spent).
    func finish() -> [UInt8]
}

/// The bytes of a version 2 pack file: header, each object whole (a type-and-size header, then
/// its content as a zlib stream of stored blocks), and the SHA-1 trailer, handed to `sink` in
/// chunks of about `chunk` bytes as they are made. No deltas: what a household's packs need
/// compressed is left to housekeeping (libgit2's packbuilder).
public struct PackWriter {
    private var bytes: [UInt8] = []
    private let hash: any StreamHash
    private let sink: ([UInt8]) throws -> Void
    public static let chunk = 1 << 20

    /// A pack of `count` objects, hashed with `hash`.
    public init(count: Int, hash: any StreamHash, sink: @escaping ([UInt8]) throws -> Void) {
        self.hash = hash
        self.sink = sink
        bytes = Array("PACK".utf8) + BigEndian.bytes(2) + BigEndian.bytes(UInt32(truncatingIfNeeded: count))
    }

    /// Appends one object of pack type `type` (commit 1, tree 2, blob 3, tag 4).
    public mutating func append(type: UInt8, _ content: UnsafeBufferPointer<UInt8>) throws {
        Self.encode(type: type, content, into: &bytes)
        if bytes.count >= Self.chunk { try flush() }
    }

    /// Appends objects already encoded by `encode` (counted in the header's total).
    public mutating func appendEncoded(_ encoded: ArraySlice<UInt8>) throws {
        bytes.append(contentsOf: encoded)
        if bytes.count >= Self.chunk { try flush() }
    }

    private mutating func flush() throws {
        hash.update(bytes)
        try sink(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    /// Hands over what is left and the trailer.
    public mutating func finish() throws {
        try flush()
        try sink(hash.finish())
    }

    /// Appends to `bytes` one object of pack type `type` as a pack holds it whole.
    public static func encode(type: UInt8, _ content: UnsafeBufferPointer<UInt8>, into bytes: inout [UInt8]) {
        // Type and size: 3 type bits and the low 4 size bits, then 7 size bits a byte.
        var size = content.count
        var first = (type & 7) << 4 | UInt8(size & 0x0F)
        size >>= 4
        if size > 0 { first |= 0x80 }
        bytes.append(first)
        while size > 0 {
            var next = UInt8(size & 0x7F)
            size >>= 7
            if size > 0 { next |= 0x80 }
            bytes.append(next)
        }
        // zlib: header (deflate, 32K window, no dictionary, check bits), stored blocks of at
        // most 65,535 bytes, Adler-32 of the content.
        bytes += [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, content.count - offset)
            let final: UInt8 = offset + length == content.count ? 1 : 0
            bytes += [final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            if length > 0 { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: content[offset..<offset + length])) }
            offset += length
        } while offset < content.count
        bytes += BigEndian.bytes(adler32(content))
    }

    /// zlib's Adler-32 checksum of `data`.
    public static func adler32(_ data: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        var index = 0
        while index < data.count {
            // 5,552 bytes is the most that cannot overflow before the modulo.
            let end = min(index + 5_552, data.count)
            while index < end {
                a &+= UInt32(data[index])
                b &+= a
                index += 1
            }
            a %= 65_521
            b %= 65_521
        }
        return b << 16 | a
    }
}
