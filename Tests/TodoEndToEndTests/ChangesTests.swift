import Foundation
import Testing
import TodoCore

/// What a sync received from others, told once at its end and again by `todo changes`.
@Suite(.timeLimit(.minutes(20)), .kit) struct ChangesTests {
    /// What is told is the net effect: a task someone added and deleted before syncing is told
    /// as both, once; one added by one member and deleted by another, as each.
    @Test func aTaskAddedAndDeletedIsToldAsBoth() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host)
        let carol = try Member("Carol", host: host)
        try alice.create(remote: host.url())
        try alice.sync()
        try bob.join(host.url())
        try carol.join(host.url())
        let typo = try bob.add("Buy mlik")
        try bob.change("rm", typo.short)
        let cake = try bob.add("Order cake")
        try bob.sync()
        try carol.sync()
        try carol.change("rm", cake.short)
        try carol.sync()

        let r = try alice.sync()
        let told = Array(r.lines.dropFirst())
        #expect(told.contains { $0.hasPrefix("  Bob added and deleted: Buy mlik (") }, "\(r)")
        #expect(told.contains { $0.hasPrefix("  Bob added: Order cake (") }, "\(r)")
        #expect(told.contains { $0.hasPrefix("  Carol deleted: Order cake (") }, "\(r)")
        #expect(!told.contains { $0.contains("Bob added: Buy mlik") }, "\(r)")
        #expect(told.count == 3, "\(r)")
        let kinds = try json(try alice.todo("changes", "--json").stdout).items.compactMap { $0["kind"]?.stringValue }
        #expect(kinds.sorted() == ["added", "added-and-deleted", "deleted"], "\(kinds)")
    }

    @Test func syncTellsWhatOthersDidAndChangesTellsItAgain() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host)
        try alice.create(remote: host.url())
        let milk = try alice.add("Buy milk")
        let bike = try alice.add("Fix bike tyre")
        let car = try alice.add("Clean car")
        try alice.sync()
        try bob.join(host.url())
        try bob.change("done", milk.short)
        try bob.change("edit", car.short, "--assign", "Alice", "--due", "fri", "--tag", "car")
        try bob.change("rm", bike.short)
        _ = try bob.add("Bake bread")
        try alice.change("edit", bike.short, "--title", "Fix bike tyres")
        try alice.change("edit", milk.short, "--title", "Buy oat milk")
        try bob.change("edit", milk.short, "--title", "Buy soy milk")
        let bobs = try bob.sync()
        #expect(bobs.lines.count == 1, "nothing received: \(bobs)")

        let r = try alice.sync()
        let told = Array(r.lines.dropFirst())
        #expect(told.contains { $0.hasPrefix("* Bob assigned to you: Clean car (") }, "\(r)")
        #expect(told.contains { $0.hasPrefix("  Bob added: Bake bread (") }, "\(r)")
        #expect(told.contains { $0.hasPrefix("  Bob completed: Buy soy milk (") }, "\(r)")
        #expect(told.contains { $0.hasPrefix("  Bob deleted: Fix bike tyres (") }, "\(r)")
        #expect(told.contains { $0.contains("Bob edited: ") && $0.contains(": due, +car)") && $0.contains("Buy soy milk") }, "\(r)")
        let folded = try #require(told.first { $0.hasPrefix("* Bob deleted Fix bike tyres (") }, "\(r)")
        #expect(folded.contains("while you edited its title: `todo conflicts restore "), "\(folded)")
        #expect(told.contains { $0.hasPrefix("  New conflicts (todo conflicts): Buy soy milk (") && $0.hasSuffix(": title)") }, "\(r)")
        #expect(told.count == 7, "\(r)")

        // Told again, the same, and only what touches me with --mine.
        let again = try alice.todo("changes")
        #expect(again.exitCode == 0 && again.lines == told, "\(again)")
        let mine = try json(try alice.todo("changes", "--mine", "--json").stdout).items
        #expect(Set(mine.compactMap { $0["kind"]?.stringValue }) == ["deleted-my-edit", "assigned-to-me", "edited"])
        #expect(mine.allSatisfy { $0["mine"] == .bool(true) && $0["member"] == .string("Bob") })

        // The restore the line names brings the task and the edit back.
        let entry = String(try #require(folded.split(separator: "`todo conflicts restore ").last).prefix(8))
        try alice.change("conflicts", "restore", entry)
        let restored = try alice.show(bike.id)
        #expect(restored["deleted"] == .bool(false) && restored["title"] == .string("Fix bike tyres"), "\(restored)")

        // Bob hears about Alice's restore on his next sync; Alice's own changes are not told to her.
        #expect(try alice.sync().lines.count == 1)
        let b = try bob.sync()
        #expect(b.lines.contains { $0.hasPrefix("  Alice restored: Fix bike tyres (") }, "\(b)")
        #expect(try alice.sync().lines.count == 1)
        #expect(try alice.todo("changes").lines == told, "an empty sync keeps the last one")
        #expect(try alice.todo("changes", "--since", "today").lines.contains { $0.hasPrefix("  Bob added: Bake bread (") })
    }

    /// Chores done and skipped are told with their dates; an occurrence given to me is marked;
    /// checklist items as `edit` names them.
    @Test func syncTellsWhoDidWhichChoreForWhichDate() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host)
        try alice.create(remote: host.url())
        let trash = try alice.add("Take out the trash", "--every", "tue", "--rotate", "Bob,Carol", "--from", "2025-11-11")
        let groceries = try alice.add("Groceries", "--item", "milk", "--item", "eggs")
        try alice.sync()
        try bob.join(host.url())
        try bob.change("done", trash.short)
        try bob.change("skip", trash.short)
        try bob.change("edit", trash.short, "--assign", "Alice")
        try bob.change("edit", groceries.short, "--check", "milk", "--item", "bread", "--remove-item", "eggs")
        try bob.sync()

        let r = try alice.sync()
        let short = String(trash.id.prefix(4))
        let told = Array(r.lines.dropFirst())
        #expect(told == [
            "* Bob assigned to you: Take out the trash (\(short): Tue 2 Dec)",
            "  Bob did: Take out the trash (\(short): Tue 18 Nov)",
            "  Bob skipped: Take out the trash (\(short): Tue 25 Nov)",
            "  Bob edited: Groceries (\(groceries.id.prefix(4)): x milk, -eggs, +bread)",
        ], "\(r)")
        #expect(try alice.todo("changes").lines == told)
        let changes = try json(try alice.todo("changes", "--json").stdout).items
        let done = try #require(changes.first { $0["kind"] == .string("chore-done") }, "\(changes)")
        #expect(done["member"] == .string("Bob") && done["fields"] == .array([.string("2025-11-18")]) && done["mine"] == .bool(false))
        #expect(changes.contains { $0["kind"] == .string("chore-skipped") && $0["fields"] == .array([.string("2025-11-25")]) })
        let mine = try json(try alice.todo("changes", "--mine", "--json").stdout).items
        #expect(mine.compactMap { $0["kind"]?.stringValue } == ["assigned-to-me"], "\(mine)")
    }

    /// `--since` tells an edit made after the date to a task made before it, even when the
    /// commit `main` had at that date (on its first-parent line, here another member's merge)
    /// does not hold the task yet.
    @Test func changesSinceTellsTitleEditsOfOlderTasks() throws {
        let day: Int64 = 86_400_000
        let nov1 = fixedNow - 19 * day
        let host = try GitHost(.path)
        try host.createRepository()
        let alice = try Member("Alice", host: host, now: nov1)
        let bob = try Member("Bob", host: host, now: nov1)
        try alice.create(remote: host.url())
        try alice.sync()
        try bob.join(host.url())
        alice.sb.now = nov1 + 9 * day  // 10 Nov
        let milk = try alice.add("Buy milk")
        try alice.sync()
        bob.sb.now = nov1 + 11 * day  // 12 Nov
        _ = try bob.add("Fix bike")
        bob.sb.now = nov1 + 15 * day  // 16 Nov: Bob merges; Alice fast-forwards to his merge
        try bob.sync()
        alice.sb.now = nov1 + 15 * day
        try alice.sync()
        bob.sb.now = fixedNow  // 20 Nov
        try bob.change("edit", milk.short, "--title", "Buy oat milk")
        try bob.sync()
        alice.sb.now = fixedNow
        try alice.sync()

        let r = try alice.todo("changes", "--since", "2025-11-15")
        #expect(r.exitCode == 0 && r.lines == ["  Bob edited: Buy oat milk (\(milk.id.prefix(4)): title)"], "\(r)")
        let earlier = try alice.todo("changes", "--since", "2025-11-11")
        #expect(earlier.lines.contains { $0.hasPrefix("  Bob added: Fix bike (") }, "\(earlier)")
        #expect(earlier.lines.contains { $0.hasPrefix("  Bob edited: Buy oat milk (") }, "\(earlier)")
    }

    /// The household settings file is never told as a task: the zone and members' details
    /// read as sentences about the household, in the sync's summary, `changes` and `--json`.
    @Test func settingsAreToldInWordsNotAsATask() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host)
        try alice.create(remote: host.url())
        _ = try alice.add("Feed the cat", "--assign", "Kim")
        try alice.sync()
        try bob.join(host.url())
        try bob.change("timezone", "Europe/Paris")
        try bob.change("member", "set", "Kim", "--email", "kim@example.org", "--via", "mail")
        try bob.change("member", "set", "Alice", "--every-days", "2")
        try bob.sync()

        let r = try alice.sync()
        let told = Array(r.lines.dropFirst())
        #expect(told == [
            "  Bob set the household's time zone to Europe/Paris",
            "* Bob changed Alice's reminder details (every-days)",
            "  Bob changed Kim's reminder details (email, via)",
        ], "\(r)")
        #expect(try alice.todo("changes").lines == told)
        #expect(try alice.todo("changes", "--mine").lines == ["* Bob changed Alice's reminder details (every-days)"])
        let changes = try json(try alice.todo("changes", "--json").stdout).items
        #expect(changes.count == 3 && !changes.contains { $0["id"] != nil }, "\(changes)")
        #expect(changes.first == .object([
            ("kind", .string("time-zone")), ("member", .string("Bob")), ("zone", .string("Europe/Paris")), ("mine", .bool(false)),
        ]), "\(changes)")
        #expect(changes.last == .object([
            ("kind", .string("member-details")), ("member", .string("Bob")), ("name", .string("Kim")),
            ("fields", .array([.string("email"), .string("via")])), ("mine", .bool(false)),
        ]), "\(changes)")
        let log = try alice.todo("log", "-n", "3")
        #expect(log.exitCode == 0 && !log.stdout.contains("Household settings"), "\(log)")
        #expect(log.stdout.contains("    household settings: member:every:Alice"), "\(log)")
    }

    /// The roster: a join, time away and its clearing told in words; a leave, with the tasks the
    /// same commit gave to others, told as one line instead of each task's new assignee.
    @Test func aLeaveIsOneLineWithTheTasksItReassigned() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        let kim = try Member("Kim", host: host)
        try alice.create(remote: host.url())
        let tap = try alice.add("Fix the tap", "--assign", "Bob")
        let paint = try alice.add("Buy paint", "--assign", "Bob")
        let school = try alice.add("Call the school", "--assign", "Bob")
        let lawn = try alice.add("Mow the lawn", "--assign", "Bob")
        try alice.sync()
        try kim.join(host.url())

        try commitSettings(
            alice, [("member:roster@2025-11-20:Bob", "left")],
            assignees: [(tap, "Kim"), (paint, "Kim"), (school, "Lee"), (lawn, nil)], message: "member: Bob left")
        try commitSettings(
            alice, [("member:roster@2025-11-24:Ana: au pair", "member"), ("member:away@2025-12-01:Lee", "2025-12-05"),
                    ("member:away@2025-11-21:Kim", "")], message: "member: roster")
        try alice.change("edit", school.short, "--title", "Call the school office")
        try alice.sync()

        let r = try kim.sync()
        let told = Array(r.lines.dropFirst())
        #expect(told == [
            "* Alice: Bob left the household as of Thu 20 Nov; 2 tasks to you (Buy paint (\(paint.id.prefix(4))), "
                + "Fix the tap (\(tap.id.prefix(4)))), 1 to Lee, 1 unassigned",
            "  Alice: Ana: au pair joined the household as of Mon 24 Nov",
            "* Alice: Kim's time away from Fri 21 Nov is cleared",
            "  Alice: Lee is away from Mon 1 Dec through Fri 5 Dec",
            "  Alice edited: Call the school office (\(school.id.prefix(4)): title)",
        ], "\(r)")
        #expect(try kim.todo("changes").lines == told)
        let changes = try json(try kim.todo("changes", "--json").stdout).items
        let left = try #require(changes.first { $0["kind"] == .string("member-left") }, "\(changes)")
        #expect(left["member"] == .string("Alice") && left["name"] == .string("Bob") && left["from"] == .string("2025-11-20"), "\(left)")
        #expect(left["tasks"]?.items.map { [$0["id"], $0["assignee"]] } == [
            [.string(tap.id), .string("Kim")], [.string(paint.id), .string("Kim")], [.string(school.id), .string("Lee")],
            [.string(lawn.id), .null],
        ].sorted { ($0[0]?.stringValue ?? "") < ($1[0]?.stringValue ?? "") }, "\(left)")
        #expect(left["mine"] == .bool(true))
        #expect(changes.contains { $0["kind"] == .string("member-joined") && $0["name"] == .string("Ana: au pair") }, "\(changes)")
        #expect(changes.contains { $0["kind"] == .string("member-away") && $0["through"] == .string("2025-12-05") }, "\(changes)")
        #expect(changes.contains { $0["kind"] == .string("member-away") && $0["name"] == .string("Kim") && $0["through"] == .null })
        #expect(!changes.contains { $0["kind"] == .string("assigned-to-me") }, "\(changes)")
    }

    @Test func aLongSummaryStopsAfterTenLinesAndPointsToChanges() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        try alice.create(remote: host.url())
        let members = [try Member("Bob", host: host), try Member("Carol", host: host)]
        var tasks: [String: [String: TaskRef]] = [:]
        for m in members {
            for kind in ["complete", "reopen", "delete", "restore", "edit"] {
                tasks[m.name, default: [:]][kind] = try alice.add("\(kind) for \(m.name)")
            }
            try alice.change("done", tasks[m.name]!["reopen"]!.short)
            try alice.change("rm", tasks[m.name]!["restore"]!.short)
        }
        try alice.sync()
        for m in members {
            try m.join(host.url())
            let t = tasks[m.name]!
            _ = try m.add("added by \(m.name)")
            try m.change("done", t["complete"]!.short)
            try m.change("reopen", t["reopen"]!.short)
            try m.change("rm", t["delete"]!.short)
            try m.change("restore", t["restore"]!.short)
            try m.change("edit", t["edit"]!.short, "--note", "done differently")
            try m.sync()
        }
        let r = try alice.sync()
        let told = Array(r.lines.dropFirst())
        #expect(told.count == 10, "\(r)")
        #expect(told.last == "  … and 3 more: todo changes", "\(r)")
        let all = try alice.todo("changes")
        #expect(all.lines.count == 12, "\(all)")
        #expect(Array(all.lines.prefix(9)) == Array(told.prefix(9)))
        for name in ["Bob", "Carol"] {
            for verb in ["added", "completed", "reopened", "deleted", "restored"] {
                #expect(all.lines.contains { $0.hasPrefix("  \(name) \(verb): ") }, "\(name) \(verb): \(all)")
            }
            #expect(all.lines.contains { $0.hasPrefix("  \(name) edited: edit for \(name) (") && $0.hasSuffix(": notes)") })
        }
        #expect(try alice.todo("sync", "--quiet").stdout.isEmpty)
    }
}

