import TodoCore
import TodoStore
import TodoWording

/// A change a client asked for that cannot be mapped (docs/CALDAV.md, "Changes from a
/// client"): the CalDAV precondition element, the status, and a sentence for a person.
struct DAVRefusal: Error {
    var status: Int
    /// The precondition's element name in the CalDAV namespace (nil: DAV's `precondition` in `davName`).
    var caldav: String?
    var dav: String?
    var reason: String

    static func calendarData(_ reason: String) -> DAVRefusal { DAVRefusal(status: 403, caldav: "valid-calendar-data", reason: reason) }
    static func object(_ reason: String) -> DAVRefusal { DAVRefusal(status: 403, caldav: "valid-calendar-object-resource", reason: reason) }
    static func precondition(_ reason: String) -> DAVRefusal { DAVRefusal(status: 412, reason: reason) }

    /// A write's store call: the store's refusals of what the client sent are its calendar
    /// data, worded for a client (a date outside `DateBounds`: 403 `valid-calendar-data`; a
    /// value the field rules refuse: 403 `valid-calendar-object-resource`, kept lines past their
    /// bounds: 403 `max-resource-size`; a tick the chore does not take yet: 403; an item no
    /// longer on the list: 409); any other failure as `Site.store` words it.
    static func storing<T>(_ site: Site, _ body: () throws(StoreError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            switch error {
            case .dateOutOfRange: throw DAVRefusal.calendarData(Worded(error).fact)
            case .fieldRefused(let field, let value, let problem): throw refusal(field: field, value: value, problem: problem)
            case .notYetDue, .notAnOccurrence, .memberAbsent, .notInRotation: throw DAVRefusal.object(Worded(error).fact)
            case .itemNotFound: throw DAVRefusal(status: 409, reason: "The item is no longer on the list.")
            default: return try site.store { () throws(StoreError) -> T in throw error }
            }
        }
    }

    /// A value the store's field rules refused, in a client's words.
    static func refusal(field: StoreError.RuledField, value: String, problem: FieldRules.Problem) -> DAVRefusal {
        switch field {
        case .title: return .object("The title is empty or too long.")
        case .notes: return .object("The notes are too long.")
        case .item: return .object("The item's text is empty or too long.")
        case .tag: return .object("The category \"\(value)\" cannot be a tag.")
        case .keptLines:
            return DAVRefusal(status: 403, caldav: "max-resource-size", reason: "The to-do carries more properties than the server keeps.")
        case .assignee: return .object(Worded.refusal(field: field, value: value, problem: problem))
        }
    }
}

/// What a client changed in one VTODO, against the version it started from, as the store's
/// device edits (`DeviceEdit`): only what differs. The store checks and writes them.
enum DAVApply {
    /// The base with every field the item already has as sent counted as unchanged, so a
    /// client that sends the same thing twice changes nothing the second time.
    static func effectiveBase(_ base: VTodo, current: VTodo, sent: VTodo) -> VTodo {
        var b = base
        if sent.summary == current.summary { b.summary = sent.summary }
        if sent.notes == current.notes { b.notes = sent.notes }
        if sent.due == current.due { b.due = sent.due }
        if sent.priority == current.priority { b.priority = sent.priority }
        if sent.alarm == current.alarm { b.alarm = sent.alarm }
        if Set(sent.categories) == Set(current.categories) { b.categories = sent.categories }
        if sent.status == current.status { b.status = sent.status }
        if sent.kept == current.kept { b.kept = sent.kept }
        return b
    }

