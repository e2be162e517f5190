import TestKit
import Testing

@testable import TodoCore

/// Whose turn it is when people come and go (docs/FORMAT.md, "Turns: decided once and kept"
/// and "Members"): skips carry, rotation changes and the roster take effect from their date,
/// absences get a stand-in, and no turn already passed ever moves.
@Suite(.timeLimit(.minutes(5))) struct RosterTurnTests {
    static let id = TaskID("5e1a9c0e5b7d41e8a6c2d9f0b1e4c7a5")!
    /// Mon 30 Nov 2026, 09:00 UTC.
    static let t0: Int64 = 1_796_029_200_000
    static let day: Int64 = 86_400_000

    static func date(_ s: String) -> CivilDate { CivilDate(iso: Substring(s))! }
    static func stamp(_ wall: Int64, _ member: String = "Alice", replica: String = "a1") -> FieldStamp {
        FieldStamp(Stamp(wall: wall, counter: 0, replica: replica), by: member)
    }

    /// A chore from Mon 30 Nov with `rotation`, its fields stamped at t0.
    static func chore(_ every: String = "day", rotation: [String], rotate: RotateMode = .order) -> Task {
        var t = Task(id: id, title: "Dishes", createdAt: "2026-11-30T09:00:00.000Z", createdBy: "Alice")
        let s = stamp(t0)
        for field in Task.stampedFields { t.stamps[field] = s }
        t.setRecurrence(Recurrence(rule: RepeatRule(every)!, from: date("2026-11-30")), stamp: s)
        t.setRotation(rotation, stamp: s)
        if rotate != .order { t.setRotateMode(rotate, stamp: s) }
        return t
    }

    /// A settings task holding `entries` (key → value), each stamped at t0.
    static func roster(_ entries: [(String, String)]) -> TurnContext {
        var t = Task(id: TaskID("00000000000000000000000000000000")!, title: "s", createdAt: "", createdBy: "Alice")
        for (k, v) in entries {
            t.extra[k] = .string(v)
            t.stamps[k] = stamp(t0)
        }
        return TurnContext(roster: Roster(settings: t), day: TurnContext.plain.day)
    }

    static func turns(_ t: Task, _ from: String, _ n: Int, today: String = "2026-11-30", context: TurnContext = .plain) -> [String] {
        let s = t.schedule(today: date(today), context: context)!
        var out: [String] = []
        var d: CivilDate? = date(from)
        while let x = d, out.count < n {
            out.append(s.turn(on: x) ?? "-")
            d = s.recurrence.next(after: x)
        }
        return out
    }

    @Test func aSkipAfterASwapGivesTheSkippedMemberTheNextUnpinnedTurn() {
        var t = Self.chore(rotation: ["Alice", "Bob", "Kim"])
        // swap: Monday is Kim's, Wednesday Alice's; then Monday is skipped.
        t.setTurn(Self.date("2026-11-30"), "Kim", stamp: Self.stamp(Self.t0 + 1))
        t.setTurn(Self.date("2026-12-02"), "Alice", stamp: Self.stamp(Self.t0 + 1))
        t.setOccurrence(Self.date("2026-11-30"), .skipped, stamp: Self.stamp(Self.t0 + 2))
        #expect(Self.turns(t, "2026-11-30", 7) == ["Kim", "Kim", "Alice", "Bob", "Alice", "Bob", "Kim"])
    }

    @Test func aSkipWithoutTakeOversKeepsTheRuleOlderVersionsCompute() {
        var t = Self.chore(rotation: ["Alice", "Bob", "Kim"])
        t.setOccurrence(Self.date("2026-12-01"), .skipped, stamp: Self.stamp(Self.t0 + 1))
        t.setOccurrence(Self.date("2026-12-02"), .skipped, stamp: Self.stamp(Self.t0 + 2))
        #expect(Self.turns(t, "2026-11-30", 7) == ["Alice", "Bob", "Bob", "Bob", "Kim", "Alice", "Bob"])
    }

    @Test func aSkipRecordedLateMovesNoTurnAlreadyPassed() {
        var t = Self.chore(rotation: ["Alice", "Bob", "Kim"])
        let before = Self.turns(t, "2026-11-30", 5)
        // On Thu 3 Dec, Monday is marked skipped after the fact.
        t.setOccurrence(Self.date("2026-11-30"), .skipped, stamp: Self.stamp(Self.t0 + 3 * Self.day))
        let after = Self.turns(t, "2026-11-30", 6, today: "2026-12-03")
        #expect(Array(after.prefix(4)) == Array(before.prefix(4)), "Mon to Thu keep their members")
        #expect(after[4] == "Alice", "Monday's member takes Friday")
    }

    @Test func addingAMemberToARotationKeepsAnnouncedTurns() {
        var t = Self.chore("week", rotation: ["Alice", "Bob", "Kim"])
        let before = Self.turns(t, "2026-11-30", 2)
        // Monday morning 30 Nov, Sam is added after Bob: from Tuesday.
        t.changeRotation(["Alice", "Bob", "Sam", "Kim"], from: Self.date("2026-12-01"), stamp: Self.stamp(Self.t0 + 1))
        let after = Self.turns(t, "2026-11-30", 5)
        #expect(after[0] == before[0], "that Monday's turn stays")
        #expect(after == ["Alice", "Bob", "Sam", "Kim", "Alice"])
    }

    @Test func removingAMemberNeverGivesSomeoneTwoTurnsRunning() {
        var t = Self.chore("week", rotation: ["Alice", "Bob", "Kim"])
        // Weeks: Alice (30 Nov), Bob (7 Dec), Kim (14 Dec); Bob is removed on 15 Dec.
        t.changeRotation(["Alice", "Kim"], from: Self.date("2026-12-16"), stamp: Self.stamp(Self.t0 + 15 * Self.day))
        #expect(Self.turns(t, "2026-11-30", 6, today: "2026-12-15") == ["Alice", "Bob", "Kim", "Alice", "Kim", "Alice"])
        // Removed while Alice's week was the last: Kim follows, not Alice again.
        var u = Self.chore("week", rotation: ["Alice", "Bob", "Kim"])
        u.changeRotation(["Alice", "Kim"], from: Self.date("2026-12-01"), stamp: Self.stamp(Self.t0 + 1))
        #expect(Self.turns(u, "2026-11-30", 4) == ["Alice", "Kim", "Alice", "Kim"])
    }

    @Test func olderVersionsRotationEditHoldsFromTheDayAfterIt() {
        var t = Self.chore("day", rotation: ["Alice", "Bob"])
        t.changeRotation(["Alice", "Bob", "Kim"], from: Self.date("2026-12-01"), stamp: Self.stamp(Self.t0 + 1))
        // An older version writes `rotation` alone on 3 Dec.
        t.setRotation(["Alice", "Kim"], stamp: Self.stamp(Self.t0 + 3 * Self.day))
        let turns = Self.turns(t, "2026-11-30", 7, today: "2026-12-03")
        #expect(Array(turns.prefix(5)) == ["Alice", "Bob", "Kim", "Alice", "Kim"])
        #expect(turns[5] == "Alice")
    }

    @Test func anAbsentMembersTurnGoesToTheNextPresentMemberAndTheOrderStays() {
        let t = Self.chore(rotation: ["Alice", "Bob", "Kim"])
        let ctx = Self.roster([("member:away@2026-12-01:Bob", "2026-12-01")])
        #expect(Self.turns(t, "2026-11-30", 4, context: ctx) == ["Alice", "Kim", "Kim", "Alice"])
        // A take-over to someone away goes to their stand-in too.
        var u = t
        u.setTurn(Self.date("2026-11-30"), "Bob", stamp: Self.stamp(Self.t0 + 1))
        let away = Self.roster([("member:away@2026-11-30:bob", "2026-11-30")])
        #expect(Self.turns(u, "2026-11-30", 1, context: away) == ["Kim"])
        // Everyone away: for anyone.
        let all = Self.roster([("member:away@2026-11-30:Alice", "2026-11-30"), ("member:away@2026-11-30:Bob", "2026-11-30"),
                               ("member:away@2026-11-30:Kim", "2026-11-30")])
        #expect(Self.turns(t, "2026-11-30", 2, context: all) == ["-", "Bob"])
    }

    @Test func aMemberWhoLeftIsPassedOverAndTheirTakeOversGoBack() {
        var t = Self.chore(rotation: ["Alice", "Bob", "Kim"])
        t.setTurn(Self.date("2026-12-03"), "Bob", stamp: Self.stamp(Self.t0 + 1))
        let ctx = Self.roster([("member:roster@2026-12-02:Bob", "left")])
        let turns = Self.turns(t, "2026-11-30", 6, context: ctx)
        #expect(Array(turns.prefix(2)) == ["Alice", "Bob"], "turns before the leave stay")
        #expect(!turns.dropFirst(2).contains("Bob"))
        #expect(turns == ["Alice", "Bob", "Kim", "Alice", "Kim", "Alice"])
        // Back again from 5 Dec.
        let back = Self.roster([("member:roster@2026-12-02:Bob", "left"), ("member:roster@2026-12-05:Bob", "member")])
        #expect(Self.turns(t, "2026-12-05", 3, context: back).contains("Bob"))
    }

    @Test func fewestCountsOnlyPresentMembersAndDaysEveryoneWasThere() {
        var t = Self.chore(rotation: ["Alice", "Bob"], rotate: .fewest)
        for (i, d) in ["2026-11-30", "2026-12-01", "2026-12-02"].enumerated() {
            t.complete(Self.date(d), member: "Alice", day: Self.date(d), stamp: Self.stamp(Self.t0 + Int64(i) * Self.day))
        }
        let ctx = Self.roster([("member:away@2026-12-03:Bob", "2026-12-10")])
        let s = t.schedule(today: Self.date("2026-12-03"), context: ctx)!
        #expect(s.turn(on: Self.date("2026-12-03")) == "Alice", "Bob is away")
        #expect(s.turn(on: Self.date("2026-12-11")) == "Bob")
        // Alice's three days before Bob left count; the days he was away do not.
        #expect(s.fewest(on: Self.date("2026-12-12"), projected: [(("Bob"), Self.date("2026-12-11"))]) == "Bob")
    }

    @Test(arguments: [3, 4, 5]) func fewestStaysWithinOneOverFourWeeksOnceEveryoneIsBack(members: Int) {
        let names = Array(["Ann", "Ben", "Cy", "Dee", "Eve"].prefix(members))
        var t = Self.chore(rotation: names, rotate: .fewest)
        // Ben is away the first two weeks; from then on, each day's member does it that day.
        let ctx = Self.roster([("member:away@2026-11-30:Ben", "2026-12-13")])
        var done: [(CivilDate, String)] = []
        var d = Self.date("2026-11-30")
        for i in 0..<84 {
            let s = t.schedule(today: d, context: ctx)!
            let who = s.turn(on: d)!
            #expect(who != "Ben" || d > Self.date("2026-12-13"), "Ben is away on \(d)")
            t.complete(d, member: who, day: d, stamp: Self.stamp(Self.t0 + Int64(i) * Self.day))
            done.append((d, who))
            d = d.adding(days: 1)
        }
        // Any 28 days from the day after everyone's return plus four weeks: counts differ by one at most.
        for start in 42..<(84 - 28) {
            var counts = Dictionary(uniqueKeysWithValues: names.map { ($0, 0) })
            for (_, who) in done[start..<(start + 28)] { counts[who, default: 0] += 1 }
            #expect(counts.values.max()! - counts.values.min()! <= 1, "\(done[start].0): \(counts)")
        }
    }

    @Test func overlappingWindowsAndManyEntriesAreReadRight() {
        // A long window with short ones inside it, and a later one.
        let ctx = Self.roster([
            ("member:away@2026-12-01:Kim", "2026-12-10"), ("member:away@2026-12-03:Kim", "2026-12-04"),
            ("member:away@2026-12-05:Kim", "2026-12-06"), ("member:away@2026-12-20:Kim", "2026-12-20"),
            ("member:roster@2026-12-02:Kim", "left"), ("member:roster@2026-12-08:Kim", "member"),
        ])
        let kim = ctx.roster.member("kim")!
        let away = (1...31).filter { kim.awayWindow(on: CivilDate(year: 2026, month: 12, day: $0)!) != nil }
        #expect(away == Array(1...10) + [20])
        #expect(kim.awayWindow(on: Self.date("2026-12-08"))?.from == Self.date("2026-12-01"))
        let left = (1...31).filter { kim.hasLeft(on: CivilDate(year: 2026, month: 12, day: $0)!) }
        #expect(left == Array(2...7))
        #expect(!kim.hasLeft(on: Self.date("2026-11-30")) && kim.awayWindow(on: Self.date("2026-11-30")) == nil)
        // Thousands of windows (a hostile file) are answered by search, not by a walk each time.
        var many: [(String, String)] = []
        for i in 0..<5_000 {
            let d = Self.date("2026-01-01").adding(days: 2 * i)
            many.append(("member:away@\(d):Kim", d.description))
        }
        let big = Self.roster(many)
        #expect(big.roster.isPresent("Kim", on: Self.date("2026-01-02")))
        #expect(!big.roster.isPresent("Kim", on: Self.date("2026-01-03")))
    }

    @Test func rosterKeysParseNamesWithColonsAndRefuseOthers() {
        #expect(Roster.parse("member:roster@2026-12-01:Mx: Lee")?.name == "Mx: Lee")
        #expect(Roster.parse("member:away@2026-12-01:Kim")?.field == "away@")
        #expect(Roster.parse("member:away@2026-13-01:Kim") == nil)
        #expect(Roster.parse("member:away@2026-12-01:") == nil)
        #expect(Roster.parse("member:email:Kim") == nil)
        // A malformed value is left out, never a crash.
        let ctx = Self.roster([("member:away@2026-12-01:Kim", "soon"), ("member:roster@2026-12-01:Kim", "gone")])
        #expect(ctx.roster.state(of: "kim", on: Self.date("2026-12-02")) == .present)
    }

    @Test func aHostileRuleStartingInYearOneStillAnswers() {
        var t = Task(id: Self.id, title: "x", createdAt: "", createdBy: "A")
        let s = Self.stamp(Self.t0)
        t.setRecurrence(Recurrence(rule: RepeatRule("day")!, from: CivilDate(year: 1, month: 1, day: 1)!), stamp: s)
        t.setRotation(["A", "B"], stamp: s)
        t.setOccurrence(CivilDate(year: 1, month: 1, day: 2)!, .skipped, stamp: s)
        let sched = t.schedule(today: Self.date("2026-12-01"), context: .plain)!
        #expect(["A", "B"].contains(sched.turn(on: Self.date("2026-12-01")) ?? ""))
    }
}
