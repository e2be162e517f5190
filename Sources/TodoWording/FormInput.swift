public import TodoCore
public import TodoStore

/// Why a typed value was refused: the sentence to show beside the field.
public struct InputProblem: Error, Sendable, Equatable {
    public let message: String

    public init(_ message: String) { self.message = message }
}

/// What people type, checked by the rules every front end shares (`FieldRules`, `Due.parse`)
/// and refused in the same words: a form shows the sentence `todo add` gives for the same text.
/// No command, flag or manual section: the command line adds its own hints (an example
/// command, a flag, where todo(1) says more) after these.
public enum FormInput {
    /// A task's title; empty (or only spaces) or too long is refused.
    public static func title(_ text: String) -> Result<String, InputProblem> {
        switch FieldRules.title(text) {
        case .success(let title): return .success(title)
        case .failure(.empty): return .failure(InputProblem("The title is empty."))
        case .failure: return .failure(InputProblem("The title is longer than \(FieldRules.maxTitle) characters."))
        }
    }

    public static func notes(_ text: String) -> Result<String, InputProblem> {
        guard case .success(let notes) = FieldRules.notes(text) else {
            return .failure(InputProblem("The note is longer than \(FieldRules.maxNotes) bytes."))
        }
        return .success(notes)
    }

    /// A member's name as assignee; empty means "nobody" to a form, so only length is refused
    /// here (`nil` for empty).
    public static func assignee(_ text: String) -> Result<String?, InputProblem> {
        switch FieldRules.name(text) {
        case .success(let name): return .success(name)
        case .failure(.empty): return .success(nil)
        case .failure: return .failure(InputProblem("The assignee is longer than \(FieldRules.maxName) characters."))
        }
    }

    public static func tag(_ text: String) -> Result<String, InputProblem> {
        guard case .success(let tag) = FieldRules.tag(text) else {
            return .failure(InputProblem("\"\(safe(text))\" is not a valid tag: use 1 to \(FieldRules.maxTag) characters without spaces."))
        }
        return .success(tag)
    }

    public static func item(_ text: String) -> Result<String, InputProblem> {
        switch FieldRules.item(text) {
        case .success(let item): return .success(item)
        case .failure(.empty): return .failure(InputProblem("A checklist item is empty."))
        case .failure: return .failure(InputProblem("A checklist item is longer than \(FieldRules.maxItem) characters."))
        }
    }

    /// A date (and time), as a task's due date takes it; `now`, `today` and the like read
    /// `clock`, the household's (its zone gives both the date and the time of day).
    public static func due(_ text: String, clock: WallClock) -> Result<Due, InputProblem> {
        due(text, today: clock.today, minuteOfDay: clock.minuteOfDay)
    }

    /// A date when only its day counts (`now` is today).
    public static func day(_ text: String, today: CivilDate) -> Result<CivilDate, InputProblem> {
        due(text, today: today, minuteOfDay: 0).map(\.date)
    }

    public static func due(_ text: String, today: CivilDate, minuteOfDay: Int) -> Result<Due, InputProblem> {
        do {
            return .success(try Due.parse(text, today: today, minuteOfDay: minuteOfDay))
        } catch {
            return .failure(
                InputProblem(
                    "\"\(safe(text))\" is not a date I understand.\nUse YYYY-MM-DD, today, tomorrow, yesterday, now, a weekday (friday, next mon), eod, eow, sow, eom, som, eoy, 15th, +3d, +2w, +1m or +1y, optionally with a time (\"friday 18:00\"), or a time alone (18:00)."))
        }
    }
}
