import TestKit
import Testing

@testable import TodoCore

@Suite(.timeLimit(.minutes(20)), .kit) struct JSONTests {
    @Test func parsesAndWritesCanonically() throws {
        let v = try JSONParser.parse(#"{"b": [1, 2.5e3, "x"], "a": {"n": null, "t": true}}"#)
        let text = String(decoding: JSONWriter.document(v), as: UTF8.self)
        #expect(text == "{\n  \"b\": [1, 2.5e3, \"x\"],\n  \"a\": {\n    \"n\": null,\n    \"t\": true\n  }\n}\n")
        #expect(try JSONParser.parse(text) == v)
    }

    @Test(arguments: [
        "", "{", "{\"a\":1,}", "[1 2]", "{\"a\":1}x", "\"\u{01}\"", "{\"a\":1,\"a\":2}", "01", "-", "1.", "\"\\ud800\"",
        "tru", "\"\\q\"",
    ])
    func rejectsBadJSON(_ text: String) {
        #expect(throws: JSONError.self) { try JSONParser.parse(text) }
    }

    @Test func rejectsInvalidUTF8AndDeepNesting() {
        #expect(throws: JSONError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONError.self) { try JSONParser.parse(deep) }
    }

    @Test func escapesControlCharactersWhenWriting() throws {
        let s = "a\u{1B}[31m\n\u{7F}\u{9B}\u{2028}\"\\"
        let bytes = JSONWriter.document(.string(s))
        #expect(!bytes.contains(0x1B) && !bytes.contains(0x7F))
        #expect(String(decoding: bytes, as: UTF8.self) == "\"a\\u001b[31m\\n\\u007f\\u009b\\u2028\\\"\\\\\"\n")
        #expect(try JSONParser.parse(bytes) == .string(s))
    }

    @Test func decodesEscapesAndSurrogates() throws {
        #expect(try JSONParser.parse(#""\u00e9\ud83d\ude00\/\t""#) == .string("é😀/\t"))
    }
}

@Suite(.timeLimit(.minutes(20)), .kit) struct StampTests {
    @Test func ordersByWallThenCounterThenReplica() {
        let a = Stamp(wall: 5, counter: 0, replica: "ff")
        let b = Stamp(wall: 5, counter: 1, replica: "00")
        let c = Stamp(wall: 6, counter: 0, replica: "00")
        #expect(a < b && b < c)
        #expect(Stamp(wall: 5, counter: 1, replica: "01") > b)
    }

    @Test func nextIsAfterEverythingSeenEvenWhenTheClockIsBehind() {
        let seen = Stamp(wall: 1_763_818_282_123, counter: 3, replica: "aa")
        let slow = Stamp.next(now: 1_763_818_000_000, after: seen, replica: "bb")
        #expect(slow > seen)
        #expect(slow.wall == seen.wall && slow.counter == 4)
        let fast = Stamp.next(now: 1_763_818_300_000, after: seen, replica: "bb")
        #expect(fast == Stamp(wall: 1_763_818_300_000, counter: 0, replica: "bb"))
    }

    @Test func roundTripsItsTextForm() {
        let f = FieldStamp(Stamp(wall: 1763818282123, counter: 2, replica: "a1b2"), by: "Ann Lee")
        #expect(f.description == "1763818282123.2.a1b2 Ann Lee")
        #expect(FieldStamp(f.description) == f)
        #expect(FieldStamp("1.2.XYZ a") == nil)
        #expect(FieldStamp("x.2.ab") == nil)
        #expect(FieldStamp("1.2") == nil)
    }
}

@Suite(.timeLimit(.minutes(20)), .kit) struct DateTests {
    let today = CivilDate(year: 2026, month: 11, day: 22)!  // a Sunday

    @Test func civilDateArithmetic() {
        #expect(today.weekday == 0)
        #expect(CivilDate(daysSinceEpoch: 0).description == "1970-01-01")
        #expect(CivilDate(daysSinceEpoch: today.daysSinceEpoch) == today)
        #expect(CivilDate(year: 2024, month: 2, day: 29) != nil)
        #expect(CivilDate(year: 2025, month: 2, day: 29) == nil)
    }

    @Test(arguments: [
        ("today", "2026-11-22"), ("tomorrow", "2026-11-23"), ("monday", "2026-11-23"), ("sun", "2026-11-29"),
        ("Friday", "2026-11-27"), ("+3d", "2026-11-25"), ("+2w", "2026-12-06"), ("2027-01-05", "2027-01-05"),
        ("friday 18:00", "2026-11-27T18:00"), ("2026-12-01T09:30", "2026-12-01T09:30"), ("today 7:05", "2026-11-22T07:05"),
    ])
    func parsesWhatPeopleType(_ input: String, _ expected: String) throws {
        #expect(try Due.parse(input, today: today).description == expected)
    }

    @Test(arguments: ["", "yestreday", "2026-13-01", "2026-02-30", "+3x", "+d", "friday 25:00", "12/01/2026", "today 18"])
    func rejectsNonsense(_ input: String) {
        #expect(throws: DateInputError.self) { try Due.parse(input, today: today) }
    }

    @Test func storedFormRoundTrips() {
        #expect(Due(stored: "2026-11-27T18:00")?.description == "2026-11-27T18:00")
        #expect(Due(stored: "2026-11-27 18:00") == nil)
        #expect(Due(stored: "2026-11-27T24:00") == nil)
    }
}

@Suite(.timeLimit(.minutes(20)), .kit) struct TaskCodecTests {
    static let id = TaskID("3f2a9c0e5b7d41f8a6c2e9b04d1f7a35")!

    static func sample() -> Task {
        var t = Task(id: id, title: "Buy milk", createdAt: "2026-11-22T13:31:22.123Z", createdBy: "Alice")
        let s = FieldStamp(Stamp(wall: 1763818282123, counter: 0, replica: "a1b2c3d4e5f60718"), by: "Alice")
        for f in Task.stampedFields { t.stamps[f] = s }
        t.setTag("groceries", present: true, stamp: s)
        t.setTag("old", present: false, stamp: s)
        t.due = Due(stored: "2026-11-23")
        return t
    }

    @Test func encodesInTheDocumentedOrder() {
        let text = String(decoding: TaskCodec.encode(Self.sample()), as: UTF8.self)
        let keys = text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  \""), !line.hasPrefix("    ") else { return nil }
            return String(line.dropFirst(3).prefix { $0 != "\"" })
        }
        #expect(keys == Task.fieldOrder + ["stamps", "tagStamps"])
        #expect(text.hasSuffix("}\n"))
        #expect(text.contains("\n  \"tags\": [\"groceries\"],\n"))
        #expect(text.contains("\"old\": \"-1763818282123.0.a1b2c3d4e5f60718 Alice\""))
    }

    @Test func roundTripsAndKeepsUnknownFields() throws {
        var bytes = TaskCodec.encode(Self.sample())
        // A field from a newer version, placed anywhere, survives a rewrite.
        let text = String(decoding: bytes, as: UTF8.self).replacingFirst(
            "\"deleted\": false,", with: "\"deleted\": false,\n  \"zeta\": {\"x\": [1, 2]},\n  \"alpha\": 1.50,")
        bytes = Array(text.utf8)
        let task = try TaskCodec.decode(bytes, expectedID: Self.id)
        #expect(task.extra["zeta"] == .object([("x", .array([.number("1"), .number("2")]))]))
        let again = TaskCodec.encode(task)
        #expect(try TaskCodec.decode(again) == task)
        let out = String(decoding: again, as: UTF8.self)
        #expect(out.contains("\"deleted\": false,\n  \"alpha\": 1.50,\n  \"zeta\": {"))
    }

    @Test func sameStateSameBytes() throws {
        let a = TaskCodec.encode(Self.sample())
        let b = TaskCodec.encode(try TaskCodec.decode(a))
        #expect(a == b)
    }

    @Test(arguments: [
        "[]", "{}", #"{"id": "xyz", "title": "a"}"#, #"{"id": "3f2a9c0e5b7d41f8a6c2e9b04d1f7a35"}"#,
        #"{"id": "3f2a9c0e5b7d41f8a6c2e9b04d1f7a35", "title": "a", "status": "maybe"}"#,
        #"{"id": "3f2a9c0e5b7d41f8a6c2e9b04d1f7a35", "title": "a", "due": "soon"}"#,
        #"{"id": "3f2a9c0e5b7d41f8a6c2e9b04d1f7a35", "title": "a", "tags": "x"}"#,
        #"{"id": "3f2a9c0e5b7d41f8a6c2e9b04d1f7a35", "title": "a", "stamps": {"title": "bad"}}"#,
        #"{"id": "3f2a9c0e5b7d41f8a6c2e9b04d1f7a35", "title": "a", "deleted": "no"}"#,
    ])
    func rejectsMalformedFiles(_ text: String) {
        #expect(throws: TaskFormatError.self) { try TaskCodec.decode(Array(text.utf8)) }
    }

    @Test func rejectsAMismatchedIDAndOversizedFiles() {
        let other = TaskID("00000000000000000000000000000000")!
        #expect(throws: TaskFormatError.self) { try TaskCodec.decode(TaskCodec.encode(Self.sample()), expectedID: other) }
        #expect(throws: TaskFormatError.self) { try TaskCodec.decode([UInt8](repeating: 0x20, count: (1 << 20) + 1)) }
    }

    @Test func handEditedTagListWins() throws {
        let text = String(decoding: TaskCodec.encode(Self.sample()), as: UTF8.self)
            .replacingFirst("\"tags\": [\"groceries\"]", with: "\"tags\": [\"new\"]")
        let task = try TaskCodec.decode(Array(text.utf8))
        #expect(task.tags == ["new"])
    }
}

