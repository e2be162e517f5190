/// A task read from an import file, before it gets stamps and a place in a household.
public struct ImportedTask: Sendable, Equatable {
    public var id: TaskID?
    public var title: String
    public var status: Status = .open
    public var notes: String = ""
    public var assignee: String?
    public var due: Due?
    public var tags: [String] = []
    public var priority: Priority = .normal
    public var createdAt: String?
    public var createdBy: String?
    public var deleted = false
    /// A chore's rule and start (from a Taskwarrior recurring task).
    public var recurrence: Recurrence?
    /// Occurrences done or skipped (from a recurring task's instances).
    public var occurrences: [ImportedOccurrence] = []
    /// A chore's members in turn.
    public var rotation: [String] = []
    /// A chore's and checklist's maps from `todo list --json` (`completions`, `items`,
    /// `occurrences`, `turns`), entries as they were written: their keys and stamps say who did
    /// what, which a completion's credit depends on (docs/FORMAT.md).
    public var maps: [String: JSONValue] = [:]
    /// A chore's `anchor`, `schedule` and `rotate` as written (from `todo list --json`).
    public var anchor: String?
    public var schedule: String?
    /// A task's own alarm (`todo list --json`'s `alarm`), as written.
    public var alarm: String?
    public var rotate: String?
    /// A task the household already has is updated as a new edit (Taskwarrior exports),
    /// rather than skipped.
    public var updatesExisting = false
}

public struct ImportedOccurrence: Sendable, Equatable {
    public var date: CivilDate
    public var state: OccurrenceState
}

/// Why an import file was refused; `index` is the 0-based position of the task at fault.
/// A fact: the front end words it (`ImportWording` in TodoWording).
public struct ImportError: Error, Equatable, Sendable {
    public let index: Int?
    public let problem: ImportProblem
    public init(index: Int?, _ problem: ImportProblem) { (self.index, self.problem) = (index, problem) }
}

/// What is wrong with an import file or one task in it. `field` names the JSON key at fault.
public enum ImportProblem: Error, Equatable, Sendable {
    /// An entry of the array (or a line) is not a JSON object.
    case notAnObject
    /// Neither one JSON document nor one object per line; `detail` is the JSON reader's own.
    case notJSON(line: Int, detail: String)
    case noTasks
    case notAString(field: String)
    case emptyTitle
    case notAnArray(field: String)
    /// A tag list holding an empty word or one with spaces.
    case notWords(field: String)
    case notAnID(field: String)
    case notAUUID(field: String)
    case notAStatus(field: String)
    case notADate(field: String)
    case notAPriority(field: String)
    case notABool(field: String)
    case notAnAlarm(field: String)
    /// A field empty or longer than `FieldRules` allows (`bytes`: the limit counts bytes).
    case empty(field: String)
    case tooLong(field: String, limit: Int, bytes: Bool)
    /// A chore or checklist field without its documented shape (docs/FORMAT.md).
    case format(TaskFormatError)
    /// A date outside `DateBounds` (the task's `title` names it in the refusal).
    case dateOutOfRange(field: String, date: CivilDate, title: String)
}

/// Reads `todo list --json` output and Taskwarrior's `task export`: a JSON array of task
/// objects, or one object per line.
public enum TaskImport {
    /// `offsetMinutes` converts Taskwarrior's UTC due times to household-local dates.
    public static func parse(_ bytes: [UInt8], offsetMinutes: Int = 0) throws(ImportError) -> [ImportedTask] {
        try collect(bytes, into: [ImportedTask]()) { (out, i, v) throws(ImportError) in
            guard case .object = v else { throw ImportError(index: i, .notAnObject) }
            do throws(ImportError) {
                var task = v["uuid"] != nil || v["description"] != nil ? try taskwarrior(v, offsetMinutes) : try todo(v)
                try task.checkFields()
                out.append(task)
            } catch {
                throw ImportError(index: i, error.problem)
            }
        }
    }

