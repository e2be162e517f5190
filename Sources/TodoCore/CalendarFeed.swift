/// `todo calendar`: the household's dates as an RFC 5545 iCalendar feed (docs/FORMAT.md,
/// "The calendar feed"). Everything is derived from the task files, today and the household's
/// zone; the generator keeps no state, so a feed made again names the same events the same way.

/// What a feed holds.
public struct CalendarFeedOptions: Sendable {
    /// Only this member's tasks and turns; nil for the whole household.
    public var member: String?
    /// How many weeks from today.
    public var weeks: Int = 8
    /// VTODOs beside the VEVENTs.
    public var todos = false
    /// Alarms: minutes before a timed event; nil for no alarms.
    public var alarmBefore: Int?
    /// An all-day event's alarm: minutes after the day's midnight.
    public var alarmTimeOfDay = 8 * 60
    /// The feed's name (X-WR-CALNAME).
    public var name = "todo"
    /// A last line for each event's description that tells how to open the task (given its
    /// short id), in the words of the front end that makes the feed; nil for none.
    public var taskReference: (@Sendable (String) -> String)?

    public static let weeksRange = 1...104
    /// How long a done task or occurrence stays on its day.
    public static let doneDays = 14
    /// A timed event's length.
    public static let eventMinutes = 30

    public init() {}
}

/// One event of the feed, before it is written.
struct CalendarItem {
    enum State { case open, overdue(since: CivilDate), done, skipped, missed }

    var uid: String
    var task: Task
    /// The day the event is on; `minutes` its local time, nil for all day.
    var day: CivilDate
    var minutes: Int?
    /// The day it belongs to (the occurrence, or the due date).
    var dueDay: CivilDate
    var state: State
    /// Whose it is: the assignee, or for an occurrence whose turn (a chore's assignee without a
    /// rotation); nil for nobody's, which for a chore means anyone's.
    var who: String?
    /// Who did a done occurrence, in credit order, each name once (case aside).
    var doneBy: [String] = []
    var sequence: Int64
    var lastModified: Int64
    /// An occurrence of a chore (read once per task: `Task.recurrence` parses the rule).
    var chore: Bool
}

public enum CalendarFeed {
    /// The seconds from 1970 to 2020-01-01: SEQUENCE counts seconds from there, so that it fits
    /// a 32-bit integer (as clients hold it) until 2088.
    static let sequenceEpoch: Int64 = 1_577_836_800

    /// The feed's bytes (CRLF lines, folded, UTF-8). `today` and `minuteOfDay` are the
    /// household zone's; `nowMillis` is DTSTAMP.
    public static func render(
        _ tasks: [Task], options: CalendarFeedOptions, zone: TimeZoneRules, today: CivilDate, nowMillis: Int64,
        context: TurnContext
    ) -> [UInt8] {
        let items = collect(tasks, options: options, today: today, context: context)
        var out: [UInt8] = []
        out.reserveCapacity(items.count * 420 + 1024)
        func line(_ s: String) { ICalendarText.appendLine(s, to: &out) }
        line("BEGIN:VCALENDAR")
        line("VERSION:2.0")
        line("PRODID:-//todo//todo calendar//EN")
        line("CALSCALE:GREGORIAN")
        line("METHOD:PUBLISH")
        line("X-WR-CALNAME:" + ICalendarText.escape(options.name))
        line("X-WR-TIMEZONE:" + ICalendarText.escape(zone.name))
        if items.contains(where: { $0.minutes != nil }) {
            timeZone(zone, from: today.adding(days: -CalendarFeedOptions.doneDays - 2),
                to: today.adding(days: 7 * options.weeks + 2), line: line)
        }
        let stamp = ICalendarText.utc(nowMillis)
        for item in items {
            event(item, options: options, zone: zone.name, dtstamp: stamp, line: line)
            if options.todos { todo(item, options: options, zone: zone.name, dtstamp: stamp, line: line) }
        }
        line("END:VCALENDAR")
        return out
    }

