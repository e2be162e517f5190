public import TodoCore

/// What one task looked like after a command, and what the command did to it.
public struct ChangedTask: Sendable {
    public let task: Task
    /// The shortest unambiguous prefix of its id, as the commands show it.
    public let short: String
    /// The fields written, in the order they were asked for (`+tag`/`-tag` for tags); empty
    /// when the task already had every value asked for.
    public let fields: [String]
    public var changed: Bool { !fields.isEmpty }
}

/// What a transaction did: the tasks, and the commit it made (nil when nothing changed).
public struct ChangeOutcome: Sendable {
    public let tasks: [ChangedTask]
    /// The commit's id in hex.
    public let commit: String?
    /// What the chores' turns were worked out with (the roster at the change), for a front end
    /// that shows them; nil for a change that worked out no turns.
    public var context: TurnContext? = nil
}

/// What `import` did.
public struct ImportOutcome: Sendable {
    public let imported: Int
    /// Tasks whose ids the household already had, left as they were.
    public let skipped: Int
    /// Tasks whose ids the household already had, changed where the file changed since their
    /// last import (Taskwarrior; docs/FORMAT.md, "The last import").
    public var updated = 0
    /// Per field (`tags` and `occurrences` for any tag or date), how many tasks the file
    /// changed it in.
    public var updatedFields: [String: Int] = [:]
    /// Per field, how many tasks kept a member's edit because the file did not change it.
    public var keptFields: [String: Int] = [:]
    /// Per field, how many tasks had a member's edit replaced by the file's value, the edit set
    /// aside in the conflict log.
    public var replacedFields: [String: Int] = [:]
    /// Tasks imported before (by a version without the record) that matched the file: only the
    /// record of the file's values was written.
    public var recorded = 0
    /// What had no field: per attribute, how many tasks, and what became of it.
    public var notes: [ImportNote] = []
    public let commit: String?
}

/// The fields of a new task, checked by the caller.
public struct NewTask: Sendable {
    public var title: String
    public var notes = ""
    public var assignee: String?
    public var due: Due?
    public var priority = Priority.normal
    public var tags: [String] = []
    /// A chore's rule and start (nil: a plain task).
    public var recurrence: Recurrence?
    /// A chore's members in turn.
    public var rotation: [String] = []
    /// What the chore's next date is counted from: its rule's dates, or when it was done.
    public var anchor = ChoreAnchor.due
    /// How the chore shows when it fell behind, and how its rotation picks turns.
    public var schedule = ChoreScheduleMode.calendar
    public var rotate = RotateMode.order
    /// Checklist items, in order.
    public var items: [String] = []
    /// The id the caller chose (32 lowercase hex digits), so that adding again is harmless:
    /// when the household already has it, `add` commits nothing and returns that task. Nil: a
    /// new random id.
    public var id: String?
    /// The task's own alarm for `todo calendar` (nil: the feed's).
    public var alarm: TaskAlarm?
    /// What a CalDAV client keeps with the task (docs/CALDAV.md, "The `caldav` field"): written
    /// as the stamped field `caldav` in the same commit.
    public var caldav: JSONValue?

    public init(title: String) { self.title = title }
}

/// What `edit` changes. Fields left nil stay as they are.
public struct TaskEdit: Sendable {
    /// A value to set or to clear.
    public enum Setting<Value: Sendable>: Sendable {
        case set(Value)
        case clear
    }

    public var title: String?
    public var assignee: Setting<String>?
    public var priority: Priority?
    public var notes: String?
    public var due: Setting<Due>?
    public var addTags: [String] = []
    public var removeTags: [String] = []
    /// A new rule (`.clear`: no longer a chore).
    public var recurrence: Setting<Recurrence>?
    /// A new rotation (empty: none).
    public var rotation: [String]?
    /// What the chore's next date is counted from.
    public var anchor: ChoreAnchor?
    /// How the chore shows when it fell behind; how its rotation picks turns.
    public var schedule: ChoreScheduleMode?
    public var rotate: RotateMode?
    /// The task's own alarm (`.clear`: none, the feed's applies).
    public var alarm: Setting<TaskAlarm>?
    /// Checklist changes; items are named by text, by their 1-based index in `show`, or by
    /// their key as `key:<16 hex>` (`Household.itemKeyPrefix`; an index shifts when items are
    /// added or removed, a key never does). An item already in the state asked for is left as
    /// it is: an edit that changes nothing commits nothing.
    public var addItems: [String] = []
    public var checkItems: [String] = []
    public var uncheckItems: [String] = []
    public var removeItems: [String] = []

    public init() {}

    /// Whether the edit asks for anything at all.
    public var isEmpty: Bool {
        title == nil && assignee == nil && priority == nil && notes == nil && due == nil && addTags.isEmpty
            && removeTags.isEmpty && recurrence == nil && rotation == nil && anchor == nil && schedule == nil && rotate == nil && alarm == nil && addItems.isEmpty && checkItems.isEmpty
            && uncheckItems.isEmpty && removeItems.isEmpty
    }

    /// The plain fields to write, in the order a person reads them.
    var values: [(String, JSONValue)] {
        var out: [(String, JSONValue)] = []
        if let title { out.append(("title", .string(title))) }
        switch assignee {
        case .set(let who)?: out.append(("assignee", .string(who)))
        case .clear?: out.append(("assignee", .null))
        case nil: break
        }
        if let priority { out.append(("priority", .string(priority.rawValue))) }
        if let notes { out.append(("notes", .string(notes))) }
        switch due {
        case .clear?: out.append(("due", .null))
        case .set(let d)?: out.append(("due", .string(d.description)))
        case nil: break
        }
        return out
    }
}

/// The one-field changes of `done`, `reopen`, `rm` and `restore`.
public enum TaskState: String, Sendable, CaseIterable {
    case done, reopen, rm, restore

    /// The field written and its value.
    var write: (field: String, value: JSONValue) {
        switch self {
        case .done: return ("status", .string("done"))
        case .reopen: return ("status", .string("open"))
        case .rm: return ("deleted", .bool(true))
        case .restore: return ("deleted", .bool(false))
        }
    }
}
