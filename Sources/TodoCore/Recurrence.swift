/// A chore's repeat rule: which dates, counted from a start date, are its occurrences.
/// The grammar and the canonical forms are in docs/FORMAT.md ("Chores").
public struct RepeatRule: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// Every N days.
        case days(Int)
        /// Every N weeks, on the start date's weekday.
        case weeks(Int)
        /// Every listed weekday; bit w set for weekday w (0 = Sunday ... 6 = Saturday).
        case weekdays(UInt8)
        /// Every N months, on the start date's day of the month.
        case months(Int)
        /// Every month on this day (1...31), clamped to the month's last day.
        case monthDay(Int)
    }

    public let kind: Kind

    public static let maxInterval = 999
    static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
    static let fullNames = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

    public init(_ kind: Kind) { self.kind = kind }

    /// Parses any accepted spelling (case-insensitive); nil when it is not a rule.
    public init?(_ text: String) {
        let s = text.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
        if s.isEmpty || s.utf8.count > 80 { return nil }
        switch s {
        case "day", "daily": self.init(.days(1)); return
        case "week", "weekly": self.init(.weeks(1)); return
        case "month", "monthly": self.init(.months(1)); return
        case "weekday", "weekdays": self.init(.weekdays(0b0111110)); return
        case "weekend", "weekends": self.init(.weekdays(0b1000001)); return
        default: break
        }
        // N with a unit: 3d, 3 days, 2w, 2 weeks, 2months, 2 months.
        let digitsPart = s.prefix { $0.isASCII && $0.isNumber }
        if !digitsPart.isEmpty {
            let unit = s.dropFirst(digitsPart.count).trimmingPrefix(" ")
            guard digitsPart.count <= 3, let n = Int(digitsPart), n >= 1 else { return nil }
            switch unit {
            case "d", "day", "days": self.init(.days(n)); return
            case "w", "week", "weeks": self.init(.weeks(n)); return
            case "month", "months": self.init(.months(n)); return
            case "", "st", "nd", "rd", "th":
                guard n <= 31 else { return nil }
                self.init(.monthDay(n))
                return
            default: return nil
            }
        }
        // Weekday names, comma-separated.
        var mask: UInt8 = 0
        for part in s.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(" ")
            guard let w = Self.dayNames.firstIndex(of: name) ?? Self.fullNames.firstIndex(of: name) else { return nil }
            mask |= 1 << UInt8(w)
        }
        guard mask != 0 else { return nil }
        self.init(.weekdays(mask))
    }

    /// Whether the numbers are in range (a parsed rule always is; one built in code may not be).
    var isValid: Bool {
        switch kind {
        case .days(let n), .weeks(let n), .months(let n): return (1...Self.maxInterval).contains(n)
        case .weekdays(let m): return m != 0 && m < 128
        case .monthDay(let d): return (1...31).contains(d)
        }
    }

    /// The canonical form, as stored in `repeat.every`.
    public var description: String {
        switch kind {
        case .days(let n): return n == 1 ? "day" : "\(n)d"
        case .weeks(let n): return n == 1 ? "week" : "\(n)w"
        case .months(let n): return n == 1 ? "month" : "\(n)months"
        case .monthDay(let d):
            let suffix = (11...13).contains(d % 100) ? "th" : d % 10 == 1 ? "st" : d % 10 == 2 ? "nd" : d % 10 == 3 ? "rd" : "th"
            return "\(d)\(suffix)"
        case .weekdays(let m):
            if m == 0b0111110 { return "weekday" }
            if m == 0b1000001 { return "weekend" }
            // Monday first, Sunday last.
            return [1, 2, 3, 4, 5, 6, 0].filter { m & (1 << UInt8($0)) != 0 }.map { Self.dayNames[$0] }.joined(separator: ",")
        }
    }

    /// How a person reads it: "every Tuesday", "every 3 days", "every month on the 15th".
    public var phrase: String {
        let names = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        switch kind {
        case .days(let n): return n == 1 ? "every day" : "every \(n) days"
        case .weeks(let n): return n == 1 ? "every week" : "every \(n) weeks"
        case .months(let n): return n == 1 ? "every month" : "every \(n) months"
        case .monthDay: return "every month on the \(description)"
        case .weekdays(let m):
            if m == 0b0111110 { return "every weekday" }
            if m == 0b1000001 { return "every weekend day" }
            let list = [1, 2, 3, 4, 5, 6, 0].filter { m & (1 << UInt8($0)) != 0 }.map { names[$0] }
            return "every " + (list.count <= 2 ? list.joined(separator: " and ")
                : list.dropLast().joined(separator: ", ") + " and " + list[list.count - 1])
        }
    }
}

/// A rule with its start: the occurrences are dates on or after `from`, counted from 0.
/// Every computation stays within 0001-01-01...9999-12-31 and never traps; past the last
/// representable date a rule simply has no more occurrences.
public struct Recurrence: Hashable, Sendable {
    public let rule: RepeatRule
    public let from: CivilDate

