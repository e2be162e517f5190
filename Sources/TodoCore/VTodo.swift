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
