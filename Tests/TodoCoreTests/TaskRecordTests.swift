import TestKit
import Testing

@testable import TodoCore

/// The list cache's record form (`TaskRecord`) read back many records at a time, with what they
/// have in common shared (`TaskRecord.Sharing`), and the id that no longer stores its text.
@Suite(.timeLimit(.minutes(5))) struct TaskRecordTests {
    static let today = CivilDate(year: 2026, month: 11, day: 27)!
    static let stamp = FieldStamp(Stamp(wall: Stamp.minWall, counter: 0, replica: "a1"), by: "Ann")

    /// A task with some of: tags (from a few sets, some not present), unicode text, a long or
    /// shared creation time and author, an assignee, a due date, extra fields.
    static func task(_ n: Int, _ rng: inout SplitMix64) -> Task {
        let created = ["2026-11-27T02:13:39.018Z", "2026-11-27T02:13:40.000Z", "", "2026"][Int(rng.next() % 4)]
        let by = ["Alice", "Bob", "Ann-Marie Ødegård-Lindqvist", ""][Int(rng.next() % 4)]
        let titles = ["Buy milk \(n)", "Café crème für Jürgen \(n)", "洗濯物 \(n) 👨‍👩‍👧", "a"]
        var t = Task(id: TaskID.random(using: &rng), title: titles[Int(rng.next() % 4)], createdAt: created, createdBy: by)
        let sets = [[], ["home"], ["garden", "home"], ["école", "home"], ["a-very-long-tag-name-indeed", "x"]]
        for tag in sets[Int(rng.next() % UInt64(sets.count))] { t.setTag(tag, present: true, stamp: stamp) }
        if rng.next() % 5 == 0 { t.setTag("gone", present: false, stamp: stamp) }
        if rng.next() % 3 == 0 { t.assignee = "Kim" }
        if rng.next() % 2 == 0 { t.due = Due(date: today.adding(days: Int(rng.next() % 20) - 10), minutes: nil) }
        if rng.next() % 7 == 0 { t.extra["zone"] = .string("Europe/Paris \(n)") }
        return t
    }

    /// A task as its record keeps it (no stamps): compared through its record bytes.
    static func record(_ t: Task) -> [UInt8] {
        var out: [UInt8] = []
        TaskRecord.append(t, facts: nil, today: today, to: &out)
        return out
    }

    @Test func recordsReadWithSharingAreTheRecordsReadAlone() throws {
        var rng = SplitMix64(seed: 2026_11_27)
        let tasks = (0..<400).map { Self.task($0, &rng) }
        var bytes: [UInt8] = []
        for t in tasks { bytes += Self.record(t) }
        for parseExtra in [true, false] {
            var sharing = TaskRecord.Sharing()
            var offset = 0
            var shared: [TaskRecord.Entry] = []
            while offset < bytes.count {
                var alone = offset
                let one = try #require(TaskRecord.read(bytes, at: &alone, parseExtra: parseExtra))
                let entry = try #require(TaskRecord.read(bytes, at: &offset, parseExtra: parseExtra, sharing: &sharing))
                #expect(offset == alone)
                #expect(entry.task == one.task)
                #expect(entry.unparsedExtra == one.unparsedExtra)
                shared.append(entry)
            }
            #expect(shared.count == tasks.count)
            for (entry, t) in zip(shared, tasks) {
                var expected = t
                if !parseExtra { expected.extra = [:] }
                #expect(Self.record(entry.task) == Self.record(expected))
                #expect(entry.task.tags == t.tags)
            }
            // Shared values are values: a change to one task's tags leaves every other as it was.
            let withHome = shared.indices.filter { shared[$0].task.tags == ["home"] }
            try #require(withHome.count >= 2)
            shared[withHome[0]].task.setTag("new", present: true, stamp: Self.stamp)
            #expect(shared[withHome[0]].task.tags == ["home", "new"])
            #expect(withHome.dropFirst().allSatisfy { shared[$0].task.tags == ["home"] })
        }
    }

    /// Text that is not UTF-8 makes no record, whether or not an earlier record had the same
    /// bytes shared: titles (the ASCII path and the general one), creation times and tags.
    @Test func textThatIsNotUTF8IsRefused() throws {
        var rng = SplitMix64(seed: 7)
        var t = Self.task(1, &rng)
        t.title = "Title"
        t.createdAt = "2026-11-27T02:13:39.018Z"
        t.tagStates = [:]
        t.setTag("tagname", present: true, stamp: Self.stamp)
        let good = Self.record(t)
        for (text, bad) in [("Title", [0x54, 0xFF, 0x74, 0x6C, 0x65]), ("2026-11-27T02:13:39.018Z", [0xC3] + Array("026-11-27T02:13:39.018Z".utf8)), ("tagname", [0x74, 0x61, 0x67, 0xE2, 0x82, 0x61, 0x65])] as [(String, [UInt8])] {
            let at = try #require(indexOf(Array(text.utf8), in: good))
            var broken = good
            broken.replaceSubrange(at..<(at + bad.count), with: bad)
            var sharing = TaskRecord.Sharing()
            var offset = 0
            #expect(TaskRecord.read(good, at: &offset, parseExtra: true, sharing: &sharing) != nil)
            offset = 0
            #expect(TaskRecord.read(broken, at: &offset, parseExtra: true, sharing: &sharing) == nil, "\(text)")
            offset = 0
            #expect(TaskRecord.read(broken, at: &offset) == nil, "\(text), alone")
        }
    }

    func indexOf(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    /// The id's text is made from its number: the same 32 digits it was read from, any prefix
    /// of them, and an order that is the text's.
    @Test func idsTextAndOrderComeFromTheirNumber() throws {
        var rng = SplitMix64(seed: 31)
        var ids: [TaskID] = []
        for _ in 0..<500 {
            let id = TaskID.random(using: &rng)
            let hex = id.hex
            #expect(hex.utf8.count == 32 && hex.utf8.allSatisfy(isLowerHex))
            #expect(TaskID(hex) == id)
            for n in [0, 1, 4, 15, 16, 17, 31, 32] { #expect(id.hexPrefix(n) == String(hex.prefix(n))) }
            #expect(id.hexPrefix(-1) == "" && id.hexPrefix(40) == hex)
            ids.append(id)
        }
        ids.append(TaskID(high: 0, low: .max))
        ids.append(TaskID(high: .max, low: 0))
        #expect(TaskID(high: 0x0123_4567_89ab_cdef, low: 0xfedc_ba98_7654_3210).hex == "0123456789abcdeffedcba9876543210")
        #expect(ids.sorted().map(\.hex) == ids.map(\.hex).sorted())
    }

    /// `SparseFacts` behaves as the array of optional facts it stands for, through appends,
    /// facts set, replaced and removed, and a copy changed apart from its original.
    @Test func sparseFactsAreTheArrayTheyStandFor() throws {
        var rng = SplitMix64(seed: 0x5FAC75)
        func facts() -> ListFacts? {
            guard rng.next() % 3 == 0 else { return nil }
            return ListFacts(isChore: rng.next() % 2 == 0, current: nil, turn: ["Ann", nil][Int(rng.next() % 2)],
                             checked: Int(rng.next() % 5), total: 5)
        }
        var model: [ListFacts?] = []
        var sparse = SparseFacts()
        for step in 0..<2000 {
            if model.isEmpty || rng.next() % 2 == 0 {
                let f = facts()
                model.append(f)
                sparse.append(f)
            } else {
                let i = Int(rng.next() % UInt64(model.count))
                let f = facts()
                model[i] = f
                sparse[i] = f
            }
            if step % 97 == 0 { #expect(Array(sparse) == model) }
        }
        #expect(Array(sparse) == model && sparse.count == model.count)
        let copy = sparse
        sparse[0] = nil
        #expect(copy[0] == model[0] && sparse[0] == nil)
        #expect(SparseFacts(model) == copy)
    }
}