    public init(rule: RepeatRule, from: CivilDate) {
        self.rule = rule
        self.from = from
    }

    static let lastDay = CivilDate(year: 9999, month: 12, day: 31)!.daysSinceEpoch

    static func date(_ days: Int) -> CivilDate? {
        days <= lastDay ? CivilDate(daysSinceEpoch: days) : nil
    }

    /// The first occurrence on or after `date` (and on or after `from`).
    public func first(onOrAfter date: CivilDate) -> CivilDate? {
        let start = max(date, from)
        let f = from.daysSinceEpoch
        let d = start.daysSinceEpoch
        switch rule.kind {
        case .days(let n), .weeks(let n):
            let step = rule.kind == .days(n) ? n : 7 * n
            guard step > 0 else { return nil }
            let k = (d - f + step - 1) / step
            let (day, overflow) = f.addingReportingOverflow(k * step)
            return overflow ? nil : Self.date(day)
        case .weekdays(let mask):
            for j in 0..<7 {
                guard let c = Self.date(d + j) else { return nil }
                if mask & (1 << UInt8(c.weekday)) != 0 { return c }
            }
            return nil
        case .months(let n):
            return monthly(every: n, day: from.day, onOrAfter: start)
        case .monthDay(let day):
            return monthly(every: 1, day: day, onOrAfter: start)
        }
    }

    /// The month index (year * 12 + month - 1) of occurrence candidate k.
    private func monthly(every n: Int, day: Int, onOrAfter start: CivilDate) -> CivilDate? {
        guard n > 0 else { return nil }
        let m0 = from.year * 12 + from.month - 1
        let ms = start.year * 12 + start.month - 1
        var k = max(0, (ms - m0) / n)
        // At most a few candidates: the one in start's month may fall before start.
        for _ in 0..<3 {
            let m = m0 + k * n
            let year = m / 12
            let month = m % 12 + 1
            guard year <= 9999 else { return nil }
            guard let c = CivilDate(year: year, month: month, day: min(day, CivilDate.daysIn(month: month, year: year)))
            else { return nil }
            if c >= start { return c }
            k += 1
        }
        return nil
    }

    /// The first occurrence after `date`.
    public func next(after date: CivilDate) -> CivilDate? {
        guard let d = Self.date(date.daysSinceEpoch + 1) else { return nil }
        return first(onOrAfter: d)
    }

    public func isOccurrence(_ date: CivilDate) -> Bool { first(onOrAfter: date) == date }

    /// The number of occurrences before `date` (on or after `from`): occurrence k has index k.
    public func index(of date: CivilDate) -> Int {
        guard date > from else { return 0 }
        let days = date.daysSinceEpoch - from.daysSinceEpoch
        switch rule.kind {
        case .days(let n): return n > 0 ? (days + n - 1) / n : 0
        case .weeks(let n): return n > 0 ? (days + 7 * n - 1) / (7 * n) : 0
        case .weekdays(let mask):
            let perWeek = mask.nonzeroBitCount
            var count = days / 7 * perWeek
            let base = from.daysSinceEpoch + days / 7 * 7
            for j in 0..<(days % 7) where mask & (1 << UInt8(CivilDate(daysSinceEpoch: base + j).weekday)) != 0 {
                count += 1
            }
            return count
        case .months(let n):
            guard n > 0 else { return 0 }
            let m = (date.year * 12 + date.month - 1) - (from.year * 12 + from.month - 1)
            // Every candidate in a month before date's is before date; the one in date's month
            // (if the step lands there) counts when it is before date.
            var count = m >= 1 ? (m - 1) / n + 1 : 0
            if m % n == 0, let c = monthlyCandidate(m / n, every: n, day: from.day), c < date { count += 1 }
            return count
        case .monthDay(let day):
            let m = (date.year * 12 + date.month - 1) - (from.year * 12 + from.month - 1)
            var count = m
            if let c = monthlyCandidate(m, every: 1, day: day), c < date { count += 1 }
            // from's own month counts only if its day is on or after from.
            if let first = monthlyCandidate(0, every: 1, day: day), first < from { count -= 1 }
            return max(0, count)
        }
    }

    private func monthlyCandidate(_ k: Int, every n: Int, day: Int) -> CivilDate? {
        let m = from.year * 12 + from.month - 1 + k * n
        let year = m / 12
        let month = m % 12 + 1
        guard year <= 9999 else { return nil }
        return CivilDate(year: year, month: month, day: min(day, CivilDate.daysIn(month: month, year: year)))
    }
}

extension Substring {
    func trimmingPrefix(_ c: Character) -> Substring {
        var s = self
        while s.first == c { s = s.dropFirst() }
        return s
    }

    func trimmingCharacters(_ c: Character) -> String {
        var s = self
        while s.first == c { s = s.dropFirst() }
        while s.last == c { s = s.dropLast() }
        return String(s)
    }
}
