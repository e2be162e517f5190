import Foundation
import Testing
import TodoCore

/// An older `todo` to run beside this one: `$TODO_OLD_BINARY`. `make test` builds the release
/// before `completions`, `schedule` and `rotate` (commit fb9737e) with scripts/build-at.sh and
/// sets it; without it this suite is skipped.
let olderTodo = environment("TODO_OLD_BINARY")

extension Member {
    /// A file as committed on `main` in this member's replica, read with the git CLI.
    func committedJSON(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        let r = try git("show", "refs/heads/main:" + path)
        try #require(r.exitCode == 0, "\(r)", sourceLocation: sourceLocation)
        return try json(r.stdout)
    }

    /// Runs this member's (older) `todo`: it must work and print nothing on stderr (no warning
    /// about a malformed or unreadable file).
    @discardableResult
    func older(_ args: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        let r = try todo(args)
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "older todo \(args.joined(separator: " ")): \(r)", sourceLocation: sourceLocation)
        #expect(!r.stdout.contains("malformed") && !r.stdout.contains("unreadable"), "\(r)", sourceLocation: sourceLocation)
        return r
    }
}

/// A household shared by a member on this version and one still on the older release, through a
/// path remote (docs/FORMAT.md, "Older versions"): the older `todo` reads what this one writes,
/// keeps `completions`, `schedule` and `rotate` when it edits a chore, and its `done` is credited
/// to its member here. The clock is fixed at Thursday 2025-11-20; the older member's runs a
/// minute later.
@Suite(
    .timeLimit(.minutes(20)), .kit,
    .enabled(
        if: olderTodo != nil,
        "TODO_OLD_BINARY is not set: build an older todo with scripts/build-at.sh fb9737e .build-compat/fb9737e (make test does) and name it there"
    ))
struct OlderVersionTests {
    /// The task file as committed on `main` in `member`'s replica.
    func committed(_ member: Member, _ t: TaskRef, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        try member.committedJSON(t.path, sourceLocation: sourceLocation)
    }

    @discardableResult
    func older(_ member: Member, _ args: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        try member.older(args, sourceLocation: sourceLocation)
    }

    func credits(_ chores: [JSONValue], _ t: TaskRef) -> JSONValue? {
        chores.first { $0["id"]?.stringValue == t.id }?["completions"]
    }

    func counts(_ last4Weeks: Int, _ all: Int) -> JSONValue {
        .object([("last4Weeks", .number(String(last4Weeks))), ("all", .number(String(all)))])
    }

    @Test func anOlderMemberReadsAndEditsChoresWithoutLosingCompletionsAndIsCredited() throws {
        let old = try #require(olderTodo)
        try #require(isExecutableFile(old), "TODO_OLD_BINARY=\(old) is not an executable file")
        let host = try GitHost(.path)
        try host.createRepository()
        let url = host.url()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host, now: fixedNow + 60_000)
        bob.sb.binary = old
        try alice.create(remote: url)

        // Alice, on this version: a catch-up chore whose turns go to whoever did fewest, and a
        // calendar chore taking turns in order; completions, one of them for a given date, a
        // pass and a swap.
        let dishes = try alice.add(
            "Dishes", "--every", "day", "--rotate", "Alice,Bob", "--from", "2025-11-17", "--catch-up", "--turns", "fewest")
        let trash = try alice.add("Trash", "--every", "day", "--rotate", "Alice,Bob", "--from", "2025-11-17")
        try alice.change("done", dishes.short)
        try alice.change("done", dishes.short, "--on", "2025-11-18")
        try alice.change("done", trash.short)
        try alice.change("pass", dishes.short, "--to", "Bob")
        try alice.change("swap", trash.short, "--with", "Bob")
        try alice.sync()
        let written = [dishes.id: try committed(alice, dishes), trash.id: try committed(alice, trash)]
        for t in [dishes, trash] {
            let file = try #require(written[t.id])
            #expect(file["completions"] != nil && file["turns"] != nil, "\(file)")
        }
        #expect(written[dishes.id]?["schedule"] == .string("catch-up") && written[dishes.id]?["rotate"] == .string("fewest"))

        // Bob, on the older release, joins and reads: no command refuses the files or warns.
        try bob.join(url)
        let list = try older(bob, "list")
        #expect(list.lines.count == 2 && list.stdout.contains("Dishes ↻") && list.stdout.contains("Trash ↻"), "\(list)")
        let shown = try older(bob, "show", dishes.short).stdout
        // It sees one member per occurrence, from `occurrences`, and Alice's pass.
        #expect(shown.contains("History:  Tue 18 Nov: done by Alice\n          Mon 17 Nov: done by Alice\n"), "\(shown)")
        #expect(shown.contains("Next:     Wed 19 Nov, Bob;"), "\(shown)")
        try older(bob, "show", trash.short)
        try older(bob, "chores")
        try older(bob, "chores", "--json")

