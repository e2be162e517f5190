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

/// The start of a commit's content, read when it has the form git writes: "tree <id>",
/// "parent <id>" lines, one or more "author" lines, a "committer" line, each signature
/// "<name> <<email>>" with nothing or " <seconds>" and anything after; then anything.
/// libgit2's commit parser takes all of these (it refuses only a missing id or signature, an
/// e-mail without its brackets, a time that is not a number).
public struct CommitHeader: Equatable, Sendable {
    /// The tree's id, 20 bytes.
    public let tree: [UInt8]
    /// The parents' ids, 20 bytes each, in order.
    public let parents: [[UInt8]]
    /// The committer's time (seconds; 0 when the line has none).
    public let time: Int64

    public init(_ bytes: [UInt8]) throws(FormatError) {
        var result: Result<CommitHeader, FormatError> = .failure(.truncated(.commit, at: 0, needed: 1))
        bytes.withUnsafeBytes { b in
            do throws(FormatError) { result = .success(try CommitHeader(b)) } catch { result = .failure(error) }
        }
        self = try result.get()
    }

    public init(_ bytes: UnsafeRawBufferPointer) throws(FormatError) {
        var reader = ByteReader(bytes, part: .commit)
        guard let tree = try Self.id(&reader, after: Array("tree ".utf8)) else { throw reader.fail(.badLine) }
        var parents: [[UInt8]] = []
        while let parent = try Self.id(&reader, after: Array("parent ".utf8)) { parents.append(parent) }
        guard try Self.signature(&reader, Array("author ".utf8)) != nil else { throw reader.fail(.badLine) }
        // Further "author" lines (some programs write them) must parse too.
        while reader.matches("author ".utf8, at: reader.offset) {
            guard try Self.signature(&reader, Array("author ".utf8)) != nil else { throw reader.fail(.badLine) }
        }
        // The time that counts is the committer's.
        guard let time = try Self.signature(&reader, Array("committer ".utf8)) else { throw reader.fail(.badLine) }
        self.tree = tree
        self.parents = parents
        self.time = time
    }

    /// The id on a line `prefix` + 40 hex digits + newline; nil (the cursor unmoved) when the
    /// next line does not start with `prefix`.
    private static func id(_ reader: inout ByteReader, after prefix: [UInt8]) throws(FormatError) -> [UInt8]? {
        guard reader.matches(prefix, at: reader.offset) else { return nil }
        let at = reader.offset
        guard let line = reader.slice(at: at + prefix.count, count: 41), line[40] == 0x0A else { throw reader.fail(.badLine, at: at) }
        var raw = [UInt8](repeating: 0, count: 20)
        for k in 0..<20 {
            guard let high = hexValue(line[2 * k]), let low = hexValue(line[2 * k + 1]) else { throw reader.fail(.badLine, at: at) }
            raw[k] = high << 4 | low
        }
        try reader.skip(prefix.count + 41)
        return raw
    }

    /// A signature line `prefix` + "<name> <<email>>" [+ " <seconds>" [+ " …"]]: its time (0
    /// without one); nil (the cursor unmoved) when the next line does not start with `prefix`.
    private static func signature(_ reader: inout ByteReader, _ prefix: [UInt8]) throws(FormatError) -> Int64? {
        let at = reader.offset
        guard reader.matches(prefix, at: at), reader.remaining > prefix.count else { return nil }
        guard let end = reader.firstIndex(of: 0x0A, from: at + prefix.count) else { throw .truncated(.commit, at: at, needed: 1) }
        let line = at + prefix.count..<end
        guard let open = line.last(where: { reader.byte(at: $0) == 0x3C }), let close = line.last(where: { reader.byte(at: $0) == 0x3E }),
            close > open
        else { throw reader.fail(.badSignatureLine, at: at) }
        // After the e-mail: nothing, or a space and 1 to 18 digits, then the end or a space.
        var time: Int64 = 0
        var t = close + 1
        if t < end {
            guard reader.byte(at: t) == 0x20 else { throw reader.fail(.badSignatureLine, at: t) }
            t += 1
            let digits = t
            while t < end, let c = reader.byte(at: t), c >= 0x30, c <= 0x39 {
                time = time * 10 + Int64(c - 0x30)
                t += 1
                guard t - digits <= 18 else { throw reader.fail(.badSignatureLine, at: digits) }
            }
            guard t > digits, t == end || reader.byte(at: t) == 0x20 else { throw reader.fail(.badSignatureLine, at: t) }
        }
        try reader.seek(to: end + 1)
        return time
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x61...0x66: return c - 0x61 + 10
        case 0x41...0x46: return c - 0x41 + 10
        default: return nil
        }
    }
}

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
