import Glibc
import TestKit
import Testing
import TodoCore

@testable import TodoCLI
@testable import TodoStore

/// Random and mutated task files (TestKit's `HostileTaskFiles`) through everything a received
/// file meets: decode, merge both ways round, an edit, and what `list`, `show`, `conflicts` and
/// `log` render. Nothing may trap; what reads must write back readable; the merge must not
/// depend on the order of its sides. The seed is printed first (a trap ends the process);
/// `TODO_PROPERTY_SEED` replays a run, and `TODO_FUZZ_CASE=N` only its case N.
@Suite(.timeLimit(.minutes(10))) struct HostileFileFuzzTests {
    static let cases = 20_000
    static let shards = 4
    static let id = "3f2a9c0e5b7d41f8a6c2e9b04d1f7a35"
    static let otherID = "91bc0e5b7d41f8a6c2e9b04d1f7a353f"
    static let path = "tasks/3f/\(id).json"
    /// How many of a file's values are hostile, in percent: with some twenty values a file, from
    /// mostly readable files to hardly any.
    static let hostility = [1, 2, 4, 8, 30]

    static let seed = propertySeed

    /// Times at the ends of every range: now, the stamp bounds, and the ends of `Int64`.
    static let times: [Int64] = [
        1_763_629_200_000, 0, -1, Stamp.minWall, Stamp.maxWall, Stamp.maxWall + 1, Int64.max, Int64.min, Int64.max - 999,
    ]
    static let offsets: [Int32] = [0, 60, -60, 840, -720, 345, Int32.max, Int32.min]
    static let days: [CivilDate] = [
        CivilDate(year: 2025, month: 11, day: 20), CivilDate(year: 9999, month: 12, day: 31), CivilDate(year: 1, month: 1, day: 1),
    ].compactMap { $0 }

    @Test(arguments: 0..<shards)
    func hostileFilesNeverCrashAndReadBackWhenWritten(shard: Int) throws {
        print("hostile task files: TODO_PROPERTY_SEED=\(Self.seed), shard \(shard)")
        var failures = 0
        var shown: [Task] = []
        var counts = Counts()
        let only = getenv("TODO_FUZZ_CASE").flatMap { Int(String(cString: $0)) }
        for i in stride(from: shard, to: Self.cases, by: Self.shards) where only == nil || only == i {
            var rng = SplitMix64(seed: Self.seed &+ UInt64(i) &* 0x9E37_79B9_7F4A_7C15)
            var files = HostileTaskFiles(rng: SplitMix64(seed: rng.next()))
            // From a stray hostile value to mostly hostile: files that read must be common too.
            let ours = files.file(id: Self.id, percent: rng.pick(Self.hostility))
            let theirs = files.file(id: rng.chance(95) ? Self.id : Self.otherID, percent: rng.pick(Self.hostility))
            let base: [UInt8]? = rng.pick([nil, files.validFile(id: Self.id), files.file(id: Self.id, percent: 10)])
            let problem = Self.violation(base: base, ours: ours, theirs: theirs, rng: &rng, shown: &shown, counts: &counts)
            if shown.count >= 40 {
                Self.renderList(shown, rng: &rng)
                shown.removeAll(keepingCapacity: true)
            }
            guard let problem else { continue }
            let text = [("base", base), ("ours", ours), ("theirs", theirs)].map { "\($0.0): " + ($0.1.map { String(decoding: $0.prefix(4000), as: UTF8.self) } ?? "(none)") }
            Issue.record("TODO_PROPERTY_SEED=\(Self.seed), case \(i): \(problem)\n\(text.joined(separator: "\n"))")
            failures += 1
            if failures == 3 { return }
        }
        // Not a vacuous run: enough files read, and enough merges of two readable sides, to reach
        // the field merge, the edit and the rendering with what they hold.
        let perShard = Self.cases / Self.shards
        #expect(counts.readable >= perShard / 2, "TODO_PROPERTY_SEED=\(Self.seed): only \(counts.readable) readable files")
        #expect(counts.bothReadable >= perShard / 10, "TODO_PROPERTY_SEED=\(Self.seed): only \(counts.bothReadable) merges of two readable sides")
        print("hostile task files, shard \(shard): \(counts.readable) readable files, \(counts.bothReadable) merges of two readable sides")
    }

    struct Counts {
        var readable = 0
        var bothReadable = 0
    }

    /// One case through decode, merge, edit and rendering; what went wrong, if anything.
    static func violation(
        base: [UInt8]?, ours: [UInt8], theirs: [UInt8], rng: inout SplitMix64, shown: inout [Task], counts: inout Counts
    ) -> String? {
        var decoded: [Task] = []
        for bytes in [ours, theirs] {
            // What reads is written back by the edit below.
            if let task = try? TaskCodec.decode(bytes, expectedID: TaskID(id)) { decoded.append(task) }
        }
        counts.readable += decoded.count
        if decoded.count == 2 { counts.bothReadable += 1 }
        // The merge, both ways round: the same outcome, and a file that reads.
        let one = TaskMerge.merge(base: base, ours: ours, theirs: theirs, path: path)
        let other = TaskMerge.merge(base: base, ours: theirs, theirs: ours, path: path)
        if one.bytes != other.bytes {
            let shown = [one, other].map { $0.bytes.map { String(decoding: $0.prefix(4000), as: UTF8.self) } ?? "\($0)" }
            return "the merge depends on the order of its sides:\n\(shown[0])\nagainst\n\(shown[1])"
        }
        if let merged = one.bytes {
            // The merged file has the id of the side it kept (one side may be another task).
            let task: Task
            do { task = try TaskCodec.decode(merged) } catch { return "the merged file cannot be read (\(error))" }
            decoded.append(task)
            for now in times { _ = TaskMerge.futureStamps(in: task, now: now) }
        }
        // An edit of one of the tasks that read (each is edited in some case), the clock anywhere.
        if var task = decoded.randomElement(using: &rng) {
            let stamp = FieldStamp(Stamp.next(now: rng.pick(times), after: task.maxStamp, replica: "a1b2"), by: "Ann")
            do {
                try task.write(rng.pick(["title", "notes", "status", "due", "zone"]), rng.pick([.string("open"), .string("2026-11-23"), .null]), stamp: stamp)
            } catch {
                try? task.write("title", .string("Edited"), stamp: stamp)
            }
            task.setTag(rng.pick(["shop", "new"]), present: rng.chance(50), stamp: stamp)
            if let problem = rewritten(task, "the edited task", record: rng.chance(10)) { return problem }
            shown.append(task)
        }
        for task in decoded {
            renderShow(task, rng: &rng)
            renderConflicts(task)
        }
        if decoded.count >= 2 { renderLog(before: decoded[0], after: decoded[1], rng: &rng) }
        return nil
    }

    /// What `todo` writes for `task` reads back as the same bytes (and, with `record`, from the
    /// list cache's form).
    static func rewritten(_ task: Task, _ what: String, record check: Bool) -> String? {
        let bytes = TaskCodec.encode(task)
        guard bytes.count <= TaskCodec.maxFileSize else { return nil }
        guard let again = try? TaskCodec.decode(bytes, expectedID: task.id) else { return "\(what) is written unreadable" }
        if TaskCodec.encode(again) != bytes { return "\(what) does not read back as written" }
        guard check else { return nil }
        var record: [UInt8] = []
        TaskRecord.append(task, facts: nil, today: CivilDate(year: 2026, month: 11, day: 24)!, to: &record)
        var offset = 0
        if TaskRecord.read(record, at: &offset)?.task.id != task.id || offset != record.count { return "\(what) does not survive the list cache" }
        // Read without the extra fields, as `list` does, and written back: the same record.
        offset = 0
        guard let lazy = TaskRecord.read(record, at: &offset, parseExtra: false), offset == record.count,
            lazy.facts == ListFacts(task, today: CivilDate(year: 2026, month: 11, day: 24)!, context: .plain)
        else { return "\(what): the list's facts do not survive the list cache" }
        var rewritten: [UInt8] = []
        TaskRecord.append(lazy.task, facts: lazy.facts, today: CivilDate(year: 2026, month: 11, day: 24)!, extraText: lazy.unparsedExtra, to: &rewritten)
        if rewritten != record { return "\(what): a record read without its extra fields is written back differently" }
        return nil
    }

    /// `todo list`, with and without a header, and `--json`.
    static func renderList(_ tasks: [Task], rng: inout SplitMix64) {
        let render = Render(today: rng.pick(days), minuteOfDay: rng.int(1440))
        let order = TaskQuery.order(tasks, Array(tasks.indices))
        let lengths = ShortIDs.lengths(tasks.map(\.id))
        _ = render.table(tasks, order: order, shortLengths: lengths, header: rng.chance(50))
        for t in tasks { _ = JSONWriter.compact(TaskCodec.publicObject(t)) }
        _ = ShortIDs.map(tasks.map(\.id.hex))
    }

    /// The parts `todo show` is made of.
    static func renderShow(_ task: Task, rng: inout SplitMix64) {
        let render = Render(today: rng.pick(days), minuteOfDay: rng.int(1440))
        if let due = task.due {
            _ = render.isOverdue(task)
            _ = render.isDueToday(task)
            _ = render.due(due) + due.description
        }
        for line in task.notes.split(separator: "\n", omittingEmptySubsequences: false) { _ = Terminal.safe(String(line)) }
        _ = Terminal.padded(Terminal.safe(task.title), 9) + Terminal.safe(task.createdAt) + Terminal.safe(task.createdBy)
        _ = Terminal.truncated(Terminal.safe(task.assignee ?? ""), 16)
    }

    /// `todo conflicts` and `--stats`: every entry that reads, at every zone offset.
    static func renderConflicts(_ task: Task) {
        for json in task.conflicts {
            guard let entry = try? ConflictEntry(json: json) else { continue }
            let logged = LoggedConflict(entry: entry, task: task)
            for offset in offsets { _ = Render.localTime(logged.time, offsetMinutes: offset) }
            _ = isoMillis(logged.time)
            _ = ConflictsListCommand.sentence(entry, short: "3f2a")
        }
    }

    /// Parsed once: parsing is costly in a debug build.
    static let logCommand = try? LogCommand.parse([])

    /// `todo log` for a commit that took `before` to `after`, at any commit time and zone.
    static func renderLog(before: Task, after: Task, rng: inout SplitMix64) {
        let fields = changedFields(before, after)
        let change = TaskChange(id: after.id, before: before, after: after, fields: fields)
        let seconds = rng.pick(times + [1_763_629_200, -62_135_596_800, 253_402_300_799])
        let entry = HistoryEntry(
            commit: String(repeating: "ab", count: 20), authorName: "Ann", authorEmail: "ann@example.org", time: seconds,
            offsetMinutes: rng.pick(offsets), message: "edit: x", isMerge: false, changes: [change])
        guard let log = logCommand else { return }
        _ = log.localTime(entry)
        _ = JSONWriter.compact(log.json(entry))
        for f in fields { _ = log.show(before.value(of: f)) + log.show(after.value(of: f)) }
    }
}
