public import TodoCore

/// The words for an import file's problems and for what became of attributes without a field
/// (`todo import`'s report and `--json` `outcome`). TodoCore gives the facts.
public enum ImportWording {
    /// "task 3: "due" is not a date", or the file's problem alone.
    public static func text(_ error: ImportError) -> String {
        let problem = text(error.problem)
        return error.index.map { "task \($0 + 1): \(problem)" } ?? problem
    }

    public static func text(_ problem: ImportProblem) -> String {
        switch problem {
        case .notAnObject: "not a JSON object"
        case .notJSON(let line, let detail): "not JSON (line \(line): \(detail))"
        case .noTasks: "no tasks found"
        case .notAString(let field): "\"\(field)\" must be a string"
        case .emptyTitle: "the title is empty"
        case .notAnArray(let field): "\"\(field)\" must be an array"
        case .notWords(let field): "\"\(field)\" must hold words without spaces"
        case .notAnID(let field): "\"\(field)\" is not 32 hex digits"
        case .notAUUID(let field): "\"\(field)\" is not a UUID"
        case .notAStatus(let field): "\"\(field)\" must be open or done"
        case .notADate(let field): "\"\(field)\" is not a date"
        case .notAPriority(let field): "\"\(field)\" must be low, normal or high"
        case .notABool(let field): "\"\(field)\" must be true or false"
        case .notAnAlarm(let field): "\"\(field)\" must be a duration (30m, 2h, 1d) or a time of day (HH:MM)"
        case .empty(let field): "\"\(field)\" is empty"
        case .tooLong(let field, let limit, let bytes): "\"\(field)\" is longer than \(limit) \(bytes ? "bytes" : "characters")"
        case .format(let error): error.message
        case .dateOutOfRange(let field, let date, let title):
            "\"\(title)\": \"\(field)\" holds \(date), outside the dates todo keeps (\(DateBounds.text))"
        }
    }

    public static func outcome(_ outcome: ImportNoteOutcome) -> String {
        switch outcome {
        case .keptInNotes: "kept in notes"
        case .projectKeptInNotes: "kept in notes (a name with spaces cannot be a tag)"
        case .becameChore: "became a chore"
        case .recurKeptInNotes: "kept in notes (no due date or a rule todo cannot repeat)"
        case .importedAsOwnTask: "imported as a task of its own (its recurring task is not in the file)"
        case .foldedIntoChore: "folded into its chore"
        case .notAnOccurrence: "not imported (its due date is not an occurrence of the chore)"
        case .completion: "a completion of its chore"
        case .skip: "a skipped occurrence of its chore"
        }
    }
}
