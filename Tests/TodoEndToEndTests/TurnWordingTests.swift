import Foundation
import Testing
import TodoCore

/// What `skip --on`, `swap`, `pass` and `edit --assign` say about the turns they touch, and
/// when cron's `todo remind` sends a member's reminder (their remind-at). The clock is fixed at
/// Thursday 2025-11-20, 09:00 UTC.
@Suite(.timeLimit(.minutes(10)), .kit) struct TurnWordingTests {
    func run(_ sb: Sandbox, _ args: String..., env: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        let r = try sb.todo(args, env: env)
        #expect(r.exitCode == 0, "\(r)", sourceLocation: sourceLocation)
        return r
    }

    /// Skipping tomorrow while today's occurrence is open: today's is still open, and the next
    /// after the skip is the day after tomorrow; never "next: today".
    @Test func skipOnTomorrowSaysTodayIsStillOpenAndWhatComesAfter() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        #expect(try sb.todo("member", "add", "Bob").exitCode == 0)
        let dishes = try sb.add("Dishes", "--every", "day", "--rotate", "Alice,Bob", "--from", "2025-11-20")
        let r = try run(sb, "skip", dishes.short, "--on", "tomorrow")
        #expect(
            r.stdout == "Skipped: Dishes (\(dishes.short)), Fri 21 Nov; still open today: Thu 20 Nov, Alice; next after: Sat 22 Nov, Bob\n",
            "\(r)")
        #expect(!r.stdout.contains("next: Thu 20 Nov"))
        // Skipping today's own: the next one, as before.
        let today = try run(sb, "skip", dishes.short)
        #expect(today.stdout == "Skipped: Dishes (\(dishes.short)), Thu 20 Nov; next: Sat 22 Nov, Alice\n", "\(today)")
    }

    /// swap and pass act on the next open turn, today's included, and say when it was today's,
    /// already announced; so does `edit --assign`.
    @Test func movingTodaysAnnouncedTurnSaysSo() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        for m in ["Bob", "Kim"] { #expect(try sb.todo("member", "add", m).exitCode == 0) }
        let dishes = try sb.add("Dishes", "--every", "day", "--rotate", "Alice,Bob,Kim", "--from", "2025-11-20")
        let swap = try run(sb, "swap", dishes.short, "--with", "Kim")
        #expect(swap.stdout.contains("Turns: Dishes (\(dishes.short)): Thu 20 Nov, Kim; Sat 22 Nov, Alice"), "\(swap)")
        #expect(swap.stdout.contains("Today's turn (Thu 20 Nov), already announced, is now Kim's."), "\(swap)")
        // Alice's next turn is Sat 22 Nov, not today's: nothing about today.
        let pass = try run(sb, "pass", dishes.short, "--to", "Bob")
        #expect(pass.stdout.contains("Sat 22 Nov, Bob"), "\(pass)")
        #expect(!pass.stdout.contains("Today's turn"), "\(pass)")
        // --assign takes over today's turn: it says so too.
        let assign = try run(sb, "edit", dishes.short, "--assign", "Bob")
        #expect(assign.stdout.contains("Today's turn (Thu 20 Nov), already announced, is now Bob's."), "\(assign)")
    }

    /// Cron's `todo remind` sends a member's reminder once the household's time has reached
    /// their remind-at (07:00 unless set); an earlier run leaves them to a later one; `--now`
    /// sends regardless.
    @Test func remindWaitsForEachMembersHour() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        _ = try sb.add("Buy milk", "--due", "2025-11-20", "--assign", "Kim")
        _ = try sb.add("Fix the bike", "--due", "2025-11-20", "--assign", "Alice")
        #expect(try sb.todo("member", "set", "Kim", "--via", "stdout", "--remind-at", "10:30", "--new").exitCode == 0)
        #expect(try sb.todo("member", "set", "Alice", "--via", "stdout").exitCode == 0)
        let midnight: Int64 = 1_763_596_800_000  // 2025-11-20 00:00 UTC
        func at(_ minutes: Int64) -> [String: String] { ["TODO_NOW": String(midnight + minutes * 60_000)] }
        // 06:00: nobody's hour yet.
        #expect(try run(sb, "remind", env: at(6 * 60)).stdout.isEmpty)
        // 07:00: Alice's (the default), not Kim's (10:30).
        let seven = try run(sb, "remind", env: at(7 * 60))
        #expect(seven.stdout.contains("Fix the bike") && !seven.stdout.contains("Buy milk"), "\(seven)")
        // 10:00: Alice had hers today; Kim's hour has not come.
        #expect(try run(sb, "remind", env: at(10 * 60)).stdout.isEmpty)
        // 11:00: Kim's.
        let eleven = try run(sb, "remind", env: at(11 * 60))
        #expect(eleven.stdout.contains("Buy milk") && !eleven.stdout.contains("Fix the bike"), "\(eleven)")
        // The next day at 05:00, --now sends both.
        let early = try run(sb, "remind", "--now", env: at(24 * 60 + 5 * 60))
        #expect(early.stdout.contains("Buy milk") && early.stdout.contains("Fix the bike"), "\(early)")
    }
}
