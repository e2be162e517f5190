/// The header of a git bundle, version 2 (gitformat-bundle(5)): the line `# v2 git bundle`,
/// then prerequisite lines `-<id>[ <comment>]`, then reference lines `<id> <refname>`, then an
/// empty line, then a pack. The prerequisites are commits the reader must already have; the
/// pack holds every object reachable from the references and not from them (as deltas against
/// them when the pack is thin). Read with the limits below, so that a hostile header costs
/// bounded memory; refused when it is version 3 (capabilities) or anything else.
public struct BundleHeader: Equatable, Sendable {
    public struct Reference: Equatable, Sendable {
        /// The commit (or other object) the reference names, 20 bytes.
        public let id: [UInt8]
        /// Its name, as `refs/heads/main`.
        public let name: String

        public init(id: [UInt8], name: String) {
            self.id = id
            self.name = name
        }
    }

    /// The prerequisites' ids, 20 bytes each, in the order written.
    public let prerequisites: [[UInt8]]
    /// The references, at least one, in the order written.
    public let references: [Reference]
    /// Where the pack starts: the byte after the empty line.
    public let packOffset: Int

    /// Most prerequisite and reference lines together, and the longest line, this reads.
    public static let maxLines = 10_000
    public static let maxLineLength = 4_096

    static let signature = Array("# v2 git bundle\n".utf8)
    static let packSignature = Array("PACK".utf8)

    public init(prerequisites: [[UInt8]], references: [Reference], packOffset: Int) {
        self.prerequisites = prerequisites
        self.references = references
        self.packOffset = packOffset
    }

    /// The header at the start of `bytes`; the pack after it must at least start with its
    /// signature (the pack itself is left to its reader).
    public init(_ bytes: UnsafeRawBufferPointer) throws(FormatError) {
        var reader = ByteReader(bytes, part: .bundle)
        guard reader.consume(Self.signature) else {
            if reader.matches(Array("# v3 git bundle\n".utf8), at: 0) { throw .unsupportedVersion(.bundle, version: 3) }
            throw .badSignature(.bundle, at: 0)
        }
        var prerequisites: [[UInt8]] = []
        var references: [Reference] = []
        while true {
            let at = reader.offset
            let limit = min(reader.end, at + Self.maxLineLength)
            guard let newline = ByteReader(bytes, at: at, end: limit, part: .bundle).firstIndex(of: 0x0A, from: at) else {
                if limit < reader.end { throw reader.fail(.tooLarge, at: at) }
                throw FormatError.truncated(.bundle, at: reader.end, needed: 1)
            }
            try reader.seek(to: newline + 1)
            if newline == at { break }  // the empty line: the pack follows
            guard prerequisites.count + references.count < Self.maxLines else { throw reader.fail(.countTooLarge, at: at) }
            if reader.byte(at: at) == UInt8(ascii: "-") {
                // "-<id>" alone or followed by " <comment>"; the comment is not kept.
                guard let id = Self.id(reader, at: at + 1), at + 41 == newline || reader.byte(at: at + 41) == 0x20 else {
                    throw reader.fail(.badLine, at: at)
                }
                guard references.isEmpty else { throw reader.fail(.misplacedLine, at: at) }
                prerequisites.append(id)
            } else {
                guard let id = Self.id(reader, at: at), at + 41 < newline, reader.byte(at: at + 40) == 0x20 else {
                    throw reader.fail(.badLine, at: at)
                }
                let name = reader.clampedSlice((at + 41)..<newline)
                guard Self.isReferenceName(name) else { throw reader.fail(.badName, at: at + 41) }
                references.append(Reference(id: id, name: String(decoding: name, as: UTF8.self)))
            }
        }
        guard !references.isEmpty else { throw reader.fail(.badLine) }
        guard reader.matches(Self.packSignature, at: reader.offset) else { throw .badSignature(.pack, at: reader.offset) }
        self.prerequisites = prerequisites
        self.references = references
        self.packOffset = reader.offset
    }

    /// The header's bytes, as `git bundle create` writes them (no comments); the pack goes
    /// after them.
    public func encoded() -> [UInt8] {
        var out = Self.signature
        for id in prerequisites {
            out.append(UInt8(ascii: "-"))
            out += Self.hex(id)
            out.append(0x0A)
        }
        for reference in references {
            out += Self.hex(reference.id)
            out.append(0x20)
            out += Array(reference.name.utf8)
            out.append(0x0A)
        }
        out.append(0x0A)
        return out
    }

    /// The 20 bytes of the 40 hex digits at `at`; nil when they are not all there.
    private static func id(_ reader: ByteReader, at: Int) -> [UInt8]? {
        guard let digits = reader.slice(at: at, count: 40) else { return nil }
        var raw = [UInt8](repeating: 0, count: 20)
        for k in 0..<20 {
            // Within the slice's 40 bytes.
            guard let high = CommitHeader.hexValue(digits[2 * k]), let low = CommitHeader.hexValue(digits[2 * k + 1]) else { return nil }
            raw[k] = high << 4 | low
        }
        return raw
    }

    private static func hex(_ id: [UInt8]) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(id.count * 2)
        for byte in id {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return out
    }

    /// A name git's `check-ref-format` takes and this reads: `HEAD`, or `refs/` and parts of
    /// printable ASCII without space or `~^:?*[\`, none empty, none starting with `.` or
    /// ending with `.lock`, no `..` or `@{`, not ending with `/` or `.`.
    static func isReferenceName(_ name: Slice<UnsafeRawBufferPointer>) -> Bool {
        if name.elementsEqual("HEAD".utf8) { return true }
        guard name.starts(with: "refs/".utf8), name.last != UInt8(ascii: "."), name.last != UInt8(ascii: "/") else { return false }
        var previous: UInt8 = 0
        var partStart = true
        for c in name {
            switch c {
            case 0x00...0x20, 0x7F...0xFF: return false
            case UInt8(ascii: "~"), UInt8(ascii: "^"), UInt8(ascii: ":"), UInt8(ascii: "?"), UInt8(ascii: "*"), UInt8(ascii: "["),
                UInt8(ascii: "\\"):
                return false
            case UInt8(ascii: "/"):
                if partStart { return false }  // an empty part
                partStart = true
            case UInt8(ascii: "."):
                if partStart || previous == UInt8(ascii: ".") { return false }
                partStart = false
            case UInt8(ascii: "{"):
                if previous == UInt8(ascii: "@") { return false }
                partStart = false
            default:
                partStart = false
            }
            previous = c
        }
        let lock = Array(".lock".utf8)
        return !name.split(separator: UInt8(ascii: "/")).contains { $0.reversed().starts(with: lock.reversed()) }
    }
}
