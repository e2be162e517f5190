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
