/// Taskwarrior's recurrence and the attributes `todo` has no field for (docs/GUIDE.md, "Commands in detail").
///
/// - A recurring template (`recur` and `due`, status `recurring`) becomes one chore whose rule
///   comes from `recur` and whose start is the template's due date. Its instances (`parent`
///   naming a template in the same export) are not imported as tasks: a completed instance
///   becomes a done occurrence, a deleted one a skipped occurrence, when its due date is an
///   occurrence of the rule.
/// - `end` (the completion time), `wait` and `scheduled` become lines of the notes.
/// - Any other attribute is kept in the notes as `attribute: value`, and counted in the report.
public struct ImportBatch: Sendable {
    public var tasks: [ImportedTask]
    /// What could not be mapped to a field, per attribute, in first-seen order.
    public var notes: [ImportNote]
}

/// One line of the import report: how many tasks had an attribute and what became of it.
public struct ImportNote: Sendable, Equatable {
    public var attribute: String
    public var count: Int
    public var outcome: ImportNoteOutcome
}

/// What became of an attribute without a field of its own (worded by the front end).
public enum ImportNoteOutcome: Sendable, Equatable, Hashable {
    /// Kept as a line `attribute: value` of the notes.
    case keptInNotes
    /// A `project` whose name has spaces, which a tag cannot hold: kept in the notes.
    case projectKeptInNotes
    /// A recurring template became a chore.
    case becameChore
    /// A `recur` without a due date, or a rule `todo` cannot repeat: kept in the notes.
    case recurKeptInNotes
    /// An instance whose recurring task is not in the file: imported as a task of its own.
    case importedAsOwnTask
    /// A pending instance: its chore shows the occurrence.
    case foldedIntoChore
    /// A completed or deleted instance whose due date is not an occurrence of its chore.
    case notAnOccurrence
    /// A completed instance: a completion of its chore; a deleted one: a skipped occurrence.
    case completion
    case skip
}

extension TaskImport {
    /// Attributes that map to fields (or are Taskwarrior's own bookkeeping, derived from others).
    static let mapped: Set<String> = [
        "uuid", "description", "status", "due", "tags", "project", "priority", "annotations", "entry", "end",
        "wait", "scheduled", "recur", "parent", "mask", "imask", "id", "urgency", "modified",
    ]

    /// How many tasks met each outcome ("attribute:outcome"), in the order first met.
    struct Tally {
        struct Key: Hashable {
            var attribute: String
            var outcome: ImportNoteOutcome
        }
        var counts: [Key: Int] = [:]
        var order: [Key] = []

        mutating func note(_ attribute: String, _ outcome: ImportNoteOutcome) {
            let key = Key(attribute: attribute, outcome: outcome)
            if counts[key] == nil { order.append(key) }
            counts[key, default: 0] += 1
        }

        var notes: [ImportNote] {
            order.map { ImportNote(attribute: $0.attribute, count: counts[$0] ?? 0, outcome: $0.outcome) }
        }
    }

    /// What `parseBatch` has gathered so far.
    struct BatchState {
        var tasks: [ImportedTask] = []
        var tally = Tally()
        /// A recurring template's uuid -> its index in `tasks`.
        var templates: [String: Int] = [:]
        /// Instances, read once every template is known.
        var pendingInstances: [(JSONValue, Int)] = []
    }

