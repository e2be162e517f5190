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

    /// `today`, `tomorrow`, a weekday within the coming week, or the date; with the time if
    /// there is one (see `Due.display`).
    func due(_ d: Due) -> String { d.display(today: today) }

    /// `YYYY-MM-DD HH:MM by Member` for a write.
    func written(_ w: Authorship, _ clock: WallClock) -> String {
        let who = w.member.isEmpty ? "" : " by " + Terminal.safe(w.member)
        return Render.localTime(min(w.millis, Render.lastMillis), clock) + who
    }

    /// 9999-12-31 23:59:59.999 UTC: stamps and commit times from other people are shown no later.
    static let lastMillis: Int64 = 253_402_300_799_999

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

    /// Aligned columns: id, due, assignee, title, tags; a column no row uses is left out.
    /// `shortLengths[i]` is how much of `tasks[i]`'s id to show. With a `width` (a terminal)
    /// lines fit it: the title gives way first, then tags are dropped whole (never cut or
    /// wrapped), marked "…"; without one (a pipe) nothing is cut.
    func table(_ tasks: [Task], order: [Int], shortLengths: [Int], header: Bool, width: Int? = nil) -> [String] {
        struct Row {
            var id, due, who, title: String
            var tags: String
            var index: Int
            var overdue, today, high: Bool
        }
        let rows = order.map { i -> Row in
            let t = tasks[i]
            var title = Terminal.safe(t.title)
            if t.deleted { title = "[deleted] " + title } else if t.status == .done { title = "[done] " + title }
            if t.priority != .normal { title += " (\(t.priority.rawValue))" }
            let who = Terminal.safe(t.assignee ?? "")
            return Row(
                id: String(t.id.hex.prefix(shortLengths[i])),
                due: t.due.map { due($0) + (isOverdue(t) ? " !" : "") } ?? "",
                who: width == nil ? who : Terminal.truncated(who, 16),
                title: title,
                tags: Self.tagList(t).joined(separator: " "), index: i,
                overdue: isOverdue(t), today: isDueToday(t), high: t.priority == .high)
        }
        let gap = 2
        let showDue = rows.contains { !$0.due.isEmpty }
        let showWho = rows.contains { !$0.who.isEmpty }
        let showTags = rows.contains { !$0.tags.isEmpty }
        // Only a terminal's width needs the tags measured (a pipe takes the list's time as it is).
        let tagWidths = width == nil ? [] : rows.map { Terminal.width($0.tags) }
        let idW = max(rows.map { $0.id.count }.max() ?? 0, header ? 2 : 0)
        let dueW = showDue ? max(rows.map { Terminal.width($0.due) }.max() ?? 0, header ? 3 : 0) : 0
        let whoW = showWho ? max(rows.map { Terminal.width($0.who) }.max() ?? 0, header ? 3 : 0) : 0
        var titleW = max(rows.map { Terminal.width($0.title) }.max() ?? 0, header ? 5 : 0)
        var tagsRoom = Int.max
        if let width {
            let fixed = idW + (showDue ? gap + dueW : 0) + (showWho ? gap + whoW : 0) + gap
            let tagsW = showTags ? gap + max(tagWidths.max() ?? 0, header ? 4 : 0) : 0
            let minTitle = min(titleW, 12)
            titleW = min(titleW, max(width - fixed - tagsW, minTitle))
            tagsRoom = max(width - fixed - titleW - gap, 0)
        }
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
                    Terminal.padded("ID", idW), showDue ? Terminal.padded("DUE", dueW) : nil,
                    showWho ? Terminal.padded("WHO", whoW) : nil, Terminal.padded("TITLE", titleW),
                    showTags ? "TAGS" : nil,
                ])))
        }
        for (n, r) in rows.enumerated() {
            let tags = width == nil || tagWidths[n] <= tagsRoom ? r.tags : Self.fitting(Self.tagList(tasks[r.index]), tagsRoom)
            var dueCol = Terminal.padded(r.due, dueW)
            if r.overdue { dueCol = Terminal.red(dueCol) } else if r.today { dueCol = Terminal.yellow(dueCol) }
            let cut = width == nil ? r.title : Terminal.truncated(r.title, titleW)
            // With a header the tags line up under TAGS; otherwise they follow the title.
            let title = header ? Terminal.padded(cut, titleW) : cut
            lines.append(
                join([
                    Terminal.dim(Terminal.padded(r.id, idW)), showDue ? dueCol : nil,
                    showWho ? Terminal.padded(r.who, whoW) : nil, r.high ? Terminal.bold(title) : title,
                    tags.isEmpty ? nil : Terminal.dim(tags),
                ]))
        }
        return lines
    }

    /// `+tag` for each of the task's tags, escaped.
    static func tagList(_ t: Task) -> [String] { t.tags.map { "+" + Terminal.safe($0) } }

    /// The tags that fit in `room` columns, whole, and "…" for those left out.
    static func fitting(_ tags: [String], _ room: Int) -> String {
        var out = ""
        var used = 0
        for (n, tag) in tags.enumerated() {
            let w = Terminal.width(tag) + (out.isEmpty ? 0 : 1)
            // Room for this tag and, unless it is the last, the mark.
            if used + w + (n == tags.count - 1 ? 0 : 2) > room { break }
            out += (out.isEmpty ? "" : " ") + tag
            used += w
        }
        if room < 1 { return "" }
        return out.isEmpty ? "…" : out + " …"
    }
}