@Suite(.timeLimit(.minutes(20)), .kit) struct ShortIDTests {
    @Test func atLeastFourAndUnique() {
        let ids = ["aaaa1111", "aaaa2222", "abcd0000", "b0000000"]
        #expect(ShortIDs.compute(ids) == ["aaaa1", "aaaa2", "abcd", "b000"])
    }

    /// The lengths `list` uses give the same prefixes as the string form, for ids that share
    /// long prefixes (across the 64-bit halves too) and for random ones.
    @Test func lengthsAgreeWithThePrefixes() {
        var rng = SplitMix64(seed: 2026_11_23)
        var ids = (0..<2_000).map { _ in TaskID.random(using: &rng) }
        let base = ids[0].hex
        for cut in [4, 15, 16, 17, 31] {
            let digit: Character = base[base.index(base.startIndex, offsetBy: cut)] == "0" ? "1" : "0"
            ids.append(TaskID(String(base.prefix(cut)) + String(digit) + String(base.dropFirst(cut + 1)))!)
        }
        let byHex = ShortIDs.map(ids.map(\.hex))
        let lengths = ShortIDs.lengths(ids)
        for (id, length) in zip(ids, lengths) {
            #expect(String(id.hex.prefix(length)) == byHex[id.hex], "\(id)")
        }
    }

    /// An id's number and its hex agree: the same id from either, the order of the hex, one
    /// hash for equal ids; anything but 32 lowercase hex digits is no id.
    @Test func idsCompareAndHashAsTheirHex() {
        var rng = SplitMix64(seed: 2026_11_24)
        let ids = (0..<500).map { _ in TaskID.random(using: &rng) } + [TaskID(high: 0, low: .max), TaskID(high: .max, low: 0)]
        for id in ids {
            #expect(id.hex.utf8.count == 32 && id.hex.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
            #expect(TaskID(id.hex) == id && TaskID(high: id.high, low: id.low).hex == id.hex)
            #expect(Set([id, TaskID(id.hex)!]).count == 1)
        }
        for (a, b) in zip(ids, ids.dropFirst()) {
            #expect((a < b) == (a.hex < b.hex) && (b < a) == (b.hex < a.hex), "\(a) \(b)")
        }
        for bad in ["", "3f2a", String(repeating: "A", count: 32), String(repeating: "0", count: 31) + "g",
                    String(repeating: "0", count: 33), String(repeating: "0", count: 31) + "é"] {
            #expect(TaskID(bad) == nil, "\(bad)")
        }
    }
}

