/// One to-do as CalDAV clients exchange it (an RFC 5545 VTODO), in the terms of a task: the
/// mapping both ways, as docs/CALDAV.md ("The mapping") states it. Reading turns a client's
/// VCALENDAR into a `VTodo` (or refuses it with a reason); rendering writes a whole VCALENDAR
/// with `ICalendarText`'s rules. What the mapping does not hold is kept as the client's own
/// content lines and given back unchanged, so a client does not see its data vanish.
public struct VTodo: Equatable, Sendable {
    /// The UID, unescaped.
    public var uid: String
    /// The title: SUMMARY, trimmed.
    public var summary: String
    public var notes: String
    public var due: Due?
    public var priority: Priority
    /// Tags: every CATEGORIES value, trimmed, empty ones dropped, each once, in order.
    public var categories: [String]
    public var status: VTodoStatus
    /// When it was completed (milliseconds since the epoch); only with `status` `.completed`.
    public var completed: Int64?
    /// The repeat rule in the project's canonical form (`3d`, `week`, `mon,thu`, `2months`), when
    /// the RRULE is one the mapping holds; nil otherwise.
    public var rrule: String?
    /// The RRULE value(s) as written (one a line), when the rule is one the mapping does not hold:
    /// the caller refuses it, naming it.
    public var rruleText: String?
    public var alarm: TaskAlarm?
    /// X-TODO-VERSION: the version of the task a client's copy was rendered from.
    public var version: String?
    /// Content lines the mapping does not hold, unfolded, as the client wrote them: property
    /// lines first, then whole components (a VALARM as its BEGIN … END lines).
    public var kept: [String]

    public init(
        uid: String, summary: String, notes: String = "", due: Due? = nil, priority: Priority = .normal,
        categories: [String] = [], status: VTodoStatus = .needsAction, completed: Int64? = nil, rrule: String? = nil,
        rruleText: String? = nil, alarm: TaskAlarm? = nil, version: String? = nil, kept: [String] = []
    ) {
        self.uid = uid
        self.summary = summary
        self.notes = notes
        self.due = due
        self.priority = priority
        self.categories = categories
        self.status = status
        self.completed = completed
        self.rrule = rrule
        self.rruleText = rruleText
        self.alarm = alarm
        self.version = version
        self.kept = kept
    }

    /// Properties the mapping reads or the renderer writes: never kept.
    static let mapped: Set<String> = [
        "UID", "DTSTAMP", "SUMMARY", "DESCRIPTION", "DUE", "PRIORITY", "CATEGORIES", "STATUS", "COMPLETED",
        "PERCENT-COMPLETE", "RRULE", "LAST-MODIFIED", "CREATED", "SEQUENCE",
    ]

    static func isMapped(_ name: String) -> Bool { mapped.contains(name) || name.hasPrefix("X-TODO-") }

    /// Components that are never inside a VTODO's kept lines.
    static let structural: Set<String> = ["VCALENDAR", "VTODO", "VEVENT", "VJOURNAL", "VFREEBUSY", "VTIMEZONE"]
}

/// A VTODO's STATUS.
public enum VTodoStatus: String, Equatable, Sendable, CaseIterable {
    case needsAction = "NEEDS-ACTION"
    case inProcess = "IN-PROCESS"
    case completed = "COMPLETED"
    case cancelled = "CANCELLED"
}

// MARK: Reading