/// Writes keys of the household settings file, and the assignees of tasks, in one commit made
/// with git as `m`: what a `todo` that has the command would write, each value stamped after
/// every stamp of its file with `m`'s replica id and name (docs/FORMAT.md, "Field stamps").
/// For settings this version has no command for yet.
func commitSettings(_ m: Member, _ keys: [(String, String)], assignees: [(TaskRef, String?)] = [], message: String) throws {
    let replica = try m.git("config", "todo.replica").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    let now = m.sb.now ?? fixedNow
    func stamp(after task: Task) -> FieldStamp {
        FieldStamp(Stamp(wall: max(now, (task.maxStamp?.wall ?? 0) + 1), counter: 0, replica: replica), by: m.name)
    }
    func committed(_ path: String) throws -> Task? {
        let r = try m.git("cat-file", "blob", "refs/heads/main:" + path)
        return r.exitCode == 0 ? try TaskCodec.decode(r.stdoutBytes) : nil
    }
    let path = "tasks/00/" + String(repeating: "0", count: 32) + ".json"
    var settings = try committed(path) ?? {
        var t = Task(
            id: TaskID(high: 0, low: 0), title: "Household settings (kept by todo; do not restore)",
            createdAt: isoMillis(now), createdBy: m.name, deleted: true)
        let first = FieldStamp(Stamp(wall: now, counter: 0, replica: replica), by: m.name)
        for field in Task.stampedFields { t.stamps[field] = first }
        return t
    }()
    let s = stamp(after: settings)
    for (key, value) in keys {
        settings.extra[key] = .string(value)
        settings.stamps[key] = s
    }
    var files = [(path, TaskCodec.encode(settings))]
    for (ref, to) in assignees {
        var t = try #require(try committed(ref.path))
        t.assignee = to
        t.stamps["assignee"] = stamp(after: t)
        files.append((ref.path, TaskCodec.encode(t)))
    }
    for (p, bytes) in files {
        try FileManager.default.createDirectory(atPath: directoryName(m.repo + "/" + p), withIntermediateDirectories: true)
        try writeBytes(m.repo + "/" + p, bytes)
    }
    let add = try m.sb.gitRun(["-C", m.repo, "add", "--"] + files.map(\.0))
    try #require(add.exitCode == 0, "\(add)")
    let commit = try m.git("commit", "-q", "-m", message)
    try #require(commit.exitCode == 0, "\(commit)")
}