    /// `parse`, with Taskwarrior recurrence folded into chores and a report of what had no field.
    /// The file is read one task at a time: only the tasks made from it are kept, and the
    /// recurring instances, which need every template first.
    public static func parseBatch(_ bytes: [UInt8], offsetMinutes: Int = 0) throws(ImportError) -> ImportBatch {
        var state = try collect(bytes, into: BatchState()) { (state, i, v) throws(ImportError) in
            guard case .object = v else { throw ImportError(index: i, .notAnObject) }
            if let parent = v["parent"]?.stringValue, !parent.isEmpty, v["uuid"] != nil || v["description"] != nil {
                state.pendingInstances.append((v, i))
                return
            }
            do throws(ImportError) {
                guard v["uuid"] != nil || v["description"] != nil else {
                    var t = try todo(v)
                    try t.checkFields()
                    state.tasks.append(t)
                    return
                }
                var t = try taskwarriorTask(v, offsetMinutes, &state.tally)
                try t.checkFields()
                if t.recurrence != nil, let uuid = v["uuid"]?.stringValue { state.templates[uuid.lowercased()] = state.tasks.count }
                state.tasks.append(t)
            } catch {
                throw ImportError(index: i, error.problem)
            }
        }
        for (v, i) in state.pendingInstances {
            guard let parent = v["parent"]?.stringValue?.lowercased(), let at = state.templates[parent],
                let r = state.tasks[at].recurrence
            else {
                // The template is not in this export: the instance is imported as a task of its own.
                do throws(ImportError) {
                    var t = try taskwarrior(v, offsetMinutes)
                    t.updatesExisting = true
                    try t.checkFields()
                    state.tasks.append(t)
                } catch {
                    throw ImportError(index: i, error.problem)
                }
                state.tally.note("parent", .importedAsOwnTask)
                continue
            }
            if let occurrence = instanceOccurrence(v, of: r, offsetMinutes, &state.tally) { state.tasks[at].occurrences.append(occurrence) }
        }
        return ImportBatch(tasks: state.tasks, notes: state.tally.notes)
    }

    /// One Taskwarrior task that is not a recurring instance: a recurring template becomes a
    /// chore; attributes without a field go into the notes, and into `tally`.
    static func taskwarriorTask(_ v: JSONValue, _ offsetMinutes: Int, _ tally: inout Tally) throws(ImportError) -> ImportedTask {
        var t = try taskwarrior(v, offsetMinutes)
        t.updatesExisting = true
        var extraNotes: [String] = []
        if let project = v["project"]?.stringValue, !project.isEmpty, project.contains(where: \.isWhitespace) {
            extraNotes.append("project: \(project)")
            tally.note("project", .projectKeptInNotes)
        }
        if let recur = v["recur"]?.stringValue {
            if let rule = twRule(recur), let due = t.due {
                t.recurrence = Recurrence(rule: rule, from: due.date)
                t.due = due.minutes == nil ? nil : due
                t.status = .open
                tally.note("recur", .becameChore)
            } else {
                extraNotes.append("recur: \(recur)")
                tally.note("recur", .recurKeptInNotes)
            }
        }
        if let end = v["end"]?.stringValue, let text = twLocal(end, offsetMinutes), t.status == .done || t.deleted {
            extraNotes.append("completed: \(text)")
        }
        for (key, label) in [("wait", "wait (hidden until)"), ("scheduled", "scheduled")] {
            if let value = v[key]?.stringValue, let text = twLocal(value, offsetMinutes) {
                extraNotes.append("\(label): \(text)")
                tally.note(key, .keptInNotes)
            }
        }
        if case .object(let members) = v {
            for (key, value) in members where !mapped.contains(key) {
                extraNotes.append("\(key): \(value.stringValue ?? JSONWriter.compact(value))")
                tally.note(key, .keptInNotes)
            }
        }
        if !extraNotes.isEmpty {
            t.notes = ([t.notes].filter { !$0.isEmpty } + extraNotes).joined(separator: "\n")
        }
        return t
    }

    /// What a completed or deleted instance of a recurring task says of its chore (`r`): a
    /// completion or a skip of one occurrence; nil for a pending instance or a date off the rule.
    static func instanceOccurrence(_ v: JSONValue, of r: Recurrence, _ offsetMinutes: Int, _ tally: inout Tally) -> ImportedOccurrence? {
        let status = v["status"]?.stringValue ?? "pending"
        guard status == "completed" || status == "deleted" else {
            tally.note("recurring instance", .foldedIntoChore)
            return nil
        }
        guard let dueText = v["due"]?.stringValue, let due = twDue(dueText, offsetMinutes), r.isOccurrence(due.date) else {
            tally.note("recurring instance", .notAnOccurrence)
            return nil
        }
        tally.note("recurring instance", status == "completed" ? .completion : .skip)
        return ImportedOccurrence(date: due.date, state: status == "completed" ? .done : .skipped)
    }

