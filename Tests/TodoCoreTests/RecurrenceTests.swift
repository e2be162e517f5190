import TestKit
import Testing

@testable import TodoCore

@Suite(.timeLimit(.minutes(20))) struct RecurrenceTests {
    static func date(_ s: String) -> CivilDate { CivilDate(iso: Substring(s))! }

    @Test(arguments: [
        ("day", "day"), ("daily", "day"), ("1d", "day"), ("3d", "3d"), ("3 days", "3d"), ("week", "week"),
        ("2w", "2w"), ("2 weeks", "2w"), ("tue", "tue"), ("Tuesday", "tue"), ("thu,mon", "mon,thu"),
        ("sun, sat", "weekend"), ("mon,tue,wed,thu,fri", "weekday"), ("weekday", "weekday"), ("month", "month"),
        ("monthly", "month"), ("2 months", "2months"), ("15th", "15th"), ("1st", "1st"), ("22", "22nd"),
        ("3rd", "3rd"), ("11th", "11th"), ("31st", "31st"),
    ])
    func parsesAndCanonicalises(_ input: String, _ canonical: String) throws {
        let rule = try #require(RepeatRule(input))
        #expect(rule.description == canonical)
        #expect(RepeatRule(canonical) == rule)
    }

    @Test(arguments: ["", "0d", "1000d", "32nd", "0th", "fortnight", "mon,,thu", "3x", "-1d", "99999999999999999999d", "tue wed"])
    func rejectsNonsense(_ input: String) {
        #expect(RepeatRule(input) == nil)
    }

    func dates(_ every: String, from: String, _ n: Int) -> [String] {
        let r = Recurrence(rule: RepeatRule(every)!, from: Self.date(from))
        var out: [String] = []
        var d = r.first(onOrAfter: r.from)
        while let x = d, out.count < n {
            out.append(x.description)
            d = r.next(after: x)
        }
        return out
    }

    @Test func occurrencesOfEachKind() {
        // 2026-11-23 is a Monday.
        #expect(dates("3d", from: "2026-11-23", 3) == ["2026-11-23", "2026-11-26", "2026-11-29"])
        #expect(dates("2w", from: "2026-11-23", 3) == ["2026-11-23", "2026-12-07", "2026-12-21"])
        #expect(dates("tue", from: "2026-11-23", 3) == ["2026-11-24", "2026-12-01", "2026-12-08"])
        #expect(dates("mon,thu", from: "2026-11-23", 4) == ["2026-11-23", "2026-11-26", "2026-11-30", "2026-12-03"])
        #expect(dates("weekday", from: "2026-11-27", 3) == ["2026-11-27", "2026-11-30", "2026-12-01"])
        #expect(dates("1st", from: "2026-11-23", 2) == ["2026-12-01", "2027-01-01"])
        // Clamped to the month's last day, and back to the 31st when the month has one.
        #expect(dates("31st", from: "2027-01-05", 4) == ["2027-01-31", "2027-02-28", "2027-03-31", "2027-04-30"])
        #expect(dates("month", from: "2028-01-31", 3) == ["2028-01-31", "2028-02-29", "2028-03-31"])
        #expect(dates("2months", from: "2026-11-15", 3) == ["2026-11-15", "2027-01-15", "2027-03-15"])
    }

    @Test func rulesEndAtTheLastDate() {
        #expect(dates("day", from: "9999-12-30", 5) == ["9999-12-30", "9999-12-31"])
        #expect(dates("month", from: "9999-11-30", 5) == ["9999-11-30", "9999-12-30"])
        #expect(dates("999w", from: "9999-01-01", 5) == ["9999-01-01"])
    }

    /// `index(of:)` counts the occurrences before a date: it must agree with walking them.
    @Test func indexAgreesWithWalking() {
        var rng = SplitMix64(seed: 0x5eed)
        let rules = ["day", "3d", "week", "2w", "tue", "mon,thu", "weekday", "weekend", "month", "2months", "1st", "15th", "31st", "30th"]
        for _ in 0..<300 {
            let from = CivilDate(daysSinceEpoch: 20_000 + rng.int(2_000))
            let r = Recurrence(rule: RepeatRule(rng.pick(rules))!, from: from)
            var d = r.first(onOrAfter: from)
            var k = 0
            while let x = d, k < 40 {
                #expect(r.index(of: x) == k, "\(r.rule) from \(from): \(x) should be occurrence \(k)")
                #expect(r.isOccurrence(x))
                d = r.next(after: x)
                k += 1
            }
        }
    }

    static let stamp = FieldStamp(Stamp(wall: 1_763_629_200_000, counter: 0, replica: "a1"), by: "Ana")

    func chore(_ every: String, from: String, rotation: [String] = []) -> Task {
        var t = Task(id: TaskVersionGenerator.id, title: "Trash", createdAt: "2026-11-22T10:00:00.000Z", createdBy: "Ana")
        t.setRecurrence(Recurrence(rule: RepeatRule(every)!, from: Self.date(from)), stamp: Self.stamp)
        if !rotation.isEmpty { t.setRotation(rotation, stamp: Self.stamp) }
        return t
    }

    @Test func aCatchUpChoreShowsItsEarliestOpenOccurrence() throws {
        var t = chore("tue", from: "2026-11-03", rotation: ["Ana", "Ben", "Cy"])
        t.setScheduleMode(.catchUp, stamp: Self.stamp)
        let today = Self.date("2026-11-26")
        #expect(t.currentOccurrence(today: today) == Self.date("2026-11-03"))
        t.setOccurrence(Self.date("2026-11-03"), .done, stamp: Self.stamp)
        t.setOccurrence(Self.date("2026-11-10"), .skipped, stamp: Self.stamp)
        t.setOccurrence(Self.date("2026-11-24"), .done, stamp: Self.stamp)
        // 17 Nov was not done: on a catch-up chore it stays current, once, whatever came later.
        let s = try #require(t.schedule(today: today, context: .plain))
        #expect(s.current == Self.date("2026-11-17"))
        #expect(s.status(of: Self.date("2026-11-17")) == .open)
        #expect(s.upcoming(3).map(\.description) == ["2026-11-17", "2026-12-01", "2026-12-08"])
        // Turns count occurrences from the start, less the skipped ones: 10 Nov (Ben's) was
        // skipped, so Ben has 17 Nov and everyone after moves one on.
        #expect(s.turn(on: Self.date("2026-11-03")) == "Ana")
        #expect(s.turn(on: Self.date("2026-11-10")) == "Ben")
        #expect(s.turn(on: Self.date("2026-11-17")) == "Ben")
        #expect(s.turn(on: Self.date("2026-12-01")) == "Ana")
        #expect(s.turn(on: Self.date("2026-12-08")) == "Ben")
        // A take-over pins that occurrence; Ben, whose skipped turn was carried, has the next
        // one no take-over pins. A reopened occurrence is current again.
        t.setTurn(Self.date("2026-11-17"), "Cy", stamp: Self.stamp)
        #expect(t.schedule(today: today, context: .plain)?.turn(on: Self.date("2026-11-17")) == "Cy")
        #expect(t.schedule(today: today, context: .plain)?.turn(on: Self.date("2026-11-24")) == "Ben")
        t.setOccurrence(Self.date("2026-11-03"), .open, stamp: Self.stamp)
        #expect(t.currentOccurrence(today: today) == Self.date("2026-11-03"))
        // The file round-trips.
        let bytes = TaskCodec.encode(t)
        #expect(try TaskCodec.encode(TaskCodec.decode(bytes)) == bytes)
    }

    @Test func checklistKeysAndOrder() {
        #expect(Checklist.key("Milk") == Checklist.key("  milk "))
        #expect(Checklist.key("oat  milk") == Checklist.key("oat milk"))
        #expect(Checklist.key("milk") != Checklist.key("eggs"))
        var t = chore("day", from: "2026-11-03")
        let late = FieldStamp(Stamp(wall: 1_763_629_201_000, counter: 0, replica: "a1"), by: "Ben")
        t.setItem(ChecklistItem(key: Checklist.key("eggs"), state: .open, text: "eggs", added: late, stamp: late))
        t.setItem(ChecklistItem(key: Checklist.key("milk"), state: .checked, text: "milk", added: Self.stamp, stamp: late))
        #expect(t.checklist.map(\.text) == ["milk", "eggs"])
    }

    @Test(arguments: [
        #""repeat": {"every": "fortnight", "from": "2026-11-03"}"#,
        #""repeat": {"every": "Tue", "from": "2026-11-03"}"#,
        #""repeat": {"every": "tue", "from": "2026-13-03"}"#,
        #""repeat": {"every": "tue"}"#,
        #""rotation": ["Ana", ""]"#,
        #""occurrences": {"2026-11-03": ["finished", "1000.0.a1 Ana"]}"#,
        #""occurrences": {"yesterday": ["done", "1000.0.a1 Ana"]}"#,
        #""occurrences": {"2026-11-03": ["done"]}"#,
        #""turns": {"2026-11-03": [7, "1000.0.a1 Ana"]}"#,
        #""items": {"xyz": ["open", "milk", "1000.0.a1 Ana", "1000.0.a1 Ana"]}"#,
        #""items": {"0123456789abcdef": ["open", "", "1000.0.a1 Ana", "1000.0.a1 Ana"]}"#,
        #""items": {"0123456789abcdef": ["open", "milk", "not a stamp", "1000.0.a1 Ana"]}"#,
    ])
    func malformedChoreFieldsAreRefused(_ member: String) {
        let text = #"{"id": "3f2a9c0e5b7d41e8a6c2d9f0b1e4c7a5", "title": "Trash", "# + member + "}"
        #expect(throws: TaskFormatError.self) { try TaskCodec.decode(Array(text.utf8)) }
    }
}
