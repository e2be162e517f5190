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

    /// "Tue 2 Dec, Bob" (the turn when there is one).
    static func occurrence(_ d: CivilDate, of task: Task, today: CivilDate) -> String {
        day(d, today: today) + (task.assignee(on: d).map { ", " + Terminal.safe($0) } ?? "")
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
    static func json(_ task: Task) -> JSONValue {
        guard case .object(var members) = TaskCodec.publicObject(task) else { return .null }
        if task.isChore {
            let current = task.currentOccurrence
            members.append(("current", current.map { .string($0.description) } ?? .null))
            members.append(("turn", current.flatMap { task.assignee(on: $0) }.map { .string($0) } ?? .null))
        }
        if let p = task.checklistProgress {
            members.append((
                "progress", .object([("checked", .number(String(p.checked))), ("total", .number(String(p.total)))])
            ))
        }
        return .object(members)
    }

    /// Completions per member: (last 28 days up to today, all time), by who recorded them.
    static func completions(_ task: Task, today: CivilDate) -> [(member: String, recent: Int, all: Int)] {
        var counts: [String: (Int, Int)] = [:]
        let since = today.adding(days: -27)
        for (key, e) in task.occurrenceEntries where e.state == .done {
            var c = counts[e.recorded.member] ?? (0, 0)
            c.1 += 1
            if let d = CivilDate(iso: Substring(key)), d >= since, d <= today { c.0 += 1 }
            counts[e.recorded.member] = c
        }
        return counts.keys.sorted().map { ($0, counts[$0]!.0, counts[$0]!.1) }
    }

    /// The `show` lines of a chore and a checklist.
    static func showLines(_ task: Task, today: CivilDate) -> [(String, String)] {
        var out: [(String, String)] = []
        if let r = task.recurrence {
            out.append(("Repeats", "\(r.rule.phrase) (\(r.rule)), from \(day(r.from, today: today))"))
            if !task.rotation.isEmpty { out.append(("Rotation", task.rotation.map(Terminal.safe).joined(separator: ", "))) }
            let next = task.upcomingOccurrences(3).map { occurrence($0, of: task, today: today) }
            out.append(("Next", next.isEmpty ? "none (the rule has no more dates)" : next.joined(separator: "; ")))
            let done = task.occurrenceEntries.filter { $0.value.state != .open }.sorted { $0.key > $1.key }.prefix(5)
            for (n, (key, e)) in done.enumerated() {
                let when = CivilDate(iso: Substring(key)).map { day($0, today: today) } ?? key
                out.append((n == 0 ? "History" : "", "\(when): \(e.state.rawValue) by \(Terminal.safe(e.recorded.member))"))
            }
        }
        for (n, item) in task.visibleItems.enumerated() {
            out.append((n == 0 ? "Items" : "", "\(n + 1). [\(item.state == .checked ? "x" : " ")] \(Terminal.safe(item.text))"))
        }
        return out
    }
}
