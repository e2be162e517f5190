import Testing

@testable import TodoCore

/// Stamps, times and sizes at and past the ends of their ranges: refused when read, saturated
/// when computed, never a trap.
@Suite(.timeLimit(.minutes(20))) struct StampBoundsTests {
    @Test(arguments: [
        "946684800000.0.a1", "253402300799999.4294967295.ffffffffffffffffffffffffffffffff", "1763818282123.0.a1",
    ])
    func stampsInRangeAreRead(_ text: String) throws {
        let s = try #require(Stamp(Substring(text)))
        #expect(s.description == text)
    }

    @Test(arguments: [
        // Before 2000 and after 9999, the largest 64-bit numbers and one more.
        "946684799999.0.a1", "253402300800000.0.a1", "9223372036854775807.0.a1", "9223372036854775808.0.a1",
        "0.0.a1", "-1763818282123.0.a1",
        // A counter past 32 bits, signs, leading zeros, spaces, no digits.
        "1763818282123.4294967296.a1", "1763818282123.-1.a1", "+1763818282123.0.a1", "01763818282123.0.a1",
        "1763818282123.00.a1", " 1763818282123.0.a1", "1763818282123..a1", ".0.a1", "1763818282123.0.",
        "1763818282123.0.A1", "1e12.0.a1",
    ])
    func stampsOutOfRangeOrMalformedAreRefused(_ text: String) {
        #expect(Stamp(Substring(text)) == nil)
        #expect(FieldStamp(text + " Ann") == nil)
    }

    @Test func nextNeverLeavesTheRangeNorTraps() {
        let last = Stamp(wall: Stamp.maxWall, counter: Stamp.maxCounter, replica: "ff")
        #expect(Stamp.next(now: 0, after: last, replica: "aa") == Stamp(wall: Stamp.maxWall, counter: Stamp.maxCounter, replica: "aa"))
        let fullCounter = Stamp(wall: Stamp.maxWall - 1, counter: Stamp.maxCounter, replica: "ff")
        #expect(Stamp.next(now: 0, after: fullCounter, replica: "aa") == Stamp(wall: Stamp.maxWall, counter: 0, replica: "aa"))
        // Clocks outside the range count as its ends: what they write can be read back.
        for now in [Int64.min, -1, 0, 10, Stamp.minWall - 1, Stamp.maxWall + 1, Int64.max] {
            let s = Stamp.next(now: now, after: nil, replica: "aa")
            #expect(Stamp(Substring(s.description)) == s, "now \(now): \(s)")
            let t = Stamp.next(now: now, after: Stamp(wall: Int64.max, counter: Stamp.maxCounter, replica: "b"), replica: "aa")
            #expect(Stamp(Substring(t.description)) == t, "now \(now): \(t)")
        }
    }

    @Test func timesOfAnySizeAreShownWithoutATrap() {
        #expect(isoMillis(0) == "1970-01-01T00:00:00.000Z")
        #expect(isoMillis(-1) == "1969-12-31T23:59:59.999Z")
        #expect(isoMillis(Stamp.maxWall) == "9999-12-31T23:59:59.999Z")
        #expect(isoMillis(Stamp.minWall) == "2000-01-01T00:00:00.000Z")
        for ms in [Int64.min, Int64.min + 1, Int64.max, Int64.max - 999] { #expect(isoMillis(ms).hasSuffix("Z")) }
        #expect(Millis.fromSeconds(Int64.max) == Int64.max)
        #expect(Millis.fromSeconds(Int64.min) == Int64.min)
        #expect(Millis.fromSeconds(1_763_818_282) == 1_763_818_282_000)
        #expect(Millis.local(Int64.max, offsetMinutes: 60) == Int64.max)
        #expect(Millis.local(Int64.min, offsetMinutes: -60) == Int64.min)
        #expect(Millis.local(0, offsetMinutes: Int32.max) == Int64(Int32.max) * 60_000)
        #expect(Millis.local(1000, offsetMinutes: -1) == -59_000)
    }

    @Test func dayCountsOfAnySizeMakeADateWithoutATrap() throws {
        for days in [Int.min, Int.min + 1, -(1 << 41), 1 << 41, Int.max] { _ = CivilDate(daysSinceEpoch: days).description }
        let last = try #require(CivilDate(year: 9999, month: 12, day: 31))
        _ = last.adding(days: Int.max).description
        _ = last.adding(days: Int.min).description
        #expect(last.adding(days: 1).description == "10000-01-01")
        #expect(CivilDate(daysSinceEpoch: last.daysSinceEpoch) == last)
    }

    @Test func datesPastYear9999AreNotAccepted() throws {
        let last = try #require(CivilDate(year: 9999, month: 12, day: 31))
        #expect(throws: DateInputError.self) { try Due.parse("tomorrow", today: last) }
        #expect(throws: DateInputError.self) { try Due.parse("+2w", today: last) }
        #expect(try Due.parse("today", today: last).date == last)
    }

    /// A tag listed by hand has no stamp; rewriting the task must not invent an unreadable one.
    @Test func aTagWithoutAStampStaysReadableWhenRewritten() throws {
        let id = "3f2a9c0e5b7d41f8a6c2e9b04d1f7a35"
        let text = """
            {"id": "\(id)", "title": "Buy milk", "tags": ["added-by-hand", "shop"],
             "stamps": {"title": "1763818282123.0.a1 Ann"}, "tagStamps": {"shop": "+1763818282123.0.a1 Ann"}}
            """
        var task = try TaskCodec.decode(Array(text.utf8))
        try task.write("title", .string("Buy oat milk"), stamp: FieldStamp(Stamp.next(now: 0, after: task.maxStamp, replica: "b2"), by: "Ben"))
        let bytes = TaskCodec.encode(task)
        let again = try TaskCodec.decode(bytes)
        #expect(again.tags == ["added-by-hand", "shop"])
        #expect(TaskCodec.encode(again) == bytes)
    }

    /// The list cache counts tags in 16 bits; a task with more still makes a record that reads.
    @Test func moreTagsThanTheListCacheCountsStillMakeAReadableRecord() throws {
        var task = Task(id: try #require(TaskID("3f2a9c0e5b7d41f8a6c2e9b04d1f7a35")), title: "Tags", createdAt: "", createdBy: "")
        let stamp = FieldStamp(Stamp(wall: Stamp.minWall, counter: 0, replica: "a1"), by: "")
        for n in 0..<70_000 { task.setTag("t\(n)", present: true, stamp: stamp) }
        var record: [UInt8] = []
        TaskRecord.append(task, facts: nil, today: CivilDate(year: 2026, month: 11, day: 24)!, to: &record)
        var offset = 0
        let read = try #require(TaskRecord.read(record, at: &offset))
        #expect(offset == record.count)
        #expect(read.task.tags.count == Int(UInt16.max))
    }

    /// An unknown field may nest as deep as a file allows; a conflict over it would nest four
    /// levels deeper in the merged file. The merge refuses rather than write a file nobody reads.
    @Test(arguments: [60, 61, 63])
    func aConflictOverADeeplyNestedValueNeverMakesAnUnreadableFile(depth: Int) throws {
        let id = try #require(TaskID("3f2a9c0e5b7d41f8a6c2e9b04d1f7a35"))
        func side(_ leaf: String, _ wall: Int64, _ replica: String) throws -> [UInt8] {
            var t = Task(id: id, title: "Deep", createdAt: "", createdBy: "")
            let nested = String(repeating: "[", count: depth) + leaf + String(repeating: "]", count: depth)
            try t.write("zone", try JSONParser.parse(nested), stamp: FieldStamp(Stamp(wall: wall, counter: 0, replica: replica), by: ""))
            return TaskCodec.encode(t)
        }
        let a = try side("1", Stamp.minWall, "a1")
        let b = try side("2", Stamp.minWall + 1, "b2")
        for (x, y) in [(a, b), (b, a)] {
            switch TaskMerge.merge(base: nil, ours: x, theirs: y, path: id.path) {
            case .merged(let bytes, _, _):
                #expect(depth <= TaskMerge.maxEntryValueDepth)
                #expect((try? TaskCodec.decode(bytes)) != nil, "the merged file cannot be read")
            case .failed(let failure):
                #expect(depth > TaskMerge.maxEntryValueDepth)
                #expect(failure.reason == .tooDeep(field: "zone"))
            }
        }
    }
}
