/// Why a date the user typed was not understood.
public struct DateInputError: Error, Equatable, Sendable {
    public let input: String
}

extension Due {
    static let weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

    /// Parses what a person types: `YYYY-MM-DD`, `today`, `tomorrow`, a weekday name or its first
    /// three letters (the next such day after today), `+3d`, `+2w`; each optionally followed by a
    /// time as `T18:00` or ` 18:00`.
    public static func parse(_ input: String, today: CivilDate) throws(DateInputError) -> Due {
        let text = input.trimmingSpaces.lowercased()
        var datePart = Substring(text)
        var minutes: Int?
        if let sep = text.lastIndex(where: { $0 == " " || $0 == "t" }), text[sep...].contains(":") {
            let timeText = Array(text[text.index(after: sep)...].utf8)
            guard timeText.count == 5 || timeText.count == 4 else { throw DateInputError(input: input) }
            let colon = timeText.count - 3
            guard timeText[colon] == UInt8(ascii: ":"), let h = digits(timeText[0..<colon]),
                let m = digits(timeText[(colon + 1)...]), h < 24, m < 60
            else { throw DateInputError(input: input) }
            minutes = h * 60 + m
            datePart = text[..<sep]
        }
        // Only four-digit years can be stored (`due` is `YYYY-MM-DD`).
        guard let date = parseDay(datePart, today: today), (1...9999).contains(date.year) else {
            throw DateInputError(input: input)
        }
        return Due(date: date, minutes: minutes)
    }

    private static func parseDay(_ s: Substring, today: CivilDate) -> CivilDate? {
        switch s {
        case "today": return today
        case "tomorrow": return today.adding(days: 1)
        default: break
        }
        if let d = CivilDate(iso: s) { return d }
        if let index = weekdays.firstIndex(where: { $0 == s || ($0.prefix(3) == s && s.count == 3) }) {
            var ahead = (index - today.weekday + 7) % 7
            if ahead == 0 { ahead = 7 }
            return today.adding(days: ahead)
        }
        if s.hasPrefix("+"), s.count >= 3, let unit = s.last, let n = Int(s.dropFirst().dropLast()), n >= 0,
            n <= 36_500
        {
            switch unit {
            case "d": return today.adding(days: n)
            case "w": return today.adding(days: 7 * n)
            default: return nil
            }
        }
        return nil
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