    /// Taskwarrior's `recur` values that `todo` can repeat.
    static func twRule(_ recur: String) -> RepeatRule? {
        let r = recur.lowercased()
        switch r {
        case "daily", "day", "1d", "p1d": return RepeatRule(.days(1))
        case "weekly", "week", "1w", "p1w", "7d": return RepeatRule(.weeks(1))
        case "biweekly", "fortnight", "2w", "p2w", "14d": return RepeatRule(.weeks(2))
        case "weekdays": return RepeatRule(.weekdays(0b0111110))
        case "monthly", "month", "1mo", "p1m": return RepeatRule(.months(1))
        case "bimonthly", "2mo", "p2m": return RepeatRule(.months(2))
        case "quarterly", "1q", "3mo", "p3m": return RepeatRule(.months(3))
        case "semiannual", "6mo", "p6m": return RepeatRule(.months(6))
        case "yearly", "annual", "1y", "p1y", "12mo": return RepeatRule(.months(12))
        default: break
        }
        // Nd, Nw, Nmo (and the ISO 8601 forms PnD, PnW, PnM).
        var s = Substring(r)
        if s.hasPrefix("p") { s = s.dropFirst() }
        let digits = s.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 3, let n = Int(digits), n >= 1 else { return nil }
        switch s.dropFirst(digits.count) {
        case "d", "days": return RepeatRule(.days(n))
        case "w", "wks", "weeks": return RepeatRule(.weeks(n))
        case "mo", "m", "months": return RepeatRule(.months(n))
        case "y", "yrs", "years": return n <= 83 ? RepeatRule(.months(12 * n)) : nil
        default: return nil
        }
    }

    /// A Taskwarrior time as household-local `YYYY-MM-DD HH:MM`.
    static func twLocal(_ s: String, _ offsetMinutes: Int) -> String? {
        guard let d = twDue(s, offsetMinutes) else { return nil }
        let m = d.minutes ?? 0
        return "\(d.date) \(pad(m / 60, 2)):\(pad(m % 60, 2))"
    }
}

extension TaskImport {
    /// A chore's `repeat`, `rotation`, `anchor`, `schedule`, `rotate`, `completions`, `occurrences` and
    /// `turns` and a checklist's `items`, as `todo list --json` prints them (docs/FORMAT.md):
    /// checked as a task file's, the maps kept entry for entry.
    static func choreFields(_ v: JSONValue, into t: inout ImportedTask) throws(ImportError) {
        var probe = Task(id: TaskID(high: 0, low: 0), title: "probe", createdAt: "", createdBy: "")
        let keys = ["repeat", "rotation", "anchor", "schedule", "rotate"] + ChoreFields.maps.sorted()
        for key in keys { if let value = v[key] { probe.extra[key] = value } }
        do {
            try ChoreFields.check(&probe)
        } catch {
            throw ImportError(index: nil, .format(error))
        }
        t.recurrence = probe.recurrence
        t.rotation = probe.rotation
        t.anchor = probe.extra["anchor"]?.stringValue
        t.schedule = probe.extra["schedule"]?.stringValue
        t.rotate = probe.extra["rotate"]?.stringValue
        for map in ChoreFields.maps { if let m = probe.extra[map] { t.maps[map] = m } }
        switch v["alarm"] {
        case nil, .null?: break
        case .string(let text)? where TaskAlarm(text) != nil: t.alarm = text
        default: throw ImportError(index: nil, .notAnAlarm(field: "alarm"))
        }
    }
}
