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
