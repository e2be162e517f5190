public import TodoCore

/// Why a feed cannot be made.
public enum CalendarError: Error, Sendable, Equatable {
    /// No task, rotation or change of the household names this member.
    case unknownMember(String, known: [String])
}

extension Household {
    /// The household's iCalendar feed (`CalendarFeed`), on the household's zone's today.
    public func calendar(_ options: CalendarFeedOptions) throws(StoreError) -> Result<[UInt8], CalendarError> {
        let snap = try snapshot()
        let zone = try zone()
        let clock = self.clock.following(zone.rules)
        let today = clock.today
        // The list cache has no stamps, which SEQUENCE and LAST-MODIFIED come from: the tasks
        // that can make events are read from their files.
        var (tasks, _) = try snap.loadAll()
        for i in tasks.indices where CalendarFeed.mayHaveEvents(tasks[i], options: options, today: today) {
            // A file that cannot be read in full keeps its summary from the list; list and doctor report it.
            if let full = try? snap.task(tasks[i].id) { tasks[i] = full }
        }
        if let member = options.member {
            var known = CalendarFeed.members(tasks)
            // No identity here: the member is looked for among the household's names alone.
            if let me = try? identity().name { known.insert(me) }
            // Else a commit author: the history is read only for a name not found so far.
            guard known.contains(member) || !((try? history(limit: 1, author: member)) ?? []).isEmpty else {
                return .failure(.unknownMember(member, known: known.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }))
            }
        }
        return .success(CalendarFeed.render(tasks, options: options, zone: zone.rules, today: today, nowMillis: clock.nowMillis(), context: try turnContext()))
    }
}