extension VTodo {
    /// The to-do of a client's VCALENDAR (from `ICalendarReader.parse`).
    ///
    /// - It must hold exactly one VTODO (VTIMEZONEs are ignored: a TZID is read with the tz
    ///   database's rules for its name, through `zoneNamed`; one it does not know is household
    ///   time); with UID and a SUMMARY that is not blank. UID, SUMMARY and CATEGORIES may not
    ///   hold line breaks or control characters.
    /// - DESCRIPTION is the notes; when its first line is exactly `generatedTurnLine` (the line
    ///   the server wrote above the notes), that line and one empty line after it are taken off.
    /// - PRIORITY 1–4 is high, 0, 5 or none normal, 6–9 low; anything else is refused.
    /// - STATUS NEEDS-ACTION, IN-PROCESS, COMPLETED or CANCELLED; none is NEEDS-ACTION, or
    ///   COMPLETED when there is a COMPLETED time. The COMPLETED time is kept only when completed.
    /// - RRULE: see `repeatRule`; with RDATE, EXDATE or EXRULE beside it, or several RRULEs, it
    ///   is not held (`rruleText`).
    /// - The first VALARM (ACTION DISPLAY or AUDIO) whose TRIGGER is a duration of 1 minute to 7
    ///   days before DUE (RELATED=END; or no RELATED, or START, when there is no DTSTART) is
    ///   `alarm` `.before`; one whose TRIGGER is a DATE-TIME on the due day (household time) is
    ///   `.timeOfDay`. Every other VALARM, and any other component, is kept whole. A VALARM
    ///   whose TRIGGER cannot be placed in time (`alarmProblem`) refuses the whole to-do.
    /// - A repeated single property (a second SUMMARY, DUE, …) is dropped; DTSTAMP, CREATED,
    ///   LAST-MODIFIED, SEQUENCE, PERCENT-COMPLETE and X-TODO-* other than X-TODO-VERSION are
    ///   dropped; every other property line is kept.
    public static func read(
        _ calendar: ICalComponent, householdZone: TimeZoneRules, zoneNamed: (String) -> TimeZoneRules?,
        generatedTurnLine: String?
    ) throws(ICalendarError) -> VTodo {
        guard calendar.name == "VCALENDAR" else { throw ICalendarError("not an iCalendar object") }
        var found: ICalComponent?
        for c in calendar.components {
            switch c.name {
            case "VTIMEZONE": continue
            case "VTODO" where found == nil: found = c
            case "VTODO": throw ICalendarError("one to-do per item: the object holds a second VTODO")
            default: throw ICalendarError("one to-do per item: the object holds a \(c.name)")
            }
        }
        guard let todo = found else { throw ICalendarError("the object holds no VTODO") }

        var v = VTodo(uid: "", summary: "")
        var seen = Set<String>()
        var keptLines: [String] = []
        var rrules: [String] = []
        var recurrenceBeside = false
        var statusText: String?
        var completedAt: Int64?
        var tags = Set<String>()
        var uid: String?
        func plain(_ text: String, _ name: String) throws(ICalendarError) -> String {
            guard !ICalendarReader.hasControl(text) else {
                throw ICalendarError("\(name) holds a line break or a control character")
            }
            return text
        }
        for p in todo.properties {
            switch p.name {
            case "UID", "SUMMARY", "DESCRIPTION", "DUE", "PRIORITY", "STATUS", "COMPLETED":
                guard seen.insert(p.name).inserted else { continue }
                switch p.name {
                case "UID": uid = try plain(p.textValue, "UID")
                case "SUMMARY": v.summary = try plain(p.textValue, "SUMMARY").trimmingSpaces
                case "DESCRIPTION": v.notes = withoutTurnLine(p.textValue, generatedTurnLine)
                case "DUE": v.due = try p.due(householdZone: householdZone, zoneNamed: zoneNamed)
                case "PRIORITY": v.priority = try priority(p.value)
                case "STATUS": statusText = p.value.trimmingSpaces.uppercased()
                default: completedAt = try p.utcMillis(householdZone: householdZone, zoneNamed: zoneNamed)
                }
            case "CATEGORIES":
                for t in p.textList {
                    let tag = try plain(t, "CATEGORIES").trimmingSpaces
                    if !tag.isEmpty && tags.insert(tag).inserted { v.categories.append(tag) }
                }
            case "RRULE": rrules.append(p.value)
            case "X-TODO-VERSION":
                if v.version == nil { v.version = p.textValue }
            case "RDATE", "EXDATE", "EXRULE":
                recurrenceBeside = true
                keptLines.append(p.line)
            default:
                if !isMapped(p.name) { keptLines.append(p.line) }
            }
        }
        guard let uid, !uid.isEmpty else { throw ICalendarError("the VTODO has no UID") }
        v.uid = uid
        guard !v.summary.isEmpty else { throw ICalendarError("the VTODO has no SUMMARY (a to-do needs a title)") }
        if let statusText {
            guard let s = VTodoStatus(rawValue: statusText) else {
                throw ICalendarError("STATUS must be NEEDS-ACTION, IN-PROCESS, COMPLETED or CANCELLED")
            }
            v.status = s
        } else if completedAt != nil {
            v.status = .completed
        }
        if v.status == .completed { v.completed = completedAt }
        if rrules.count == 1, !recurrenceBeside, let rule = repeatRule(rrules[0]) {
            v.rrule = rule
        } else if !rrules.isEmpty {
            v.rruleText = rrules.joined(separator: "\n")
        }
        let hasStart = todo.first("DTSTART") != nil
        var keptComponents: [String] = []
        var alarms = 0
        for c in todo.components where c.name == "VALARM" {
            alarms += 1
            if let problem = alarmProblem(c) {
                throw ICalendarError("alarm \(alarms) (VALARM \(problem)) cannot be placed in time: an alarm's TRIGGER is a duration of at most one year (366 days) or a date-time from 1970-01-01 through 2199-12-31")
            }
        }
        for c in todo.components {
            if c.name == "VALARM", v.alarm == nil,
                let a = alarm(c, due: v.due, hasStart: hasStart, householdZone: householdZone, zoneNamed: zoneNamed)
            {
                v.alarm = a
            } else {
                keptComponents += c.lines
            }
        }
        v.kept = keptLines + keptComponents
        return v
    }

