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
            TaskRecord.append(t, to: &bytes)
            return bytes
        }
        let order: ([UInt8], [UInt8]) -> Bool = { $0.lexicographicallyPrecedes($1) }
        #expect(cached.tasks.map(key).sorted(by: order) == files.tasks.map(key).sorted(by: order), sourceLocation: sourceLocation)
        #expect(cached.bad.map(\.path).sorted() == files.bad.map(\.path).sorted(), sourceLocation: sourceLocation)
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
}
