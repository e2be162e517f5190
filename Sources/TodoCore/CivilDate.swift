// Hand-written on purpose: due dates are calendar dates without a time zone, stored as
// `YYYY-MM-DD[ HH:MM]` (docs/FORMAT.md); a date library would bring time zones and locales
// into values that must read the same on every replica, and Foundation's start-up cost.

/// A calendar date without a time zone (proleptic Gregorian).
public struct CivilDate: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
            day <= CivilDate.daysIn(month: month, year: year)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` after 1970-01-01 (`days` is held within ±2^40, some three billion years,
    /// so that no count of days can overflow the calculation).
    public init(daysSinceEpoch days: Int) {
        // Howard Hinnant's civil_from_days.
        let z = min(max(days, -(1 << 40)), 1 << 40) + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = doy - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days since 1970-01-01.
    public var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// 0 = Sunday ... 6 = Saturday.
    public var weekday: Int {
        let d = (daysSinceEpoch + 4) % 7
        return d < 0 ? d + 7 : d
    }

    public func adding(days: Int) -> CivilDate {
        let (sum, overflow) = daysSinceEpoch.addingReportingOverflow(days)
        return CivilDate(daysSinceEpoch: overflow ? (days < 0 ? .min : .max) : sum)
    }

    public static func < (a: CivilDate, b: CivilDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    public var description: String { "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))" }

    /// Parses exactly `YYYY-MM-DD`.
    public init?(iso text: Substring) {
        let u = Array(text.utf8)
        guard u.count == 10, u[4] == 0x2D, u[7] == 0x2D, let y = digits(u[0..<4]), let m = digits(u[5..<7]),
            let d = digits(u[8..<10])
        else { return nil }
        self.init(year: y, month: m, day: d)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

func pad(_ n: Int, _ width: Int) -> String {
    let s = String(n)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
}

func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
    var v = 0
    for b in bytes {
        guard b >= 0x30, b <= 0x39 else { return nil }
        v = v * 10 + Int(b - 0x30)
    }
    return bytes.isEmpty ? nil : v
}

/// When a task is due: a date, optionally with a local time of day (`YYYY-MM-DD` or
/// `YYYY-MM-DDTHH:MM`). Household time, no zone: "Thursday 18:00" means the same to everyone.
public struct Due: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var date: CivilDate
    /// Minutes after midnight, if a time was given.
    public var minutes: Int?

    public init(date: CivilDate, minutes: Int? = nil) {
        self.date = date
        self.minutes = minutes
    }

    public var description: String {
        guard let minutes else { return date.description }
        return "\(date)T\(pad(minutes / 60, 2)):\(pad(minutes % 60, 2))"
    }

    /// Parses the stored form.
    public init?(stored text: String) {
        let s = Substring(text)
        if s.utf8.count == 10 {
            guard let d = CivilDate(iso: s) else { return nil }
            self.init(date: d)
            return
        }
        guard s.utf8.count == 16, let d = CivilDate(iso: s.prefix(10)) else { return nil }
        let rest = Array(s.utf8.dropFirst(10))
        guard rest[0] == UInt8(ascii: "T"), rest[3] == UInt8(ascii: ":"), let h = digits(rest[1..<3]),
            let m = digits(rest[4..<6]), h < 24, m < 60
        else { return nil }
        self.init(date: d, minutes: h * 60 + m)
    }

    public static func < (a: Due, b: Due) -> Bool {
        if a.date != b.date { return a.date < b.date }
        return (a.minutes ?? 24 * 60) < (b.minutes ?? 24 * 60)
    }
}
