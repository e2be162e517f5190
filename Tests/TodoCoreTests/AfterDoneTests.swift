import TestKit
import Testing

@testable import TodoCore

/// Chores that repeat from when they were done (docs/FORMAT.md, "Chores that repeat from when
/// they were done"): the next date is the day of the latest completion or skip plus the rule's
/// interval, an open occurrence is never missed, and turns advance one per occurrence.
@Suite(.timeLimit(.minutes(5))) struct AfterDoneTests {
    typealias C = ChoreScheduleTests

    static func date(_ s: String) -> CivilDate { C.date(s) }

    /// Wall millis at 09:00 UTC on `day` (the household day under `.plain`).
    static func wall(_ day: String) -> Int64 { Int64(date(day).daysSinceEpoch) * C.day + 9 * 3_600_000 }

    static func stamp(_ day: String, _ member: String, replica: String = "a1", counter: UInt32 = 0) -> FieldStamp {
        FieldStamp(Stamp(wall: wall(day), counter: counter, replica: replica), by: member)
    }

    /// Water the plants every `every` from Tue 1 Dec 2026, counted from when it was done.
    static func plants(_ every: String = "3d", rotation: [String] = []) -> Task {
        var t = C.chore(every, rotation: rotation)
        t.title = "Water plants"
        t.setAnchor(.done, stamp: C.stamp(C.t0, "Kim", replica: "a1"))
        return t
    }

    /// `member` completes the chore's current occurrence on `day`, as `done` does.
    static func done(_ t: inout Task, on day: String, by member: String = "Kim", replica: String = "a1") throws {
        let s = try #require(t.schedule(today: date(day), context: .plain))
        let current = try #require(s.current)
        t.complete(current, member: member, day: date(day), stamp: stamp(day, member, replica: replica))
    }

    static func current(_ t: Task, today: String) -> CivilDate? {
        t.schedule(today: date(today), context: .plain)?.current
    }

    @Test func theFirstOccurrenceIsTheStartAndOneDoneLateCountsFromTheDayItWasDone() throws {
        var t = Self.plants()
        #expect(t.repeatsAfterDone)
        #expect(Self.current(t, today: "2026-12-01") == Self.date("2026-12-01"))
        // Nobody did it for four days: still due, never missed.
        let s = try #require(t.schedule(today: Self.date("2026-12-05"), context: .plain))
        #expect(s.current == Self.date("2026-12-01"))
        #expect(s.status(of: Self.date("2026-12-01")) == .open)
        #expect(s.missed(since: Self.date("2026-12-01")).isEmpty)
        // Done on day 5: next on day 8.
        try Self.done(&t, on: "2026-12-05")
        #expect(Self.current(t, today: "2026-12-05") == Self.date("2026-12-08"))
        #expect(Self.current(t, today: "2026-12-30") == Self.date("2026-12-08"), "it stays current until done")
        let later = try #require(t.schedule(today: Self.date("2026-12-30"), context: .plain))
        #expect(later.history(5).map { "\($0.date) \($0.status)" } == ["2026-12-01 done"])
        #expect(later.upcoming(3) == ["2026-12-08", "2026-12-11", "2026-12-14"].map(Self.date))
    }

    @Test func oneDoneEarlyCountsFromTheDayItWasDoneButNeverFallsOnOrBeforeItsOwnDate() throws {
        var t = Self.plants()
        try Self.done(&t, on: "2026-12-05")
        // Occurrence 8 Dec done on the 7th: next on the 10th.
        try Self.done(&t, on: "2026-12-07")
        #expect(Self.current(t, today: "2026-12-07") == Self.date("2026-12-10"))
        // Done again the same day (10 Dec, early): 7 + 3 is not after 10, so the 11th.
        try Self.done(&t, on: "2026-12-07")
        #expect(Self.current(t, today: "2026-12-07") == Self.date("2026-12-11"))
        let s = try #require(t.schedule(today: Self.date("2026-12-07"), context: .plain))
        #expect(s.history(5).map(\.date) == ["2026-12-10", "2026-12-08", "2026-12-01"].map(Self.date))
    }

    @Test func aSkipCountsFromTheHouseholdDayItWasRecorded() throws {
        var t = Self.plants(rotation: ["Ann", "Bob"])
        try Self.done(&t, on: "2026-12-01", by: "Ann")
        // 4 Dec (Bob's) skipped on the 6th: the next is the 9th, and Bob's.
        t.setOccurrence(Self.date("2026-12-04"), .skipped, stamp: Self.stamp("2026-12-06", "Bob"))
        let s = try #require(t.schedule(today: Self.date("2026-12-06"), context: .plain))
        #expect(s.status(of: Self.date("2026-12-04")) == .skipped)
        #expect(s.current == Self.date("2026-12-09"))
        #expect(s.turn(on: Self.date("2026-12-04")) == "Bob")
        #expect(s.turn(on: Self.date("2026-12-09")) == "Bob", "a skip costs nobody a turn")
        #expect(s.turn(on: Self.date("2026-12-12")) == "Ann")
    }

    @Test func twoMembersWhoDidOneOccurrenceOfflineOnDifferentDaysMakeOneOccurrence() throws {
        let base = Self.plants(rotation: ["Sam", "Kim"])
        var sam = base
        try Self.done(&sam, on: "2026-12-01", by: "Sam", replica: "b2")
        var kim = sam
        let before = sam
        // 4 Dec: Sam did it on the 4th, Kim (who had not synced) on the 6th.
        try Self.done(&sam, on: "2026-12-04", by: "Sam", replica: "b2")
        try Self.done(&kim, on: "2026-12-06", by: "Kim", replica: "c3")
        let t = try C.merged(before, sam, kim)
        let s = try #require(t.schedule(today: Self.date("2026-12-06"), context: .plain))
        #expect(s.credits(on: Self.date("2026-12-04")).map(\.member) == ["Sam", "Kim"])
        #expect(s.credits.allSatisfy { !$0.moved })
        #expect(s.current == Self.date("2026-12-09"), "counted from the later day, the 6th")
        #expect(s.history(5).map(\.date) == ["2026-12-04", "2026-12-01"].map(Self.date))
        #expect(s.turn(on: Self.date("2026-12-09")) == "Sam", "one occurrence: the rotation moved on once")
        #expect(s.tally().map { "\($0.member) \($0.all)" } == ["Kim 1", "Sam 2"])
    }

    @Test func theRotationAdvancesOneMemberPerOccurrence() throws {
        var t = Self.plants("week", rotation: ["Ann", "Bob", "Cy"])
        var seen: [String] = []
        // Done late, early and on time: each occurrence is the next member's.
        for day in ["2026-12-03", "2026-12-08", "2026-12-16", "2026-12-20"] {
            let s = try #require(t.schedule(today: Self.date(day), context: .plain))
            seen.append(try #require(s.current.flatMap { s.turn(on: $0) }))
            try Self.done(&t, on: day, by: seen.last!)
        }
        #expect(seen == ["Ann", "Bob", "Cy", "Ann"])
        let s = try #require(t.schedule(today: Self.date("2026-12-20"), context: .plain))
        // 1 Dec (done 3rd), 10 Dec (done 8th: 3 + 7), 15 Dec (done 16th), 23 Dec (done 20th).
        #expect(s.history(9).map(\.date).reversed() == ["2026-12-01", "2026-12-10", "2026-12-15", "2026-12-23"].map(Self.date))
        #expect(s.current == Self.date("2026-12-27"))
        #expect(s.turn(on: Self.date("2026-12-27")) == "Bob")
        #expect(s.nextTurn(of: "Cy") == Self.date("2027-01-03"))
        // The plain count and the walk agree on every occurrence (a take-over starts the walk).
        t.setTurn(Self.date("2027-01-03"), "Ann", stamp: Self.stamp("2026-12-20", "Cy", counter: 1))
        let w = try #require(t.schedule(today: Self.date("2026-12-20"), context: .plain))
        #expect(["2026-12-01", "2026-12-10", "2026-12-15", "2026-12-23", "2026-12-27"].map { w.turn(on: Self.date($0)) }
            == ["Ann", "Bob", "Cy", "Ann", "Bob"])
        #expect(w.turn(on: Self.date("2027-01-03")) == "Ann" && w.turn(on: Self.date("2027-01-10")) == "Ann")
    }

    @Test func monthsCountFromTheDayDoneClampedToTheMonthsEnd() throws {
        var t = C.chore("month")
        t.setRecurrence(Recurrence(rule: RepeatRule("month")!, from: Self.date("2027-01-31")), stamp: Self.stamp("2026-12-01", "Kim"))
        t.setAnchor(.done, stamp: Self.stamp("2026-12-01", "Kim", counter: 1))
        try Self.done(&t, on: "2027-01-31")
        #expect(Self.current(t, today: "2027-01-31") == Self.date("2027-02-28"))
        try Self.done(&t, on: "2027-03-30")
        #expect(Self.current(t, today: "2027-03-30") == Self.date("2027-04-30"))
    }

    @Test func onlyAnIntervalRuleCountsFromWhenItWasDone() throws {
        // `anchor` `done` with a weekday rule (merged from two edits): the calendar, as before.
        var t = Self.plants("tue")
        #expect(t.anchor == .done && !t.repeatsAfterDone)
        try Self.done(&t, on: "2026-12-04")
        #expect(Self.current(t, today: "2026-12-04") == Self.date("2026-12-08"))
        #expect(!(t.schedule(today: Self.date("2026-12-04"), context: .plain)?.occurrences.afterDone ?? true))
        for rule in ["day", "3d", "2w", "month", "5months"] { #expect(RepeatRule(rule)!.isInterval, "\(rule)") }
        for rule in ["tue", "weekday", "weekend", "15th"] { #expect(!RepeatRule(rule)!.isInterval, "\(rule)") }
    }

    @Test func anAnchorIsAStampedStringAmongTheExtraKeysAndAnUnknownOneReadsAsTheCalendar() throws {
        var t = Self.plants()
        t.setAlarm(TaskAlarm("2h")!, stamp: Self.stamp("2026-12-01", "Kim", counter: 2))
        t.complete(Self.date("2026-12-01"), member: "Kim", day: Self.date("2026-12-01"), stamp: Self.stamp("2026-12-01", "Kim", counter: 3))
        let text = String(decoding: TaskCodec.encode(t), as: UTF8.self)
        let keys = text.split(separator: "\n").filter { $0.hasPrefix("  \"") }.map { $0.dropFirst(3).prefix { $0 != "\"" } }
        #expect(keys.drop { $0 != "deleted" }.dropFirst().prefix(4) == ["alarm", "anchor", "completions", "occurrences"])
        #expect(text.contains("    \"anchor\": \"\(C.stamp(C.t0, "Kim", replica: "a1"))\""))
        #expect(TaskCodec.encode(try TaskCodec.decode(Array(text.utf8))) == Array(text.utf8), "kept byte for byte")
        // A later version's value reads as the calendar; null (an undone first setting) too.
        for value in [#""fortnightly""#, #""due""#, "null"] {
            let other = text.replacingFirst(#""anchor": "done""#, with: "\"anchor\": \(value)")
            let read = try TaskCodec.decode(Array(other.utf8))
            #expect(read.anchor == .due && !read.repeatsAfterDone, "\(value)")
            #expect(TaskCodec.encode(read) == Array(other.utf8), "\(value) kept byte for byte")
        }
        // Any other JSON is malformed, like `schedule`.
        for value in ["3", "true", #"["done"]"#, #"{"from": "done"}"#] {
            let bad = text.replacingFirst(#""anchor": "done""#, with: "\"anchor\": \(value)")
            #expect(throws: TaskFormatError.self, "\(value)") { try TaskCodec.decode(Array(bad.utf8)) }
        }
    }

    @Test func theAnchorMergesByItsStamp() throws {
        let base = C.chore("3d")
        var a = base
        var b = base
        a.setAnchor(.done, stamp: Self.stamp("2026-12-02", "Ann", replica: "b2"))
        b.setAnchor(.due, stamp: Self.stamp("2026-12-03", "Bob", replica: "c3"))
        let t = try C.merged(base, a, b, quiet: false)
        #expect(t.anchor == .due && t.stamps["anchor"]?.member == "Bob")
    }

    @Test func hugeIntervalsAndDatesNearTheLastDayAreBounded() throws {
        for rule in ["999d", "999w", "999months"] {
            var t = C.chore(rule)
            t.setRecurrence(Recurrence(rule: RepeatRule(rule)!, from: Self.date("9990-01-01")), stamp: Self.stamp("2026-12-01", "Kim"))
            t.setAnchor(.done, stamp: Self.stamp("2026-12-01", "Kim", counter: 1))
            #expect(Self.current(t, today: "9990-01-01") == Self.date("9990-01-01"))
            t.complete(Self.date("9990-01-01"), member: "Kim", day: Self.date("9999-12-30"), stamp: Self.stamp("2026-12-02", "Kim"))
            let s = try #require(t.schedule(today: Self.date("9999-12-31"), context: .plain))
            #expect(s.current == nil, "\(rule): no date after 9999-12-31")
            #expect(s.upcoming(3).isEmpty && s.turn(on: Self.date("9999-12-31")) == nil)
            #expect(s.history(3).map(\.date) == [Self.date("9990-01-01")])
        }
        // A completion naming the last day: nothing after it, and no trap.
        var t = Self.plants(rotation: ["Ann", "Bob"])
        t.complete(Self.date("9999-12-31"), member: "Eve", day: Self.date("2026-12-01"), stamp: Self.stamp("2026-12-01", "Eve", counter: 5))
        let s = try #require(t.schedule(today: Self.date("2026-12-01"), context: .plain))
        #expect(s.current == nil && s.occurrences.index(of: Self.date("9999-12-31")) == 0)
        #expect(s.turn(on: Self.date("9999-12-31")) == "Ann")
    }

    @Test func aCalendarChoresOccurrencesAreItsRulesDates() throws {
        for (rule, from) in [("day", "2026-12-01"), ("3d", "2026-12-02"), ("2w", "2026-12-01"), ("mon,thu", "2026-12-01"),
            ("weekend", "2026-12-03"), ("month", "2027-01-31"), ("5months", "2026-08-31"), ("31st", "2026-12-15")]
        {
            let r = Recurrence(rule: RepeatRule(rule)!, from: Self.date(from))
            let o = ChoreOccurrences(calendar: r)
            #expect(o.first == r.first(onOrAfter: r.from))
            var d = Self.date("2026-11-20")
            for _ in 0..<500 {
                #expect(o.next(after: d) == r.next(after: d), "\(rule) \(d)")
                #expect(o.isOccurrence(d) == r.isOccurrence(d) && o.index(of: d) == r.index(of: d), "\(rule) \(d)")
                d = d.adding(days: 1)
            }
        }
    }

    @Test func theListAndTheFeedShowTheCurrentOccurrenceWhateverTheDay() throws {
        var t = Self.plants(rotation: ["Ann", "Bob"])
        try Self.done(&t, on: "2026-12-05", by: "Ann")
        let facts = try #require(ListFacts(t, today: Self.date("2026-12-05"), context: .plain))
        #expect(facts.current == Self.date("2026-12-08") && facts.turn == "Bob")
        #expect(facts.holds(on: Self.date("2027-06-01")), "it stays until done, whatever the day")
        let agenda = Agenda.due(of: t, today: Self.date("2026-12-20"), context: .plain)
        #expect(agenda.due?.date == Self.date("2026-12-08") && agenda.assignee == "Bob")
        // The feed: the occurrence done, then the current one (overdue on today); no guesses after it.
        var options = CalendarFeedOptions()
        options.weeks = 4
        let items = CalendarFeed.collect([t], options: options, today: Self.date("2026-12-10"), context: .plain)
        #expect(items.map(\.dueDay) == ["2026-12-01", "2026-12-08"].map(Self.date))
        #expect(items.map(\.day) == ["2026-12-01", "2026-12-10"].map(Self.date))
    }
}
