extension Due {
    /// How a due date reads in a list: `yesterday`, `today`, `tomorrow`, the weekday's name for
    /// the five days after tomorrow, else `YYYY-MM-DD`; then ` HH:MM` if there is a time. Every
    /// form parses back to the same date with `Due.parse` on the same day.
    public func display(today: CivilDate) -> String {
        var s: String
        let ahead = date.daysSinceEpoch - today.daysSinceEpoch
        switch ahead {
        case -1: s = "yesterday"
        case 0: s = "today"
        case 1: s = "tomorrow"
        case 2...6: s = Due.weekdays[date.weekday]
        default: s = date.description
        }
        if let m = minutes { s += " " + Due.clock(m) }
        return s
    }

    /// `HH:MM`.
    static func clock(_ minutes: Int) -> String { "\(pad(minutes / 60, 2)):\(pad(minutes % 60, 2))" }

    /// How far the date is from today in words: `today`, `in 3 days`, `2 weeks ago`, `in 5 months`.
    public func relative(today: CivilDate) -> String {
        let days = date.daysSinceEpoch - today.daysSinceEpoch
        let n = days.magnitude
        let amount: String
        switch n {
        case 0: return "today"
        case 1: return days > 0 ? "tomorrow" : "yesterday"
        case 2..<14: amount = "\(n) days"
        case 14..<61: amount = "\(n / 7) weeks"
        case 61..<730: amount = "\(n / 30) months"
        default: amount = "\(n / 365) years"
        }
        return days > 0 ? "in " + amount : amount + " ago"
    }
}
