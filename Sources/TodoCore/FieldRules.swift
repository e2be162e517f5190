/// What a task's fields may hold, for every way in (the command line, an import file, a web
/// page): one set of limits, checked in one place. Each check returns the value as stored or
/// the problem, which every front end words for itself.
public enum FieldRules {
    public static let maxTitle = 1_000
    /// In bytes (UTF-8).
    public static let maxNotes = 100_000
    /// An assignee's or a rotation member's name.
    public static let maxName = 200
    public static let maxTag = 64
    public static let maxItem = 200

    public enum Problem: Error, Equatable, Sendable {
        case empty
        /// Longer than `limit` (characters; for notes, bytes).
        case tooLong(limit: Int)
        /// A tag with spaces or characters that cannot be shown.
        case invalid
    }

    /// The title, trimmed.
    public static func title(_ s: String) -> Result<String, Problem> {
        let t = s.trimmingSpaces
        if t.isEmpty { return .failure(.empty) }
        if t.count > maxTitle { return .failure(.tooLong(limit: maxTitle)) }
        return .success(t)
    }

    public static func notes(_ s: String) -> Result<String, Problem> {
        s.utf8.count > maxNotes ? .failure(.tooLong(limit: maxNotes)) : .success(s)
    }

    /// An assignee's or member's name, trimmed.
    public static func name(_ s: String) -> Result<String, Problem> {
        let n = s.trimmingSpaces
        if n.isEmpty { return .failure(.empty) }
        if n.count > maxName { return .failure(.tooLong(limit: maxName)) }
        return .success(n)
    }

    /// A tag, without a leading `+`.
    public static func tag(_ s: String) -> Result<String, Problem> {
        let t = s.hasPrefix("+") ? String(s.dropFirst()) : s
        if t.isEmpty { return .failure(.empty) }
        if t.count > maxTag { return .failure(.tooLong(limit: maxTag)) }
        if t.unicodeScalars.contains(where: { $0.properties.isWhitespace || DisplayText.isUnsafe($0) }) { return .failure(.invalid) }
        return .success(t)
    }

    /// A checklist item's text, normalised as items are compared.
    public static func item(_ s: String) -> Result<String, Problem> {
        let t = Checklist.normalised(s)
        if t.isEmpty { return .failure(.empty) }
        if t.count > maxItem { return .failure(.tooLong(limit: maxItem)) }
        return .success(t)
    }
}