    /// The notes: DESCRIPTION without the server's first line and the empty line after it (as
    /// written, or with its invisible characters shown, as the server serves it).
    static func withoutTurnLine(_ text: String, _ turn: String?) -> String {
        guard let turn else { return text }
        let shown = DisplayText.invisiblesShown(turn)
        if shown != turn {
            let stripped = withoutTurnLine(text, shown)
            if stripped != text { return stripped }
        }
        if text.utf8.elementsEqual(turn.utf8) { return "" }
        let head = Array(turn.utf8) + [0x0A]
        guard text.utf8.starts(with: head) else { return text }
        var rest = text.utf8.dropFirst(head.count)
        if rest.first == 0x0A { rest = rest.dropFirst() }
        return String(decoding: rest, as: UTF8.self)
    }

    static func priority(_ value: String) throws(ICalendarError) -> Priority {
        let t = value.trimmingSpaces
        guard t.utf8.count <= 2, let n = digits(ArraySlice(t.utf8)), n <= 9 else {
            throw ICalendarError("PRIORITY must be a number from 0 to 9")
        }
        switch n {
        case 1...4: return .high
        case 6...9: return .low
        default: return .normal
        }
    }

    static let byDayNames = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]

    /// The canonical repeat rule of an RRULE the mapping holds: FREQ=DAILY, WEEKLY or MONTHLY,
    /// with INTERVAL 1–999, and for WEEKLY with INTERVAL 1 a BYDAY list of plain weekdays
    /// (`MO,TH`, no ordinals); WKST is allowed and ignored. nil for every other rule (COUNT,
    /// UNTIL, BYMONTHDAY, YEARLY, …).
    public static func repeatRule(_ rrule: String) -> String? {
        var freq: String?
        var interval: Int?
        var days: UInt8?
        var week = false
        for part in rrule.trimmingSpaces.uppercased().split(separator: ";") {
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard kv.count == 2 else { return nil }
            switch kv[0] {
            case "FREQ":
                guard freq == nil else { return nil }
                freq = String(kv[1])
            case "INTERVAL":
                guard interval == nil, kv[1].utf8.count <= 3, let n = digits(ArraySlice(kv[1].utf8)),
                    (1...RepeatRule.maxInterval).contains(n)
                else { return nil }
                interval = n
            case "BYDAY":
                guard days == nil else { return nil }
                var mask: UInt8 = 0
                for d in kv[1].split(separator: ",", omittingEmptySubsequences: false) {
                    guard let w = byDayNames.firstIndex(of: String(d)) else { return nil }
                    mask |= 1 << UInt8(w)
                }
                days = mask
            case "WKST":
                guard !week, byDayNames.contains(String(kv[1])) else { return nil }
                week = true
            default: return nil
            }
        }
        let n = interval ?? 1
        let kind: RepeatRule.Kind
        switch (freq, days) {
        case ("DAILY", nil): kind = .days(n)
        case ("WEEKLY", nil): kind = .weeks(n)
        case ("WEEKLY", let mask?) where n == 1: kind = .weekdays(mask)
        case ("MONTHLY", nil): kind = .months(n)
        default: return nil
        }
        return RepeatRule(kind).description
    }

    /// The RRULE of a canonical repeat rule; nil for one an RRULE read back would not give
    /// (a day of the month, which RRULE's BYMONTHDAY does not clamp to short months).
    public static func rrule(_ canonical: String) -> String? {
        guard let rule = RepeatRule(canonical), rule.isValid else { return nil }
        func every(_ freq: String, _ n: Int) -> String { "FREQ=" + freq + (n == 1 ? "" : ";INTERVAL=\(n)") }
        switch rule.kind {
        case .days(let n): return every("DAILY", n)
        case .weeks(let n): return every("WEEKLY", n)
        case .months(let n): return every("MONTHLY", n)
        case .weekdays(let mask):
            return "FREQ=WEEKLY;BYDAY="
                + [1, 2, 3, 4, 5, 6, 0].filter { mask & (1 << UInt8($0)) != 0 }.map { byDayNames[$0] }.joined(separator: ",")
        case .monthDay: return nil
        }
    }

    /// The alarm a VALARM maps to; nil when it is one to keep as it is.
    static func alarm(
        _ c: ICalComponent, due: Due?, hasStart: Bool, householdZone: TimeZoneRules,
        zoneNamed: (String) -> TimeZoneRules?
    ) -> TaskAlarm? {
        guard let action = c.first("ACTION")?.value.trimmingSpaces.uppercased(), action == "DISPLAY" || action == "AUDIO",
            let trigger = c.first("TRIGGER")
        else { return nil }
        if trigger.param("VALUE")?.uppercased() == "DATE-TIME" {
            // A trigger that is not a valid date-time is not an alarm the mapping holds: kept.
            guard let due, let at = try? trigger.dateTime(), at.seconds != nil else { return nil }
            let local = at.householdWall(householdZone: householdZone, zoneNamed: zoneNamed)
            guard Millis.floorDiv(local, 86_400) == Int64(due.date.daysSinceEpoch) else { return nil }
            return .timeOfDay(minutes: Int(Millis.floorMod(local, 86_400) / 60))
        }
        let related = trigger.param("RELATED")?.uppercased() ?? "START"
        guard related == "END" || (related == "START" && !hasStart), let s = duration(trigger.value), s < 0, s % 60 == 0,
            (1...Int64(TaskAlarm.maximumMinutes)).contains(-s / 60)
        else { return nil }
        return .before(minutes: Int(-s / 60))
    }

    /// The longest alarm trigger duration kept: one year (366 days), either way.
    public static let maxTriggerSeconds: Int64 = 366 * 86_400

    /// What makes a VALARM impossible to place in time, as its TRIGGER line; nil when its
    /// trigger is a duration of at most a year or a date-time within `DateBounds`, or it has
    /// no TRIGGER. Such an alarm is refused from a client and left out when served.
    public static func alarmProblem(_ c: ICalComponent) -> String? {
        guard let trigger = c.first("TRIGGER") else { return nil }
        if trigger.param("VALUE")?.uppercased() == "DATE-TIME" {
            // A value that is no date-time cannot be placed in time: that is the answer.
            if let at = try? trigger.dateTime(), DateBounds.contains(at.date) { return nil }
        } else if let s = duration(trigger.value), abs(s) <= maxTriggerSeconds {
            return nil
        }
        let line = trigger.line
        return line.utf8.count <= 80 ? line : String(line.prefix(77)) + "..."
    }

    /// A DURATION value (`-PT30M`, `P1DT2H`, `-P1W`) in seconds; nil when it is not one.
    public static func duration(_ value: String) -> Int64? {
        let u = Array(value.trimmingSpaces.utf8)
        var i = 0
        var sign: Int64 = 1
        if i < u.count, u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") {
            if u[i] == UInt8(ascii: "-") { sign = -1 }
            i += 1
        }
        guard i < u.count, u[i] == UInt8(ascii: "P") else { return nil }
        i += 1
        var total: Int64 = 0
        var inTime = false
        var units = 0
        var lastRank = -1
        while i < u.count {
            if u[i] == UInt8(ascii: "T") {
                guard !inTime else { return nil }
                inTime = true
                i += 1
                guard i < u.count else { return nil }
                continue
            }
            let from = i
            while i < u.count, u[i] >= 0x30, u[i] <= 0x39 { i += 1 }
            guard i > from, i - from <= 7, i < u.count, let n = digits(u[from..<i]) else { return nil }
            let rank: Int
            let unit: Int64
            switch (u[i], inTime) {
            case (UInt8(ascii: "W"), false): (rank, unit) = (0, 604_800)
            case (UInt8(ascii: "D"), false): (rank, unit) = (1, 86_400)
            case (UInt8(ascii: "H"), true): (rank, unit) = (2, 3600)
            case (UInt8(ascii: "M"), true): (rank, unit) = (3, 60)
            case (UInt8(ascii: "S"), true): (rank, unit) = (4, 1)
            default: return nil
            }
            guard rank > lastRank else { return nil }
            lastRank = rank
            total += Int64(n) * unit
            units += 1
            i += 1
        }
        guard units > 0 else { return nil }
        return sign * total
    }
}