    /// Whether `task` can give the feed an event (its stamps are needed then); decided from the
    /// fields the list cache keeps.
    public static func mayHaveEvents(_ task: Task, options: CalendarFeedOptions, today: CivilDate) -> Bool {
        guard !task.deleted else { return false }
        if task.isChore { return task.status == .open }
        guard let due = task.due else { return false }
        if let member = options.member, task.assignee != member { return false }
        let end = today.adding(days: 7 * options.weeks - 1)
        if task.status == .done { return due.date >= today.adding(days: -CalendarFeedOptions.doneDays) && due.date <= end }
        return due.date <= end
    }

    /// The events, in order of day, time and UID.
    static func collect(_ tasks: [Task], options: CalendarFeedOptions, today: CivilDate, context: TurnContext) -> [CalendarItem] {
        let end = today.adding(days: 7 * options.weeks - 1)
        let oldest = today.adding(days: -CalendarFeedOptions.doneDays)
        let todaySeq = (Int64(today.daysSinceEpoch) * 86_400 - sequenceEpoch)
        var items: [CalendarItem] = []
        for task in tasks where !task.deleted {
            let recurrence = task.recurrence
            let chore = recurrence != nil
            let modified = task.maxStamp?.wall ?? 0
            let baseSeq = max(0, modified / 1000 - sequenceEpoch)
            func add(_ uid: String, _ dueDay: CivilDate, _ state: CalendarItem.State, who: String?, doneBy: [String] = []) {
                if let member = options.member, who != member { return }
                var day = dueDay
                var minutes = task.due?.minutes
                var seq = baseSeq
                if case .overdue = state {
                    // Shown on today, all day: it moves every day until it is done.
                    day = today
                    minutes = nil
                    seq = max(seq, todaySeq)
                }
                items.append(CalendarItem(
                    uid: uid, task: task, day: day, minutes: minutes, dueDay: dueDay, state: state, who: who,
                    doneBy: doneBy, sequence: seq, lastModified: modified, chore: chore))
            }
            if let r = recurrence {
                guard task.status == .open else { continue }
                let s = ChoreSchedule(task, recurrence: r, today: today, context: context)
                let current = s.current
                let occurrences = s.occurrences
                var d = occurrences.first(onOrAfter: min(oldest, current ?? oldest))
                var steps = 0
                // From the current occurrence when it is older than the window (a catch-up
                // chore behind), else from the window's start; the count of steps is bounded.
                // A chore that repeats from when it was done has no dates after its current
                // one yet: they move with the day it is done.
                let last = occurrences.afterDone ? min(end, current ?? end) : end
                while let date = d, date <= last, steps < 4_000 {
                    let uid = "\(task.id.hex)-\(ICalendarText.date(date))@todo"
                    let who = s.assignee(on: date)
                    switch s.status(of: date) {
                    case .open:
                        // A catch-up chore far behind: its current occurrence stands for the
                        // older open ones (one overdue event, not one per day behind).
                        if date < oldest && date != current { break }
                        add(uid, date, date < today ? .overdue(since: date) : .open, who: who)
                    case .done:
                        if date >= oldest { add(uid, date, .done, who: who, doneBy: names(s.credits(on: date))) }
                    case .skipped:
                        if date >= oldest { add(uid, date, .skipped, who: who) }
                    case .missed:
                        if date >= oldest { add(uid, date, .missed, who: who) }
                    }
                    d = occurrences.next(after: date)
                    steps += 1
                }
            } else if let due = task.due {
                let uid = "\(task.id.hex)@todo"
                if task.status == .done {
                    if due.date >= oldest && due.date <= end { add(uid, due.date, .done, who: task.assignee) }
                } else if due.date < today {
                    add(uid, due.date, .overdue(since: due.date), who: task.assignee)
                } else if due.date <= end {
                    add(uid, due.date, .open, who: task.assignee)
                }
            }
        }
        items.sort {
            if $0.day != $1.day { return $0.day < $1.day }
            if ($0.minutes ?? -1) != ($1.minutes ?? -1) { return ($0.minutes ?? -1) < ($1.minutes ?? -1) }
            return $0.uid < $1.uid
        }
        return items
    }

