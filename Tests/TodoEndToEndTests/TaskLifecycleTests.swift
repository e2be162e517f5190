import Foundation
import Testing
import TodoCore

/// The everyday commands, judged by their output and by what git says they committed.
@Suite(.timeLimit(.minutes(20)), .kit) struct TaskLifecycleTests {
    /// Runs a changing command and checks it made exactly one commit, by the member, with
    /// `subject`, leaving the work tree clean.
    func expectOneCommit(
        _ sb: Sandbox, _ args: [String], stdout: String, subject: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try sb.commits()
        let r = try sb.todo(args)
        #expect(r.exitCode == 0, "\(r)", sourceLocation: sourceLocation)
        #expect(r.stdout == stdout, "\(r)", sourceLocation: sourceLocation)
        #expect(r.stderr.isEmpty, "\(r)", sourceLocation: sourceLocation)
        let after = try sb.commits()
        #expect(after.count == before.count + 1, "\(args) made \(after.count - before.count) commits", sourceLocation: sourceLocation)
        #expect(Array(after.dropFirst()) == before, "history was rewritten", sourceLocation: sourceLocation)
        #expect(try sb.subject() == subject, sourceLocation: sourceLocation)
        #expect(try sb.author() == "Alice <alice@example.org>", sourceLocation: sourceLocation)
        try sb.expectStatusEmpty(sourceLocation: sourceLocation)
    }

    /// Runs a command that changes nothing and checks that it made no commit.
    func expectNoCommit(
        _ sb: Sandbox, _ args: [String], stdout: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try sb.commits()
        let r = try sb.todo(args)
        #expect(r.exitCode == 0, "\(r)", sourceLocation: sourceLocation)
        #expect(r.stdout == stdout, "\(r)", sourceLocation: sourceLocation)
        #expect(try sb.commits() == before, "\(args) committed", sourceLocation: sourceLocation)
        try sb.expectStatusEmpty(sourceLocation: sourceLocation)
    }

    @Test func addWritesOneCanonicalFileInOneCommit() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let r = try sb.todo(
            "add", "--json", "Buy", "milk", "--due", "tomorrow 18:00", "--assign", "Bob", "--tag", "groceries",
            "--tag", "+urgent", "--priority", "high", "--note", "2 litres")
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.lines.count == 1, "--json prints one line: \(r)")
        let task = try json(r.stdout)
        #expect(task.keys == publicTaskKeys)
        let id = try #require(task["id"]?.stringValue)
        #expect(id.count == 32 && id.allSatisfy { "0123456789abcdef".contains($0) }, "full id, got \(id)")
        #expect(task["title"] == .string("Buy milk"))
        #expect(task["status"] == .string("open"))
        #expect(task["notes"] == .string("2 litres"))
        #expect(task["assignee"] == .string("Bob"))
        #expect(task["due"] == .string("2025-11-21T18:00"))
        #expect(task["tags"]?.strings == ["groceries", "urgent"])
        #expect(task["priority"] == .string("high"))
        #expect(task["createdAt"] == .string("2025-11-20T09:00:00.000Z"))
        #expect(task["createdBy"] == .string("Alice"))
        #expect(task["deleted"] == .bool(false))

        let path = "tasks/\(id.prefix(2))/\(id).json"
        #expect(try sb.commits().count == 2)
        #expect(try sb.subject() == "add: Buy milk (\(id.prefix(4)))")
        #expect(try sb.author() == "Alice <alice@example.org>")
        #expect(try sb.git("ls-tree", "-r", "--name-only", "HEAD").lines == [".gitattributes", path])
        #expect(try sb.git("show", "--format=", "--name-status", "HEAD").stdout == "A\t\(path)\n")

        // The committed bytes are the work tree's, canonical, and exactly the golden file.
        let committed = try sb.committedBytes(path)
        #expect(readBytes(sb.repo() + "/" + path) == committed)
        expectCanonical(committed, path)
        let replica = try sb.git("config", "todo.replica").stdout.trimmingCharacters(in: .newlines)
        #expect(String(decoding: committed, as: UTF8.self) == (try golden("buy-milk-added.json", id: id, replica: replica)))
        try sb.expectClean()
    }

    @Test func plainAddPrintsTheShortID() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let r = try sb.todo("add", "Call the plumber")
        #expect(r.exitCode == 0, "\(r)")
        let short = r.stdout.trimmingCharacters(in: .newlines)
        #expect(r.stdout == short + "\n" && short.count == 4, "\(r)")
        let files = try sb.git("ls-tree", "-r", "--name-only", "HEAD", "tasks").lines
        #expect(files.count == 1)
        #expect(files.first?.hasPrefix("tasks/\(short.prefix(2))/\(short)") == true, "\(files)")
        #expect(try sb.subject() == "add: Call the plumber (\(short))")
    }

    @Test func everyCommandMakesOneCommitAndNoOpsMakeNone() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let milk = try sb.add("Buy milk", "--due", "tomorrow 18:00", "--assign", "Bob", "--tag", "groceries",
            "--tag", "urgent", "--priority", "high", "--note", "2 litres")
        let plumber = try sb.add("Call the plumber")
        let m = milk.short
        let p = plumber.short

        // list: soonest due first, undated last; no header when not on a terminal.
        let list = try sb.todo("list")
        #expect(list.exitCode == 0, "\(list)")
        #expect(list.lines == [
            "\(m)  tomorrow 18:00  Bob  Buy milk (high)  +groceries +urgent",
            "\(p)                       Call the plumber",
        ])
        let listJSON = try sb.todo("list", "--json")
        let listed = try json(listJSON.stdout).items
        #expect(listed.map { $0["id"]?.stringValue } == [milk.id, plumber.id])
        #expect(listed.allSatisfy { $0.keys == publicTaskKeys })

        // show, and show --json (the same object add --json printed).
        let show = try sb.todo("show", m)
        #expect(show.exitCode == 0, "\(show)")
        #expect(show.stdout == """
            \(m)  Buy milk
            Status:   open
            Due:      tomorrow 18:00  (2025-11-21T18:00)
            Assignee: Bob
            Priority: high
            Tags:     groceries, urgent
            Notes:    2 litres
            Created:  2025-11-20T09:00:00.000Z by Alice
            ID:       \(milk.id)

            """)
        let shownJSON = try json(try sb.todo("show", "--json", milk.id).stdout)
        #expect(shownJSON == listed[0])

        try expectOneCommit(sb, ["done", m], stdout: "Done: Buy milk (\(m))\n", subject: "done: Buy milk (\(m))")
        try expectNoCommit(sb, ["done", m], stdout: "Already done: Buy milk (\(m))\n")
        #expect(try sb.todo("list").lines == ["\(p)  Call the plumber"])
        #expect(try sb.todo("list", "--done").lines.map { $0.contains("[done] Buy milk (high)") } == [true])
        #expect(try sb.todo("list", "--all").lines.count == 2)

        try expectOneCommit(
            sb, ["edit", m, "--title", "Buy oat milk", "--untag", "urgent"],
            stdout: "Changed title, -urgent: Buy oat milk (\(m))\n", subject: "edit: Buy oat milk (\(m))")
        try expectOneCommit(
            sb, ["edit", m, "--title", "Buy milk", "--tag", "urgent"],
            stdout: "Changed title, +urgent: Buy milk (\(m))\n", subject: "edit: Buy milk (\(m))")
        try expectNoCommit(sb, ["edit", m, "--title", "Buy milk", "--tag", "urgent"], stdout: "Nothing changed: Buy milk (\(m))\n")

        try expectOneCommit(sb, ["reopen", m], stdout: "Reopened: Buy milk (\(m))\n", subject: "reopen: Buy milk (\(m))")
        try expectNoCommit(sb, ["reopen", m], stdout: "Already open: Buy milk (\(m))\n")

        try expectOneCommit(
            sb, ["rm", p], stdout: "Deleted: Call the plumber (\(p)) (undo with `todo restore \(p)`)\n",
            subject: "rm: Call the plumber (\(p))")
        try expectNoCommit(sb, ["rm", p], stdout: "Already deleted: Call the plumber (\(p))\n")
        #expect(try sb.todo("list").lines.count == 1)
        #expect(try sb.todo("list", "--deleted").lines == ["\(p)  [deleted] Call the plumber"])
        // A tombstone: the file stays, with "deleted": true.
        let tomb = try json(String(decoding: try sb.committedBytes(plumber.path), as: UTF8.self))
        #expect(tomb["deleted"] == .bool(true))
        #expect(try sb.todo("show", p).stdout.contains("Status:   open, deleted (todo restore \(p))"))

        try expectOneCommit(sb, ["restore", p], stdout: "Restored: Call the plumber (\(p))\n", subject: "restore: Call the plumber (\(p))")
        try expectNoCommit(sb, ["restore", p], stdout: "Not deleted: Call the plumber (\(p))\n")
        #expect(try sb.todo("list").lines.count == 2)

        // Every task file on main is canonical; git finds nothing wrong.
        for path in try sb.git("ls-tree", "-r", "--name-only", "HEAD", "tasks").lines {
            expectCanonical(try sb.committedBytes(path), path)
        }
        try sb.expectClean()
    }

    @Test func aDoneAndEditedFileMatchesTheGoldenFile() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let milk = try sb.add("Buy milk", "--due", "tomorrow 18:00", "--assign", "Bob", "--tag", "groceries",
            "--tag", "urgent", "--priority", "high", "--note", "2 litres")
        #expect(try sb.todo("done", milk.short).exitCode == 0)
        sb.now = fixedNow + 3_600_000
        #expect(try sb.todo("edit", milk.short, "--untag", "urgent", "--title", "Buy oat milk").exitCode == 0)
        let replica = try sb.git("config", "todo.replica").stdout.trimmingCharacters(in: .newlines)
        let bytes = try sb.committedBytes(milk.path)
        #expect(String(decoding: bytes, as: UTF8.self) == (try golden("buy-milk-done-edited.json", id: milk.id, replica: replica)))
        expectCanonical(bytes, milk.path)
    }

    @Test func oneCommandCanChangeSeveralTasksInOneCommit() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let a = try sb.add("Walk the dog")
        let b = try sb.add("Feed the cat")
        let before = try sb.commits().count
        let r = try sb.todo("done", a.short, b.id, a.id)
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.lines == ["Done: Walk the dog (\(a.short))", "Done: Feed the cat (\(b.short))"])
        #expect(try sb.commits().count == before + 1)
        #expect(try sb.subject() == "done: Walk the dog (\(a.short)), Feed the cat (\(b.short))")
        #expect(try sb.git("show", "--format=", "--name-only", "HEAD").lines.sorted() == [a.path, b.path].sorted())
        try sb.expectClean()
    }

    @Test func editWithNothingToChangeIsAUsageError() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let a = try sb.add("Walk the dog")
        let before = try sb.commits()
        for args in [["edit", a.short], ["edit", a.short, "--due", "friday", "--no-due"], ["edit", a.short, "--tag", "x", "--untag", "x"],
            ["edit", a.short, "--assign", "Bob", "--unassign"], ["done"]]
        {
            let r = try sb.todo(args)
            #expect(r.exitCode == 64, "\(r)")
            #expect(!r.stderr.isEmpty)
        }
        #expect(try sb.commits() == before)
    }
}