// MARK: Writing

extension VTodo {
    /// The whole VCALENDAR of this to-do (CRLF lines, folded, UTF-8); the same to-do and
    /// arguments give the same bytes.
    ///
    /// VERSION and PRODID; a VTIMEZONE of the household zone when DUE has a time (or a kept line
    /// names the zone's TZID); then the VTODO: UID, DTSTAMP, SUMMARY, DESCRIPTION (`turnLine`,
    /// an empty line, the notes; left out when there is nothing to say), DUE (`VALUE=DATE`; a
    /// time in the household zone's TZID, or UTC when the zone has one fixed offset), PRIORITY
    /// (1 high, 9 low, none normal), CATEGORIES (one line), STATUS, COMPLETED and
    /// PERCENT-COMPLETE:100 when completed, RRULE, X-TODO-VERSION, the kept property lines, the
    /// alarm's VALARM (a time of day only when there is a due date), the kept components.
    /// `turnLine` must be one line.
    ///
    /// Kept lines come from clients and task files, so only well-formed ones are written: a
    /// line with a control character, too long, not a content line, or naming a property the
    /// renderer writes is left out, a component is written only when it is not a calendar's
    /// own (VTODO, VEVENT, …) and unbalanced BEGIN/END are mended; DURATION is left out when
    /// there is a DUE (a VTODO has one or the other), and so is a VALARM whose TRIGGER cannot
    /// be placed in time (`alarmProblem`). Bidirectional controls and zero-width characters in
    /// SUMMARY, DESCRIPTION and CATEGORIES are written visibly, as the feed writes them
    /// (`DisplayText.invisiblesShown`).
    public func render(
        householdZone: TimeZoneRules, dtstamp: Int64, etagVersion: String?, turnLine: String?,
        prodID: String = "-//todo//caldav//EN"
    ) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024 + kept.reduce(0) { $0 + $1.utf8.count + 8 })
        func line(_ s: String) { ICalendarText.appendLine(s, to: &out) }
        let (keptProperties, keptComponents, namesZone) = Self.checkedKept(
            kept, hasDue: due != nil, zoneName: householdZone.name)
        let utcDue = householdZone.isFixedOffset
        line("BEGIN:VCALENDAR")
        line("VERSION:2.0")
        line("PRODID:" + ICalendarText.escape(prodID))
        if (due?.minutes != nil && !utcDue) || namesZone {
            let center = due?.date ?? CivilDate(daysSinceEpoch: Int(Millis.floorDiv(dtstamp, 86_400_000)))
            CalendarFeed.timeZone(householdZone, from: center.adding(days: -366), to: center.adding(days: 366), line: line)
        }
        line("BEGIN:VTODO")
        line("UID:" + Self.oneLine(uid))
        line("DTSTAMP:" + ICalendarText.utc(dtstamp))
        line("SUMMARY:" + Self.oneLine(DisplayText.invisiblesShown(summary)))
        let description = turnLine.map { notes.isEmpty ? $0 : $0 + "\n\n" + notes } ?? notes
        if !description.isEmpty { line("DESCRIPTION:" + ICalendarText.escape(DisplayText.invisiblesShown(description))) }
        if let due {
            if let m = due.minutes {
                let local = Int64(due.date.daysSinceEpoch) * 86_400 + Int64(m) * 60
                if utcDue {
                    line("DUE:" + ICalendarText.utc(householdZone.utc(fromLocal: local) * 1000))
                } else {
                    line("DUE;TZID=\(householdZone.name):" + ICalendarText.localTime(due.date, minutes: m))
                }
            } else {
                line("DUE;VALUE=DATE:" + ICalendarText.date(due.date))
            }
        }
        switch priority {
        case .high: line("PRIORITY:1")
        case .low: line("PRIORITY:9")
        case .normal: break
        }
        if !categories.isEmpty {
            line("CATEGORIES:" + categories.map { Self.oneLine(DisplayText.invisiblesShown($0)) }.joined(separator: ","))
        }
        line("STATUS:" + status.rawValue)
        if status == .completed {
            if let completed { line("COMPLETED:" + ICalendarText.utc(completed)) }
            line("PERCENT-COMPLETE:100")
        }
        if let rrule, let text = Self.rrule(rrule) {
            line("RRULE:" + text)
        } else if rrule == nil, let rruleText {
            for r in rruleText.split(separator: "\n") where !r.isEmpty && !ICalendarReader.hasControl(String(r)) {
                line("RRULE:" + r)
            }
        }
        if let etagVersion { line("X-TODO-VERSION:" + Self.oneLine(etagVersion)) }
        for l in keptProperties { line(l) }
        if let alarm, let trigger = trigger(alarm, householdZone: householdZone) {
            line("BEGIN:VALARM")
            line("ACTION:DISPLAY")
            line("DESCRIPTION:" + Self.oneLine(DisplayText.invisiblesShown(summary)))
            line(trigger)
            line("END:VALARM")
        }
        for l in keptComponents { line(l) }
        line("END:VTODO")
        line("END:VCALENDAR")
        return out
    }

    /// The TRIGGER line of `alarm`; nil for a time of day without a due date.
    func trigger(_ alarm: TaskAlarm, householdZone: TimeZoneRules) -> String? {
        switch alarm {
        case .before(let m):
            return "TRIGGER;RELATED=END:" + ICalendarText.duration(minutes: -m)
        case .timeOfDay(let m):
            guard let due else { return nil }
            let local = Int64(due.date.daysSinceEpoch) * 86_400 + Int64(m) * 60
            return "TRIGGER;VALUE=DATE-TIME:" + ICalendarText.utc(householdZone.utc(fromLocal: local) * 1000)
        }
    }

    /// An escaped TEXT value that stays one line (a line break or a tab becomes a space), for
    /// the properties `read` refuses them in.
    static func oneLine(_ text: String) -> String {
        ICalendarText.escape(String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 }))
    }

    /// The kept lines fit to write: property lines, component lines, and whether one of them
    /// names the household zone's TZID (its VTIMEZONE is then written).
    static func checkedKept(_ kept: [String], hasDue: Bool, zoneName: String) -> ([String], [String], Bool) {
        var properties: [String] = []
        var components: [String] = []
        var open: [String] = []
        var skipping = 0
        var namesZone = false
        // A VALARM of the VTODO's own, from where its lines start, with its properties: one
        // that cannot be placed in time is left out whole (`alarmProblem`).
        var alarm: (start: Int, properties: [ICalProperty])?
        func closeAlarm() {
            guard let a = alarm else { return }
            alarm = nil
            if alarmProblem(ICalComponent(name: "VALARM", properties: a.properties)) != nil {
                components.removeSubrange(a.start...)
            }
        }
        for l in kept {
            guard l.utf8.count <= ICalendarReader.maxLineBytes, !l.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }),
                // A line that is not a content line is not written: nothing else is right for it.
                let p = try? ICalendarReader.parseLine(ArraySlice(l.utf8), number: 0)
            else { continue }
            switch p.name {
            case "BEGIN":
                let name = p.value.trimmingSpaces.uppercased()
                if skipping > 0 || !ICalendarReader.isName(name.utf8) || structural.contains(name)
                    || open.count >= ICalendarReader.maxDepth - 2
                {
                    skipping += 1
                    continue
                }
                if open.isEmpty, name == "VALARM" { alarm = (components.count, []) }
                open.append(name)
                components.append("BEGIN:" + name)
            case "END":
                let name = p.value.trimmingSpaces.uppercased()
                if skipping > 0 {
                    skipping -= 1
                } else if open.last == name {
                    open.removeLast()
                    components.append("END:" + name)
                    if open.isEmpty { closeAlarm() }
                }
            default:
                guard skipping == 0 else { continue }
                if p.param("TZID") == zoneName { namesZone = true }
                if !open.isEmpty {
                    if open.count == 1, alarm != nil { alarm?.properties.append(p) }
                    components.append(l)
                } else if !isMapped(p.name) && !(hasDue && p.name == "DURATION") {
                    properties.append(l)
                }
            }
        }
        while let name = open.popLast() { components.append("END:" + name) }
        closeAlarm()
        return (properties, components, namesZone)
    }
}

