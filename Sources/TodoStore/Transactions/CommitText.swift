import TodoCore

/// How commit messages are written: task text on one line, control characters escaped, short.
enum CommitText {
    static func title(_ s: String) -> String {
        DisplayText.truncated(DisplayText.escaped(s), 60)
    }

    /// `<verb>: <title> (<short>), ...`, or with the count first when more than three changed.
    static func list(_ verb: String, _ changed: [ChangedTask]) -> String {
        let names = changed.map { "\(title($0.task.title)) (\($0.short))" }
        return names.count <= 3
            ? "\(verb): " + names.joined(separator: ", ")
            : "\(verb): \(names.count) tasks: " + names.joined(separator: ", ")
    }

    static func added(_ task: Task, short: String) -> String {
        "add: \(title(task.title)) (\(short))"
    }

    static func imported(_ count: Int, from file: String?) -> String {
        let source = file.map { title($0.split(separator: "/").last.map(String.init) ?? $0) } ?? "standard input"
        return "import: \(count) tasks from \(source)"
    }

    static func conflictRestored(_ task: Task, short: String, fields: [String]) -> String {
        "conflicts restore: \(title(task.title)) (\(short)): \(fields.joined(separator: ", "))"
    }
}