    /// The members of `credits`, in order, each once (the first spelling, case aside).
    static func names(_ credits: [Credit]) -> [String] {
        var seen = Set<String>()
        return credits.map(\.member).filter { seen.insert($0.lowercased()).inserted }
    }

    /// A chore occurrence nobody's turn and no assignee's is anyone's.
    static let anyone = "anyone"

    static func summary(_ item: CalendarItem) -> String {
        var s: String
        switch item.state {
        case .open: s = ""
        case .overdue(let since): s = "Overdue since \(since): "
        case .done: s = "Done: "
        case .skipped: s = "Skipped: "
        case .missed: s = "Missed: "
        }
        s += item.task.title
        if item.chore, !item.doneBy.isEmpty {
            s += " (\(item.who ?? anyone)'s turn, done by \(item.doneBy.joined(separator: ", ")))"
        } else if item.chore {
            s += " (\(item.who ?? "\(anyone)'s"))"
        } else if let who = item.who {
            s += " (\(who))"
        }
        return s
    }

    static func description(_ item: CalendarItem, reference: (@Sendable (String) -> String)?) -> String {
        var lines: [String] = []
        if item.chore {
            lines.append(
                "Occurrence of \(item.dueDay), \(item.who ?? anyone)'s turn"
                    + (item.doneBy.isEmpty ? "" : "; done by " + item.doneBy.joined(separator: ", ")))
        } else if let who = item.who {
            lines.append("Assigned to \(who)")
        }
        if case .overdue(let since) = item.state { lines.append("Overdue since \(since)") }
        if !item.task.notes.isEmpty { lines.append(item.task.notes) }
        if let reference { lines.append(reference(String(item.task.id.hex.prefix(8)))) }
        return lines.joined(separator: "\n")
    }

    static func start(_ item: CalendarItem, zone: String) -> [String] {
        if let m = item.minutes {
            // A length rather than an end time: a due time in the hour a spring change skips
            // (02:30 on the last Sunday of March in Paris) is read as after the change, and a
            // local end time would then come before it.
            return [
                "DTSTART;TZID=\(zone):" + ICalendarText.localTime(item.day, minutes: m),
                "DURATION:" + ICalendarText.duration(minutes: CalendarFeedOptions.eventMinutes),
            ]
        }
        return [
            "DTSTART;VALUE=DATE:" + ICalendarText.date(item.day),
            "DTEND;VALUE=DATE:" + ICalendarText.date(item.day.adding(days: 1)),
        ]
    }

    static func common(_ item: CalendarItem, options: CalendarFeedOptions, dtstamp: String, line: (String) -> Void) {
        line("UID:" + item.uid)
        line("DTSTAMP:" + dtstamp)
        line("SEQUENCE:\(item.sequence)")
        if item.lastModified > 0 { line("LAST-MODIFIED:" + ICalendarText.utc(item.lastModified)) }
        line("SUMMARY:" + ICalendarText.escape(DisplayText.invisiblesShown(summary(item))))
        line("DESCRIPTION:" + ICalendarText.escape(DisplayText.invisiblesShown(description(item, reference: options.taskReference))))
        if item.task.priority == .high { line("PRIORITY:1") }
        line("CATEGORIES:" + (item.chore ? "Chore" : "Task"))
    }

    static func event(
        _ item: CalendarItem, options: CalendarFeedOptions, zone: String, dtstamp: String, line: (String) -> Void
    ) {
        line("BEGIN:VEVENT")
        common(item, options: options, dtstamp: dtstamp, line: line)
        for s in start(item, zone: zone) { line(s) }
        line("TRANSP:TRANSPARENT")
        switch item.state {
        case .skipped: line("STATUS:CANCELLED")
        default: line("STATUS:CONFIRMED")
        }
        if let trigger = alarmTrigger(item, options: options), isOpen(item.state) {
            line("BEGIN:VALARM")
            line("ACTION:DISPLAY")
            line("DESCRIPTION:" + ICalendarText.escape(DisplayText.invisiblesShown(item.task.title)))
            line("TRIGGER;RELATED=START:" + ICalendarText.duration(minutes: trigger))
            line("END:VALARM")
        }
        line("END:VEVENT")
    }

