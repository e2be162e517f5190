import TodoCore
import TodoStore

/// A task as the VTODOs of one member's collection (docs/CALDAV.md, "Collections" and "The
/// mapping"): which items it gives, their UIDs, names and iCalendar bytes.
enum DAVRender {
    /// Done items stay this many days in Mine.
    static let doneDays = 14

    static func items(of t: Task, in collection: DAVCollection, member: String, state: DAVState) -> [DAVItem] {
        guard let blob = state.blobs[t.id] else { return [] }
        let record = CalDAVRecord(t)
        switch collection {
        case .list(let id):
            guard id == t.id else { return [] }
            return t.visibleItems.map { checklistItem(t, $0, record: record, blob: blob, state: state) }
        case .mine, .household:
            let mine = collection == .mine
            if let r = t.recurrence {
                return occurrences(t, r, mine: mine, member: member, record: record, blob: blob, state: state)
            }
            if t.status == .open {
                let isMine = t.assignee == member
                guard isMine == mine else { return [] }
                return [taskItem(t, record: record, blob: blob, state: state, turnLine: nil)]
            }
            // Done: in Mine for the member it was assigned to or who completed it, for 14 days.
            guard mine, !record.isHidden("", from: member) else { return [] }
            let doneBy = t.statusStamp?.member
            guard t.assignee == member || doneBy == member else { return [] }
            let doneAt = t.statusStamp?.stamp.wall ?? 0
            guard day(doneAt, state.zone).adding(days: doneDays) >= state.today else { return [] }
            return [taskItem(t, record: record, blob: blob, state: state, turnLine: nil)]
        }
    }

    /// A chore's occurrences in Mine (the member's turns from the earliest open one through
    /// `days` ahead, and what they did in the last 14 days) or Household (the current one when
    /// it is not the member's).
    static func occurrences(
        _ t: Task, _ r: Recurrence, mine: Bool, member: String, record: CalDAVRecord, blob: String, state: DAVState
    ) -> [DAVItem] {
        let schedule = ChoreSchedule(t, recurrence: r, today: state.today, context: state.context)
        let last = state.today.adding(days: state.days)
        var dates: [CivilDate] = []
        if mine {
            let open = schedule.occurrences.afterDone ? (schedule.current.map { [$0] } ?? []) : schedule.upcoming(64)
            for d in open where d <= last && schedule.assignee(on: d) == member { dates.append(d) }
            let since = state.today.adding(days: -doneDays)
            for c in schedule.credits where c.member == member && c.day >= since && !dates.contains(c.occurrence) {
                if !record.isHidden(c.occurrence.description, from: member) { dates.append(c.occurrence) }
            }
            dates.sort()
        } else if let current = schedule.current, schedule.assignee(on: current) != member {
            dates = [current]
        }
        return dates.map { date in
            let v = occurrenceVTodo(t, schedule, date, record: record, member: member)
            let turnLine = mine ? nil : schedule.assignee(on: date).map { "Turn: \($0)" }
            return finish(v, t, name: v.uid + ".ics", kind: .occurrence(date), blob: blob, state: state, turnLine: turnLine)
        }
    }

    static func occurrenceVTodo(_ t: Task, _ schedule: ChoreSchedule, _ date: CivilDate, record: CalDAVRecord, member: String) -> VTodo {
        var v = base(t, record.occurrences[date.description] ?? CalDAVRecord.Entry())
        v.uid = occurrenceUID(t, record: record, date: date)
        v.due = Due(date: date, minutes: t.due?.minutes)
        switch schedule.status(of: date) {
        case .done:
            v.status = .completed
            let credits = schedule.credits(on: date)
            let credit = credits.first { $0.member == member } ?? credits.last
            v.completed = credit?.stamp.stamp.wall ?? t.maxStamp?.wall
        case .skipped: v.status = .cancelled
        case .open, .missed: v.status = .needsAction
        }
        return v
    }

