/// The header of a loose object's inflated content: "<type> <size>" and a NUL.
public struct LooseHeader: Equatable, Sendable {
    public enum Kind: String, Sendable { case commit, tree, blob, tag }

    public let kind: Kind
    /// The content's size the header states.
    public let size: Int
    /// Where the content starts (after the NUL).
    public let contentStart: Int

    public init(_ bytes: UnsafeRawBufferPointer) throws(FormatError) {
        var reader = ByteReader(bytes, part: .looseHeader)
        // The longest header: "commit " and 19 digits (a size that fits 63 bits), then the NUL.
        guard let space = reader.firstIndex(of: 0x20, from: 0), space <= 6 else {
            throw reader.remaining < 7 ? FormatError.truncated(.looseHeader, at: reader.remaining, needed: 1) : reader.fail(.unknownType, at: 0)
        }
        let name = try reader.readBytes(space)
        guard let kind = Kind(rawValue: String(decoding: name, as: UTF8.self)) else { throw reader.fail(.unknownType, at: 0) }
        try reader.skip(1)
        let digits = reader.offset
        var size = 0
        while let c = reader.byte(at: reader.offset), c != 0 {
            guard c >= 0x30, c <= 0x39, reader.offset - digits < 18, !(c == 0x30 && reader.offset == digits && reader.byte(at: digits + 1) != 0)
            else { throw reader.fail(.badSize) }
            size = size * 10 + Int(c - 0x30)
            try reader.skip(1)
        }
        guard reader.offset > digits else { throw reader.isAtEnd ? reader.short(1) : reader.fail(.badSize) }
        try reader.skip(1)  // the NUL
        self.kind = kind
        self.size = size
        self.contentStart = reader.offset
    }
}
