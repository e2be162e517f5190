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

    /// A write's store call: the store's refusal of a date outside `DateBounds` is the client's
    /// calendar data (403 `valid-calendar-data`, the range in the reason); any other failure
    /// as `Site.store` words it.
    static func storing<T>(_ site: Site, _ body: () throws(StoreError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            if case .dateOutOfRange = error { throw DAVRefusal.calendarData(Worded(error).fact) }
            return try site.store { () throws(StoreError) -> T in throw error }
        }
    }
}

/// What a client changed in one VTODO, against the version it started from, written into a
/// task (the device's version in `Household.deviceChange`). Only what differs is written.
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
    static func task(
        _ sent: VTodo, against base: VTodo, to t: inout Task, stamp: FieldStamp, currentDone: Bool = false
    ) throws -> [String] {
        var fields: [String] = []
        if sent.rrule != nil || sent.rruleText != nil, base.rrule == nil {
            throw DAVRefusal.object("A repeat rule can be given only when a to-do is created.")
        }
        if sent.summary != base.summary {
            guard case .success(let title) = FieldRules.title(sent.summary) else { throw DAVRefusal.object("The title is empty or too long.") }
            try t.write("title", .string(title), stamp: stamp)
            fields.append("title")
        }
        if sent.notes != base.notes {
            guard case .success(let notes) = FieldRules.notes(sent.notes) else { throw DAVRefusal.object("The notes are too long.") }
            try t.write("notes", .string(notes), stamp: stamp)
            fields.append("notes")
        }
        if sent.due != base.due {
            try t.write("due", sent.due.map { .string($0.description) } ?? .null, stamp: stamp)
            fields.append("due")
        }
        if sent.priority != base.priority {
            try t.write("priority", .string(sent.priority.rawValue), stamp: stamp)
            fields.append("priority")
        }
        if sent.alarm != base.alarm {
            try t.write("alarm", sent.alarm.map { .string($0.text) } ?? .null, stamp: stamp)
            fields.append("alarm")
        }
        let sentTags = try tags(sent.categories)
        let baseTags = Set(base.categories)
        for tag in sentTags where !baseTags.contains(tag) {
            t.setTag(tag, present: true, stamp: stamp)
            fields.append("+" + tag)
        }
        for tag in base.categories where !sentTags.contains(tag) {
            t.setTag(tag, present: false, stamp: stamp)
            fields.append("-" + tag)
        }
        let wasDone = base.status == .completed
        switch sent.status {
        case .completed where !wasDone:
            try t.write("status", .string("done"), stamp: stamp)
            fields.append("status")
        case .needsAction, .inProcess:
            if wasDone || (currentDone && sent.status != base.status) {
                try t.write("status", .string("open"), stamp: stamp)
                fields.append("status")
            }
        case .cancelled where base.status != .cancelled:
            try t.write("deleted", .bool(true), stamp: stamp)
            fields.append("deleted")
        default: break
        }
        if sent.kept != base.kept {
            var record = CalDAVRecord(t)
            record.item.kept = try kept(sent.kept)
            try t.write(CalDAVRecord.field, record.json, stamp: stamp)
            fields.append(CalDAVRecord.field)
        }
        return fields
    }

    /// One occurrence of a chore: a tick, an un-tick, a skip, a new title for the chore, or
    /// the kept lines; anything else is refused.
    static func occurrence(
        _ sent: VTodo, against base: VTodo, date: CivilDate, to t: inout Task, stamp: FieldStamp, member: String,
        context: TurnContext, today: CivilDate, zone: TimeZoneRules
    ) throws -> [String] {
        if sent.notes != base.notes || sent.due != base.due || sent.priority != base.priority || sent.alarm != base.alarm
            || Set(sent.categories) != Set(base.categories) || sent.rrule != nil || sent.rruleText != nil
        {
            throw DAVRefusal.object(
                "This is one occurrence of a repeating chore: only its title, done or not, and skipping it can change here. Change the chore itself on the household's page or with todo.")
        }
        var fields: [String] = []
        if sent.summary != base.summary {
            guard case .success(let title) = FieldRules.title(sent.summary) else { throw DAVRefusal.object("The title is empty or too long.") }
            try t.write("title", .string(title), stamp: stamp)
            fields.append("title")
        }
        if sent.status != base.status {
            switch sent.status {
            case .completed:
                let day = sent.completed.map { DAVRender.day($0, zone) } ?? today
                do {
                    if try t.deviceComplete(date, member: member, day: min(day, today), stamp: stamp, context: context, today: today) {
                        fields.append(date.description)
                    }
                } catch {
                    throw DAVRefusal.object(Worded(error).fact)
                }
            case .needsAction, .inProcess:
                if base.status == .completed {
                    if t.deviceUncomplete(date, member: member, stamp: stamp, context: context, today: today) { fields.append(date.description) }
                } else if base.status == .cancelled {
                    t.setOccurrence(date, .open, stamp: stamp)
                    fields.append(date.description)
                }
            case .cancelled:
                t.setOccurrence(date, .skipped, stamp: stamp)
                fields.append(date.description)
            }
        }
        if sent.kept != base.kept {
            var record = CalDAVRecord(t)
            var entry = record.occurrences[date.description] ?? CalDAVRecord.Entry()
            entry.kept = try kept(sent.kept)
            record.occurrences[date.description] = entry
            try t.write(CalDAVRecord.field, record.json, stamp: stamp)
            fields.append(CalDAVRecord.field)
        }
        return fields
    }

    /// One checklist item: its text (the item keeps its place and UID), its tick, its kept lines.
    static func item(_ sent: VTodo, against base: VTodo, key: String, to t: inout Task, stamp: FieldStamp) throws -> [String] {
        if sent.notes != base.notes || sent.due != base.due || sent.priority != base.priority || sent.alarm != base.alarm
            || !sent.categories.isEmpty || sent.rrule != nil || sent.rruleText != nil
        {
            throw DAVRefusal.object("A checklist item has only its text and its tick.")
        }
        guard var item = t.checklist.first(where: { $0.key == key }) else {
            throw DAVRefusal(status: 409, reason: "The item is no longer on the list.")
        }
        var fields: [String] = []
        var record = CalDAVRecord(t)
        var entry = record.items[key] ?? CalDAVRecord.Entry()
        var recordChanged = false
        if sent.summary != base.summary {
            guard case .success(let text) = FieldRules.item(sent.summary) else { throw DAVRefusal.object("The item's text is empty or too long.") }
            let newKey = Checklist.key(text)
            if newKey == key {
                item.text = text
                item.stamp = stamp
                t.setItem(item)
            } else {
                // Another key: the old item is removed and the new one takes its place in the
                // order (its `added` stamp) and its UID and href.
                var old = item
                old.state = .removed
                old.stamp = stamp
                t.setItem(old)
                let existing = t.checklist.first { $0.key == newKey }
                item = ChecklistItem(key: newKey, state: item.state, text: text, added: existing?.added ?? item.added, stamp: stamp)
                t.setItem(item)
                if entry.uid == nil { entry.uid = "\(t.id.hex)-\(key)" }
                if entry.href == nil { entry.href = "\(t.id.hex)-\(key).ics" }
                record.items[key] = nil
                recordChanged = true
            }
            fields.append("item")
        }
        let checked = sent.status == .completed
        if checked != (item.state == .checked) {
            item.state = checked ? .checked : .open
            item.stamp = stamp
            t.setItem(item)
            fields.append("item")
        }
        if sent.kept != base.kept {
            entry.kept = try kept(sent.kept)
            recordChanged = true
        }
        if recordChanged {
            record.items[item.key] = entry.isEmpty ? nil : entry
            try t.write(CalDAVRecord.field, record.json, stamp: stamp)
            fields.append(CalDAVRecord.field)
        }
        return fields
    }

    /// A new item on a checklist, keeping the client's UID and href.
    static func addItem(_ sent: VTodo, name: String, to t: inout Task, stamp: FieldStamp) throws -> [String] {
        guard case .success(let text) = FieldRules.item(sent.summary) else { throw DAVRefusal.object("The item's text is empty or too long.") }
        let key = Checklist.key(text)
        let existing = t.checklist.first { $0.key == key }
        let state: ItemState = sent.status == .completed ? .checked : .open
        t.setItem(ChecklistItem(key: key, state: state, text: text, added: existing?.added ?? stamp, stamp: stamp))
        var record = CalDAVRecord(t)
        record.items[key] = CalDAVRecord.Entry(uid: sent.uid, href: name, kept: try kept(sent.kept))
        try t.write(CalDAVRecord.field, record.json, stamp: stamp)
        return ["item"]
    }

    /// CATEGORIES as tags: white space inside one becomes `-` (a tag is one word).
    static func tags(_ categories: [String]) throws -> [String] {
        var out: [String] = []
        for c in categories {
            let word = c.split(whereSeparator: { $0.isWhitespace }).joined(separator: "-")
            guard !word.isEmpty else { continue }
            guard case .success(let tag) = FieldRules.tag(word) else { throw DAVRefusal.object("The category \"\(word)\" cannot be a tag.") }
            if !out.contains(tag) { out.append(tag) }
        }
        return out
    }

    /// Kept lines, within the record's bounds.
    static func kept(_ lines: [String]) throws -> [String] {
        guard lines.count <= CalDAVRecord.maxKeptLines, lines.allSatisfy({ $0.utf8.count <= CalDAVRecord.maxKeptLine }) else {
            throw DAVRefusal(status: 403, caldav: "max-resource-size", reason: "The to-do carries more properties than the server keeps.")
        }
        return lines
    }
}
