import Testing

@testable import TodoCore

/// The `imported` record (docs/FORMAT.md, "The last import"): its shape, the re-import rule
/// field by field, and its merge.
@Suite(.timeLimit(.minutes(20)), .kit) struct ImportRecordTests {
    static let id = TaskID("5f0c1d2e8a3b4c4d9e5f6a7b8c9d0e1f")!
    static let t0: Int64 = 1_763_800_000_000

    func stamp(_ n: Int64, _ member: String = "Alice", replica: String = "a1") -> FieldStamp {
        FieldStamp(Stamp(wall: Self.t0 + n, counter: 0, replica: replica), by: member)
    }

    func file(_ imported: String) -> [UInt8] {
        Array(#"{"id": "5f0c1d2e8a3b4c4d9e5f6a7b8c9d0e1f", "title": "Pay rent", "imported": \#(imported)}"#.utf8)
    }

    @Test(arguments: [
        "5", "[]", "\"x\"", #"{"title": 3}"#, #"{"status": "later"}"#, #"{"due": "friday"}"#, #"{"priority": "urgent"}"#,
        #"{"deleted": "no"}"#, #"{"assignee": 1}"#, #"{"tags": "money"}"#, #"{"tags": [1]}"#,
        #"{"repeat": {"every": "fortnightly", "from": "2025-11-04"}}"#, #"{"occurrences": {"2025-11-04": "open"}}"#,
        #"{"occurrences": {"yesterday": "done"}}"#, #"{"occurrences": []}"#,
    ])
    func aMalformedRecordMakesTheFileMalformed(_ imported: String) {
        #expect(throws: TaskFormatError.self, "\(imported)") { try TaskCodec.decode(file(imported)) }
    }

    @Test(arguments: [
        "null", "{}", #"{"later": [1, 2]}"#,
        #"{"title": "Pay rent", "assignee": null, "due": "2025-12-01T09:30", "tags": ["money"], "repeat": null, "#
            + #""occurrences": {"2025-11-04": "skipped"}}"#,
    ])
    func aWellFormedRecordReads(_ imported: String) throws {
        let t = try TaskCodec.decode(file(imported))
        #expect(TaskCodec.encode(try TaskCodec.decode(TaskCodec.encode(t))) == TaskCodec.encode(t))
    }

    /// The task as imported with `item`, then edited by a member.
    func importedTask(_ item: ImportedTask) -> Task {
        var t = Task(id: Self.id, title: item.title, createdAt: "2025-11-15T08:30:12.000Z", createdBy: "Alice")
        for f in Task.stampedFields { t.stamps[f] = stamp(0) }
        for tag in item.tags { t.setTag(tag, present: true, stamp: stamp(0)) }
        try? t.write(ImportRecord.field, ImportRecord.make(item), stamp: stamp(0))
        return t
    }

    @Test func onlyWhatTheFileChangedIsWrittenAndAReplacedEditIsLogged() throws {
        var item = ImportedTask(title: "Pay rent")
        item.tags = ["money", "home"]
        var t = importedTask(item)
        try t.write("title", .string("Pay the rent"), stamp: stamp(1, "Bob", replica: "b2"))
        try t.write("priority", .string("high"), stamp: stamp(1, "Bob", replica: "b2"))
        t.setTag("home", present: false, stamp: stamp(1, "Bob", replica: "b2"))

        // Unchanged file: nothing but the count of what was kept.
        var same = t
        let kept = same.reimport(item, stamp: stamp(2))
        #expect(!kept.changed && kept.kept == ["title", "priority", "tags"] && same == t)

        // The file changes the title and the notes and adds a tag.
        var next = item
        next.title = "Pay rent by the 1st"
        next.notes = "standing order"
        next.tags.append("bills")
        let r = t.reimport(next, stamp: stamp(2))
        #expect(r.updated == ["title", "notes", "tags"] && r.replaced == ["title"] && r.kept == ["priority", "tags"])
        #expect(t.title == "Pay rent by the 1st" && t.notes == "standing order" && t.priority == .high)
        #expect(t.tags == ["bills", "money"])
        #expect(t.stamps["title"] == stamp(2) && t.stamps["imported"] == stamp(2) && t.stamps["priority"]?.member == "Bob")
        let entry = try ConflictEntry(json: try #require(t.conflicts.first))
        #expect(t.conflicts.count == 1 && entry.field == "title" && entry.kind == .field)
        #expect(entry.lost == ConflictEntry.Version(value: .string("Pay the rent"), stamp: stamp(1, "Bob", replica: "b2")))
        #expect(entry.kept == ConflictEntry.Version(value: .string("Pay rent by the 1st"), stamp: stamp(2)))
        #expect(t.extra["imported"] == ImportRecord.make(next))
    }

    @Test func occurrencesFollowTheFileDateByDate() throws {
        let from = CivilDate(year: 2025, month: 11, day: 4)!
        var item = ImportedTask(title: "Trash")
        item.recurrence = Recurrence(rule: RepeatRule(.weeks(1)), from: from)
        item.occurrences = [ImportedOccurrence(date: from, state: .done)]
        var t = importedTask(item)
        t.setRecurrence(item.recurrence, stamp: stamp(0))
        t.setOccurrence(from, .done, stamp: stamp(0))
        // A member skips the next occurrence; the file then records it done, and skips the first.
        let second = CivilDate(year: 2025, month: 11, day: 11)!
        t.setOccurrence(second, .skipped, stamp: stamp(1, "Bob", replica: "b2"))
        var next = item
        next.occurrences = [ImportedOccurrence(date: from, state: .skipped), ImportedOccurrence(date: second, state: .done)]
        let r = t.reimport(next, stamp: stamp(2))
        #expect(r.updated == ["occurrences"] && r.replaced == ["occurrences"])
        #expect(t.occurrenceEntries.mapValues(\.state) == ["2025-11-04": .skipped, "2025-11-11": .done])
        #expect(t.conflicts.count == 1 && t.conflicts.first?["field"] == .string("occurrence:2025-11-11"))
    }

    /// Two replicas' records merge whole by their stamps, as any stamped field: the later
    /// import's record and fields stand, in either order.
    @Test func recordsMergeByTheirStamps() throws {
        var item = ImportedTask(title: "Pay rent")
        let base = importedTask(item)
        var ours = base
        item.title = "Pay rent by the 1st"
        _ = ours.reimport(item, stamp: stamp(5))
        var theirs = base
        try theirs.write("assignee", .string("Bob"), stamp: stamp(3, "Bob", replica: "b2"))
        for (x, y) in [(ours, theirs), (theirs, ours)] {
            let merged = try #require(try? TaskCodec.decode(mergeBytes(base, x, y)))
            #expect(merged.title == "Pay rent by the 1st" && merged.assignee == "Bob")
            #expect(merged.extra["imported"] == ImportRecord.make(item) && merged.stamps["imported"] == stamp(5))
            #expect(merged.conflicts.isEmpty)
        }
    }

    func mergeBytes(_ base: Task, _ x: Task, _ y: Task) throws -> [UInt8] {
        let out = TaskMerge.merge(
            base: TaskCodec.encode(base), ours: TaskCodec.encode(x), theirs: TaskCodec.encode(y), path: "tasks/5f/\(Self.id.hex).json")
        return try #require(out.bytes)
    }
}
