import Foundation
import Testing
import TodoCore

/// Members who join, leave and go away, through the command line (docs/FORMAT.md, "Members"
/// and "Turns: decided once and kept"). The clock is fixed at Thursday 2025-11-20, 09:00 UTC.
@Suite(.timeLimit(.minutes(10)), .kit) struct RosterTests {
    static let day: Int64 = 86_400_000

    func run(_ sb: Sandbox, _ args: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        let r = try sb.todo(args)
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)", sourceLocation: sourceLocation)
        return r
    }

    func turns(_ sb: Sandbox, _ t: TaskRef) throws -> String {
        try run(sb, "show", t.short).lines.first { $0.hasPrefix("Next:") } ?? ""
    }

    @Test func aSkipAfterASwapFollowsTheDocumentedTable() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        // Thursday 20 Nov: Alice, Bob, Kim daily; Alice swaps her turn with Kim, then skips it.
        let dishes = try sb.add("Dishes", "--every", "day", "--rotate", "Alice,Bob,Kim", "--from", "2025-11-20")
        try run(sb, "swap", dishes.short, "--with", "Kim")
        try run(sb, "skip", dishes.short, "--on", "2025-11-20")
        let feed = try run(sb, "calendar", "--weeks", "1").stdout
        for (day, who) in [("20251121", "Kim"), ("20251122", "Alice"), ("20251123", "Bob"), ("20251124", "Alice"),
                           ("20251125", "Bob"), ("20251126", "Kim")] {
            #expect(feed.contains("-\(day)@todo"), "an event on \(day)")
            let event = feed.components(separatedBy: "BEGIN:VEVENT").first { $0.contains("-\(day)@todo") } ?? ""
            #expect(event.contains(who), "\(day) is \(who)'s: \(event)")
        }
    }

    @Test func membersJoinLeaveAndGoAwayWithoutMovingAnnouncedTurns() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let trash = try sb.add("Trash", "--every", "week", "--rotate", "Alice,Bob,Kim", "--from", "2025-11-20")
        let plumber = try sb.add("Call the plumber", "--assign", "Bob")
        let announced = try turns(sb, trash)
        #expect(announced == "Next:     Thu 20 Nov, Alice; Thu 27 Nov, Bob; Thu 4 Dec, Kim")

        // Adding a name the household uses changes nothing; a new one is one commit.
        let before = try sb.commits().count
        #expect(try run(sb, "member", "add", "bob").stdout.contains("already a member"))
        #expect(try sb.commits().count == before)
        try run(sb, "member", "add", "Sam")
        #expect(try sb.subject() == "member: Sam joined")

        // Sam joins the rotation after Bob: today's turn stays Alice's.
        try run(sb, "edit", trash.short, "--rotate", "Alice,Bob,Sam,Kim")
        #expect(try turns(sb, trash) == "Next:     Thu 20 Nov, Alice; Thu 27 Nov, Bob; Thu 4 Dec, Sam")

        // Bob leaves: out of the rotation from tomorrow, his task to Kim, one commit.
        let count = try sb.commits().count
        let r = try run(sb, "member", "leave", "Bob", "--to", "Kim")
        #expect(r.stdout.contains("Bob leaves household \"home\" from 2025-11-21."))
        #expect(r.stdout.contains("\(plumber.short) Call the plumber: to Kim"))
        #expect(try sb.commits().count == count + 1)
        #expect(try sb.subject() == "member: Bob left; 1 task to Kim")
        #expect(try turns(sb, trash) == "Next:     Thu 20 Nov, Alice; Thu 27 Nov, Sam; Thu 4 Dec, Kim")
        let shown = try run(sb, "show", plumber.short).stdout
        #expect(shown.contains("Kim"))
        #expect(try run(sb, "member").stdout.contains("Bob: leaves 2025-11-21; reminders by standard output (no email or method set)"))

        // Kim is away the week of 4 Dec: Alice stands in, and the order goes on.
        try run(sb, "member", "away", "Kim", "--from", "2025-12-01", "--until", "2025-12-07")
        #expect(try turns(sb, trash) == "Next:     Thu 20 Nov, Alice; Thu 27 Nov, Sam; Thu 4 Dec, Alice")
        #expect(try run(sb, "member", "show", "Kim").stdout.contains("State:     away 2025-12-01 to 2025-12-07"))
        #expect(!(try run(sb, "member", "show", "Alice").stdout.contains("State:")))

        // Refusals: unknown names 66, a pass to someone away 65, a window already past 64.
        #expect(try sb.todo("member", "leave", "Nobody").exitCode == 66)
        let before66 = try sb.commits().count
        #expect(try sb.todo("member", "leave", "Sam", "--to", "Nobody").exitCode == 66)
        #expect(try sb.commits().count == before66, "nothing written")
        #expect(try sb.todo("member", "away", "Nobody", "--from", "2025-12-01", "--until", "2025-12-02").exitCode == 66)
        #expect(try sb.todo("member", "away", "Sam", "--from", "2025-11-01", "--until", "2025-11-02").exitCode == 64)
        #expect(try sb.todo("member", "away", "Sam", "--from", "2025-12-05", "--until", "2025-12-02").exitCode == 64)
        #expect(try sb.todo("member", "leave", "Sam", "--to", "sam").exitCode == 64)
        // Alice does today's; her next turn is 4 Dec, standing in for Kim, who cannot take it.
        try run(sb, "done", trash.short)
        let refused = try sb.todo("pass", trash.short, "--to", "Kim")
        #expect(refused.exitCode == 65 && refused.stderr.contains("Kim is away from 2025-12-01 to 2025-12-07"), "\(refused)")
        #expect(try sb.todo("member", "leave", "Alice", "--to", "Bob").exitCode == 65)

        // A week later, Bob's leave holds and the turns already passed have not moved.
        sb.now = fixedNow + 8 * Self.day
        let feed = try run(sb, "calendar", "--weeks", "2").stdout
        let nov20 = feed.components(separatedBy: "BEGIN:VEVENT").first { $0.contains("-20251120@todo") } ?? ""
        #expect(nov20.contains("Alice"), "\(nov20)")
        #expect(!feed.contains("Bob's turn"))
        // Clearing Kim's absence gives her week back.
        try run(sb, "member", "away", "Kim", "--clear")
        #expect(try turns(sb, trash).contains("Thu 4 Dec, Kim"))
        try sb.expectClean()
    }

    @Test func remindersStopForAMemberWhoLeft() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        _ = try sb.add("Call the plumber", "--assign", "Bob", "--due", "today")
        #expect(try run(sb, "remind", "--dry-run").stdout.contains("Bob"))
        try run(sb, "member", "leave", "Bob")
        sb.now = fixedNow + Self.day
        #expect(!(try run(sb, "remind", "--dry-run").stdout.contains("Bob")))
    }
}
