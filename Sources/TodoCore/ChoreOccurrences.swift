/// Which dates a chore's occurrences are: its rule's, counted from `from` (the calendar), or,
/// for a chore that repeats from when it was done, the dates done or skipped, then the one due,
/// then the dates one interval apart after it (docs/FORMAT.md, "Chores that repeat from when
/// they were done"). Everything that walks a chore's occurrences walks this.

/// What a chore's next date is counted from (the `anchor` field).
public enum ChoreAnchor: String, Sendable, CaseIterable {
    /// The rule's own dates, counted from `from`.
    case due
    /// The household day it was last done or skipped.
    case done
}

public struct ChoreOccurrences: Sendable {
    /// The rule's dates; for a chore that repeats from when it was done, the projection from
    /// its current occurrence on (nil when that would fall past the last date).
    let rule: Recurrence?
    /// The dates done or skipped, in order, of a chore that repeats from when it was done;
    /// empty for the calendar.
    let past: [CivilDate]
    /// Whether the dates are counted from completions.
    public let afterDone: Bool

    /// A calendar chore's occurrences: the rule's dates.
    public init(calendar r: Recurrence) {
        rule = r
        past = []
        afterDone = false
    }

    /// A chore that repeats from when it was done: `past` its done and skipped dates on or after
    /// the rule's start, `lastDay` the household day of its latest completion or skip (nil:
    /// none yet, the first occurrence is `r.from`).
    init(afterDone r: Recurrence, past: [CivilDate], lastDay: CivilDate?) {
        self.past = past
        afterDone = true
        var current: CivilDate? = r.from
        if let lastDay {
            // That day plus the rule's interval (months clamped to the month's last day).
            current = Recurrence(rule: r.rule, from: lastDay).next(after: lastDay)
        }
        if let latest = past.last, let c = current, c <= latest {
            current = Recurrence.date(latest.daysSinceEpoch + 1)
        }
        rule = current.map { Recurrence(rule: r.rule, from: $0) }
    }

    /// The current occurrence of a chore that repeats from when it was done (nil: past the last
    /// date, or a calendar chore, whose current occurrence depends on the day).
    public var due: CivilDate? { afterDone ? rule?.from : nil }

    /// The first occurrence.
    public var first: CivilDate? {
        if let p = past.first { return p }
        guard let rule else { return nil }
        return rule.first(onOrAfter: rule.from)
    }

    /// The first occurrence on or after `date`.
    public func first(onOrAfter date: CivilDate) -> CivilDate? {
        let i = pastIndex(of: date)
        if i < past.count { return past[i] }
        return rule?.first(onOrAfter: date)
    }

    /// The first occurrence after `date`.
    public func next(after date: CivilDate) -> CivilDate? {
        guard let d = Recurrence.date(date.daysSinceEpoch + 1) else { return nil }
        return first(onOrAfter: d)
    }

    public func isOccurrence(_ date: CivilDate) -> Bool { first(onOrAfter: date) == date }

    /// The number of occurrences before `date`: occurrence k has index k.
    public func index(of date: CivilDate) -> Int {
        guard afterDone else { return rule?.index(of: date) ?? 0 }
        return pastIndex(of: date) + (rule?.index(of: date) ?? 0)
    }

    /// The latest occurrence on or before `day`; nil when there is none.
    public func latest(onOrBefore day: CivilDate) -> CivilDate? {
        if let rule, day >= rule.from {
            // A rule's longest gap is under 32 months of 31 days (999 months reads the months).
            let span: Int
            switch rule.rule.kind {
            case .days(let n): span = n
            case .weeks(let n): span = 7 * n
            case .weekdays: span = 7
            case .months(let n): span = 31 * n + 31
            case .monthDay: span = 62
            }
            var d = rule.first(onOrAfter: day.adding(days: -span))
            var last: CivilDate?
            while let date = d, date <= day {
                last = date
                d = rule.next(after: date)
            }
            if last != nil || !afterDone { return last }
        }
        let i = pastIndex(of: day.adding(days: 1))
        return i > 0 ? past[i - 1] : nil
    }

    /// How many of `past` are before `date`.
    func pastIndex(of date: CivilDate) -> Int { Self.count(past, before: date) }

    /// How many of the sorted `dates` are before `date`.
    static func count(_ dates: [CivilDate], before date: CivilDate) -> Int {
        var lo = 0
        var hi = dates.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if dates[mid] < date { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}

extension RepeatRule {
    /// Whether the rule is an interval (`Nd`, `Nw`, `Nmonths`), which a chore can count from
    /// when it was done; weekdays and days of the month are calendar dates only.
    public var isInterval: Bool {
        switch kind {
        case .days, .weeks, .months: return true
        case .weekdays, .monthDay: return false
        }
    }
}

extension Task {
    /// The `anchor` field: `done` when it says so, else the calendar (absent, `due` or a value
    /// this version does not know).
    public var anchor: ChoreAnchor {
        extra["anchor"]?.stringValue.flatMap(ChoreAnchor.init) ?? .due
    }

    /// Whether the chore's next date is counted from when it was last done: `anchor` `done`
    /// and an interval rule (with any other rule the anchor has nothing to count).
    public var repeatsAfterDone: Bool {
        anchor == .done && (recurrence?.rule.isInterval ?? false)
    }

    public mutating func setAnchor(_ anchor: ChoreAnchor, stamp: FieldStamp) {
        try? write("anchor", .string(anchor.rawValue), stamp: stamp)  // as above
    }
}
