import Foundation
import Testing
import TodoCore

/// `todo undo`: a new commit with the earlier values and fresh stamps, through real repositories
/// and syncs.
@Suite(.timeLimit(.minutes(20)), .kit) struct UndoTests {
    func household() throws -> (GitHost, Member, Member, TaskRef) {
        let host = try GitHost(.path)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host)
        try alice.create(remote: host.url())
        let milk = try alice.add("Buy milk", "--due", "tomorrow", "--tag", "groceries")
        try alice.sync()
        try bob.join(host.url())
        return (host, alice, bob, milk)
    }

    @Test func anUndoAfterASyncWinsOnEveryReplicaAndAnUndoOfItRedoes() throws {
        let (host, alice, bob, milk) = try household()
        defer { withExtendedLifetime(host) {} }
        try alice.change("done", milk.short)
        try alice.change("edit", milk.short, "--title", "Buy oat milk", "--untag", "groceries", "--due", "+3d")
        try alice.sync()
        try bob.sync()
        #expect(try bob.show(milk.id)["title"] == .string("Buy oat milk"))

        // The last change first: the edit.
        let undo = try alice.todo("undo")
        #expect(undo.exitCode == 0, "\(undo)")
        #expect(undo.stdout.hasPrefix("Undone: edit: Buy oat milk (\(milk.short.prefix(4)))"), "\(undo)")
        #expect(try alice.git("log", "-1", "--format=%s").stdout == "undo: edit: Buy oat milk (\(try shortOf(alice, milk)))\n")
        try alice.sync()
        try bob.sync()
        for m in [alice, bob] {
            let t = try m.show(milk.id)
            #expect(t["title"] == .string("Buy milk"), "\(m.name)")
            #expect(t["tags"]?.strings == ["groceries"], "\(m.name)")
            #expect(t["due"] == .string("2025-11-21"), "\(m.name)")
            #expect(t["status"] == .string("done"), "the done before the edit stays: \(m.name)")
        }
        #expect(try alice.tree() == bob.tree())

        // Undo of the undo redoes the edit.
        #expect(try alice.todo("undo").exitCode == 0)
        try alice.sync()
        try bob.sync()
        #expect(try bob.show(milk.id)["title"] == .string("Buy oat milk"))
        #expect(try bob.show(milk.id)["tags"]?.strings == [])

        // An earlier change by its commit: the done.
        let list = try alice.todo("undo", "--list")
        #expect(list.exitCode == 0, "\(list)")
        let doneLine = try #require(list.lines.first { $0.contains("done: Buy milk") }, "\(list)")
        let commit = String(doneLine.prefix(8))
        #expect(list.lines.count == 5, "add, done, edit, undo, undo: \(list)")
        #expect(try alice.todo("undo", commit).exitCode == 0)
        try alice.sync()
        try bob.sync()
        #expect(try bob.show(milk.id)["status"] == .string("open"))
        try alice.expectClean()
        try bob.expectClean()
    }

    @Test func anUndoIsRefusedWhenSomeoneElseChangedTheSameFieldUnlessForced() throws {
        let (host, alice, bob, milk) = try household()
        defer { withExtendedLifetime(host) {} }
        try alice.change("edit", milk.short, "--title", "Buy oat milk", "--priority", "high")
        try alice.sync()
        try bob.sync()
        try bob.change("edit", milk.short, "--title", "Buy soy milk")
        try bob.sync()
        try alice.sync()
        let head = try alice.head()
        let refused = try alice.todo("undo")
        #expect(refused.exitCode == 65, "\(refused)")
        #expect(refused.stderr.contains("Not undone: edit: Buy oat milk"), "\(refused)")
        #expect(refused.stderr.contains("Bob on 2025-11-20 09:00: title of Buy soy milk"), "\(refused)")
        #expect(!refused.stderr.contains("priority"), "nobody else changed the priority: \(refused)")
        #expect(refused.stderr.contains("--force"), "\(refused)")
        #expect(try alice.head() == head, "nothing written")

        let forced = try alice.todo("undo", "--force")
        #expect(forced.exitCode == 0, "\(forced)")
        #expect(try alice.show(milk.id)["title"] == .string("Buy milk"))
        #expect(try alice.show(milk.id)["priority"] == .string("normal"))
        try alice.sync()
        try bob.sync()
        #expect(try bob.show(milk.id)["title"] == .string("Buy milk"))
    }

    @Test func undoOfAnImportUndoesTheWholeImportAndOfAnAddDeletesTheTask() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let file = try sb.file("tasks.json", """
            [{"description": "Paint the fence", "status": "pending", "uuid": "a1b2c3d4-0000-4000-8000-000000000001"},
             {"description": "Fix the gate", "status": "pending", "uuid": "a1b2c3d4-0000-4000-8000-000000000002"},
             {"description": "Oil the hinges", "status": "pending", "uuid": "a1b2c3d4-0000-4000-8000-000000000003"}]
            """)
        let imported = try sb.todo("import", file)
        #expect(imported.exitCode == 0, "\(imported)")
        #expect(try sb.todo("list").lines.count == 3)
        let undo = try sb.todo("undo")
        #expect(undo.exitCode == 0, "\(undo)")
        #expect(undo.stdout.hasPrefix("Undone: import: 3 tasks from tasks.json"), "\(undo)")
        #expect(try sb.todo("list").lines.isEmpty)
        #expect(try sb.todo("list", "--deleted").lines.count == 3)
        #expect(try sb.commits().count == 3, "init, import, undo")

        let t = try sb.add("Call grandma")
        #expect(try sb.todo("undo").exitCode == 0)
        #expect(try json(try sb.todo("show", "--json", t.short).stdout)["deleted"] == .bool(true))
        try sb.expectClean()
    }

    @Test func nothingToUndoAndUnknownCommitsAreClearErrors() throws {
        let (host, alice, bob, _) = try household()
        defer { withExtendedLifetime(host) {} }
        let none = try bob.todo("undo")
        #expect(none.exitCode == 66 && none.stderr.contains("Nothing to undo"), "\(none)")
        #expect(try bob.todo("undo", "--list").stdout.isEmpty, "Alice's changes are not Bob's to undo")
        let unknown = try alice.todo("undo", "deadbeef")
        #expect(unknown.exitCode == 66, "\(unknown)")
        #expect(try alice.todo("undo", "not-hex").exitCode == 64)
        #expect(try alice.todo("undo", "--list", "--force").exitCode == 64)
    }

    func shortOf(_ m: Member, _ t: TaskRef) throws -> String {
        let r = try m.todo("list", "--all")
        return String(try #require(r.lines.first { $0.contains("Buy") }).prefix { $0 != " " })
    }
}