// MARK: What a client's PUT changes

extension VTodo {
    /// This to-do with every SUMMARY, DESCRIPTION or CATEGORIES value that is the text served
    /// for `base` (its invisible characters shown as `\u{…}`, `DisplayText.invisiblesShown`)
    /// taken as `base`'s own: a client sending back what it was served changes nothing, and an
    /// escape the server wrote is never stored.
    public func unescapingServed(_ base: VTodo) -> VTodo {
        var v = self
        if v.summary != base.summary, v.summary == DisplayText.invisiblesShown(base.summary) { v.summary = base.summary }
        if v.notes != base.notes, v.notes == DisplayText.invisiblesShown(base.notes) { v.notes = base.notes }
        v.categories = v.categories.map { c in
            if base.categories.contains(c) { return c }
            return base.categories.first { DisplayText.invisiblesShown($0) == c } ?? c
        }
        return v
    }

    /// Whether a client's VTODO states its status (a STATUS or a COMPLETED property), and
    /// when the client last changed it (LAST-MODIFIED, else DTSTAMP; UTC milliseconds).
    public static func statement(
        _ calendar: ICalComponent, householdZone: TimeZoneRules, zoneNamed: (String) -> TimeZoneRules?
    ) -> (statesStatus: Bool, modified: Int64?) {
        guard let todo = calendar.components.first(where: { $0.name == "VTODO" }) else { return (false, nil) }
        let states = todo.first("STATUS") != nil || todo.first("COMPLETED") != nil
        // A LAST-MODIFIED or DTSTAMP that is not a date-time says nothing of when: none.
        let modified = (todo.first("LAST-MODIFIED") ?? todo.first("DTSTAMP")).flatMap {
            try? $0.utcMillis(householdZone: householdZone, zoneNamed: zoneNamed)  // no readable LAST-MODIFIED or DTSTAMP: the PUT is read as one without a time
        }
        return (states, modified)
    }

    /// A to-do sent without a base (no If-Match, no X-TODO-VERSION) read against `current`
    /// (docs/CALDAV.md, "The base of a PUT"): without STATUS or COMPLETED the status is left
    /// as it is; NEEDS-ACTION or IN-PROCESS reopens a completed item only when the client's
    /// `modified` time is later than the completion.
    public func withoutBase(current: VTodo, statesStatus: Bool, modified: Int64?) -> VTodo {
        var v = self
        let keep: Bool
        if !statesStatus {
            keep = true
        } else if current.status == .completed, v.status == .needsAction || v.status == .inProcess {
            keep = !(modified.map { m in current.completed.map { m > $0 } ?? true } ?? false)
        } else {
            keep = false
        }
        if keep {
            v.status = current.status
            v.completed = current.completed
        }
        return v
    }
}
