import Foundation
import Testing
import TodoCore

/// Chores and checklists through the command line and real repositories (docs/FORMAT.md,
/// "Chores" and "Checklists"). The clock is fixed at Thursday 2025-11-20, 09:00 UTC.
@Suite(.timeLimit(.minutes(20)), .kit) struct ChoreTests {
    /// The sandbox's fixed day.
    let today = CivilDate(year: 2025, month: 11, day: 20)!

    func run(_ sb: Sandbox, _ args: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        let r = try sb.todo(args)
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)", sourceLocation: sourceLocation)
        return r
    }

    /// The task file as committed, decoded.
    func task(_ sb: Sandbox, _ t: TaskRef) throws -> Task { try TaskCodec.decode(try sb.committedBytes(t.path)) }

    @Test func aRotatingCatchUpChoreShowsOnceAndTakesTurns() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let trash = try sb.add(
            "Take out the trash", "--every", "tue", "--rotate", "Alice,Bob,Carol", "--from", "2025-11-04", "--catch-up")
        #expect(try sb.subject() == "add: Take out the trash (\(trash.short))")

        // Two Tuesdays missed: the chore shows once, at the earliest, overdue, Alice's turn.
        var list = try run(sb, "list")
        #expect(list.lines == ["\(trash.short)  2025-11-04 !  Alice  Take out the trash ↻"])

        var r = try run(sb, "done", trash.short)
        #expect(r.stdout == "Done: Take out the trash (\(trash.short)), Tue 4 Nov; next: Tue 11 Nov, Bob\n")
        r = try run(sb, "skip", trash.short)
        // Bob's turn was skipped: he has the next one, and everyone after moves one on.
        #expect(r.stdout == "Skipped: Take out the trash (\(trash.short)), Tue 11 Nov; next: Tue 18 Nov, Bob\n")
        #expect(try sb.subject() == "skip: Take out the trash (\(trash.short))")

        // Alice takes Bob's turn for this occurrence only (it pins it): Bob, whose skipped
        // turn was carried, has the next one no take-over pins (docs/FORMAT.md, "Turns").
        r = try run(sb, "edit", trash.short, "--assign", "Alice")
        #expect(r.stdout == "Changed turn: Take out the trash (\(trash.short))\n")
        var t = try task(sb, trash)
        #expect(t.assignee == nil)
        let s = try #require(t.schedule(today: today, context: .plain))
        #expect(s.turn(on: CivilDate(year: 2025, month: 11, day: 18)!) == "Alice")
        #expect(s.turn(on: CivilDate(year: 2025, month: 11, day: 25)!) == "Bob")
        #expect(s.turn(on: CivilDate(year: 2025, month: 12, day: 2)!) == "Alice")
        #expect(try run(sb, "list", "--mine").lines.count == 1)

        r = try run(sb, "done", trash.short)
        #expect(r.stdout == "Done: Take out the trash (\(trash.short)), Tue 18 Nov; next: Tue 25 Nov, Bob\n")
        list = try run(sb, "list")
        #expect(list.lines == ["\(trash.short)  tuesday  Bob  Take out the trash ↻"])

        let shown = try run(sb, "show", trash.short).stdout
        #expect(shown.contains("Repeats:  every Tuesday (tue), from Tue 4 Nov; every occurrence must be done (catch-up)\n"), "\(shown)")
        #expect(shown.contains("Rotation: Alice, Bob, Carol\n"), "\(shown)")
        #expect(shown.contains("Next:     Tue 25 Nov, Bob; Tue 2 Dec, Alice; Tue 9 Dec, Bob\n"), "\(shown)")
        // Each completion says the day it was done when that is not the occurrence's own.
        #expect(
            shown.contains(
                "History:  Tue 18 Nov: done by Alice (on Thu 20 Nov)\n          Tue 11 Nov: skipped by Alice\n          Tue 4 Nov: done by Alice (on Thu 20 Nov)\n"),
            "\(shown)")

        let chores = try json(try run(sb, "chores", "--json").stdout).items
        try #require(chores.count == 1)
        #expect(chores[0]["next"] == .string("2025-11-25"))
        #expect(chores[0]["turn"] == .string("Bob"))
        #expect(chores[0]["completions"]?["Alice"]?["all"] == .number("2"))
        #expect(chores[0]["completions"]?["Alice"]?["last4Weeks"] == .number("2"))

        let listed = try json(try run(sb, "list", "--json").stdout).items
        #expect(listed.first?["current"] == .string("2025-11-25"))

        // reopen puts the last one back; rm and restore work as for any task.
        r = try run(sb, "reopen", trash.short)
        #expect(r.stdout == "Reopened: Take out the trash (\(trash.short)), Tue 18 Nov; next: Tue 18 Nov, Alice\n")
        _ = try run(sb, "rm", trash.short)
        #expect(try run(sb, "list").stdout.isEmpty)
        _ = try run(sb, "restore", trash.short)
        #expect(try run(sb, "list").lines.count == 1)

        // The rule changes with a new start; the history stays.
        r = try run(sb, "edit", trash.short, "--every", "2w", "--from", "2025-11-20", "--rotate", "Bob")
        t = try task(sb, trash)
        #expect(t.recurrence?.rule.description == "2w")
        #expect(t.currentOccurrence(today: today) == CivilDate(year: 2025, month: 11, day: 20))
        #expect(t.occurrenceEntries.count == 3)
        #expect(try run(sb, "list").lines == ["\(trash.short)  today  Bob  Take out the trash ↻"])
        _ = try run(sb, "edit", trash.short, "--no-repeat")
        #expect(try task(sb, trash).isChore == false)
        try sb.expectClean()
    }

    @Test func doneAllCompletesEveryOpenOccurrenceOfACatchUpChoreUpToToday() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let plants = try sb.add("Water plants", "--every", "3d", "--from", "2025-11-10", "--catch-up")
        let r = try run(sb, "done", "--all", plants.short)
        #expect(r.stdout == "Done: Water plants (\(plants.short)), Mon 10 Nov, Thu 13 Nov, Sun 16 Nov, Wed 19 Nov; next: Sat 22 Nov\n")
        #expect(try sb.commits().count == 3)
        let skip = try run(sb, "skip", "--all", plants.short)
        #expect(skip.stdout == "Skipped: Water plants (\(plants.short)), Sat 22 Nov; next: Tue 25 Nov\n")
    }

    @Test func badRulesSkippingPlainTasksAndContradictoryItemEditsAreRefused() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let milk = try sb.add("Buy milk")
        let before = try sb.commits()
        var r = try sb.todo("add", "Trash", "--every", "fortnight")
        #expect(r.exitCode == 64 && r.stderr.contains("is not a repeat rule"), "\(r)")
        r = try sb.todo("add", "Trash", "--rotate", "Alice")
        #expect(r.exitCode == 64, "\(r)")
        r = try sb.todo("skip", milk.short)
        #expect(r.exitCode == 64 && r.stderr.contains("does not repeat"), "\(r)")
        r = try sb.todo("edit", milk.short, "--check", "eggs")
        #expect(r.exitCode == 66 && r.stderr.contains("has no item \"eggs\""), "\(r)")
        #expect(try sb.commits() == before)
        // One item checked and unchecked in one edit, by text and by number, either way round.
        let bread = try sb.add("Groceries", "--item", "bread", "--item", "eggs")
        let listed = try sb.commits()
        r = try sb.todo("edit", bread.short, "--check", "bread", "--uncheck", "1")
        #expect(r.exitCode == 64 && r.stderr.contains("both checks and unchecks item \"bread\""), "\(r)")
        r = try sb.todo("edit", bread.short, "--uncheck", "EGGS", "--check", "bread", "--check", "2")
        #expect(r.exitCode == 64 && r.stderr.contains("both checks and unchecks item \"eggs\""), "\(r)")
        #expect(try sb.commits() == listed)
        #expect(try run(sb, "edit", bread.short, "--check", "bread", "--check", "1").exitCode == 0, "the same thing twice is one")
        #expect(try sb.commits().count == listed.count + 1)
        // done on a plain task works as before.
        #expect(try run(sb, "done", milk.short).stdout == "Done: Buy milk (\(milk.short))\n")
    }

    @Test func aChecklistKeepsItemsInOrderWithTheirState() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let g = try sb.add("Groceries", "--item", "milk", "--item", "eggs", "--item", " Milk ")
        #expect(try run(sb, "list").lines == ["\(g.short)  Groceries [0/2]"])
        var r = try run(sb, "edit", g.short, "--item", "bread", "--check", "2", "--check", "MILK")
        #expect(r.stdout == "Changed +bread, x eggs, x milk: Groceries (\(g.short))\n")
        r = try run(sb, "edit", g.short, "--uncheck", "milk", "--remove-item", "1")
        #expect(r.stdout == "Changed o milk, -milk: Groceries (\(g.short))\n")
        #expect(try run(sb, "list").lines == ["\(g.short)  Groceries [1/2]"])
        let shown = try run(sb, "show", g.short).stdout
        #expect(shown.contains("Items:    1. [x] eggs\n          2. [ ] bread\n"), "\(shown)")
        let js = try json(try run(sb, "show", "--json", g.short).stdout)
        #expect(js["progress"]?["checked"] == .number("1") && js["progress"]?["total"] == .number("2"))
        // Re-adding a removed item brings it back at its old place.
        _ = try run(sb, "edit", g.short, "--item", "milk")
        #expect(try task(sb, g).visibleItems.map(\.text) == ["milk", "eggs", "bread"])
        // done works as today; the items keep their state.
        _ = try run(sb, "done", g.short)
        #expect(try task(sb, g).visibleItems.map(\.state) == [.open, .checked, .open])
        try sb.expectClean()
    }

    /// Three members complete, skip and edit one chore and one checklist with skewed clocks,
    /// partly offline; after syncing they hold the same bytes, with one completion per
    /// occurrence and none lost.
    @Test func threeMembersConvergeWithoutDuplicatesOrLostCompletions() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let url = host.url()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host, now: fixedNow - 86_400_000 + 3_600_000)  // a day slow, nearly
        let carol = try Member("Carol", host: host, now: fixedNow + 2 * 3_600_000)  // two hours fast
        try alice.create(remote: url)
        let trash = try alice.add(
            "Take out the trash", "--every", "tue", "--rotate", "Alice,Bob,Carol", "--from", "2025-11-04", "--catch-up")
        let groceries = try alice.add("Groceries", "--item", "milk")
        try alice.sync()
        try bob.join(url)
        try carol.join(url)

        // Round 1, all offline: Alice and Bob both complete 4 Nov; Carol changes the rotation and title.
        try alice.change("done", trash.short)
        try bob.change("done", trash.short)
        try carol.change("edit", trash.short, "--rotate", "Carol,Alice,Bob", "--title", "Bins out")
        try alice.change("edit", groceries.short, "--item", "eggs", "--check", "milk")
        try bob.change("edit", groceries.short, "--item", "Eggs", "--item", "bread")
        try carol.change("edit", groceries.short, "--item", "tea")

        // Round 2: Alice and Bob sync; Alice completes 11 Nov; Bob sees it and skips 18 Nov.
        try alice.sync()
        try bob.sync()
        try alice.sync()
        try alice.change("done", trash.short)
        try alice.sync()
        try bob.sync()
        try bob.change("skip", trash.short)
        // Carol, still offline, completes what she thinks is current (4 Nov) too.
        try carol.change("done", trash.short)

        try syncUntilQuiet([alice, bob, carol])
        try expectConverged([alice, bob, carol], host: host)

        let t = try TaskCodec.decode(try alice.sb.committedBytes(trash.path))
        let entries = t.occurrenceEntries
        // Alice and Bob, both catching up, did "4 Nov" at once, days after it: one of them
        // counts for the next open occurrence (11 Nov). Alice then did 18 Nov and Bob skipped
        // 25 Nov.
        #expect(entries.keys.sorted() == ["2025-11-04", "2025-11-18", "2025-11-25"])
        #expect(entries["2025-11-04"]?.state == .done)
        #expect(entries["2025-11-18"]?.state == .done && entries["2025-11-18"]?.stamp.member == "Alice")
        #expect(entries["2025-11-25"]?.state == .skipped && entries["2025-11-25"]?.stamp.member == "Bob")
        #expect(t.title == "Bins out" && t.rotation == ["Carol", "Alice", "Bob"])
        #expect(t.currentOccurrence(today: today) == CivilDate(year: 2025, month: 12, day: 2))
        // Every completion is credited: Carol's, recorded on a replica that had seen none of
        // the others, found 4, 11 and 18 Nov done, so it stays on 4 Nov as a second credit.
        // (Which of Alice and Bob holds 4 Nov depends on their stamps' order, which their
        // replica ids decide here; every replica decides the same.)
        let credits = try #require(t.schedule(today: today, context: .plain)).credits
        #expect(credits.map(\.occurrence.description).sorted() == ["2025-11-04", "2025-11-04", "2025-11-11", "2025-11-18"])
        #expect(credits.filter { $0.member == "Carol" }.map(\.occurrence.description) == ["2025-11-04"])
        #expect(credits.filter { $0.member == "Alice" }.count == 2 && credits.filter { $0.member == "Bob" }.count == 1)
        // One chore in everyone's list, with the same next occurrence.
        for m in [alice, bob, carol] {
            let listed = try json(try m.todo("list", "--json").stdout).items.filter { $0["id"] == .string(trash.id) }
            #expect(listed.count == 1 && listed.first?["current"] == .string("2025-12-02"), "\(m.name): \(listed)")
        }
        let items = try TaskCodec.decode(try alice.sb.committedBytes(groceries.path)).visibleItems
        #expect(Set(items.map { $0.text.lowercased() }) == ["milk", "eggs", "bread", "tea"])
        #expect(items.count == 4)
        #expect(items.first { $0.text == "milk" }?.state == .checked)
    }

    /// A member merging by hand with plain `git merge` (and `todo merge-driver`) gets the same
    /// tree as `todo sync` makes from the same two commits.
    @Test func plainGitMergeGivesTheBytesSyncGives() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let url = host.url()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host, now: fixedNow + 60_000)
        try alice.create(remote: url)
        let trash = try alice.add("Take out the trash", "--every", "mon,thu", "--from", "2025-11-03", "--rotate", "Alice,Bob")
        let groceries = try alice.add("Groceries", "--item", "milk", "--item", "eggs")
        try alice.sync()
        try bob.join(url)
        try alice.change("done", trash.short)
        try alice.change("edit", groceries.short, "--check", "milk", "--item", "bread")
        try alice.sync()
        try bob.change("done", trash.short)
        try bob.change("skip", trash.short)
        try bob.change("edit", groceries.short, "--remove-item", "eggs", "--item", "Bread")
        let mine = try bob.head()

        let fetch = try bob.git("fetch", "-q", url, "main")
        try #require(fetch.exitCode == 0, "\(fetch)")
        let merge = try bob.git("merge", "-q", "--no-edit", "FETCH_HEAD")
        try #require(merge.exitCode == 0, "\(merge)")
        let byGit = try bob.tree()

        let reset = try bob.git("reset", "-q", "--hard", mine)
        try #require(reset.exitCode == 0, "\(reset)")
        try bob.sync()
        #expect(try bob.tree() == byGit)
        let t = try TaskCodec.decode(try bob.sb.committedBytes(trash.path))
        // Both did Thursday 20 Nov (Bob before he had synced): both credited, the chore advanced
        // once; Bob then skipped the Monday after.
        #expect(t.occurrenceEntries.keys.sorted() == ["2025-11-20", "2025-11-24"])
        #expect(t.schedule(today: today, context: .plain)?.credits.map { "\($0.member) \($0.occurrence)" }.sorted() == [
            "Alice 2025-11-20", "Bob 2025-11-20",
        ])
        #expect(try TaskCodec.decode(try bob.sb.committedBytes(groceries.path)).visibleItems.map { $0.text.lowercased() } == ["milk", "bread"])
    }

    /// A Taskwarrior recurring template becomes one chore; its instances are folded in, and
    /// what has no field is reported per attribute. Re-importing updates as a new edit.
    @Test func taskwarriorRecurrenceBecomesOneChore() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let path = fixturesDirectory + "/taskwarrior-recurring.json"
        let r = try run(sb, "import", path)
        #expect(r.lines == [
            "Imported 3 tasks.",
            "1 task had `recur`: became a chore",
            "1 task had `scheduled`: kept in notes",
            "1 task had `depends`: kept in notes",
            "1 task had `estimate`: kept in notes",
            "1 instance of recurring tasks: a completion of its chore",
            "1 instance of recurring tasks: a skipped occurrence of its chore",
            "1 instance of recurring tasks: folded into its chore",
        ])
        let trash = TaskRef(id: "a1000000000040008000000000000001", short: "a1000000000040008000000000000001")
        let t = try task(sb, trash)
        #expect(t.recurrence?.rule.description == "week" && t.recurrence?.from.description == "2025-11-04")
        #expect(t.occurrenceEntries.mapValues(\.state) == ["2025-11-04": .done, "2025-11-11": .skipped])
        #expect(t.currentOccurrence(today: today)?.description == "2025-11-18")
        let titles = try json(try run(sb, "list", "--all", "--json").stdout).items.compactMap { $0["title"]?.stringValue }
        #expect(titles.filter { $0 == "Take out the trash" }.count == 1, "\(titles)")
        let fence = try task(sb, TaskRef(id: "a1000000000040008000000000000005", short: ""))
        #expect(fence.notes == "scheduled: 2025-11-22 09:00\ndepends: a1000000-0000-4000-8000-000000000006\nestimate: 3h")

        // Re-import of an export where one task changed: that task is updated, as a new edit.
        let before = try sb.commits()
        let text = String(decoding: readBytes(path) ?? [], as: UTF8.self).replacingOccurrences(of: "Buy paint", with: "Buy white paint")
        let again = try sb.todo(["import", "-"], stdin: text)
        #expect(again.exitCode == 0 && again.lines.first == "Imported 0 tasks, updated 1 (2 already present, unchanged).", "\(again)")
        #expect(try sb.commits().count == before.count + 1)
        let paint = try task(sb, TaskRef(id: "a1000000000040008000000000000006", short: ""))
        #expect(paint.title == "Buy white paint" && paint.tags == ["project:home"])
        #expect(paint.stamps["title"].map { FieldStamp.precedes(paint.stamps["priority"]!, $0) } == true)
        // The same again changes nothing and commits nothing.
        _ = try sb.todo(["import", "-"], stdin: text)
        #expect(try sb.commits().count == before.count + 1)
        try sb.expectClean()
    }

    /// `todo list --json` of chores and checklists imports back with their rule, rotation,
    /// completions and items.
    @Test func listJSONImportsBackWithChoresAndItems() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let trash = try sb.add("Take out the trash", "--every", "tue", "--rotate", "Alice,Bob", "--from", "2025-11-04")
        _ = try run(sb, "done", trash.short)
        let g = try sb.add("Groceries", "--item", "milk", "--item", "eggs")
        _ = try run(sb, "edit", g.short, "--check", "eggs")
        let exported = try run(sb, "list", "--json").stdout
        try sb.initHousehold("other")
        let r = try sb.todo(["import", "-H", "other", "-"], stdin: exported)
        #expect(r.exitCode == 0 && r.stdout == "Imported 2 tasks.\n", "\(r)")
        let t = try TaskCodec.decode(try sb.committedBytes(trash.path, household: "other"))
        #expect(t.recurrence == (try task(sb, trash)).recurrence && t.rotation == ["Alice", "Bob"])
        // Done on Thu 20 Nov: the occurrence due then is Tue 18 Nov (4 and 11 Nov were missed).
        #expect(t.currentOccurrence(today: today)?.description == "2025-11-25")
        let items = try TaskCodec.decode(try sb.committedBytes(g.path, household: "other")).visibleItems
        #expect(items.map(\.text) == ["milk", "eggs"] && items.map(\.state) == [.open, .checked])
    }

    /// A take-over (`edit --assign` on a rotating chore) travels through `list --json` and
    /// `import` as the occurrences do.
    @Test func listJSONImportsBackWithTakeOvers() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let trash = try sb.add("Take out the trash", "--every", "tue", "--rotate", "Alice,Bob", "--from", "2025-11-04")
        _ = try run(sb, "done", trash.short)
        _ = try run(sb, "edit", trash.short, "--assign", "Carol")
        let exported = try run(sb, "list", "--json").stdout
        #expect(try json(exported).items.first?["turns"]?["2025-11-25"]?.items.first == .string("Carol"), "\(exported)")
        try sb.initHousehold("other")
        let r = try sb.todo(["import", "-H", "other", "-"], stdin: exported)
        #expect(r.exitCode == 0 && r.stdout == "Imported 1 task.\n", "\(r)")
        let t = try TaskCodec.decode(try sb.committedBytes(trash.path, household: "other"))
        #expect(t.turnEntries.mapValues(\.member) == ["2025-11-25": "Carol"])
        let s = try #require(t.schedule(today: today, context: .plain))
        #expect(s.turn(on: CivilDate(year: 2025, month: 11, day: 25)!) == "Carol")
        #expect(s.turn(on: CivilDate(year: 2025, month: 12, day: 2)!) == "Alice")
        let listed = try run(sb, "-H", "other", "list", "--json").stdout
        #expect(try json(listed).items.first?["turn"] == .string("Carol"), "\(listed)")
    }
}