    /// The alarm's minutes from the event's start: the task's own alarm when it has one, else the
    /// feed's (an all-day event's at the member's time of day, counted from its midnight); nil for none.
    static func alarmTrigger(_ item: CalendarItem, options: CalendarFeedOptions) -> Int? {
        if let own = item.task.alarm { return own.trigger(start: item.minutes) }
        guard let before = options.alarmBefore else { return nil }
        return item.minutes == nil ? options.alarmTimeOfDay : -before
    }

    static func isOpen(_ state: CalendarItem.State) -> Bool {
        switch state {
        case .open, .overdue: true
        default: false
        }
    }

    static func todo(_ item: CalendarItem, options: CalendarFeedOptions, zone: String, dtstamp: String, line: (String) -> Void) {
        line("BEGIN:VTODO")
        var copy = item
        copy.uid = String(item.uid.dropLast(5)) + "-todo@todo"
        common(copy, options: options, dtstamp: dtstamp, line: line)
        if let m = item.minutes {
            line("DUE;TZID=\(zone):" + ICalendarText.localTime(item.dueDay, minutes: m))
        } else {
            line("DUE;VALUE=DATE:" + ICalendarText.date(item.dueDay))
        }
        switch item.state {
        case .done: line("STATUS:COMPLETED")
        case .skipped, .missed: line("STATUS:CANCELLED")
        default: line("STATUS:NEEDS-ACTION")
        }
        line("END:VTODO")
    }

    /// A VTIMEZONE for `zone` that covers the feed's days: the offset in force at its start, then
    /// each change of offset (the tz database's own, so past and future rule changes are right).
    static func timeZone(_ zone: TimeZoneRules, from: CivilDate, to: CivilDate, line: (String) -> Void) {
        let start = Int64(from.daysSinceEpoch) * 86_400
        let end = Int64(to.daysSinceEpoch) * 86_400
        let first = zone.offset(atUTC: start)
        line("BEGIN:VTIMEZONE")
        line("TZID:" + zone.name)
        func observance(_ onset: Int64, _ from: ZoneOffset, _ to: ZoneOffset) {
            let kind = to.isDST ? "DAYLIGHT" : "STANDARD"
            let local = onset + Int64(from.seconds)
            let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
            let inDay = Int(local - days * 86_400)
            line("BEGIN:\(kind)")
            line("DTSTART:" + ICalendarText.localTime(CivilDate(daysSinceEpoch: Int(days)), minutes: inDay / 60, seconds: inDay % 60))
            line("TZOFFSETFROM:" + ICalendarText.offset(from.seconds))
            line("TZOFFSETTO:" + ICalendarText.offset(to.seconds))
            if !to.abbreviation.isEmpty { line("TZNAME:" + ICalendarText.escape(to.abbreviation)) }
            line("END:\(kind)")
        }
        observance(start, first, first)
        for t in zone.transitions(from: start + 1, to: end) { observance(t.utc, t.from, t.to) }
        line("END:VTIMEZONE")
    }

    /// Every name the household uses for a member: assignees, rotations, take-overs, who added,
    /// changed or completed a task (the members who made its commits).
    public static func members(_ tasks: [Task]) -> Set<String> {
        var names = Set<String>()
        for t in tasks {
            if let a = t.assignee { names.insert(a) }
            names.insert(t.createdBy)
            for s in t.stamps.values { names.insert(s.member) }
            for s in t.tagStates.values { names.insert(s.stamp.member) }
            guard t.isChore else { continue }
            for n in t.rotation { names.insert(n) }
            for e in t.turnEntries.values where !e.member.isEmpty { names.insert(e.member) }
            for c in t.completions { names.insert(c.member) }
            for e in t.occurrenceEntries.values { names.insert(e.stamp.member) }
        }
        names.remove("")
        return names
    }
}