    /// Reads the documents of an import one at a time into `state`, each dropped once `body`
    /// has taken what it needs from it (a large file is never held as one JSON tree): the
    /// elements of a JSON array (or the one document that is not an array), else one object per
    /// line, numbered from 0 among the lines that are not empty. Errors are what reading every
    /// document first would give: a syntax error anywhere (for one object per line, the first
    /// line at fault) before the first error `body` throws, which stops only the conversion.
    static func collect<State>(
        _ bytes: [UInt8], into initial: State, _ body: (inout State, Int, JSONValue) throws(ImportError) -> Void
    ) throws(ImportError) -> State {
        var state = initial
        var refused: ImportError?
        func take(_ n: Int, _ v: JSONValue) -> Bool {
            do throws(ImportError) {
                try body(&state, n, v)
                return true
            } catch {
                refused = error
                return false
            }
        }
        do {
            try JSONParser.forEachTopLevelValue(bytes, take)
        } catch {
            // Not a single document: one JSON object per line, from the start again.
            (state, refused) = (initial, nil)
            var n = 0
            for (number, line) in bytes.split(separator: 0x0A).enumerated() {
                let trimmed = line.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
                if trimmed.isEmpty { continue }
                do {
                    let v = try JSONParser.parse(Array(trimmed.last == 0x0D ? trimmed.dropLast() : trimmed))
                    if refused == nil { _ = take(n, v) }
                } catch {
                    throw ImportError(index: nil, .notJSON(line: number + 1, detail: "\(error)"))
                }
                n += 1
            }
            if n == 0 { throw ImportError(index: nil, .noTasks) }
        }
        if let refused { throw refused }
        return state
    }

    static func string(_ v: JSONValue?, _ field: String) throws(ImportError) -> String? {
        guard let v, v != .null else { return nil }
        guard case .string(let s) = v else { throw ImportError(index: nil, .notAString(field: field)) }
        return s
    }

    static func title(_ s: String?) throws(ImportError) -> String {
        guard let s, !s.trimmingSpaces.isEmpty else { throw ImportError(index: nil, .emptyTitle) }
        return s.trimmingSpaces
    }

    static func tags(_ v: JSONValue?) throws(ImportError) -> [String] {
        guard let v, v != .null else { return [] }
        guard case .array(let items) = v else { throw ImportError(index: nil, .notAnArray(field: "tags")) }
        var tags: [String] = []
        for item in items {
            guard case .string(let t) = item, !t.isEmpty, !t.contains(where: \.isWhitespace) else {
                throw ImportError(index: nil, .notWords(field: "tags"))
            }
            tags.append(t)
        }
        return tags
    }

    /// `todo list --json` objects.
    static func todo(_ v: JSONValue) throws(ImportError) -> ImportedTask {
        var t = ImportedTask(title: try title(try string(v["title"], "title")))
        if let id = try string(v["id"], "id") {
            guard let tid = TaskID(id.lowercased()) else { throw ImportError(index: nil, .notAnID(field: "id")) }
            t.id = tid
        }
        if let s = try string(v["status"], "status") {
            guard let st = Status(rawValue: s) else { throw ImportError(index: nil, .notAStatus(field: "status")) }
            t.status = st
        }
        t.notes = try string(v["notes"], "notes") ?? ""
        t.assignee = try string(v["assignee"], "assignee")
        if let d = try string(v["due"], "due") {
            guard let due = Due(stored: d) else { throw ImportError(index: nil, .notADate(field: "due")) }
            t.due = due
        }
        t.tags = try tags(v["tags"])
        if let p = try string(v["priority"], "priority") {
            guard let pr = Priority(rawValue: p) else {
                throw ImportError(index: nil, .notAPriority(field: "priority"))
            }
            t.priority = pr
        }
        t.createdAt = try string(v["createdAt"], "createdAt")
        t.createdBy = try string(v["createdBy"], "createdBy")
        if let d = v["deleted"], d != .null {
            guard case .bool(let b) = d else { throw ImportError(index: nil, .notABool(field: "deleted")) }
            t.deleted = b
        }
        try choreFields(v, into: &t)
        return t
    }

