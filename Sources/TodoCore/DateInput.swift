/// Why a date the user typed was not understood.
public struct DateInputError: Error, Equatable, Sendable {
    public let input: String
}

extension Due {
    static let weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
    /// The furthest `+N` reaches: a hundred years of days, weeks, months or years.
    static let maxDays = 36_500
    static let maxWeeks = 5_215
    static let maxMonths = 1_200
    static let maxYears = 100

    /// Parses what a person types (see todo(1), DATES): `YYYY-MM-DD`, `today`, `tomorrow`,
    /// `yesterday`, `now`, `eod`, `eow`, `sow`, `eom`, `som`, `eoy`, a weekday name or its first
    /// three letters, optionally after `next`, an ordinal day `1st`…`31st`, `+Nd`, `+Nw`, `+Nm`,
    /// `+Ny`, or a bare time `HH:MM` (today); a day may be followed by a time as `T18:00` or
    /// ` 18:00`. `minuteOfDay` is the time now, for `now`.
    public static func parse(_ input: String, today: CivilDate, minuteOfDay: Int = 0) throws(DateInputError) -> Due {
        let text = input.trimmingSpaces.lowercased()
        if text == "now" {
            return Due(date: today, minutes: min(max(minuteOfDay, 0), 24 * 60 - 1))
        }
        if let minutes = time(Substring(text)) { return Due(date: today, minutes: minutes) }
        var datePart = Substring(text)
        var minutes: Int?
        if let sep = text.lastIndex(where: { $0 == " " || $0 == "t" }), text[sep...].contains(":") {
            guard let m = time(text[text.index(after: sep)...]) else { throw DateInputError(input: input) }
            minutes = m
            datePart = text[..<sep]
            while datePart.last == " " { datePart = datePart.dropLast() }
        }
        // Only four-digit years can be stored (`due` is `YYYY-MM-DD`).
        guard let date = parseDay(datePart, today: today), (1...9999).contains(date.year) else {
            throw DateInputError(input: input)
        }
        return Due(date: date, minutes: minutes)
    }

    /// `H:MM` or `HH:MM`, as minutes after midnight.
    static func time(_ s: Substring) -> Int? {
        let u = Array(s.utf8)
        guard u.count == 5 || u.count == 4 else { return nil }
        let colon = u.count - 3
        guard u[colon] == UInt8(ascii: ":"), let h = digits(u[0..<colon]), let m = digits(u[(colon + 1)...]), h < 24,
            m < 60
        else { return nil }
        return h * 60 + m
    }

    private static func parseDay(_ s: Substring, today: CivilDate) -> CivilDate? {
        switch s {
        case "today", "eod": return today
        case "tomorrow": return today.checkedAdding(days: 1)
        case "yesterday": return today.checkedAdding(days: -1)
        // Weeks run Monday to Sunday: the end of the week is the coming Sunday (today on a
        // Sunday), its start the coming Monday (a week ahead on a Monday).
        case "eow": return today.checkedAdding(days: (7 - today.weekday) % 7)
        case "sow": return today.checkedAdding(days: (7 - today.weekday) % 7 + 1)
        case "eom": return CivilDate(year: today.year, month: today.month, day: CivilDate.daysIn(month: today.month, year: today.year))
        case "som": return today.addingMonths(1).flatMap { CivilDate(year: $0.year, month: $0.month, day: 1) }
        case "eoy": return CivilDate(year: today.year, month: 12, day: 31)
        default: break
        }
        if let d = CivilDate(iso: s) { return d }
        var name = s
        if name.hasPrefix("next ") {
            name = name.dropFirst(5)
            while name.first == " " { name = name.dropFirst() }
        }
        if let index = weekdays.firstIndex(where: { $0 == name || ($0.prefix(3) == name && name.count == 3) }) {
            var ahead = (index - today.weekday + 7) % 7
            if ahead == 0 { ahead = 7 }
            return today.checkedAdding(days: ahead)
        }
        if name != s { return nil }
        if let day = ordinal(s) { return nextDay(day, after: today) }
        if s.hasPrefix("+"), s.utf8.count >= 3, s.utf8.count <= 8, let unit = s.last,
            let n = digits(ArraySlice(s.utf8.dropFirst().dropLast()))
        {
            switch unit {
            case "d": return n <= maxDays ? today.checkedAdding(days: n) : nil
            case "w": return n <= maxWeeks ? today.checkedAdding(days: 7 * n) : nil
            case "m": return n <= maxMonths ? today.addingMonths(n) : nil
            case "y": return n <= maxYears ? today.addingMonths(12 * n) : nil
            default: return nil
            }
        }
        return nil
    }

    /// `1st`, `2nd`, `3rd`, `4th` … `31st`: the day of the month, with its English suffix.
    static func ordinal(_ s: Substring) -> Int? {
        let u = Array(s.utf8)
        guard u.count == 3 || u.count == 4, let n = digits(u[0..<(u.count - 2)]), (1...31).contains(n),
            u[0] != UInt8(ascii: "0")
        else { return nil }
        let suffix = String(decoding: u[(u.count - 2)...], as: UTF8.self)
        return suffix == ordinalSuffix(n) ? n : nil
    }

    static func ordinalSuffix(_ n: Int) -> String {
        if (11...13).contains(n % 100) { return "th" }
        switch n % 10 {
        case 1: return "st"
        case 2: return "nd"
        case 3: return "rd"
        default: return "th"
        }
    }

    /// The first date after `today` whose day of the month is `day` (months without it skipped).
    static func nextDay(_ day: Int, after today: CivilDate) -> CivilDate? {
        var month = CivilDate(year: today.year, month: today.month, day: 1)
        for _ in 0..<3 {
            guard let m = month else { return nil }
            if let d = CivilDate(year: m.year, month: m.month, day: day), today < d { return d }
            month = m.addingMonths(1)
        }
        return nil
    }
}

extension CivilDate {
    /// `days` later (earlier when negative); nil outside the years 1 to 9999.
    public func checkedAdding(days: Int) -> CivilDate? {
        let (sum, overflow) = daysSinceEpoch.addingReportingOverflow(days)
        guard !overflow, (CivilDate.minDays...CivilDate.maxDays).contains(sum) else { return nil }
        return CivilDate(daysSinceEpoch: sum)
    }

    /// `months` later, the day cut to the month's length (January 31 + 1 month is February's
    /// last day); nil past the year 9999.
    public func addingMonths(_ months: Int) -> CivilDate? {
        guard months >= 0, months <= 12 * 9999 else { return nil }
        let index = (month - 1) + months
        let y = year + index / 12
        let m = index % 12 + 1
        guard y <= 9999 else { return nil }
        return CivilDate(year: y, month: m, day: Swift.min(day, CivilDate.daysIn(month: m, year: y)))
    }

    static let minDays = CivilDate(year: 1, month: 1, day: 1)!.daysSinceEpoch
    static let maxDays = CivilDate(year: 9999, month: 12, day: 31)!.daysSinceEpoch
}

extension String {
    /// The string without white space at either end.
    public var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