        // It completes each chore's earliest undone occurrence (for the calendar chore a day
        // this version counts as missed), renames one, and sends it all.
        var r = try older(bob, "done", dishes.short)
        #expect(r.stdout.hasPrefix("Done: Dishes (") && r.stdout.contains("), Wed 19 Nov;"), "\(r)")
        r = try older(bob, "done", trash.short)
        #expect(r.stdout.hasPrefix("Done: Trash (") && r.stdout.contains("), Mon 17 Nov;"), "\(r)")
        try older(bob, "edit", dishes.short, "--title", "Wash up")
        try bob.sync()
        try alice.sync()
        try bob.sync()

        // The judge, git: every completion, the schedule, the rotation mode, their stamps and the
        // turns Alice wrote are still there, beside Bob's completions and title.
        for t in [dishes, trash] {
            let before = try #require(written[t.id])
            let after = try committed(alice, t)
            #expect(after["completions"] == before["completions"], "\(t.id): \(after)")
            #expect(after["turns"] == before["turns"], "\(t.id): \(after)")
            for key in ["schedule", "rotate"] {
                #expect(after[key] == before[key], "\(t.id) \(key): \(after)")
                #expect(after["stamps"]?[key] == before["stamps"]?[key], "\(t.id) stamp of \(key): \(after)")
            }
            guard case .object(let entries)? = before["occurrences"] else {
                Issue.record("no occurrences in \(before)")
                continue
            }
            for (date, entry) in entries {
                #expect(after["occurrences"]?[date] == entry, "\(t.id) occurrence \(date): \(after)")
            }
        }
        let dishesFile = try committed(alice, dishes)
        #expect(dishesFile["title"] == .string("Wash up"))
        #expect(dishesFile["stamps"]?["title"]?.stringValue?.hasSuffix(" Bob") == true, "\(dishesFile)")
        let bobsDishes = dishesFile["occurrences"]?["2025-11-19"]
        #expect(bobsDishes?.arrayFirst == .string("done") && bobsDishes?.arrayLast?.stringValue?.hasSuffix(" Bob") == true, "\(dishesFile)")
        let bobsTrash = try committed(alice, trash)["occurrences"]?["2025-11-17"]
        #expect(bobsTrash?.arrayFirst == .string("done") && bobsTrash?.arrayLast?.stringValue?.hasSuffix(" Bob") == true)

        // This version credits both members: Bob's `done` counts for him, on the date he completed.
        let chores = try json(try alice.todo("chores", "--json").stdout).items
        #expect(credits(chores, dishes) == .object([("Alice", counts(2, 2)), ("Bob", counts(1, 1))]), "\(chores)")
        #expect(credits(chores, trash) == .object([("Alice", counts(1, 1)), ("Bob", counts(1, 1))]), "\(chores)")
        // The chores go on from there: Dishes at today, Alice's (fewest in the 4 weeks before
        // it); Trash at tomorrow, Bob's by the swap.
        let next = chores.map { [$0["id"]?.stringValue, $0["next"]?.stringValue, $0["turn"]?.stringValue] }
        #expect(next.contains([dishes.id, "2025-11-20", "Alice"]) && next.contains([trash.id, "2025-11-21", "Bob"]), "\(chores)")
        let dishesShown = try alice.todo("show", dishes.short)
        #expect(
            dishesShown.stdout.contains(
                "History:  Wed 19 Nov: done by Bob\n          Tue 18 Nov: done by Alice (on Thu 20 Nov)\n          Mon 17 Nov: done by Alice (on Thu 20 Nov)\n"),
            "\(dishesShown)")
        #expect(dishesShown.stdout.contains("Rotation: Alice, Bob (fewest done in 4 weeks goes next)\n"), "\(dishesShown)")
        let trashShown = try alice.todo("show", trash.short)
        #expect(trashShown.stdout.contains("History:  Thu 20 Nov: done by Alice\n"), "\(trashShown)")
        #expect(trashShown.stdout.contains("          Mon 17 Nov: done by Bob\n"), "\(trashShown)")

        // One history everywhere, and git finds every repository sound.
        #expect(try bob.tree() == (try alice.tree()))
        let remoteTree = try host.git("household.git", "rev-parse", "refs/heads/main^{tree}")
        #expect(remoteTree.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == (try alice.tree()))
        let fsck = try host.git("household.git", "fsck", "--strict", "--no-progress")
        #expect(fsck.exitCode == 0, "\(fsck)")
        try alice.expectClean()
        try bob.expectClean()
    }
}

