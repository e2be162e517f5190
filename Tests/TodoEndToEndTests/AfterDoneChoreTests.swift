import Foundation
import Testing
import TodoCore

/// A chore that repeats from when it was done, through the command line (docs/FORMAT.md,
/// "Chores that repeat from when they were done"). The clock starts on Thursday 2025-11-20.
@Suite(.timeLimit(.minutes(20)), .kit) struct AfterDoneChoreTests {
    let day: Int64 = 86_400_000

    func run(_ sb: Sandbox, _ args: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        let r = try sb.todo(args)
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)", sourceLocation: sourceLocation)
        return r
    }

    @Test func theNextDateCountsFromTheDayItWasDone() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let plants = try sb.add("Water plants", "--every", "3d", "--after-done", "--rotate", "Alice,Bob")
        #expect(try run(sb, "list").lines == ["\(plants.short)  today  Alice  Water plants ↻"])

        // Nobody watered them for two days: still due, never missed.
        sb.now = fixedNow + 2 * day
        #expect(try run(sb, "list").lines == ["\(plants.short)  2025-11-20 !  Alice  Water plants ↻"])
        var r = try run(sb, "done", plants.short)
        #expect(r.stdout == "Done: Water plants (\(plants.short)), Thu 20 Nov; next: Tue 25 Nov, Bob\n")
        let shown = try run(sb, "show", plants.short).stdout
        #expect(shown.contains("Repeats:  every 3 days after it is done (3d), from Thu 20 Nov\n"), "\(shown)")
        #expect(shown.contains("Next:     Tue 25 Nov, Bob; Fri 28 Nov, Alice; Mon 1 Dec, Bob\n"), "\(shown)")
        #expect(shown.contains("History:  Thu 20 Nov: done by Alice (on Sat 22 Nov)\n"), "\(shown)")

        // A week later it is still the 25th, overdue, in list, agenda and chores.
        sb.now = fixedNow + 9 * day
        #expect(try run(sb, "list").lines == ["\(plants.short)  2025-11-25 !  Bob  Water plants ↻"])
        #expect(try run(sb, "agenda").lines == ["Overdue:", "  \(plants.short)  2025-11-25 !  Bob  Water plants ↻"])
        let chores = try json(try run(sb, "chores", "--json").stdout).items
        #expect(chores.first?["next"] == .string("2025-11-25") && chores.first?["anchor"] == .string("done"))
        #expect(chores.first?["missed"] == .array([]))
        // Done on the 29th (the occurrence of the 25th): next on 2 Dec, Alice's.
        r = try run(sb, "done", plants.short)
        #expect(r.stdout == "Done: Water plants (\(plants.short)), Tue 25 Nov; next: Tue 2 Dec, Alice\n")
        let feed = try run(sb, "calendar", "--weeks", "2").stdout
        #expect(feed.contains("DTSTART;VALUE=DATE:20251202\r\n") && !feed.contains("20251205"), "no dates after the next")

        // The file: `anchor` among the extra keys, stamped in `stamps` (git is the judge).
        let file = try sb.git("cat-file", "blob", "refs/heads/main:\(plants.path)").stdout
        #expect(file.contains("\n  \"anchor\": \"done\",\n  \"completions\": {"), "\(file)")
        let stamp = try #require(try TaskCodec.decode(Array(file.utf8)).stamps["anchor"])
        #expect(file.contains("\n    \"anchor\": \"\(stamp)\",\n") && stamp.member == "Alice", "\(file)")

        // --no-after-done writes "due": the calendar from the 20th again.
        r = try run(sb, "edit", plants.short, "--no-after-done")
        #expect(r.stdout == "Changed anchor: Water plants (\(plants.short))\n")
        let calendar = try sb.git("cat-file", "blob", "refs/heads/main:\(plants.path)").stdout
        #expect(calendar.contains("\n  \"anchor\": \"due\",\n"), "\(calendar)")
        #expect(try run(sb, "show", plants.short).stdout.contains("Repeats:  every 3 days (3d), from Thu 20 Nov\n"))
        r = try run(sb, "edit", plants.short, "--after-done")
        #expect(r.stdout == "Changed anchor: Water plants (\(plants.short))\n")
        try sb.expectClean()
    }

    @Test func onlyAnIntervalRuleRepeatsAfterItIsDoneAndNeverWithCatchUp() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let commits = try sb.commits().count
        var r = try sb.todo("add", "Trash", "--every", "tue", "--after-done")
        #expect(r.exitCode == 64 && r.stdout.isEmpty, "\(r)")
        #expect(r.stderr.contains("cannot repeat every Tuesday after it is done"), "\(r)")
        r = try sb.todo("add", "Rent", "--every", "15th", "--after-done")
        #expect(r.exitCode == 64 && r.stderr.contains("every month on the 15th after it is done"), "\(r)")
        r = try sb.todo("add", "Plants", "--every", "3d", "--after-done", "--catch-up")
        #expect(r.exitCode == 64 && r.stderr.contains("never behind, so it has nothing to catch up"), "\(r)")
        r = try sb.todo("add", "Plants", "--after-done")
        #expect(r.exitCode == 64 && r.stderr.contains("need --every"), "\(r)")
        #expect(try sb.commits().count == commits, "nothing was added")

        let plants = try sb.add("Water plants", "--every", "2w", "--after-done")
        let trash = try sb.add("Trash", "--every", "tue")
        r = try sb.todo("edit", trash.short, "--after-done")
        #expect(r.exitCode == 64 && r.stderr.contains("cannot repeat every Tuesday after it is done"), "\(r)")
        r = try sb.todo("edit", plants.short, "--every", "mon,thu")
        #expect(r.exitCode == 64 && r.stderr.contains("--no-after-done"), "\(r)")
        r = try sb.todo("edit", plants.short, "--catch-up")
        #expect(r.exitCode == 64 && r.stderr.contains("nothing to catch up"), "\(r)")
        r = try sb.todo("edit", plants.short, "--after-done", "--catch-up")
        #expect(r.exitCode == 64 && r.stderr.contains("nothing to catch up"), "\(r)")
        r = try sb.todo("edit", plants.short, "--after-done", "--no-after-done")
        #expect(r.exitCode == 64, "\(r)")
        #expect(try sb.commits().count == commits + 2, "nothing was changed")
        // Both together: the new rule follows the calendar.
        r = try run(sb, "edit", plants.short, "--every", "mon,thu", "--no-after-done")
        #expect(r.stdout == "Changed repeat, anchor: Water plants (\(plants.short))\n")
        try sb.expectClean()
    }
}
