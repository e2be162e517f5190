import Foundation
import Testing
import TodoCore

/// `todo import` of a Taskwarrior export the household imported before: only what changed in
/// the file since the last import is written (docs/FORMAT.md, "The last import").
@Suite(.timeLimit(.minutes(20)), .kit) struct ReimportTests {
    static let rent = "5f0c1d2e8a3b4c4d9e5f6a7b8c9d0e1f"
    static let plants = "c3d4e5f6a7b849c08d1e2f3a4b5c6d7e"

    /// A Taskwarrior export of "Pay rent" (and, with `plants`, a second task).
    func export(title: String = "Pay rent", priority: String = "M", tags: [String] = ["money"], plants: Bool = false) -> String {
        let tagList = tags.map(quoted).joined(separator: ", ")
        var objects = [
            #"{"uuid": "5f0c1d2e-8a3b-4c4d-9e5f-6a7b8c9d0e1f", "description": \#(quoted(title)), "status": "pending", "#
                + #""entry": "20251115T083012Z", "priority": "\#(priority)", "tags": [\#(tagList)]}"#
        ]
        if plants {
            objects.append(
                #"{"uuid": "c3d4e5f6-a7b8-49c0-8d1e-2f3a4b5c6d7e", "description": "Water the plants", "status": "pending", "#
                    + #""entry": "20251115T083012Z"}"#)
        }
        return jsonArray(objects)
    }

    func run(_ sb: Sandbox, _ args: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        let r = try sb.todo(args)
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)", sourceLocation: sourceLocation)
        return r
    }

    func task(_ sb: Sandbox, _ id: String = rent) throws -> Task {
        try TaskCodec.decode(try sb.committedBytes("tasks/\(id.prefix(2))/\(id).json"))
    }

    /// The observation: import, edit the title and the assignee, import the same file again.
    @Test func reimportKeepsMembersEditsAndTakesWhatTheFileChanged() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let file = try sb.file("export.json", export())
        #expect(try run(sb, "import", file).stdout == "Imported 1 task.\n")
        _ = try run(sb, "edit", "5f0c", "--title", "Pay the rent", "--assign", "Bob")
        let edited = try sb.commits()

        // The same file again: nothing changed in it, so nothing changes here.
        let again = try run(sb, "import", file)
        #expect(again.lines == [
            "Imported 0 tasks (1 already present, unchanged).",
            "Kept edits made since the last import: title (1 task), assignee (1 task).",
        ])
        let asJSON = try json(try run(sb, "import", "--json", file).stdout)
        #expect(asJSON["updated"] == .number("0") && asJSON["fields"] == .object([]))
        #expect(asJSON["kept"] == .object([("title", .number("1")), ("assignee", .number("1"))]), "\(asJSON)")
        #expect(try sb.commits() == edited, "nothing to commit")
        var t = try task(sb)
        #expect(t.title == "Pay the rent" && t.assignee == "Bob")
        #expect(try json(try run(sb, "conflicts", "--json").stdout).items.isEmpty)

        // The file's title changes: the import's title wins as a new edit, the member's is logged.
        let changed = try sb.file("export.json", export(title: "Pay rent by the 1st"))
        let third = try run(sb, "import", changed)
        #expect(third.lines == [
            "Imported 0 tasks, updated 1.",
            "Updated from the file: title (1 task).",
            "Kept edits made since the last import: assignee (1 task).",
            "Edits replaced by the file (in todo conflicts): title (1 task).",
        ])
        #expect(try sb.commits().count == edited.count + 1)
        #expect(try sb.subject() == "import: 1 tasks from export.json")
        t = try task(sb)
        #expect(t.title == "Pay rent by the 1st" && t.assignee == "Bob")
        #expect(t.extra["imported"]?["title"] == .string("Pay rent by the 1st"))
        #expect(t.stamps["imported"] == t.stamps["title"], "the record is written with the import's stamp")
        let entries = try json(try run(sb, "conflicts", "--json").stdout).items
        try #require(entries.count == 1, "\(entries)")
        #expect(entries[0]["field"] == .string("title"))
        #expect(entries[0]["lost"]?["value"] == .string("Pay the rent"))
        #expect(entries[0]["kept"]?["value"] == .string("Pay rent by the 1st"))

        // The member's title comes back with `todo conflicts restore`, and stays on re-import.
        let id = try #require(entries[0]["id"]?.stringValue)
        _ = try run(sb, "conflicts", "restore", String(id.prefix(8)))
        #expect(try task(sb).title == "Pay the rent")
        let restored = try sb.commits()
        _ = try run(sb, "import", changed)
        #expect(try sb.commits() == restored)
        #expect(try task(sb).title == "Pay the rent")
        expectCanonical(try sb.committedBytes("tasks/5f/\(Self.rent).json"), "rent")
        try sb.expectClean()
    }

    /// A field changed only in the file is updated; a tag the member removed and the file kept
    /// stays removed, one the file added arrives.
    @Test func aFieldChangedOnlyInTheFileIsUpdated() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        _ = try run(sb, "import", try sb.file("export.json", export(tags: ["money", "home"])))
        _ = try run(sb, "edit", "5f0c", "--untag", "home")
        let r = try run(sb, "import", try sb.file("export.json", export(priority: "H", tags: ["money", "home", "bills"])))
        #expect(r.lines == [
            "Imported 0 tasks, updated 1.",
            "Updated from the file: tags (1 task), priority (1 task).",
            "Kept edits made since the last import: tags (1 task).",
        ])
        let t = try task(sb)
        #expect(t.priority == .high && t.tags == ["bills", "money"])
        #expect(t.conflicts.isEmpty)
        #expect(try sb.git("show", "--format=", "--name-only", "HEAD").lines == ["tasks/5f/\(Self.rent).json"])
        try sb.expectClean()
    }

    /// A task imported by a version without the record: a value that differs from the file is
    /// taken from the file, the household's logged; a task that matches gets only the record.
    @Test func aTaskImportedWithoutARecordTakesTheFileAndLogsWhatDiffered() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        _ = try run(sb, "import", try sb.file("export.json", export(plants: true)))
        _ = try run(sb, "edit", "5f0c", "--title", "Pay the rent")
        // What an older version leaves: the same files without `imported`.
        var files: [(String, [UInt8])] = []
        for id in [Self.rent, Self.plants] {
            var t = try task(sb, id)
            t.extra["imported"] = nil
            t.stamps["imported"] = nil
            files.append(("tasks/\(id.prefix(2))/\(id).json", TaskCodec.encode(t)))
        }
        try sb.commitByHand(files, message: "older todo")
        let r = try run(sb, "import", try sb.file("export.json", export(plants: true)))
        #expect(r.lines == [
            "Imported 0 tasks, updated 1 (1 already present, unchanged).",
            "Updated from the file: title (1 task).",
            "Edits replaced by the file (in todo conflicts): title (1 task).",
            "Recorded the file's values of 1 task imported before, for the next import.",
        ])
        #expect(try task(sb).title == "Pay rent")
        #expect(try task(sb, Self.plants).extra["imported"]?["title"] == .string("Water the plants"))
        let entries = try json(try run(sb, "conflicts", "--json").stdout).items
        #expect(entries.map { $0["lost"]?["value"] } == [.string("Pay the rent")])
        try sb.expectClean()
    }

    /// A record that does not have its shape makes the file malformed, as any known field does:
    /// list warns and goes on, and a re-import of that task is refused with nothing written.
    @Test func aMalformedRecordIsAMalformedFile() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let file = try sb.file("export.json", export())
        _ = try run(sb, "import", file)
        let path = "tasks/5f/\(Self.rent).json"
        let text = String(decoding: try sb.committedBytes(path), as: UTF8.self)
            .replacingOccurrences(of: #""tags": ["money"],\#n    "title""#, with: #""tags": "money",\#n    "title""#)
        try #require(text.contains(#""tags": "money""#))
        try sb.commitByHand([(path, Array(text.utf8))], message: "by hand")
        let listed = try sb.todo("list")
        #expect(listed.exitCode == 0 && listed.stderr.contains(path), "\(listed)")
        let before = try sb.commits()
        let r = try sb.todo("import", file)
        #expect(r.exitCode == 65 && r.stderr.contains(path), "\(r)")
        #expect(try sb.commits() == before)
        try sb.expectClean()
    }

    /// Alice re-imports a changed export while Bob edits the task: after syncing both ways they
    /// hold the same tree, with the file's title, Bob's other edits, and Bob's title in the log.
    @Test func membersConvergeAfterOneReimports() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        try alice.create(remote: host.url())
        let file = try alice.sb.file("export.json", export())
        try alice.change("import", file)
        try alice.sync()
        let bob = try Member("Bob", host: host, now: fixedNow + 60_000)
        try bob.join(host.url())
        try bob.change("edit", "5f0c", "--title", "Pay the rent", "--assign", "Bob")
        try bob.sync()
        try alice.sync()
        // Concurrently: Alice re-imports a changed export, Bob changes the priority.
        let r = try alice.todo("import", try alice.sb.file("export.json", export(title: "Pay rent by the 1st")))
        #expect(r.exitCode == 0 && r.lines.first == "Imported 0 tasks, updated 1.", "\(r)")
        try bob.change("edit", "5f0c", "--priority", "low")
        try syncUntilQuiet([alice, bob])
        try expectConverged([alice, bob], host: host)
        for m in [alice, bob] {
            let t = try m.show("5f0c")
            #expect(t["title"] == .string("Pay rent by the 1st") && t["assignee"] == .string("Bob"), "\(m.name): \(t)")
            #expect(t["priority"] == .string("low"), "\(m.name): \(t)")
            let entries = try json(try m.todo("conflicts", "--json").stdout).items
            #expect(entries.map { $0["lost"]?["value"] } == [.string("Pay the rent")], "\(m.name): \(entries)")
        }
        // Bob imports the same file: the record already says it, so nothing changes.
        let head = try bob.head()
        let again = try bob.todo("import", try bob.sb.file("export.json", export(title: "Pay rent by the 1st")))
        #expect(again.exitCode == 0 && again.lines.first == "Imported 0 tasks (1 already present, unchanged).", "\(again)")
        #expect(try bob.head() == head)
    }

    /// `todo list --json` of a chore imports with its completions, schedule and rotate: the
    /// other household lists it the same.
    @Test func listJSONCarriesCompletionsScheduleAndRotate() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let chore = try sb.add("Water the plants", "--every", "day", "--from", "2025-11-17", "--rotate", "Alice,Bob",
            "--turns", "fewest", "--catch-up")
        _ = try run(sb, "done", chore.short)
        _ = try run(sb, "done", chore.short)
        let exported = try run(sb, "list", "--all", "--json").stdout
        let listed = try json(exported).items.first
        guard case .object(let completions)? = listed?["completions"] else {
            Issue.record("no completions: \(exported)")
            return
        }
        #expect(completions.count == 2, "\(exported)")
        #expect(listed?["schedule"] == .string("catch-up") && listed?["rotate"] == .string("fewest"), "\(exported)")

        try sb.initHousehold("other", member: "Dana", email: "dana@example.org")
        let r = try sb.todo(["import", "-H", "other", "-"], stdin: exported)
        #expect(r.exitCode == 0 && r.stdout == "Imported 1 task.\n", "\(r)")
        #expect(try run(sb, "-H", "other", "list", "--all", "--json").stdout == exported)
        let mine = try TaskCodec.decode(try sb.committedBytes(chore.path))
        let theirs = try TaskCodec.decode(try sb.committedBytes(chore.path, household: "other"))
        for key in ["completions", "occurrences", "schedule", "rotate", "rotation", "repeat"] {
            #expect(theirs.extra[key] == mine.extra[key], "\(key)")
        }
        #expect(theirs.stamps["schedule"] != nil && theirs.stamps["rotate"] != nil)
        try sb.expectClean("other")
    }
}
