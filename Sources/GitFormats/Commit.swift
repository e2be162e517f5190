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
        guard let tree = try Self.id(&reader, after: Self.treeLine) else { throw reader.fail(.badLine) }
        var parents: [[UInt8]] = []
        while let parent = try Self.id(&reader, after: Self.parentLine) { parents.append(parent) }
        guard try Self.signature(&reader, Self.authorLine) != nil else { throw reader.fail(.badLine) }
        // Further "author" lines (some programs write them) must parse too.
        while reader.matches(Self.authorLine, at: reader.offset) {
            guard try Self.signature(&reader, Self.authorLine) != nil else { throw reader.fail(.badLine) }
        }
        // The time that counts is the committer's.
        guard let time = try Self.signature(&reader, Self.committerLine) else { throw reader.fail(.badLine) }
        self.tree = tree
        self.parents = parents
        self.time = time
    }

    private static let treeLine = Array("tree ".utf8)
    private static let parentLine = Array("parent ".utf8)
    private static let authorLine = Array("author ".utf8)
    private static let committerLine = Array("committer ".utf8)

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
                // Checked before the digit is added: 19 digits could overflow.
                guard t - digits < 18 else { throw reader.fail(.badSignatureLine, at: digits) }
                time = time * 10 + Int64(c - 0x30)
                t += 1
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
