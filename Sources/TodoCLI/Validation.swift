import TodoCore

/// Checks on what people type, shared by the commands.
enum Input {
    static let maxTitle = 1_000
    static let maxNotes = 100_000
    static let maxName = 200
    static let maxTag = 64

    static func title(_ words: [String]) throws -> String {
        let title = words.joined(separator: " ").trimmingSpaces
        if title.isEmpty { throw CLIError("The title is empty. Give the task a title, e.g. todo add \"Buy milk\".", exit: .usage) }
        if title.count > maxTitle { throw CLIError("The title is longer than \(maxTitle) characters.", exit: .usage) }
        return title
    }

    static func notes(_ text: String) throws -> String {
        if text.utf8.count > maxNotes { throw CLIError("The note is longer than \(maxNotes) bytes.", exit: .usage) }
        return text
    }

    static func assignee(_ who: String) throws -> String {
        let w = who.trimmingSpaces
        if w.isEmpty { throw CLIError("The assignee is empty; use --unassign to clear it.", exit: .usage) }
        if w.count > maxName { throw CLIError("The assignee is longer than \(maxName) characters.", exit: .usage) }
        return w
    }

    static func tag(_ t: String) throws -> String {
        let tag = t.hasPrefix("+") ? String(t.dropFirst()) : t
        if tag.isEmpty || tag.count > maxTag || tag.unicodeScalars.contains(where: { $0.properties.isWhitespace || Terminal.isUnsafe($0) }) {
            throw CLIError(
                "\"\(Terminal.safe(t))\" is not a valid tag: use 1 to \(maxTag) characters without spaces.", exit: .usage)
        }
        return tag
    }

    static func priority(_ p: String) throws -> Priority {
        switch p.lowercased() {
        case "low", "l": return .low
        case "normal", "n", "m", "medium": return .normal
        case "high", "h": return .high
        default:
            throw CLIError("\"\(Terminal.safe(p))\" is not a priority. Use low, normal or high.", exit: .usage)
        }
    }

    static func due(_ text: String, today: CivilDate) throws -> Due {
        do {
            return try Due.parse(text, today: today, minuteOfDay: Env.minuteOfDay(Env.clock))
        } catch {
            throw CLIError(
                "\"\(Terminal.safe(text))\" is not a date I understand.\nUse YYYY-MM-DD, today, tomorrow, yesterday, now, a weekday (friday, next mon), eod, eow, sow, eom, som, eoy, 15th, +3d, +2w, +1m or +1y, optionally with a time (\"friday 18:00\"), or a time alone (18:00); see todo(1), DATES.",
                exit: .usage)
        }
    }
}

extension Input {
    static let maxItem = 200
    static let maxItems = 500

    static func rule(_ text: String) throws -> RepeatRule {
        guard let r = RepeatRule(text) else {
            throw CLIError(
                "\"\(Terminal.safe(text))\" is not a repeat rule.\nUse day, 3d, week, 2w, tue, mon,thu, weekday, weekend, month, 2months, 1st or 15th (see todo(1), CHORES).",
                exit: .usage)
        }
        return r
    }

    /// `--rotate A,B,C`: names separated by commas.
    static func rotation(_ text: String) throws -> [String] {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        guard !names.contains(where: \.isEmpty), names.count <= 50 else {
            throw CLIError("Give the rotation as names separated by commas, e.g. --rotate Alice,Bob,Carol.", exit: .usage)
        }
        return try names.map(assignee)
    }

    static func item(_ text: String) throws -> String {
        let t = Checklist.normalised(text)
        if t.isEmpty { throw CLIError("A checklist item is empty.", exit: .usage) }
        if t.count > maxItem { throw CLIError("A checklist item is longer than \(maxItem) characters.", exit: .usage) }
        return t
    }

    /// A date an option names (`--on`), in the words `--due` accepts; a time is ignored.
    static func date(_ text: String, option: String, today: CivilDate) throws -> CivilDate {
        try due(text, today: today).date
    }

    /// A member's name an option gives (`--with`, `--to`).
    static func name(_ who: String, option: String) throws -> String {
        let w = who.trimmingSpaces
        if w.isEmpty { throw CLIError("\(option) needs a member's name.", exit: .usage) }
        if w.count > maxName { throw CLIError("The name given to \(option) is longer than \(maxName) characters.", exit: .usage) }
        return w
    }

    /// `--turns order|fewest`.
    static func turns(_ text: String) throws -> RotateMode {
        guard let mode = RotateMode(rawValue: text.lowercased()) else {
            throw CLIError(
                "\"\(Terminal.safe(text))\" is not a way of taking turns. Use order (one after another) or fewest (whoever did it least in the last 4 weeks).",
                exit: .usage)
        }
        return mode
    }

    /// `--from DATE`: the day a chore starts (a time, if given, is ignored).
    static func startDate(_ text: String?, today: CivilDate) throws -> CivilDate {
        try text.map { try due($0, today: today).date } ?? today
    }
}
