import Testing

@testable import TodoCore

@Suite(.timeLimit(.minutes(20)), .kit) struct MergeUnitTests {
    static let id = TaskVersionGenerator.id
    static let path = "tasks/3f/3f2a9c0e5b7d41e8a6c2d9f0b1e4c7a5.json"

    /// A wall time in the range a file may carry; the tests' small times count from it.
    static let t0: Int64 = 1_763_800_000_000

    static func stamp(_ wall: Int64, _ member: String = "Ana", counter: UInt32 = 0) -> FieldStamp {
        FieldStamp(Stamp(wall: wall, counter: counter, replica: member == "Ana" ? "a1" : "b2"), by: member)
    }

    static func task(at wall: Int64 = t0 + 1000) -> Task {
        var t = Task(id: id, title: "Buy milk", createdAt: "2026-11-22T10:00:00.000Z", createdBy: "Ana")
        for field in Task.stampedFields { t.stamps[field] = stamp(wall) }
        return t
    }

    static func merge(_ base: Task?, _ a: Task?, _ b: Task?) -> MergeOutcome {
        TaskMerge.merge(
            base: base.map(TaskCodec.encode), ours: a.map(TaskCodec.encode), theirs: b.map(TaskCodec.encode), path: path)
    }

    @Test func entryRoundTripsThroughJSON() throws {
        let entry = ConflictEntry(
            kind: .deletedEdit, task: Self.id, title: "Buy milk", field: "tag:shop",
            kept: .init(value: .bool(true), stamp: Self.stamp(Self.t0 + 5)), lost: .init(value: .bool(true), stamp: nil))
        let json = entry.json
        guard case .object(let members) = json else { throw Failure("not an object") }
        #expect(members.map(\.0) == ConflictEntry.keyOrder)
        #expect(try ConflictEntry(json: json) == entry)
        #expect(try ConflictEntry(json: try JSONParser.parse(JSONWriter.document(json))) == entry)
        #expect(entry.id.utf8.count == 16 && entry.id.utf8.allSatisfy(isLowerHex))
    }

    @Test func entryIDIgnoresTheTitleOnly() {
        let kept = ConflictEntry.Version(value: .string("a"), stamp: Self.stamp(Self.t0 + 2))
        let lost = ConflictEntry.Version(value: .string("b"), stamp: Self.stamp(Self.t0 + 1, "Ben"))
        let e = ConflictEntry(kind: .field, task: Self.id, title: "One", field: "title", kept: kept, lost: lost)
        #expect(e.id == ConflictEntry(kind: .field, task: Self.id, title: "Two", field: "title", kept: kept, lost: lost).id)
        #expect(e.id != ConflictEntry(kind: .field, task: Self.id, title: "One", field: "notes", kept: kept, lost: lost).id)
        #expect(e.id != ConflictEntry(kind: .field, task: Self.id, title: "One", field: "title", kept: lost, lost: kept).id)
    }

    @Test func hashAndBase64MatchPublishedVectors() {
        #expect(fnv1a64(Array("".utf8)) == 0xcbf2_9ce4_8422_2325)
        #expect(fnv1a64(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
        #expect(fnv1a64(Array("foobar".utf8)) == 0x8594_4171_f739_67e8)
        for (plain, encoded) in [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foobar", "Zm9vYmFy")] {
            #expect(base64Encoded(Array(plain.utf8)) == encoded)
        }
    }

    @Test func futureStampsAreThoseMoreThanADayAhead() {
        let now: Int64 = 1_763_818_282_123
        var t = Self.task(at: now)
        t.stamps["title"] = Self.stamp(now + TaskMerge.futureTolerance)
        t.stamps["notes"] = Self.stamp(now + TaskMerge.futureTolerance + 1)
        t.setTag("shop", present: true, stamp: Self.stamp(now + 2 * TaskMerge.futureTolerance, "Ben"))
        #expect(
            TaskMerge.futureStamps(in: t, now: now)
                == [Self.stamp(now + TaskMerge.futureTolerance + 1), Self.stamp(now + 2 * TaskMerge.futureTolerance, "Ben")])
        #expect(TaskMerge.futureStamps(in: t, now: now + TaskMerge.futureTolerance).isEmpty)
        #expect(TaskMerge.futureStamps(in: t, now: Int64.max).isEmpty)
    }

    @Test func identicalStampsAreSettledByTheValueBothWaysRound() throws {
        let base = Self.task()
        var a = base
        var b = base
        try a.write("title", .string("Zebra"), stamp: Self.stamp(Self.t0 + 2000))
        try b.write("title", .string("Apple"), stamp: Self.stamp(Self.t0 + 2000))
        for outcome in [Self.merge(base, a, b), Self.merge(base, b, a)] {
            guard case .merged(let bytes, let entries, _) = outcome else { throw Failure("merge failed") }
            #expect(try TaskCodec.decode(bytes).title == "Apple")
            #expect(entries.map(\.lost.value) == [.string("Zebra")])
        }
    }

    @Test func restoringATombstoneBringsBackTheConcurrentEdit() throws {
        let base = Self.task()
        var a = base
        var b = base
        try a.write("deleted", .bool(true), stamp: Self.stamp(Self.t0 + 2000))
        try b.write("notes", .string("2 litres"), stamp: Self.stamp(Self.t0 + 3000, "Ben"))
        guard case .merged(let bytes, let entries, _) = Self.merge(base, a, b) else { throw Failure("merge failed") }
        var merged = try TaskCodec.decode(bytes)
        #expect(merged.deleted && merged.notes == "2 litres")
        #expect(entries.map(\.kind) == [.deletedEdit] && entries.map(\.lost.value) == [.string("2 litres")])
        try merged.write("deleted", .bool(false), stamp: Self.stamp(Self.t0 + 4000))
        guard case .merged(let after, let more, _) = Self.merge(try TaskCodec.decode(bytes), merged, a) else {
            throw Failure("merge failed")
        }
        let restored = try TaskCodec.decode(after)
        #expect(!restored.deleted && restored.notes == "2 litres" && more.isEmpty)
    }

    @Test func unreadableBytesAreStoredAsBase64AndCut() throws {
        let valid = TaskCodec.encode(Self.task())
        let binary: [UInt8] = [0xFF, 0x00, 0x41] + Array(repeating: 0x41, count: TaskMerge.maxStoredInvalidBytes * 2)
        guard case .merged(let bytes, let entries, let warnings) = TaskMerge.merge(base: nil, ours: binary, theirs: valid, path: Self.path)
        else { throw Failure("merge failed") }
        #expect(warnings.map(\.input) == [.ours] && warnings.map(\.path) == [Self.path])
        let entry = try #require(entries.first)
        #expect(entry.kind == .invalidFile && entry.field == "file")
        #expect(entry.lost.value["encoding"] == .string("base64"))
        #expect(entry.lost.value["size"] == .number(String(binary.count)))
        #expect(entry.lost.value["data"]?.stringValue?.utf8.count == (TaskMerge.maxStoredInvalidBytes + 2) / 3 * 4)
        #expect(bytes.count <= TaskCodec.maxFileSize)
    }

    @Test func unreadableTextIsCutOnACharacterBoundary() throws {
        let text = "{\"title\": \"" + String(repeating: "é", count: TaskMerge.maxStoredInvalidBytes)
        let stored = TaskMerge.storedFile(Array(text.utf8))
        #expect(stored["encoding"] == .string("utf8"))
        let data = try #require(stored["data"]?.stringValue)
        #expect(data.utf8.count <= TaskMerge.maxStoredInvalidBytes && data.utf8.count >= TaskMerge.maxStoredInvalidBytes - 1)
        #expect(text.hasPrefix(data))
    }

    @Test func mergesWithoutAReadableSideFail() {
        let other = TaskCodec.encode({
            var t = Self.task()
            t.id = TaskVersionGenerator.otherID
            return t
        }())
        let garbage = Array("{".utf8)
        let cases: [([UInt8]?, [UInt8]?)] = [(nil, nil), (nil, garbage), (garbage, garbage), (TaskCodec.encode(Self.task()), other)]
        for (a, b) in cases {
            guard case .failed(let failure) = TaskMerge.merge(base: nil, ours: a, theirs: b, path: Self.path) else {
                Issue.record("merge succeeded")
                continue
            }
            #expect(failure.path == Self.path)
        }
    }

    @Test func anUnreadableBaseIsIgnoredWithAWarning() throws {
        let a = TaskCodec.encode(Self.task())
        guard case .merged(let bytes, _, let warnings) = TaskMerge.merge(base: Array("{}".utf8), ours: a, theirs: a, path: Self.path)
        else { throw Failure("merge failed") }
        #expect(bytes == a)
        #expect(warnings.map(\.input) == [.base])
    }
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