    /// The VTODO an item of `kind` had in task `t` (a base a client started from); nil when
    /// that version has no such item.
    static func vtodo(of t: Task, kind: DAVItemKind, member: String, state: DAVState) -> VTodo? {
        let record = CalDAVRecord(t)
        switch kind {
        case .task:
            return taskVTodo(t, record: record)
        case .occurrence(let date):
            guard let r = t.recurrence else { return nil }
            let schedule = ChoreSchedule(t, recurrence: r, today: state.today, context: state.context)
            return occurrenceVTodo(t, schedule, date, record: record, member: member)
        case .item(let key):
            guard let item = t.checklist.first(where: { $0.key == key }) else { return nil }
            return checklistVTodo(t, item, record: record)
        }
    }

    static func taskVTodo(_ t: Task, record: CalDAVRecord) -> VTodo {
        var v = base(t, record.item)
        v.uid = record.item.uid ?? t.id.hex
        v.due = t.due
        if t.status == .done {
            v.status = .completed
            v.completed = t.statusStamp?.stamp.wall
        }
        return v
    }

    static func taskItem(_ t: Task, record: CalDAVRecord, blob: String, state: DAVState, turnLine: String?) -> DAVItem {
        let v = taskVTodo(t, record: record)
        let name = record.item.href ?? (v.uid + ".ics")
        return finish(v, t, name: name, kind: .task, blob: blob, state: state, turnLine: turnLine)
    }

    static func checklistVTodo(_ t: Task, _ item: ChecklistItem, record: CalDAVRecord) -> VTodo {
        let entry = record.items[item.key] ?? CalDAVRecord.Entry()
        var v = VTodo(uid: entry.uid ?? "\(t.id.hex)-\(item.key)", summary: item.text)
        v.kept = entry.kept
        if item.state == .checked {
            v.status = .completed
            v.completed = item.stamp.stamp.wall
        }
        return v
    }

    static func checklistItem(_ t: Task, _ item: ChecklistItem, record: CalDAVRecord, blob: String, state: DAVState) -> DAVItem {
        let v = checklistVTodo(t, item, record: record)
        let name = record.items[item.key]?.href ?? (v.uid + ".ics")
        return finish(v, t, name: name, kind: .item(item.key), blob: blob, state: state, turnLine: nil, stamp: item.stamp.stamp.wall)
    }

    /// The fields every VTODO of a task shares.
    static func base(_ t: Task, _ entry: CalDAVRecord.Entry) -> VTodo {
        var v = VTodo(uid: t.id.hex, summary: t.title)
        v.notes = t.notes
        v.priority = t.priority
        v.categories = t.tags
        v.alarm = t.alarm
        v.kept = entry.kept
        return v
    }

    static func occurrenceUID(_ t: Task, record: CalDAVRecord, date: CivilDate) -> String {
        (record.item.uid ?? t.id.hex) + "-" + ICalendarText.date(date)
    }

    static func finish(
        _ v: VTodo, _ t: Task, name: String, kind: DAVItemKind, blob: String, state: DAVState, turnLine: String?,
        stamp: Int64? = nil
    ) -> DAVItem {
        let dtstamp = stamp ?? t.maxStamp?.wall ?? 0
        let bytes = v.render(householdZone: state.zone, dtstamp: dtstamp, etagVersion: blob, turnLine: turnLine)
        return DAVItem(name: name, task: t.id, kind: kind, blob: blob, vtodo: v, turnLine: turnLine, bytes: bytes)
    }

    /// The household day of a UTC time in milliseconds.
    static func day(_ millis: Int64, _ zone: TimeZoneRules) -> CivilDate {
        let seconds = millis / 1000
        let local = seconds + Int64(zone.offset(atUTC: seconds).seconds)
        return CivilDate(daysSinceEpoch: Int(local >= 0 ? local / 86_400 : (local - 86_399) / 86_400))
    }
}