@Suite(.timeLimit(.minutes(20)), .kit) struct ImportTests {
    @Test func readsTaskwarriorExport() throws {
        let json = #"""
            [{"uuid":"7c3e3c8b-1b2a-4c5d-9e8f-0a1b2c3d4e5f","description":"Fix the fence","status":"completed",
              "entry":"20261101T100000Z","due":"20261130T230000Z","tags":["garden"],"priority":"H","project":"home",
              "annotations":[{"entry":"20261101T100000Z","description":"use nails"}]}]
            """#
        let tasks = try TaskImport.parse(Array(json.utf8), offsetMinutes: 60)
        #expect(tasks.count == 1)
        let t = tasks[0]
        #expect(t.id?.hex == "7c3e3c8b1b2a4c5d9e8f0a1b2c3d4e5f")
        #expect(t.title == "Fix the fence" && t.status == .done && t.priority == .high)
        #expect(t.due?.description == "2026-12-01")
        #expect(t.tags == ["garden", "project:home"])
        #expect(t.notes == "use nails")
        #expect(t.createdAt == "2026-11-01T10:00:00.000Z")
    }

    @Test func readsOwnListOutputAndJSONLines() throws {
        let lines = #"""
            {"id": "3f2a9c0e5b7d41f8a6c2e9b04d1f7a35", "title": "A", "status": "open", "tags": ["x"], "due": "2026-11-23"}
            {"title": "B", "priority": "low"}
            """#
        let tasks = try TaskImport.parse(Array(lines.utf8))
        #expect(tasks.map(\.title) == ["A", "B"])
        #expect(tasks[1].priority == .low && tasks[1].id == nil)
    }

    @Test func namesTheBadTask() {
        #expect(throws: ImportError(index: 1, .emptyTitle)) {
            try TaskImport.parse(Array(#"[{"title": "ok"}, {"title": " "}]"#.utf8))
        }
    }
}

extension String {
    /// Replaces the first occurrence of `a` (test helper; no Foundation).
    func replacingFirst(_ a: String, with b: String) -> String {
        let s = Array(utf8)
        let p = Array(a.utf8)
        guard !p.isEmpty, s.count >= p.count else { return self }
        for i in 0...(s.count - p.count) where Array(s[i..<(i + p.count)]) == p {
            return String(decoding: s[..<i] + Array(b.utf8) + s[(i + p.count)...], as: UTF8.self)
        }
        return self
    }
}
