import Foundation
import TodoCore
import Testing

/// `todo import`: its own JSON and Taskwarrior's, one commit for the whole import.
@Suite(.timeLimit(.minutes(20)), .kit) struct ImportTests {
    /// The objects of a `list --json` array, one per line as `todo` prints them.
    func objectLines(_ r: Run) -> [String] {
        r.lines.filter { $0 != "[" && $0 != "]" }.map { $0.hasSuffix(",") ? String($0.dropLast()) : $0 }
    }

    @Test func listJSONRoundTripsIntoAFreshHousehold() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        _ = try sb.add("Buy milk", "--due", "tomorrow 18:00", "--assign", "Bob", "--tag", "groceries", "--tag", "urgent",
            "--priority", "high", "--note", "2 litres\nsemi-skimmed")
        _ = try sb.add("Call the plumber", "--due", "2025-11-25", "--priority", "low")
        let rent = try sb.add("Pay rent")
        let old = try sb.add("Old list")
        _ = try sb.add("Café ☕ run \"quoted\" \\ back")
        #expect(try sb.todo("done", rent.short).exitCode == 0)
        #expect(try sb.todo("rm", old.short).exitCode == 0)
        let all = try sb.todo("list", "--all", "--json")
        let deleted = try sb.todo("list", "--deleted", "--json")
        #expect(objectLines(all).count == 4 && objectLines(deleted).count == 1)
        let file = try sb.file("roundtrip.json", jsonArray(objectLines(all) + objectLines(deleted)))

        // Another member imports into a new household, later.
        try sb.initHousehold("copy", member: "Dana", email: "dana@example.org")
        sb.now = fixedNow + 86_400_000
        let imported = try sb.todo("import", "-H", "copy", file)
        #expect(imported.exitCode == 0, "\(imported)")
        #expect(imported.stdout == "Imported 5 tasks.\n")
        #expect(try sb.commits("copy").count == 2, "one commit for the whole import")
        #expect(try sb.subject(household: "copy") == "import: 5 tasks from roundtrip.json")
        #expect(try sb.author(household: "copy") == "Dana <dana@example.org>")

        // Same ids, same fields, including who created them and when.
        #expect(try sb.todo("list", "-H", "copy", "--all", "--json").stdout == all.stdout)
        #expect(try sb.todo("list", "-H", "copy", "--deleted", "--json").stdout == deleted.stdout)
        for path in try sb.git("ls-tree", "-r", "--name-only", "HEAD", "tasks", in: "copy").lines {
            expectCanonical(try sb.committedBytes(path, household: "copy"), path)
        }
        try sb.expectClean("copy")

        // Importing again skips every task and commits nothing.
        let before = try sb.commits("copy")
        let again = try sb.todo("import", "-H", "copy", "--json", file)
        #expect(again.exitCode == 0, "\(again)")
        let counts = #"{"imported": 0, "updated": 0, "skipped": 5, "notes": [], "#
            + #""fields": {}, "kept": {}, "replaced": {}, "recorded": 0}"#
        #expect(try json(again.stdout) == json(counts))
        #expect(try sb.commits("copy") == before)
    }

    @Test func aTaskwarriorExportImportsWithItsMeaning() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let path = fixturesDirectory + "/taskwarrior-export.json"
        let r = try sb.todo("import", path)
        #expect(r.exitCode == 0, "\(r)")
        // What has no field is reported, never dropped silently.
        let report = "1 task had `wait`: kept in notes\n1 task had `project`: kept in notes (a name with spaces cannot be a tag)\n"
        #expect(r.stdout == "Imported 6 tasks.\n" + report)
        #expect(try sb.commits().count == 2)
        #expect(try sb.subject() == "import: 6 tasks from taskwarrior-export.json")
        #expect(try sb.git("show", "--format=", "--name-only", "HEAD").lines.count == 6)

        var byID: [String: JSONValue] = [:]
        for args in [["list", "--all", "--json"], ["list", "--deleted", "--json"]] {
            for t in try json(try sb.todo(args).stdout).items { byID[t["id"]?.stringValue ?? ""] = t }
        }
        #expect(byID.count == 6)
        func task(_ uuid: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
            try #require(byID[uuid.replacingOccurrences(of: "-", with: "")], "uuid \(uuid)", sourceLocation: sourceLocation)
        }
        let rent = try task("5f0c1d2e-8a3b-4c4d-9e5f-6a7b8c9d0e1f")
        #expect(rent["title"] == .string("Pay rent"))
        #expect(rent["status"] == .string("open"))
        #expect(rent["due"] == .string("2025-12-01"))
        #expect(rent["priority"] == .string("high"))
        #expect(rent["tags"]?.strings == ["money", "monthly", "project:bills"])
        #expect(rent["createdAt"] == .string("2025-11-15T08:30:12.000Z"))
        #expect(rent["createdBy"] == .string("Alice"))
        #expect(rent["deleted"] == .bool(false))

        let plumber = try task("0b1c2d3e-4f50-4617-8a9b-0c1d2e3f4a5b")
        #expect(plumber["due"] == .string("2025-11-26T17:30"))
        #expect(plumber["priority"] == .string("normal"))
        #expect(plumber["notes"] == .string("kitchen sink drips\nnumber is on the fridge"))
        #expect(plumber["tags"]?.strings == [])

        let plants = try task("c3d4e5f6-a7b8-49c0-8d1e-2f3a4b5c6d7e")
        #expect(plants["priority"] == .string("low"))
        #expect(plants["tags"]?.strings == ["home", "project:garden.balcony"])
        #expect(plants["due"] == .null)

        let dentist = try task("d4e5f6a7-b8c9-40d1-9e2f-3a4b5c6d7e8f")
        #expect(dentist["status"] == .string("open"), "waiting is still to do")

        let bike = try task("1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d")
        #expect(bike["status"] == .string("done"))
        #expect(bike["tags"]?.strings == ["bike"])

        let shopping = try task("e5f6a7b8-c9d0-41e2-8f3a-4b5c6d7e8f90")
        #expect(shopping["deleted"] == .bool(true))
        #expect(shopping["tags"]?.strings == [], "a project with spaces does not become a tag")

        #expect(try sb.todo("list").lines.count == 4)
        #expect(try sb.todo("show", "5f0c").stdout.contains("Tags:     money, monthly, project:bills"))

        // Re-import: every uuid is already there.
        let before = try sb.commits()
        let again = try sb.todo("import", path)
        #expect(again.stdout == "Imported 0 tasks (6 already present, skipped).\n" + report, "\(again)")
        #expect(try sb.commits() == before)
        try sb.expectClean()
    }

    @Test func oneObjectPerLineFromStandardInput() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let id = chosenID("77")
        let lines = [
            jsonObject(["id": id, "title": "First"]),
            jsonObject(["description": "From Taskwarrior", "status": "pending"]),
            jsonObject(["id": id, "title": "Same id again"]),
        ].joined(separator: "\r\n") + "\n"
        let r = try sb.todo("import", "-", stdin: lines)
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stdout == "Imported 2 tasks (1 already present, skipped).\n")
        #expect(try sb.subject() == "import: 2 tasks from standard input")
        #expect(try json(try sb.todo("show", "--json", id).stdout)["title"] == .string("First"))
    }

    @Test(arguments: [
        ("[{\"title\": \"a\"}, ", "not JSON"),
        ("", "no tasks found"),
        ("{\"title\": \"a\"} {\"title\": \"b\"}", "not JSON"),
        ("[{\"title\": \"ok\"}, {\"title\": \"bad\", \"priority\": \"urgent\"}]", "task 2: \"priority\" must be low, normal or high"),
        ("[{\"title\": \"  \"}]", "task 1: the title is empty"),
        ("[{\"title\": \"a\", \"id\": \"xyz\"}]", "task 1: \"id\" is not 32 hex digits"),
        ("[{\"title\": \"a\", \"due\": \"friday\"}]", "task 1: \"due\" is not a date"),
        ("[{\"title\": \"a\", \"tags\": \"one\"}]", "task 1: \"tags\" must be an array"),
        ("[{\"description\": \"a\", \"uuid\": \"not-a-uuid\"}]", "task 1: \"uuid\" is not a UUID"),
        ("[1]", "task 1: not a JSON object"),
        (#"[{"title": "a", "completions": {"2025-11-04/1": ["done", "Bob", "2025-11-04", "x"]}}]"#,
            #"task 1: entry "2025-11-04/1" of "completions" is malformed"#),
        (#"[{"title": "a", "completions": ["done"]}]"#, #"task 1: "completions" must be an object"#),
        (#"[{"title": "a", "schedule": 3}]"#, #"task 1: "schedule" must be a string"#),
        (#"[{"title": "a", "rotate": {"by": "fewest"}}]"#, #"task 1: "rotate" must be a string"#),
        (#"[{"title": "a", "alarm": "soon"}]"#, #"task 1: "alarm" must be a duration"#),
        // The limits every way in shares (FieldRules): as `todo add` would refuse them.
        ("[{\"title\": \"" + String(repeating: "x", count: 1_001) + "\"}]", "task 1: \"title\" is longer than 1000 characters"),
        ("[{\"description\": \"" + String(repeating: "é", count: 1_001) + "\", \"uuid\": \"5f0c1d2e-8a3b-4c4d-9e5f-6a7b8c9d0e1f\"}]",
            "task 1: \"title\" is longer than 1000 characters"),
        ("[{\"title\": \"a\", \"assignee\": \"" + String(repeating: "k", count: 201) + "\"}]", "task 1: \"assignee\" is longer than 200 characters"),
        ("[{\"title\": \"a\", \"tags\": [\"" + String(repeating: "t", count: 65) + "\"]}]", "task 1: \"tags\" is longer than 64 characters"),
        (#"[{"title": "a", "tags": ["bell\u0007"]}]"#, #"task 1: "tags" must hold words without spaces"#),
        ("[{\"title\": \"a\", \"notes\": \"" + String(repeating: "n", count: 100_001) + "\"}]", "task 1: \"notes\" is longer than 100000 bytes"),
    ])
    func badImportDataExits65AndCommitsNothing(_ input: String, _ reason: String) throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let file = try sb.file("bad.json", input)
        let before = try sb.commits()
        let r = try sb.todo("import", file)
        #expect(r.exitCode == 65, "\(r)")
        #expect(r.stderr.contains("Cannot import \(file): "), "\(r)")
        #expect(r.stderr.contains(reason), "\(r)")
        #expect(r.stderr.contains("Nothing was imported."), "\(r)")
        #expect(r.stdout.isEmpty)
        #expect(try sb.commits() == before)
        try sb.expectStatusEmpty()
    }

    /// A task's own alarm goes through `list --json` and back.
    @Test func anAlarmRoundTripsThroughListJSON() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        _ = try sb.add("Call the dentist", "--due", "2025-11-24 10:00", "--alarm", "2h")
        let listed = try sb.todo("list", "--json")
        try #require(listed.exitCode == 0)
        try sb.initHousehold("other")
        let file = try sb.file("list.json", listed.stdout)
        let r = try sb.todo("import", "-H", "other", file)
        #expect(r.exitCode == 0, "\(r)")
        let again = try json(try sb.todo("list", "-H", "other", "--json").stdout).items
        #expect(again.first?["alarm"] == .string("2h"), "\(again)")
    }

    @Test func aMissingImportFileIsNotFound() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let r = try sb.todo("import", sb.root + "/no-such-file.json")
        #expect(r.exitCode == 66, "\(r)")
        #expect(r.stderr.contains("Cannot read \(sb.root)/no-such-file.json (No such file or directory)."), "\(r)")
    }

    @Test func aLargeImportIsOneCommitAndLeavesOtherHandEditsAlone() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let first = try sb.add("Walk the dog")
        let doc = jsonArray((0..<150).map { jsonObject(["title": "Chore \($0)", "assignee": $0 % 2 == 0 ? "Bob" : "Carol"]) })
        let file = try sb.file("chores.json", doc)

        // A hand edit of another task does not stop the import, and survives it.
        let full = sb.repo() + "/" + first.path
        let original = try #require(readBytes(full))
        let edited = original + Array(" ".utf8)
        try writeBytes(full, edited)
        let before = try sb.commits()

        let r = try sb.todo("import", file)
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stdout == "Imported 150 tasks.\n")
        #expect(readBytes(full) == edited)
        // By its full id: after 150 more tasks its short id may name several.
        let refused = try sb.todo("done", first.id)
        #expect(refused.exitCode == 65, "\(refused)")
        #expect(refused.stderr.contains("were changed by hand and not committed: \(first.path)"), "\(refused)")
        try writeBytes(full, original)
        #expect(try sb.commits().count == before.count + 1)
        #expect(try sb.subject() == "import: 150 tasks from chores.json")
        let changes = try sb.git("show", "--format=", "--name-status", "HEAD").lines
        #expect(changes.count == 150 && changes.allSatisfy { $0.hasPrefix("A\ttasks/") })
        #expect(try json(try sb.todo("list", "--json", "--assignee", "carol").stdout).items.count == 75)
        for path in changes.prefix(10).map({ String($0.dropFirst(2)) }) {
            expectCanonical(try sb.committedBytes(path), path)
        }
        try sb.expectClean()
    }
}
