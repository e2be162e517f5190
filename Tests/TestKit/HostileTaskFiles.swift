/// Task files as a broken or malicious replica might write them: mostly the documented shape,
/// with hostile values in some fields (extreme numbers, huge strings, deep nesting, every wrong
/// type, stamps and dates out of range), and sometimes damage to the text itself (duplicate
/// keys, invalid UTF-8, cut or flipped bytes). Built as bytes, without the codec under test.
public struct HostileTaskFiles {
    public var rng: SplitMix64

    public init(rng: SplitMix64) { self.rng = rng }

    static let fields = ["title", "status", "notes", "assignee", "due", "priority", "deleted", "createdAt", "createdBy"]

    /// One file for task `id`, hostile in `percent` of its values.
    public mutating func file(id: String, percent: Int = 25) -> [UInt8] {
        var members: [(String, String)] = []
        /// Whether this value is a hostile one.
        func hostile() -> Bool { rng.chance(percent) }
        members.append(("id", hostile() && rng.chance(20) ? value() : quote(id)))
        for field in Self.fields where !hostile() || rng.chance(50) {
            members.append((field, hostile() ? value() : valid(field)))
        }
        var tags: [String] = []
        for _ in 0..<rng.int(4) {
            let tag = hostile() ? text() : rng.pick(["shop", "urgent", "x y", "é"])
            // A repeated tag repeats a key of `tagStamps`, which makes any file unreadable.
            if !tags.contains(tag) || hostile() { tags.append(tag) }
        }
        members.append(("tags", hostile() ? value() : "[" + tags.map(quote).joined(separator: ", ") + "]"))
        // Fields a newer version might add: any value is allowed there.
        if rng.chance(30) { members.append((rng.pick(["zone", "color", "recurrence", ""]), value())) }
        var stamps: [(String, String)] = []
        for field in Self.fields + ["zone"] where rng.chance(80) {
            stamps.append((field, hostile() ? (rng.chance(70) ? quote(stampText()) : value()) : quote(validStamp())))
        }
        members.append(("stamps", hostile() && rng.chance(10) ? value() : object(stamps)))
        var tagStamps: [(String, String)] = []
        for tag in tags where rng.chance(80) {
            let sign = hostile() && rng.chance(20) ? rng.pick(["", "*", "++"]) : rng.pick(["+", "-"])
            tagStamps.append((tag, quote(sign + (hostile() ? stampText() : validStamp()))))
        }
        members.append(("tagStamps", hostile() && rng.chance(10) ? value() : object(tagStamps)))
        if rng.chance(25) {
            let entries = (0..<(1 + rng.int(3))).map { _ in conflictEntry(id: id, percent: percent) }
            members.append(("conflicts", hostile() && rng.chance(10) ? value() : "[" + entries.joined(separator: ", ") + "]"))
        }
        if rng.chance(10) { members.shuffle(using: &rng) }
        var bytes = Array(object(members).utf8)
        if hostile() && rng.chance(30) { damage(&bytes) }
        return bytes
    }

    /// A readable file for task `id` (a base for merges).
    public mutating func validFile(id: String) -> [UInt8] {
        var members: [(String, String)] = [("id", quote(id))]
        for field in Self.fields { members.append((field, valid(field))) }
        members.append(("tags", "[\"shop\"]"))
        members.append(("stamps", object(Self.fields.map { ($0, quote(validStamp())) })))
        members.append(("tagStamps", object([("shop", quote("+" + validStamp()))])))
        return Array(object(members).utf8)
    }

    // MARK: Values

    mutating func valid(_ field: String) -> String {
        switch field {
        case "status": return quote(rng.pick(["open", "done"]))
        case "priority": return quote(rng.pick(["low", "normal", "high"]))
        case "deleted": return rng.pick(["true", "false"])
        case "assignee": return rng.chance(30) ? "null" : quote(rng.pick(["Ann", "Ben", ""]))
        case "due": return rng.chance(30) ? "null" : quote(rng.pick(Self.dates))
        case "createdAt": return quote(rng.pick(["2026-11-22T10:00:00.000Z", "9999-12-31T23:59:59.999Z", "2000-01-01T00:00:00.000Z"]))
        default: return quote(rng.pick(["Buy milk", "Walk the dog", "", "Ann"]))
        }
    }

    static let dates = [
        "2026-11-23", "2026-11-23T18:00", "9999-12-31", "9999-12-31T23:59", "0001-01-01", "0001-01-01T00:00", "2024-02-29",
        "1970-01-01", "2025-11-20T09:00",
    ]

