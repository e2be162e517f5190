import Synchronization
import TestKit
import Testing

@testable import TodoCore

/// The dates a change may write (docs/FORMAT.md, "Dates"), and what a chore holding a date
/// outside them costs a read: its turns are walked over at most a year, not the centuries
/// since its start.
@Suite(.timeLimit(.minutes(5))) struct DateBoundsTests {
    static let id = TaskID("7c1a9c0e5b7d41e8a6c2d9f0b1e4c7a5")!
    /// Tue 1 Dec 2026, 09:00 UTC.
    static let t0: Int64 = 1_796_115_600_000

    static func date(_ s: String) -> CivilDate { CivilDate(iso: Substring(s))! }
    static func stamp(_ wall: Int64 = t0) -> FieldStamp { FieldStamp(Stamp(wall: wall, counter: 0, replica: "a1"), by: "Kim") }

    /// A daily chore from `from`, taken in turns by Kim and Lee, as a hand edit could leave it.
    static func chore(from: String, skipped: [String] = [], skippedAt: Int64 = t0) -> Task {
        var t = Task(id: id, title: "Dishes", createdAt: "2026-12-01T09:00:00.000Z", createdBy: "Kim")
        let s = stamp()
        for field in Task.stampedFields { t.stamps[field] = s }
        t.setRecurrence(Recurrence(rule: RepeatRule("day")!, from: date(from)), stamp: s)
        t.setRotation(["Kim", "Lee"], stamp: s)
        for d in skipped { t.setOccurrence(date(d), .skipped, stamp: stamp(skippedAt)) }
        return t
    }

    @Test func theRangeIs1970Through2199() {
        #expect(DateBounds.first == Self.date("1970-01-01"))
        #expect(DateBounds.last == Self.date("2199-12-31"))
        #expect(DateBounds.text == "1970-01-01 through 2199-12-31")
        for inside in ["1970-01-01", "2026-12-01", "2199-12-31"] { #expect(DateBounds.contains(Self.date(inside)), "\(inside)") }
        for outside in ["0001-01-01", "1969-12-31", "2200-01-01", "9999-12-31"] {
            #expect(!DateBounds.contains(Self.date(outside)), "\(outside)")
        }
    }

    /// A change is checked for what it writes: a date already stored outside the range stays,
    /// and another field can still be changed.
    @Test func onlyDatesAChangeWritesAreChecked() throws {
        let old = Self.chore(from: "0001-01-01")
        var retitled = old
        try retitled.write("title", .string("Plates"), stamp: Self.stamp(Self.t0 + 1))
        #expect(DateBounds.firstNewDateOutside(retitled, before: old) == nil)
        #expect(DateBounds.firstNewDateOutside(old, before: nil)?.field == "repeat")
        var due = old
        due.due = Due(date: Self.date("2200-01-01"))
        #expect(DateBounds.firstNewDateOutside(due, before: old).map { "\($0.field) \($0.date)" } == "due 2200-01-01")
        var done = Self.chore(from: "2026-11-01")
        let before = done
        done.complete(Self.date("2026-11-02"), member: "Kim", day: Self.date("0001-01-01"), stamp: Self.stamp(Self.t0 + 2))
        #expect(DateBounds.firstNewDateOutside(done, before: before).map { "\($0.field) \($0.date)" } == "completions 0001-01-01")
        var skip = Self.chore(from: "2026-11-01")
        skip.setOccurrence(Self.date("1969-12-31"), .skipped, stamp: Self.stamp(Self.t0 + 3))
        #expect(DateBounds.firstNewDateOutside(skip, before: before).map { "\($0.field) \($0.date)" } == "occurrences 1969-12-31")
    }

    /// A daily chore from the year 1 (what a phone could write before the range, or a hand
    /// edit now): its turns today and next week are worked out by walking at most a year of
    /// its occurrences, with or without a skip in the year 1.
    @Test func aChoreFromTheYearOneWalksAtMostAYear() throws {
        let today = Self.date("2026-12-01")
        for task in [Self.chore(from: "0001-01-01"), Self.chore(from: "0001-01-01", skipped: ["0001-01-02"])] {
            let s = ChoreSchedule(task, today: today, context: .plain)!
            #expect(s.current == today)
            let now = try #require(s.turn(on: today))
            #expect(["Kim", "Lee"].contains(now))
            #expect(s.turn(on: today.adding(days: 1)) != now, "turns still alternate")
            _ = s.upcoming(7).map { s.turn(on: $0) }
            _ = s.history(10)
            let steps = s.walk.state.withLock { $0.steps }
            #expect(steps <= 366 + 8, "walked \(steps) occurrences")
        }
    }

    /// A chore inside the range is walked as before: from its start, its turns exact.
    @Test func aChoreInsideTheRangeIsWalkedFromItsStart() throws {
        let today = Self.date("2026-12-01")
        // The skip recorded on its day (2 Nov, 09:00 UTC): the carry counts from 3 Nov.
        let chore = Self.chore(from: "2026-11-01", skipped: ["2026-11-02"], skippedAt: Self.t0 - 29 * 86_400_000)
        let s = ChoreSchedule(chore, today: today, context: .plain)!
        // 1 Nov Kim, 2 Nov Lee skipped (carried to 3 Nov), 3 Nov Lee, 4 Nov Kim ...
        #expect(s.turn(on: Self.date("2026-11-03")) == "Lee")
        #expect(s.turn(on: Self.date("2026-11-04")) == "Kim")
    }

    /// An import is refused for the first date outside the range it holds, with its key.
    @Test func anImportedTaskNamesItsDateOutsideTheRange() {
        var item = ImportedTask(title: "Old")
        #expect(DateBounds.firstDateOutside(item) == nil)
        item.due = Due(date: Self.date("0001-01-01"))
        #expect(DateBounds.firstDateOutside(item).map { "\($0.field) \($0.date)" } == "due 0001-01-01")
        item.due = nil
        item.maps["occurrences"] = .object([("2300-01-01", .array([.string("done")]))])
        #expect(DateBounds.firstDateOutside(item).map { "\($0.field) \($0.date)" } == "occurrences 2300-01-01")
    }
}
