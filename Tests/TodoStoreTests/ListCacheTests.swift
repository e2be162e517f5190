import FileKit
import Foundation
import Testing
import TodoCore

@testable import TodoStore

/// The list cache is never the truth: after any change, what it gives equals what reading every
/// task file gives.
@Suite(.timeLimit(.minutes(20)), .kit) struct ListCacheTests {
    func sameTasks(_ h: Household, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let snap = try h.snapshot()
        let cached = try snap.loadAll()
        let files = try snap.loadAllFromFiles()
        // The cache keeps the visible fields (no stamps): compare those, in its own record form.
        func key(_ t: Task) -> [UInt8] {
            var bytes: [UInt8] = []
            TaskRecord.append(t, facts: nil, today: h.clock.today, to: &bytes)
            return bytes
        }
        let order: ([UInt8], [UInt8]) -> Bool = { $0.lexicographicallyPrecedes($1) }
        #expect(cached.tasks.map(key).sorted(by: order) == files.tasks.map(key).sorted(by: order), sourceLocation: sourceLocation)
        #expect(cached.bad.map(\.path).sorted() == files.bad.map(\.path).sorted(), sourceLocation: sourceLocation)
        // What `list` reads: the tasks without their extra fields, and the chores' and
        // checklists' facts as the files give them.
        let view = try snap.loadListView(today: h.clock.today, context: .plain)
        func plain(_ t: Task) -> [UInt8] {
            var t = t
            t.extra = [:]
            return key(t)
        }
        #expect(view.tasks.allSatisfy { $0.extra.isEmpty }, sourceLocation: sourceLocation)
        #expect(view.tasks.map(key).sorted(by: order) == files.tasks.map(plain).sorted(by: order), sourceLocation: sourceLocation)
        // What a list shows; the days facts hold for depend on the day they were worked out.
        func shown(_ f: ListFacts?) -> ListFacts? {
            f.map { ListFacts(isChore: $0.isChore, current: $0.current, turn: $0.turn, checked: $0.checked, total: $0.total) }
        }
        var facts: [TaskID: ListFacts] = [:]
        for t in files.tasks { facts[t.id] = shown(ListFacts(t, today: h.clock.today, context: .plain)) }
        #expect(view.facts.count == view.tasks.count, sourceLocation: sourceLocation)
        var viewFacts: [TaskID: ListFacts] = [:]
        for (t, f) in zip(view.tasks, view.facts) { viewFacts[t.id] = shown(f) }
        #expect(view.facts.allSatisfy { $0?.holds(on: h.clock.today) ?? true }, sourceLocation: sourceLocation)
        #expect(viewFacts == facts, sourceLocation: sourceLocation)
        #expect(view.bad.map(\.path).sorted() == files.bad.map(\.path).sorted(), sourceLocation: sourceLocation)
    }

    @Test func patchedAndRebuiltCachesMatchTheFiles() throws {
        let tmp = TempDir()
        let h = try Household.create(
            home: tmp.path, name: "h", identity: Identity(name: "Ann", email: "ann@example.org"),
            clock: .fixed(1_800_000_000_000), driverCommand: "false")
        let stamper = try h.stamper()
        var rng = SystemRandomNumberGenerator()
        func add(_ titles: [String]) throws -> [TaskID] {
            try h.update { _ in
                let tasks = titles.map { title -> Task in
                    var task = Task(id: TaskID.random(using: &rng), title: title, createdAt: "2027-01-15T08:00:00.000Z", createdBy: "Ann")
                    let stamp = stamper.stamp(after: nil)
                    for field in Task.stampedFields { task.stamps[field] = stamp }
                    return task
                }
                return Household.Update(tasks: tasks, message: "add", value: tasks.map(\.id))
            }
        }
        let ids = try add((0..<50).map { "task \($0)" })
        try sameTasks(h)  // built from the files

        // A chore (its first occurrence done) and a checklist: their facts are cached.
        try h.update { snap in
            var chore = try snap.task(ids[1])!
            let stamp = stamper.stamp(after: chore)
            try chore.write("repeat", .object([("every", .string("tue")), ("from", .string("2027-01-05"))]), stamp: stamp)
            try chore.write("rotation", .array([.string("Ann"), .string("Ben")]), stamp: stamp)
            chore.setOccurrence(CivilDate(year: 2027, month: 1, day: 5)!, .done, stamp: stamp)
            var list = try snap.task(ids[2])!
            for text in ["milk", "eggs"] {
                list.setItem(ChecklistItem(key: Checklist.key(text), state: text == "milk" ? .checked : .open, text: text, added: stamp, stamp: stamp))
            }
            return Household.Update(tasks: [chore, list], message: "chores", value: ())
        }
        try sameTasks(h)  // patched
        let listed = try h.snapshot().loadListView(today: h.clock.today, context: .plain)
        func facts(_ id: TaskID) -> ListFacts? { listed.tasks.firstIndex { $0.id == id }.flatMap { listed.facts[$0] } }
        // Fri 15 Jan 2027: Tue 12 Jan is due (and overdue) until Tue 19 Jan comes.
        #expect(
            facts(ids[1])
                == ListFacts(
                    isChore: true, current: CivilDate(year: 2027, month: 1, day: 12), turn: "Ben", checked: 0, total: 0,
                    validFrom: CivilDate(year: 2027, month: 1, day: 15), validThrough: CivilDate(year: 2027, month: 1, day: 18)))
        #expect(facts(ids[2]) == ListFacts(isChore: false, current: nil, turn: nil, checked: 1, total: 2))
        try? FileManager.default.removeItem(atPath: h.repo.gitDirectory + "todo/list-cache")
        try sameTasks(h)  // rebuilt

        // One task changed, two added: the cache is patched.
        try h.update { snap in
            var task = try snap.task(ids[7])!
            try task.write("title", .string("renamed"), stamp: stamper.stamp(after: task))
            return Household.Update(tasks: [task], message: "edit", value: ())
        }
        _ = try add(["new one", "new two"])
        try sameTasks(h)
        #expect(try h.snapshot().loadAll().tasks.contains { $0.title == "renamed" })

        // A malformed file committed by someone else is reported, then mended.
        let path = ids[3].path
        try h.update { _ in Household.Update(tasks: [], files: [(path, Array("{ not json".utf8))], message: "break", value: ()) }
        try sameTasks(h)
        #expect(try h.snapshot().loadAll().bad.map(\.path) == [path])

        // A cache file that is garbage is rebuilt.
        try Data("TODOLC1\ngarbage".utf8).write(to: URL(fileURLWithPath: h.path + "/.git/todo/list-cache"))
        try sameTasks(h)
        #expect(try h.snapshot().loadAll().tasks.count == 51)
    }

    /// The cache is read at the size its file had when opened; a file cut short or grown (as
    /// one written meanwhile by another process would be, were it not replaced by a rename) is
    /// not a cache: read as none, and the list rebuilt from the tasks.
    @Test func aCacheFileCutShortOrGrownIsNoCache() throws {
        let tmp = TempDir()
        let h = try Household.create(
            home: tmp.path, name: "h", identity: Identity(name: "Ann", email: "ann@example.org"),
            clock: .fixed(1_800_000_000_000), driverCommand: "false")
        var rng = SplitMix64(seed: 2026_11_27)
        try h.update { _ in
            let tasks = (0..<40).map { n -> Task in
                var task = Task(id: TaskID.random(using: &rng), title: "task \(n) é", createdAt: "2027-01-15T08:00:00.000Z", createdBy: "Ann")
                task.setTag(n % 2 == 0 ? "home" : "garden", present: true, stamp: FieldStamp(Stamp(wall: Stamp.minWall, counter: 0, replica: "a1"), by: "Ann"))
                return task
            }
            return Household.Update(tasks: tasks, message: "add", value: ())
        }
        let path = ListCache.path(h.repo)
        unlink(path)
        try sameTasks(h)  // built from the files, and written
        let whole = try WholeFile.read(path)
        let files = try h.snapshot().loadAllFromFiles()
        #expect(ListCache.read(h.repo)?.tasks.count == files.tasks.count)
        for cut in [0, 8, 47, 52, 53, whole.count / 2, whole.count - 1] {
            try WholeFile.write(path, Array(whole[0..<cut]))
            #expect(ListCache.read(h.repo) == nil, "cut to \(cut) bytes")
        }
        try WholeFile.write(path, whole + [0])
        #expect(ListCache.read(h.repo) == nil, "one byte more")
        try sameTasks(h)  // rebuilt
        #expect(try WholeFile.read(path) == whole)

        // A rebuild gives the tasks as the file it wrote gives them (no stamps, which the cache
        // does not keep): the same as every list after it.
        unlink(path)
        let rebuilt = try h.snapshot().loadAll()
        let read = try h.snapshot().loadAll()
        #expect(rebuilt.tasks == read.tasks)
        #expect(rebuilt.tasks.allSatisfy { $0.stamps.isEmpty })
        #expect(try WholeFile.read(path) == whole)
    }
}
