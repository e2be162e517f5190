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

    @Test func anUndoAfterASyncWinsOnEveryReplicaAndARedoBringsTheChangeBack() throws {
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

        // Redo brings the edit back.
        let redo = try alice.todo("redo")
        #expect(redo.exitCode == 0, "\(redo)")
        #expect(redo.stdout.hasPrefix("Redone: edit: Buy oat milk (\(milk.short.prefix(4)))"), "\(redo)")
        #expect(try alice.git("log", "-1", "--format=%s").stdout == "redo: edit: Buy oat milk (\(try shortOf(alice, milk)))\n")
        try alice.sync()
        try bob.sync()
        #expect(try bob.show(milk.id)["title"] == .string("Buy oat milk"))
        #expect(try bob.show(milk.id)["tags"]?.strings == [])

        // An earlier change by its commit: the done.
        let list = try alice.todo("undo", "--list")
        #expect(list.exitCode == 0, "\(list)")
        let doneLine = try #require(list.lines.first { $0.contains("done: Buy milk") }, "\(list)")
        let commit = String(doneLine.prefix(8))
        #expect(list.lines.count == 5, "add, done, edit, undo, redo: \(list)")
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

    /// Repeated undos go back through the member's changes one by one, and each redo brings back
    /// the last one undone, as a new commit with fresh stamps.
    @Test func repeatedUndoGoesFurtherBackAndRedoBringsEachChangeBack() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let a = try sb.add("Task A")
        let b = try sb.add("Task B")
        func titles() throws -> [String] {
            try json(try sb.todo("list", "--json").stdout).items.compactMap { $0["title"]?.stringValue }.sorted()
        }
        func step(_ command: String, _ said: String, _ shown: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
            let r = try sb.todo(command)
            #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)", sourceLocation: sourceLocation)
            #expect(r.stdout.hasPrefix(said), "\(r)", sourceLocation: sourceLocation)
            #expect(try titles() == shown, sourceLocation: sourceLocation)
        }
        try step("undo", "Undone: add: Task B (\(b.short))", ["Task A"])
        try step("undo", "Undone: add: Task A (\(a.short))", [])
        try step("redo", "Redone: add: Task A (\(a.short))", ["Task A"])
        try step("redo", "Redone: add: Task B (\(b.short))", ["Task A", "Task B"])

        let head = try sb.git("rev-parse", "HEAD").stdout
        let none = try sb.todo("redo")
        #expect(none.exitCode == 66 && none.stderr.contains("Nothing to redo"), "\(none)")
        #expect(try sb.git("rev-parse", "HEAD").stdout == head, "nothing committed")

        // git's view: each undo and redo is a commit of its own, the redo's stamp newer than the undo's.
        #expect(try sb.git("log", "--format=%s", "-6").lines == [
            "redo: add: Task B (\(b.short))", "redo: add: Task A (\(a.short))", "undo: add: Task A (\(a.short))",
            "undo: add: Task B (\(b.short))", "add: Task B (\(b.short))", "add: Task A (\(a.short))",
        ])
        func taskA(_ rev: String) throws -> Task {
            try TaskCodec.decode(try sb.git("cat-file", "blob", "\(rev):\(a.path)").stdoutBytes)
        }
        let (added, undone, redone) = (try taskA("HEAD~5"), try taskA("HEAD~2"), try taskA("HEAD"))
        #expect(added.deleted == false && undone.deleted == true && redone.deleted == false)
        let stamps = [added, undone, redone].compactMap { $0.stamps["deleted"]?.stamp }
        #expect(stamps.count == 3 && stamps[0] < stamps[1] && stamps[1] < stamps[2], "fresh stamps: \(stamps)")
        let record = String(decoding: readBytes(sb.repo() + "/.git/todo/undo-stack") ?? [], as: UTF8.self)
        #expect(record.split(separator: "\n").count == 4, "one line for each undo and redo: \(record)")

        // After the redos, undo takes back the latest change again: the redo of B.
        try step("undo", "Undone: add: Task B (\(b.short))", ["Task A"])
        try sb.expectClean()
    }

    /// A change of the member's own after an undo ends the redo chain; undo then goes back from
    /// that change, passing over what is undone already.
    @Test func aNewChangeAfterAnUndoEndsTheRedoChain() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let a = try sb.add("Task A")
        _ = try sb.add("Task B")
        #expect(try sb.todo("undo").exitCode == 0)
        let c = try sb.add("Task C")
        let head = try sb.git("rev-parse", "HEAD").stdout
        let none = try sb.todo("redo")
        #expect(none.exitCode == 66 && none.stderr.contains("Nothing to redo"), "\(none)")
        #expect(try sb.git("rev-parse", "HEAD").stdout == head, "nothing committed")

        let undoC = try sb.todo("undo")
        #expect(undoC.stdout.hasPrefix("Undone: add: Task C (\(c.short))"), "\(undoC)")
        let undoA = try sb.todo("undo")
        #expect(undoA.stdout.hasPrefix("Undone: add: Task A (\(a.short))"), "B is undone already: \(undoA)")
        #expect(try sb.todo("list").lines.isEmpty)
        let nothing = try sb.todo("undo")
        #expect(nothing.exitCode == 66 && nothing.stderr.contains("Nothing to undo"), "\(nothing)")
        // The redos bring back A, then C; B's undo came before C was added.
        #expect(try sb.todo("redo").stdout.hasPrefix("Redone: add: Task A"))
        #expect(try sb.todo("redo").stdout.hasPrefix("Redone: add: Task C"))
        #expect(try sb.todo("redo").exitCode == 66)
        try sb.expectClean()
    }

    /// `todo undo COMMIT` of an undo is a redo of it; without the local record (deleted), an undo
    /// commit counts as a change of its own, as before there was a record.
    @Test func undoOfAnUndoByItsCommitRedoesAndTheRecordIsSafeToDelete() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let a = try sb.add("Task A")
        let b = try sb.add("Task B")
        #expect(try sb.todo("undo").exitCode == 0)
        let undoCommit = String(try sb.git("rev-parse", "HEAD").stdout.prefix(8))
        let redo = try sb.todo("undo", undoCommit)
        #expect(redo.exitCode == 0 && redo.stdout.hasPrefix("Redone: add: Task B (\(b.short)) (\(undoCommit))"), "\(redo)")
        #expect(try sb.subject() == "redo: add: Task B (\(b.short))")
        #expect(try sb.todo("redo").exitCode == 66, "the one undo is redone")

        #expect(try sb.todo("undo").stdout.hasPrefix("Undone: add: Task B"))
        #expect(unlink(sb.repo() + "/.git/todo/undo-stack") == 0)
        let again = try sb.todo("undo")
        #expect(again.exitCode == 0 && again.stdout.hasPrefix("Undone: undo: add: Task B"), "\(again)")
        #expect(try sb.todo("list").lines.count == 2, "B is back: \(a.short)")
        try sb.expectClean()
    }

    func shortOf(_ m: Member, _ t: TaskRef) throws -> String {
        let r = try m.todo("list", "--all")
        return String(try #require(r.lines.first { $0.contains("Buy") }).prefix { $0 != " " })
    }
}