    /// The fields of a task's own VTODO.
    /// The status counts as changed only when it differs from the base's: a client that
    /// reopens what its base had completed, or marks in process what its base had open while
    /// the task is now done (`currentDone`), reopens it; a NEEDS-ACTION as in its base leaves
    /// a completion made since alone.
    static func task(_ sent: VTodo, against base: VTodo, currentDone: Bool = false) throws -> [DeviceEdit] {
        var edits: [DeviceEdit] = []
        if sent.rrule != nil || sent.rruleText != nil, base.rrule == nil {
            throw DAVRefusal.object("A repeat rule can be given only when a to-do is created.")
        }
        if sent.summary != base.summary { edits.append(.title(sent.summary)) }
        if sent.notes != base.notes { edits.append(.notes(sent.notes)) }
        if sent.due != base.due { edits.append(.due(sent.due)) }
        if sent.priority != base.priority { edits.append(.priority(sent.priority)) }
        if sent.alarm != base.alarm { edits.append(.alarm(sent.alarm)) }
        let sentTags = tags(sent.categories)
        let baseTags = Set(base.categories)
        for tag in sentTags where !baseTags.contains(tag) { edits.append(.tag(tag, present: true)) }
        for tag in base.categories where !sentTags.contains(tag) { edits.append(.tag(tag, present: false)) }
        let wasDone = base.status == .completed
        switch sent.status {
        case .completed where !wasDone: edits.append(.complete)
        case .needsAction, .inProcess:
            if wasDone || (currentDone && sent.status != base.status) { edits.append(.reopen) }
        case .cancelled where base.status != .cancelled: edits.append(.delete)
        default: break
        }
        if sent.kept != base.kept { edits.append(.keptLines(sent.kept)) }
        return edits
    }

    /// One occurrence of a chore: a tick, an un-tick, a skip, a new title for the chore, or
    /// the kept lines; anything else is refused.
    static func occurrence(_ sent: VTodo, against base: VTodo, date: CivilDate, today: CivilDate, zone: TimeZoneRules) throws -> [DeviceEdit] {
        if sent.notes != base.notes || sent.due != base.due || sent.priority != base.priority || sent.alarm != base.alarm
            || Set(sent.categories) != Set(base.categories) || sent.rrule != nil || sent.rruleText != nil
        {
            throw DAVRefusal.object(
                "This is one occurrence of a repeating chore: only its title, done or not, and skipping it can change here. Change the chore itself on the household's page or with todo.")
        }
        var edits: [DeviceEdit] = []
        if sent.summary != base.summary { edits.append(.title(sent.summary)) }
        if sent.status != base.status {
            switch sent.status {
            case .completed: edits.append(.completeOccurrence(date, day: sent.completed.map { DAVRender.day($0, zone) } ?? today))
            case .needsAction, .inProcess:
                if base.status == .completed {
                    edits.append(.uncompleteOccurrence(date))
                } else if base.status == .cancelled {
                    edits.append(.reopenOccurrence(date))
                }
            case .cancelled: edits.append(.skipOccurrence(date))
            }
        }
        if sent.kept != base.kept { edits.append(.occurrenceKeptLines(date, sent.kept)) }
        return edits
    }

    /// One checklist item: its text (the item keeps its place and UID), its tick, its kept lines.
    static func item(_ sent: VTodo, against base: VTodo, key: String) throws -> [DeviceEdit] {
        if sent.notes != base.notes || sent.due != base.due || sent.priority != base.priority || sent.alarm != base.alarm
            || !sent.categories.isEmpty || sent.rrule != nil || sent.rruleText != nil
        {
            throw DAVRefusal.object("A checklist item has only its text and its tick.")
        }
        var edits: [DeviceEdit] = []
        if sent.summary != base.summary { edits.append(.itemText(key: key, text: sent.summary)) }
        edits.append(.itemChecked(key: key, sent.status == .completed))
        if sent.kept != base.kept { edits.append(.itemKeptLines(key: key, sent.kept)) }
        return edits
    }

    /// CATEGORIES as tags: white space inside one becomes `-` (a tag is one word); the store
    /// checks each.
    static func tags(_ categories: [String]) -> [String] {
        var out: [String] = []
        for c in categories {
            var word = c.split(whereSeparator: { $0.isWhitespace }).joined(separator: "-")
            if word.hasPrefix("+") { word.removeFirst() }
            guard !word.isEmpty, !out.contains(word) else { continue }
            out.append(word)
        }
        return out
    }
}