extension OlderVersionTests {
    /// Both members did each chore's occurrence of their own choice while apart; the older
    /// member's `todo sync` makes the merge (its merge driver), then this version's fast-forwards.
    @Test func completionsMergedByTheOlderVersionAreAllCredited() throws {
        let old = try #require(olderTodo)
        try #require(isExecutableFile(old), "TODO_OLD_BINARY=\(old) is not an executable file")
        let host = try GitHost(.path)
        try host.createRepository()
        let url = host.url()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host, now: fixedNow + 60_000)
        bob.sb.binary = old
        try alice.create(remote: url)
        let dishes = try alice.add(
            "Dishes", "--every", "day", "--rotate", "Alice,Bob", "--from", "2025-11-17", "--catch-up", "--turns", "fewest")
        let trash = try alice.add("Trash", "--every", "day", "--rotate", "Alice,Bob", "--from", "2025-11-17")
        try alice.sync()
        try bob.join(url)

        // Both complete Monday's dishes; Alice today's trash, Bob (who sees no missed days) Monday's.
        try alice.change("done", dishes.short)
        try alice.change("done", trash.short)
        try older(bob, "done", dishes.short)
        try older(bob, "done", trash.short)
        try alice.sync()
        let written = [dishes.id: try committed(alice, dishes), trash.id: try committed(alice, trash)]
        let merged = try older(bob, "sync")
        #expect(merged.stdout.contains("merged"), "\(merged)")
        try alice.sync()

        for t in [dishes, trash] {
            let before = try #require(written[t.id])
            let after = try committed(alice, t)
            #expect(after["completions"] == before["completions"], "\(t.id): \(after)")
            for key in ["schedule", "rotate"] {
                #expect(after[key] == before[key] && after["stamps"]?[key] == before["stamps"]?[key], "\(t.id) \(key): \(after)")
            }
        }
        let chores = try json(try alice.todo("chores", "--json").stdout).items
        for t in [dishes, trash] {
            #expect(credits(chores, t) == .object([("Alice", counts(1, 1)), ("Bob", counts(1, 1))]), "\(chores)")
        }
        let dishesShown = try alice.todo("show", dishes.short)
        #expect(dishesShown.stdout.contains("History:  Mon 17 Nov: done by Alice (on Thu 20 Nov), Bob\n"), "\(dishesShown)")
        let trashShown = try alice.todo("show", trash.short)
        #expect(trashShown.stdout.contains("History:  Thu 20 Nov: done by Alice\n"), "\(trashShown)")
        #expect(trashShown.stdout.contains("          Mon 17 Nov: done by Bob\n"), "\(trashShown)")
        #expect(try alice.todo("conflicts").stdout == "No conflicts.\n")

        try older(bob, "sync")
        try older(bob, "list")
        #expect(try bob.tree() == (try alice.tree()))
        try alice.expectClean()
        try bob.expectClean()
    }

    /// The record of the last import (`imported`) survives an older member's edit and merge:
    /// the older `todo` keeps the key byte for byte, and the next re-import here still knows
    /// what the file said, so the older member's edit is kept (docs/FORMAT.md, "The last import").
    @Test func anOlderMembersEditKeepsTheImportRecord() throws {
        let old = try #require(olderTodo)
        let host = try GitHost(.path)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host, now: fixedNow + 60_000)
        bob.sb.binary = old
        try alice.create(remote: host.url())
        let export = jsonArray([
            #"{"uuid": "5f0c1d2e-8a3b-4c4d-9e5f-6a7b8c9d0e1f", "description": "Pay rent", "status": "pending", "entry": "20251115T083012Z", "priority": "M"}"#
        ])
        let file = try alice.sb.file("export.json", export)
        try alice.change("import", file)
        try alice.sync()
        let rent = TaskRef(id: "5f0c1d2e8a3b4c4d9e5f6a7b8c9d0e1f", short: "5f0c")
        let recorded = try committed(alice, rent)["imported"]
        #expect(recorded != nil, "the new build records the import")

        try bob.join(host.url())
        try older(bob, "list")
        try older(bob, "edit", rent.short, "--title", "Pay the rent", "--assign", "Bob")
        try older(bob, "sync")
        try alice.sync()
        let after = try committed(alice, rent)
        #expect(after["imported"] == recorded, "the older version kept the record byte for byte")
        #expect(after["title"] == .string("Pay the rent"))

        // The same file again: unchanged since the last import, so Bob's edit stays.
        try alice.change("import", file)
        let t = try committed(alice, rent)
        #expect(t["title"] == .string("Pay the rent") && t["assignee"] == .string("Bob"), "\(t)")
        #expect(try json(try alice.todo("conflicts", "--json").stdout).items.isEmpty)
    }
}

extension JSONValue {
    var arrayFirst: JSONValue? {
        if case .array(let a) = self { return a.first }
        return nil
    }

    var arrayLast: JSONValue? {
        if case .array(let a) = self { return a.last }
        return nil
    }
}