    /// Any JSON value, mostly of a kind the field does not expect.
    mutating func value(depth: Int = 0) -> String {
        switch rng.int(14) {
        case 0: return rng.pick(Self.numbers)
        case 1: return rng.pick(["true", "false", "null"])
        case 2: return quote(text())
        case 3: return quote(stampText())
        case 4: return quote(rng.pick(Self.badDates + Self.dates))
        case 5: return nested(depth: 1 + rng.int(70))
        case 6: return depth > 3 ? "[]" : "[" + (0..<rng.int(4)).map { _ in value(depth: depth + 1) }.joined(separator: ", ") + "]"
        case 7: return depth > 3 ? "{}" : object((0..<rng.int(4)).map { _ in (text(), value(depth: depth + 1)) })
        case 8: return quote(hugeText())
        case 9: return quote(rng.pick(["open", "done", "low", "normal", "high", "OPEN", " open"]))
        default: return rng.pick(["\"\"", "0", "[]", "{}", "\"x\""])
        }
    }

    static let numbers = [
        "0", "-0", "1", "-1", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
        "1e999999", "-1e-999999", "1.5", "253402300799999", "253402300800000", "4294967296", "1E+2", "0.0000001",
        String(repeating: "9", count: 400),
    ]

    static let badDates = [
        "2026-02-30", "2026-13-01", "0000-01-01", "10000-01-01", "2026-11-23T24:00", "2026-11-23T23:60", "2026-1-1",
        "2026-11-23T18:00Z", "+2026-11-23", "２０２６-11-23", "2026-11-23 18:00", "",
    ]

    /// Short text with what terminals and parsers trip on: control and bidi characters (as JSON
    /// escapes), lone surrogates, wide characters, escaped quotes. No decomposed forms: Swift
    /// compares strings by canonical equivalence, so a tag written "é" by one replica and "e" +
    /// U+0301 by another is one dictionary key whose bytes depend on the order of the merge's
    /// sides; the merge does not tell them apart yet.
    mutating func text() -> String {
        let pieces = [
            "a", "Ä", "\\u0000", "\\u001b[31m", "\\u202e", "\\u2066", "\\ud800", "\\udc00x", "\\ud83d\\ude00", "😀",
"漢字", "\\\"", "\\\\", "\\n", "\\t", "\\u0085", "\\u009b", " ", "\\/",
        ]
        return (0..<rng.int(6)).map { _ in rng.pick(pieces) }.joined()
    }

    /// Rarely just over the 1 MiB a file may have, sometimes tens of KiB, mostly a few hundred
    /// bytes (escapes only in short ones: the long ones cost the parser time, not coverage).
    mutating func hugeText() -> String {
        if rng.chance(1) { return Self.long("x", (1 << 20) + rng.int(1 << 10)) }
        if rng.chance(3) { return Self.long(rng.pick(["x", "é", "漢"]), 10_000 + rng.int(20_000)) }
        return Self.long(rng.pick(["x", "é", "\\u0001", "\\u202e"]), 100 + rng.int(300))
    }

    /// Long runs made once and cut to size (a debug build repeats a string slowly).
    static let runs: [String: String] = Dictionary(
        uniqueKeysWithValues: ["x", "é", "漢", "\\u0001", "\\u202e"].map { ($0, String(repeating: $0, count: (1 << 20) + (1 << 10))) })

    /// `count` repetitions of `piece`.
    static func long(_ piece: String, _ count: Int) -> String {
        guard let run = runs[piece] else { return piece }
        return String(decoding: run.utf8.prefix(count * piece.utf8.count), as: UTF8.self)
    }

    mutating func nested(depth: Int) -> String {
        let open = rng.chance(50)
        return String(repeating: open ? "[" : "{\"a\": ", count: depth) + "1" + String(repeating: open ? "]" : "}", count: depth)
    }

    // MARK: Stamps

    /// A stamp a file may carry: mostly of today, sometimes at the ends of the range.
    public mutating func validStamp() -> String {
        if rng.chance(10) {
            let wall = rng.pick(["946684800000", "253402300799999", "253402300799998"])
            return "\(wall).\(rng.pick(["0", "4294967295"])).\(rng.pick(["ff", "0"])) \(rng.pick(["Ann", ""]))"
        }
        return "\(1_763_818_282_123 + Int64(rng.int(100_000))).\(rng.int(3)).\(rng.pick(["a1b2c3d4e5f60718", "9e8d7c6b5a493827", "0"])) \(rng.pick(["Ann", "Ben", "", "Ann Lee"]))"
    }