    /// Taskwarrior `task export` objects.
    static func taskwarrior(_ v: JSONValue, _ offsetMinutes: Int) throws(ImportError) -> ImportedTask {
        var t = ImportedTask(title: try title(try string(v["description"], "description")))
        if let uuid = try string(v["uuid"], "uuid") {
            guard let id = TaskID(String(uuid.lowercased().filter { $0 != "-" })) else {
                throw ImportError(index: nil, .notAUUID(field: "uuid"))
            }
            t.id = id
        }
        switch try string(v["status"], "status") ?? "pending" {
        case "completed": t.status = .done
        case "deleted": t.deleted = true
        default: t.status = .open
        }
        if let due = try string(v["due"], "due") {
            guard let d = twDue(due, offsetMinutes) else { throw ImportError(index: nil, .notADate(field: "due")) }
            t.due = d
        }
        t.tags = try tags(v["tags"])
        if let project = try string(v["project"], "project"), !project.isEmpty, !project.contains(where: \.isWhitespace) {
            t.tags.append("project:" + project)
        }
        switch try string(v["priority"], "priority") {
        case "H": t.priority = .high
        case "L": t.priority = .low
        default: t.priority = .normal
        }
        if case .array(let notes)? = v["annotations"] {
            t.notes = notes.compactMap { $0["description"]?.stringValue }.joined(separator: "\n")
        }
        if let entry = try string(v["entry"], "entry"), let ms = twMillis(entry) {
            t.createdAt = isoMillis(ms)
        }
        return t
    }

    /// `20261123T180000Z` to milliseconds since the epoch.
    static func twMillis(_ s: String) -> Int64? {
        let u = Array(s.utf8)
        guard u.count == 16, u[8] == UInt8(ascii: "T"), u[15] == UInt8(ascii: "Z"),
            let y = digits(u[0..<4]), let mo = digits(u[4..<6]), let d = digits(u[6..<8]),
            let h = digits(u[9..<11]), let mi = digits(u[11..<13]), let se = digits(u[13..<15]),
            let date = CivilDate(year: y, month: mo, day: d), h < 24, mi < 60, se < 61
        else { return nil }
        return (Int64(date.daysSinceEpoch) * 86_400 + Int64(h * 3600 + mi * 60 + se)) * 1000
    }

    static func twDue(_ s: String, _ offsetMinutes: Int) -> Due? {
        guard let ms = twMillis(s) else { return nil }
        let local = ms / 1000 + Int64(offsetMinutes) * 60
        let days = Int((local - (local < 0 ? 86_399 : 0)) / 86_400)
        let minute = Int(local - Int64(days) * 86_400) / 60
        return Due(date: CivilDate(daysSinceEpoch: days), minutes: minute == 0 ? nil : minute)
    }
}

extension ImportedTask {
    /// The same limits as every other way in (`FieldRules`): a title, notes, names, tags and
    /// rotation as a command would accept them, trimmed as it would store them.
    mutating func checkFields() throws(ImportError) {
        func fail(_ field: String, _ problem: FieldRules.Problem) -> ImportError {
            switch problem {
            case .empty: return ImportError(index: nil, .empty(field: field))
            case .tooLong(let limit):
                return ImportError(index: nil, .tooLong(field: field, limit: limit, bytes: field == "notes"))
            case .invalid: return ImportError(index: nil, .notWords(field: field))
            }
        }
        switch FieldRules.title(title) {
        case .success(let t): title = t
        case .failure(let p): throw fail("title", p)
        }
        if case .failure(let p) = FieldRules.notes(notes) { throw fail("notes", p) }
        if let a = assignee {
            switch FieldRules.name(a) {
            case .success(let n): assignee = n
            case .failure(.empty): assignee = nil
            case .failure(let p): throw fail("assignee", p)
            }
        }
        for (i, tag) in tags.enumerated() {
            switch FieldRules.tag(tag) {
            case .success(let t): tags[i] = t
            case .failure(let p): throw fail("tags", p)
            }
        }
        for member in rotation {
            if case .failure(let p) = FieldRules.name(member) { throw fail("rotation", p) }
        }
    }
}
