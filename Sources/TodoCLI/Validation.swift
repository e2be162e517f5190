import TodoWording
import TodoCore
import TodoStore

/// Checks on what people type, shared by the commands.
enum Input {
    static let maxTitle = FieldRules.maxTitle
    static let maxNotes = FieldRules.maxNotes
    static let maxName = FieldRules.maxName
    static let maxTag = FieldRules.maxTag

    static func title(_ words: [String]) throws -> String {
        let text = words.joined(separator: " ")
        let r = FormInput.title(text)
        if case .failure(let p) = r, case .failure(.empty) = FieldRules.title(text) {
            throw CLIError(p.message + " Give the task a title, e.g. todo add \"Buy milk\".", exit: .usage)
        }
        return try usage(r)
    }

    static func notes(_ text: String) throws -> String { try usage(FormInput.notes(text)) }

    static func assignee(_ who: String) throws -> String {
        switch FormInput.assignee(who) {
        case .success(let name?): return name
        case .success(nil): throw CLIError("The assignee is empty; use --unassign to clear it.", exit: .usage)
        case .failure(let p): throw CLIError(p.message, exit: .usage)
        }
    }

    static func tag(_ t: String) throws -> String { try usage(FormInput.tag(t)) }

    /// A value the shared rules accepted, or their sentence as a usage error.
    static func usage<T>(_ r: Result<T, InputProblem>) throws -> T {
        switch r {
        case .success(let v): return v
        case .failure(let p): throw CLIError(p.message, exit: .usage)
        }
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

    /// A date (and time) typed on the command line; `now`, `today` and the like read `clock`,
    /// the household's (its zone gives both the date and the time of day).
    static func due(_ text: String, clock: WallClock) throws -> Due {
        try due(text, today: clock.today, minuteOfDay: clock.minuteOfDay)
    }

    /// A date typed on the command line when only its day counts (`now` is today).
    static func day(_ text: String, today: CivilDate) throws -> CivilDate {
        try due(text, today: today, minuteOfDay: 0).date
    }

    /// The shared sentence, then where the manual says more.
    private static func due(_ text: String, today: CivilDate, minuteOfDay: Int) throws -> Due {
        switch FormInput.due(text, today: today, minuteOfDay: minuteOfDay) {
        case .success(let due): return due
        case .failure(let p): throw CLIError(String(p.message.dropLast()) + "; see todo(1), DATES.", exit: .usage)
        }
    }
}

extension Input {
    static let maxItem = FieldRules.maxItem
    static let maxItems = 500

    static func rule(_ text: String) throws -> RepeatRule {
        guard let r = RepeatRule(text) else {
            throw CLIError(
                "\"\(Terminal.safe(text))\" is not a repeat rule.\nUse day, 3d, week, 2w, tue, mon,thu, weekday, weekend, month, 2months, 1st or 15th (see todo(1), CHORES).",
                exit: .usage)
        }
        return r
    }

    /// Why `--after-done` and `--catch-up` do not go together.
    static let afterDoneAndCatchUp =
        "Use either --after-done or --catch-up, not both: a chore that repeats from when it is done is never behind, so it has nothing to catch up."

    /// `--rotate A,B,C`: names separated by commas.
    static func rotation(_ text: String) throws -> [String] {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        guard !names.contains(where: \.isEmpty), names.count <= 50 else {
            throw CLIError("Give the rotation as names separated by commas, e.g. --rotate Alice,Bob,Carol.", exit: .usage)
        }
        return try names.map(assignee)
    }

    static func item(_ text: String) throws -> String { try usage(FormInput.item(text)) }

    /// A date an option names (`--on`), in the words `--due` accepts; a time is ignored.
    static func date(_ text: String, option: String, today: CivilDate) throws -> CivilDate {
        try day(text, today: today)
    }

    /// A member's name an option gives (`--with`, `--to`).
    static func name(_ who: String, option: String) throws -> String {
        switch FieldRules.name(who) {
        case .success(let name): return name
        case .failure(.empty): throw CLIError("\(option) needs a member's name.", exit: .usage)
        case .failure: throw CLIError("The name given to \(option) is longer than \(maxName) characters.", exit: .usage)
        }
    }

    /// Why a task's `--alarm` value is refused.
    static func badAlarm(_ text: String) -> String {
        "--alarm must be a duration from 1m to 7d like 30m, 2h or 1d, or a time of day HH:MM like 08:00; \"\(Terminal.safe(text))\" is not."
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
        try text.map { try day($0, today: today) } ?? today
    }
}