    /// A stamp text at, near or past the ends of what a file may carry, or not a stamp at all.
    mutating func stampText() -> String {
        let walls = [
            "946684800000", "946684799999", "253402300799999", "253402300800000", "9223372036854775807",
            "9223372036854775808", "0", "-1", "1763818282123", "01763818282123", "+1763818282123", "", "1e12",
            String(repeating: "9", count: 30),
        ]
        let counters = ["0", "1", "4294967295", "4294967296", "-1", "", "00", "18446744073709551615"]
        let replicas = ["a1b2c3d4e5f60718", "ffffffffffffffffffffffffffffffff", "fffffffffffffffffffffffffffffffff", "", "A1", "a1.b2", "0"]
        let members = ["", " Ann", " Ann Lee", " ", " \\u001b]0;x\\u0007", " " + String(repeating: "m", count: 300)]
        if rng.chance(10) { return text() }
        let parts = [rng.pick(walls), rng.pick(counters), rng.pick(replicas)]
        return parts.prefix(rng.chance(90) ? 3 : rng.int(3)).joined(separator: ".") + (rng.chance(80) ? rng.pick(members) : "")
    }

    /// A conflict-log entry; `percent` of its parts hostile. (The log's entries are kept as
    /// they are when a file is read; an entry that does not read is left out of `todo conflicts`.)
    mutating func conflictEntry(id: String, percent: Int) -> String {
        func version() -> String {
            object([
                ("value", rng.chance(percent) ? value() : quote(rng.pick(["Buy milk", ""]))),
                (
                    "stamp",
                    rng.chance(percent)
                        ? (rng.chance(70) ? quote(stampText()) : rng.pick(["null", "5", "{}"]))
                        : quote(rng.chance(90) ? String(validStamp().prefix { $0 != " " }) : rng.pick(["253402300799999.4294967295.ff", "946684800000.0.0"]))
                ),
                ("member", rng.chance(percent) ? value() : quote(rng.pick(["Ann", "Ben", ""]))),
            ])
        }
        var members: [(String, String)] = [
            ("id", rng.chance(percent) ? value() : quote(String(repeating: rng.pick(["a", "0", "f"]), count: 16))),
            ("kind", quote(rng.chance(percent) ? rng.pick(["other", ""]) : rng.pick(["field", "tag", "deleted-edit", "invalid-file", "modify-delete"]))),
            ("task", rng.chance(percent) ? value() : quote(id)),
            ("title", rng.chance(percent) ? value() : quote("Buy milk")),
            ("field", quote(rng.pick(["title", "tag:shop", "tag:", "file", "due", "notes", ""]))),
            ("kept", version()),
            ("lost", version()),
        ]
        if rng.chance(percent) { members.removeLast(rng.int(members.count)) }
        return object(members)
    }

    // MARK: Damage to the text

    mutating func damage(_ bytes: inout [UInt8]) {
        guard !bytes.isEmpty else { return }
        switch rng.int(7) {
        case 0:
            // A duplicate key: the second member of the object again.
            if let comma = bytes.firstIndex(of: UInt8(ascii: ",")) {
                let key = Array(", \"title\": \"again\"".utf8)
                bytes.insert(contentsOf: key, at: comma)
            }
        case 1:
            // A byte that is not UTF-8, or a cut multi-byte sequence, inside a string.
            if let quote = bytes.lastIndex(of: UInt8(ascii: "\"")) {
                bytes.insert(contentsOf: rng.pick([[0xFF], [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xC0, 0x80]]), at: quote)
            }
        case 2: bytes.removeLast(1 + rng.int(min(bytes.count, 40)))
        case 3:
            for _ in 0..<(1 + rng.int(4)) { bytes[rng.int(bytes.count)] = UInt8(truncatingIfNeeded: rng.next()) }
        case 4: bytes = Array("[".utf8) + bytes + Array("]".utf8)
        case 5: bytes += Array(rng.pick([" x", "{}", "\n\n", "\u{0}"]).utf8)
        default: bytes = Array("\u{FEFF}".utf8) + bytes
        }
    }

    // MARK: JSON text

    /// A JSON string of `s`, which is already JSON string text: every piece above is a plain
    /// character or a complete escape.
    func quote(_ s: String) -> String { "\"" + s + "\"" }

    func object(_ members: [(String, String)]) -> String {
        "{\n" + members.map { "  " + quote($0.0) + ": " + $0.1 }.joined(separator: ",\n") + "\n}\n"
    }
}
