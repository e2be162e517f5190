/// A tree's content parsed as libgit2 parses a tree (an octal mode, a space, a name of at
/// least one byte ended by a NUL, 20 bytes of id), but stricter: at most seven mode digits, a
/// mode and a name length that fit 16 bits.
public enum TreeFormat {
    public struct Entry: Equatable, Sendable {
        public let mode: UInt32
        /// Where the entry (its mode) starts.
        public let start: Int
        /// Where the name starts and how long it is; the id follows its NUL.
        public let name: Int
        public let length: Int

        public init(mode: UInt32, start: Int, name: Int, length: Int) {
            self.mode = mode
            self.start = start
            self.name = name
            self.length = length
        }

        /// Where the entry's 20-byte id starts.
        public var id: Int { name + length + 1 }
    }

    /// The entries of the tree whose content is `bytes`, in their order.
    public static func entries(_ bytes: UnsafeRawBufferPointer) throws(FormatError) -> [Entry] {
        var entries: [Entry] = []
        // An entry takes at least 28 bytes (a mode, a one-byte name, the id), mostly 30 or more.
        entries.reserveCapacity(bytes.count / 28)
        var reader = ByteReader(bytes, part: .tree)
        while !reader.isAtEnd {
            let start = reader.offset
            var mode: UInt32 = 0
            var digits = 0
            while let c = reader.byte(at: reader.offset), c >= 0x30, c <= 0x37 {
                guard digits < 7 else { throw reader.fail(.badMode, at: start) }
                mode = mode << 3 | UInt32(c - 0x30)
                digits += 1
                try reader.skip(1)
            }
            guard digits > 0, mode <= 0xFFFF, reader.byte(at: reader.offset) == 0x20 else { throw reader.fail(.badMode, at: start) }
            try reader.skip(1)
            let name = reader.offset
            guard let nul = reader.firstIndex(of: 0, from: name) else { throw .truncated(.tree, at: name, needed: 1) }
            let length = nul - name
            guard length > 0, length <= 0xFFFF else { throw reader.fail(.badName, at: name) }
            try reader.seek(to: nul + 1)
            try reader.skip(20)
            entries.append(Entry(mode: mode, start: start, name: name, length: length))
        }
        return entries
    }

    public static func entries(_ bytes: [UInt8]) throws(FormatError) -> [Entry] {
        var result: Result<[Entry], FormatError> = .success([])
        bytes.withUnsafeBytes { b in
            do throws(FormatError) { result = .success(try entries(b)) } catch { result = .failure(error) }
        }
        return try result.get()
    }
}
