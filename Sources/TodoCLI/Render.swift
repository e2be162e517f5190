import TodoCore
import TodoStore

/// How tasks look to a person.
struct Render {
    let today: CivilDate
    let minuteOfDay: Int

    func isOverdue(_ task: Task) -> Bool {
        guard let due = task.due, task.status == .open, !task.deleted else { return false }
        if due.date != today { return due.date < today }
        return (due.minutes ?? 24 * 60) <= minuteOfDay
    }

    func isDueToday(_ task: Task) -> Bool {
        task.due?.date == today && task.status == .open && !task.deleted && !isOverdue(task)
    }

    /// `today`, `tomorrow`, or the date; with the time if there is one.
    func due(_ d: Due) -> String {
        var s: String
        if d.date == today {
            s = "today"
        } else if d.date == today.adding(days: 1) {
            s = "tomorrow"
        } else {
            s = d.date.description
        }
        if let m = d.minutes { s += " \(m / 60 < 10 ? "0" : "")\(m / 60):\(m % 60 < 10 ? "0" : "")\(m % 60)" }
        return s
    }

    /// `YYYY-MM-DD HH:MM` in the household's local time.
    static func localTime(_ millis: Int64, _ clock: WallClock) -> String {
        localTime(millis, offsetMinutes: clock.offsetMinutes(millis))
    }

    static func localTime(_ millis: Int64, offsetMinutes: Int32) -> String {
        let iso = isoMillis(Millis.local(millis, offsetMinutes: offsetMinutes))
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5))
    }

    /// The positions of `indices` in `tasks` in list order: soonest due first (undated last),
    /// then higher priority, then oldest. Positions rather than tasks, which are costly to move.
    static func order(_ tasks: [Task], _ indices: [Int]) -> [Int] {
        struct Key {
            let due: Int
            let priority: Int
            let createdAt: String
            let id: String
            let index: Int
        }
        // Fields read in place: a copy of each Task would retain and release all of its fields.
        let keys = tasks.withUnsafeBufferPointer { tasks in
            indices.map { i in
                Key(
                    due: tasks[i].due.map { $0.date.daysSinceEpoch * 1441 + ($0.minutes ?? 1440) } ?? Int.max,
                    priority: tasks[i].priority == .high ? 0 : tasks[i].priority == .normal ? 1 : 2,
                    createdAt: tasks[i].createdAt, id: tasks[i].id.hex, index: i)
            }
        }
        return keys.sorted { a, b in
            if a.due != b.due { return a.due < b.due }
            if a.priority != b.priority { return a.priority < b.priority }
            // By bytes: for these ASCII values (a timestamp, hex) the same order, and quicker.
            if a.createdAt != b.createdAt { return a.createdAt.utf8.lexicographicallyPrecedes(b.createdAt.utf8) }
            return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
        }.map(\.index)
    }

    /// Aligned columns: id, due, assignee, title, tags.
    /// `shortLengths[i]` is how much of `tasks[i]`'s id to show.
    func table(_ tasks: [Task], order: [Int], shortLengths: [Int], header: Bool) -> [String] {
        struct Row {
            var id, due, who, title, tags: String
            var overdue, today, high: Bool
        }
        let rows = order.map { i -> Row in
            let t = tasks[i]
            var title = Terminal.safe(t.title)
            if t.deleted { title = "[deleted] " + title } else if t.status == .done { title = "[done] " + title }
            if t.priority != .normal { title += " (\(t.priority.rawValue))" }
            return Row(
                id: String(t.id.hex.prefix(shortLengths[i])),
                due: t.due.map { due($0) + (isOverdue(t) ? " !" : "") } ?? "",
                who: Terminal.truncated(Terminal.safe(t.assignee ?? ""), 16),
                title: Terminal.truncated(title, 60),
                tags: t.tags.map { "+" + Terminal.safe($0) }.joined(separator: " "),
                overdue: isOverdue(t), today: isDueToday(t), high: t.priority == .high)
        }
        let idW = max(rows.map { $0.id.count }.max() ?? 0, header ? 2 : 0)
        let dueW = max(rows.map { Terminal.width($0.due) }.max() ?? 0, header ? 3 : 0)
        let whoW = max(rows.map { Terminal.width($0.who) }.max() ?? 0, header ? 3 : 0)
        let titleW = max(rows.map { Terminal.width($0.title) }.max() ?? 0, header ? 5 : 0)
        // A column nobody uses is left out; the tags follow the title.
        let showDue = header || dueW > 0
        let showWho = header || whoW > 0
        var lines: [String] = []
        func join(_ cols: [String?]) -> String {
            var line = cols.compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "  ")
            var trailing = 0
            for b in line.utf8.reversed() {
                if b != 0x20 { break }
                trailing += 1
            }
            if trailing > 0 { line.removeLast(trailing) }
            return line
        }
        if header {
            lines.append(
                Terminal.dim(join([
                    Terminal.padded("ID", idW), Terminal.padded("DUE", dueW), Terminal.padded("WHO", whoW),
                    Terminal.padded("TITLE", titleW), "TAGS",
                ])))
        }
        for r in rows {
            var dueCol = Terminal.padded(r.due, dueW)
            if r.overdue { dueCol = Terminal.red(dueCol) } else if r.today { dueCol = Terminal.yellow(dueCol) }
            // With a header the tags line up under TAGS; otherwise they follow the title.
            let title = header ? Terminal.padded(r.title, titleW) : r.title
            lines.append(
                join([
                    Terminal.dim(Terminal.padded(r.id, idW)), showDue ? dueCol : nil,
                    showWho ? Terminal.padded(r.who, whoW) : nil, r.high ? Terminal.bold(title) : title,
                    r.tags.isEmpty ? nil : Terminal.dim(r.tags),
                ]))
        }
        return lines
    }
}
