import TodoCore
import TodoStore

/// How chores and checklists look: short dates, the list's view of a chore, JSON extras.
enum ChoreText {
    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// "Tue 2 Dec", with the year when it is not this year's.
    static func day(_ d: CivilDate, today: CivilDate) -> String {
        "\(weekdays[d.weekday]) \(d.day) \(months[d.month - 1])" + (d.year == today.year ? "" : " \(d.year)")
    }

    /// "Today's turn (Tue 24 Nov), already announced, is now Kim's.": what `swap`, `pass` and
    /// `--assign` say when the turn they moved is today's.
    static func todaysTurnMoved(_ s: ChoreSchedule, today: CivilDate) -> String? {
        guard let who = s.assignee(on: today) else { return nil }
        return "Today's turn (\(day(today, today: today))), already announced, is now \(Terminal.safe(who))'s."
    }

    /// "every Tuesday", "every 3 days after it is done".
    static func phrase(_ s: ChoreSchedule) -> String {
        s.recurrence.rule.phrase + (s.occurrences.afterDone ? " after it is done" : "")
    }

    /// "Tue 2 Dec, Bob" (the turn when there is one).
    static func occurrence(_ d: CivilDate, of schedule: ChoreSchedule, today: CivilDate) -> String {
        day(d, today: today) + (schedule.assignee(on: d).map { ", " + Terminal.safe($0) } ?? "")
    }

    /// A task as `list` shows it: a chore with its current occurrence as due date, whose turn
    /// as assignee, and a repeat mark; a checklist with its progress.
    static func listView(_ task: Task, _ facts: ListFacts) -> Task {
        var t = task
        if facts.isChore {
            if let current = facts.current {
                t.due = Due(date: current, minutes: task.due?.minutes)
                t.assignee = facts.turn
            } else {
                t.due = nil
            }
            t.title += " ↻"
        }
        if facts.total > 0 { t.title += " [\(facts.checked)/\(facts.total)]" }
        return t
    }

    /// `--json` members added after a task's own fields: for a chore its current occurrence and
    /// whose turn it is; for a checklist its progress.
    static func json(_ task: Task, today: CivilDate, context: TurnContext) -> JSONValue {
        guard case .object(var members) = TaskCodec.publicObject(task) else { return .null }
        if let s = task.schedule(today: today, context: context) {
            let current = s.current
            members.append(("current", current.map { .string($0.description) } ?? .null))
            members.append(("turn", current.flatMap { s.assignee(on: $0) }.map { .string($0) } ?? .null))
        }
        if let p = task.checklistProgress {
            members.append((
                "progress", .object([("checked", .number(String(p.checked))), ("total", .number(String(p.total)))])
            ))
        }
        return .object(members)
    }

    /// The `show` lines of a chore and a checklist.
    static func showLines(_ task: Task, today: CivilDate, context: TurnContext) -> [(String, String)] {
        var out: [(String, String)] = []
        if let r = task.recurrence {
            let s = ChoreSchedule(task, recurrence: r, today: today, context: context)
            var how = "\(phrase(s)) (\(r.rule)), from \(day(r.from, today: today))"
            if s.mode == .catchUp { how += "; every occurrence must be done (catch-up)" }
            out.append(("Repeats", how))
            if !s.rotation.isEmpty {
                out.append((
                    "Rotation", s.rotation.map(Terminal.safe).joined(separator: ", ")
                        + (s.rotate == .fewest ? " (fewest done in 4 weeks goes next)" : "")
                ))
            }
            let next = s.upcoming(3).map { occurrence($0, of: s, today: today) }
            out.append(("Next", next.isEmpty ? "none (the rule has no more dates)" : next.joined(separator: "; ")))
            for (n, h) in s.history(8).enumerated() {
                out.append((n == 0 ? "History" : "", historyLine(h.date, h.status, s, task, today: today)))
            }
        }
        for (n, item) in task.visibleItems.enumerated() {
            out.append((n == 0 ? "Items" : "", "\(n + 1). [\(item.state == .checked ? "x" : " ")] \(Terminal.safe(item.text))"))
        }
        return out
    }

    /// "Thu 3 Dec: done by Sam, Kim (on Sat 5 Dec)", "skipped by Lee", "missed (Lee's turn)".
    static func historyLine(_ date: CivilDate, _ status: OccurrenceStatus, _ s: ChoreSchedule, _ task: Task, today: CivilDate)
        -> String
    {
        let credits = s.credits(on: date)
        let who = credits.map { c in
            Terminal.safe(c.member) + (c.day != date ? " (on \(day(c.day, today: today)))" : "")
        }.joined(separator: ", ")
        let when = day(date, today: today)
        switch status {
        case .done:
            return "\(when): done by \(who.isEmpty ? Terminal.safe(task.occurrenceEntries[date.description]?.recorded.member ?? "") : who)"
        case .skipped:
            let by = task.occurrenceEntries[date.description].map { " by " + Terminal.safe($0.recorded.member) } ?? ""
            return "\(when): skipped\(by)" + (who.isEmpty ? "" : "; done by \(who)")
        case .missed:
            return "\(when): missed" + (s.turn(on: date).map { " (\(Terminal.safe($0))'s turn)" } ?? "")
        case .open:
            return "\(when): open" + (who.isEmpty ? "" : "; done by \(who)")
        }
    }
}
