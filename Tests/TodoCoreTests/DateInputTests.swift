import TestKit
import Testing
import TodoCore

/// The dates people type, and the words a date is shown with.
@Suite(.timeLimit(.minutes(20))) struct DateInputTests {
    let thursday = CivilDate(year: 2025, month: 11, day: 20)!

    @Test(arguments: [
        ("yesterday", "2025-11-19"), ("eod", "2025-11-20"), ("eow", "2025-11-23"), ("sow", "2025-11-24"),
        ("eom", "2025-11-30"), ("som", "2025-12-01"), ("eoy", "2025-12-31"), ("1st", "2025-12-01"),
        ("2nd", "2025-12-02"), ("3rd", "2025-12-03"), ("20th", "2025-12-20"), ("21st", "2025-11-21"),
        ("22nd", "2025-11-22"), ("23rd", "2025-11-23"), ("31st", "2025-12-31"), ("11th", "2025-12-11"),
        ("+1m", "2025-12-20"), ("+3m", "2026-02-20"), ("+1y", "2026-11-20"), ("next mon", "2025-11-24"),
        ("next thursday", "2025-11-27"), ("NEXT Fri", "2025-11-21"), ("18:00", "2025-11-20T18:00"),
        ("7:05", "2025-11-20T07:05"), ("today 18:00", "2025-11-20T18:00"), ("fri 9:30", "2025-11-21T09:30"),
        ("next mon 9:30", "2025-11-24T09:30"), ("eow 18:00", "2025-11-23T18:00"), ("15th 08:00", "2025-12-15T08:00"),
        ("now", "2025-11-20T09:41"),
    ])
    func parsesTheNewForms(_ input: String, _ expected: String) throws {
        #expect(try Due.parse(input, today: thursday, minuteOfDay: 9 * 60 + 41).description == expected)
    }

    @Test func weeksRunMondayToSunday() throws {
        let sunday = CivilDate(year: 2025, month: 11, day: 23)!
        let monday = CivilDate(year: 2025, month: 11, day: 24)!
        #expect(try Due.parse("eow", today: sunday).description == "2025-11-23")
        #expect(try Due.parse("sow", today: sunday).description == "2025-11-24")
        #expect(try Due.parse("eow", today: monday).description == "2025-11-30")
        #expect(try Due.parse("sow", today: monday).description == "2025-12-01")
    }

    @Test func monthsKeepTheDayOrTakeTheLastOne() throws {
        let jan31 = CivilDate(year: 2024, month: 1, day: 31)!
        #expect(try Due.parse("+1m", today: jan31).description == "2024-02-29")
        #expect(try Due.parse("+13m", today: jan31).description == "2025-02-28")
        #expect(try Due.parse("30th", today: jan31).description == "2024-03-30")
        #expect(try Due.parse("eom", today: jan31).description == "2024-01-31")
        let leap = CivilDate(year: 2024, month: 2, day: 29)!
        #expect(try Due.parse("+1y", today: leap).description == "2025-02-28")
        #expect(try Due.parse("+4y", today: leap).description == "2028-02-29")
        #expect(try Due.parse("som", today: CivilDate(year: 2025, month: 12, day: 9)!).description == "2026-01-01")
    }

    @Test(arguments: [
        "0th", "01st", "32nd", "1th", "2st", "11st", "+101y", "+1201m", "+99999999d", "next", "next 15th", "next eow",
        "24:00", "9:5", "now 18:00", "+-1m", "+1 m",
    ])
    func refusesTheNearMisses(_ input: String) {
        #expect(throws: DateInputError.self) { try Due.parse(input, today: thursday) }
    }

    /// At the edges of the calendar nothing traps: the date is refused instead.
    @Test func theEndOfTheCalendarIsRefusedNotATrap() throws {
        let last = CivilDate(year: 9999, month: 12, day: 31)!
        for input in ["tomorrow", "sow", "som", "1st", "+1d", "+1w", "+1m", "+1y", "friday"] {
            #expect(throws: DateInputError.self, "\(input)") { try Due.parse(input, today: last) }
        }
        #expect(try Due.parse("eoy", today: last).description == "9999-12-31")
        let first = CivilDate(year: 1, month: 1, day: 1)!
        #expect(throws: DateInputError.self) { try Due.parse("yesterday", today: first) }
        #expect(first.checkedAdding(days: Int.min) == nil)
        #expect(last.checkedAdding(days: Int.max) == nil)
    }

    @Test func displayUsesWordsWithinTheComingWeek() {
        func shown(_ days: Int, _ minutes: Int? = nil) -> String {
            Due(date: thursday.adding(days: days), minutes: minutes).display(today: thursday)
        }
        #expect(shown(-2) == "2025-11-18")
        #expect(shown(-1) == "yesterday")
        #expect(shown(0, 18 * 60) == "today 18:00")
        #expect(shown(1) == "tomorrow")
        #expect(shown(2) == "saturday")
        #expect(shown(6, 9 * 60 + 5) == "wednesday 09:05")
        #expect(shown(7) == "2025-11-27")
    }

    @Test func relativeWords() {
        func rel(_ days: Int) -> String { Due(date: thursday.adding(days: days)).relative(today: thursday) }
        #expect(rel(0) == "today")
        #expect(rel(1) == "tomorrow")
        #expect(rel(-1) == "yesterday")
        #expect(rel(3) == "in 3 days")
        #expect(rel(-10) == "10 days ago")
        #expect(rel(21) == "in 3 weeks")
        #expect(rel(95) == "in 3 months")
        #expect(rel(800) == "in 2 years")
    }

    /// Whatever `list` shows for a date, typed back on the same day, is that date.
    @Test func everyDisplayedDateParsesBackToItself() throws {
        var rng = SplitMix64(seed: 0x5EED_DA7E)
        for _ in 0..<2_000 {
            let today = CivilDate(daysSinceEpoch: Int(rng.next() % 40_000) - 5_000)
            let offset = Int(rng.next() % 800) - 400
            let minutes: Int? = rng.next() % 2 == 0 ? nil : Int(rng.next() % 1440)
            let due = Due(date: today.adding(days: offset), minutes: minutes)
            let shown = due.display(today: today)
            #expect(try Due.parse(shown, today: today) == due, "\(shown) on \(today)")
        }
    }
}
