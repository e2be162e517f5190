import TodoCore
import TodoStore

/// How tasks look to a person.
struct Render {
    let today: CivilDate
    let minuteOfDay: Int

    func isOverdue(_ task: Task) -> Bool { task.isOverdue(today: today, minuteOfDay: minuteOfDay) }

    func isDueToday(_ task: Task) -> Bool { task.isDueToday(today: today, minuteOfDay: minuteOfDay) }

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

    /// Aligned columns: id, due, assignee, title, tags; a column no row uses is left out.
    /// `shortLengths[i]` is how much of `tasks[i]`'s id to show. With a `width` (a terminal)
    /// lines fit it: the title gives way first, then tags are dropped whole (never cut or
    /// wrapped), marked "…"; without one (a pipe) nothing is cut.
    func table(_ tasks: [Task], order: [Int], shortLengths: [Int], header: Bool, width: Int? = nil) -> [String] {
        var lines: [String] = []
        lines.reserveCapacity(order.count + 1)
        table(tasks, order: order, shortLengths: shortLengths, header: header, width: width) { lines.append($0) }
        return lines
    }

    /// The table's lines, each given to `emit` as soon as it is made (a long list is never held
    /// whole). The columns' widths come from a first pass over the short cells; titles and tags
    /// are kept from it only when their widths matter (a header or a terminal), else made as
    /// each line is.
    func table(
        _ tasks: [Task], order: [Int], shortLengths: [Int], header: Bool, width: Int? = nil, emit: (String) -> Void
    ) {
        let measured = header || width != nil
        let c = cells(tasks, order: order, shortLengths: shortLengths, width: width, withText: measured)
        let gap = 2
        func widest(_ column: [String]) -> Int {
            var w = 0
            for s in column where !s.isEmpty { w = max(w, Terminal.width(s)) }
            return w
        }
        let showDue = c.dues.contains { !$0.isEmpty }
        var showWho = c.whos.contains { !$0.isEmpty }
        let showTags = c.tags.contains { !$0.isEmpty }
        // Only a terminal's width needs the tags measured (a pipe takes the list's time as it is).
        let tagWidths = width == nil ? [] : c.tags.map { Terminal.width($0) }
        var idW = header ? 2 : 0
        for id in c.ids { idW = max(idW, id.utf8.count) }
        var dueW = showDue ? max(widest(c.dues), header ? 3 : 0) : 0
        var whoW = showWho ? max(widest(c.whos), header ? 3 : 0) : 0
        // The title's width matters only to line up the tags under a header or to fit a width.
        var titleW = measured ? max(widest(c.titles), header ? 5 : 0) : 0
        var tagsRoom = Int.max
        if let width {
            var fixed: Int { idW + (showDue ? gap + dueW : 0) + (showWho ? gap + whoW : 0) + gap }
            let tagsW = showTags ? gap + max(tagWidths.max() ?? 0, header ? 4 : 0) : 0
            var minTitle = min(titleW, 12)
            // A narrow terminal: the assignee column gives way to the title (cut, then left
            // out), then the title's minimum, then the due column (cut), so that every line
            // fits down to 20 columns.
            if fixed + minTitle > width, showWho { whoW = max(3, whoW - (fixed + minTitle - width)) }
            if fixed + minTitle > width, showWho { showWho = false }
            if fixed + minTitle > width { minTitle = min(titleW, max(6, width - fixed)) }
            if fixed + minTitle > width, showDue { dueW = max(3, dueW - (fixed + minTitle - width)) }
            minTitle = min(minTitle, max(width - fixed, 1))
            titleW = min(titleW, max(width - fixed - tagsW, minTitle))
            tagsRoom = max(width - fixed - titleW - gap, 0)
        }
        let tagsHeader = showTags && (width == nil || tagsRoom >= 4)
        if header {
            emit(
                Terminal.dim(Self.join([
                    Terminal.padded("ID", idW), showDue ? Terminal.padded("DUE", dueW) : nil,
                    showWho ? Terminal.padded("WHO", whoW) : nil, Terminal.padded(Terminal.truncated("TITLE", titleW), titleW),
                    tagsHeader ? "TAGS" : nil,
                ])))
        }
        // Fields read in place: a copy of each Task would retain and release all of its fields.
        tasks.withUnsafeBufferPointer { tasks in
            for k in order.indices {
                let task = order[k]
                let tags = measured ? c.tags[k] : Self.tagCell(tasks[task].tagStates)
                let rowTags = width == nil || tagWidths[k] <= tagsRoom ? tags : Self.fitting(Self.tagList(tasks[task].tagStates), tagsRoom)
                var dueCol = Terminal.padded(width == nil ? c.dues[k] : Terminal.truncated(c.dues[k], dueW), dueW)
                if c.marks[k] & Cells.overdue != 0 { dueCol = Terminal.red(dueCol) } else if c.marks[k] & Cells.today != 0 { dueCol = Terminal.yellow(dueCol) }
                let full =
                    measured
                    ? c.titles[k]
                    : Self.titleCell(tasks[task].title, deleted: tasks[task].deleted, status: tasks[task].status, priority: tasks[task].priority)
                let cut = width == nil ? full : Terminal.truncated(full, titleW)
                // With a header the tags line up under TAGS; otherwise they follow the title.
                let title = header ? Terminal.padded(cut, titleW) : cut
                var line = Line()
                line.add(Terminal.dim(Terminal.padded(c.ids[k], idW)))
                if showDue { line.add(dueCol) }
                if showWho { line.add(Terminal.padded(width == nil ? c.whos[k] : Terminal.truncated(c.whos[k], whoW), whoW)) }
                line.add(c.marks[k] & Cells.high != 0 ? Terminal.bold(title) : title)
                if !rowTags.isEmpty { line.add(Terminal.dim(rowTags)) }
                emit(line.finished)
            }
        }
    }

    /// The table's cells, one array per column rather than an array of rows: rows would be
    /// copied whole each time one of their fields is read (this runs for ten thousand tasks).
    /// `titles` and `tags` are empty unless asked for.
    struct Cells {
        var ids: [String] = [], dues: [String] = [], whos: [String] = [], titles: [String] = [], tags: [String] = []
        var marks: [UInt8] = []
        static let overdue: UInt8 = 1, today: UInt8 = 2, high: UInt8 = 4

        init(capacity n: Int, withText: Bool) {
            ids.reserveCapacity(n)
            dues.reserveCapacity(n)
            whos.reserveCapacity(n)
            if withText {
                titles.reserveCapacity(n)
                tags.reserveCapacity(n)
            }
            marks.reserveCapacity(n)
        }
    }

    func cells(_ tasks: [Task], order: [Int], shortLengths: [Int], width: Int?, withText: Bool = true) -> Cells {
        var c = Cells(capacity: order.count, withText: withText)
        // Fields read in place: a copy of each Task would retain and release all of its fields.
        tasks.withUnsafeBufferPointer { tasks in
            for i in order {
                let who = tasks[i].assignee.map(Terminal.safe) ?? ""
                let open = tasks[i].status == .open && !tasks[i].deleted
                let overdue = Task.isOverdue(due: tasks[i].due, open: open, today: today, minuteOfDay: minuteOfDay)
                let dueToday = Task.isDueToday(due: tasks[i].due, open: open, today: today, minuteOfDay: minuteOfDay)
                c.ids.append(tasks[i].id.hexPrefix(shortLengths[i]))
                c.dues.append(tasks[i].due.map { due($0) + (overdue ? " !" : "") } ?? "")
                c.whos.append(width == nil ? who : Terminal.truncated(who, 16))
                if withText {
                    c.titles.append(
                        Self.titleCell(tasks[i].title, deleted: tasks[i].deleted, status: tasks[i].status, priority: tasks[i].priority))
                    c.tags.append(Self.tagCell(tasks[i].tagStates))
                }
                c.marks.append((overdue ? Cells.overdue : 0) | (dueToday ? Cells.today : 0) | (tasks[i].priority == .high ? Cells.high : 0))
            }
        }
        return c
    }

    /// The title column of a task (its fields, not the task: a copy of it would retain and
    /// release all of them): escaped, marked when done or deleted, with its priority unless normal.
    static func titleCell(_ text: String, deleted: Bool, status: Status, priority: Priority) -> String {
        var title = Terminal.safe(text)
        if deleted { title = "[deleted] " + title } else if status == .done { title = "[done] " + title }
        if priority != .normal { title += " (\(priority.rawValue))" }
        return title
    }

    /// The tags column of a task, whole: `+tag` for each, space-separated.
    static func tagCell(_ states: [String: TagState]) -> String {
        var cell = ""
        for tag in Task.visibleTags(states) {
            cell += cell.isEmpty ? "+" : " +"
            cell += Terminal.safe(tag)
        }
        return cell
    }

    /// The non-empty columns, two spaces apart, without trailing spaces.
    static func join(_ cols: [String?]) -> String {
        var line = Line()
        for c in cols { line.add(c) }
        return line.finished
    }

    /// A line of columns built in place, as `join` makes it: the non-empty ones two spaces
    /// apart, without trailing spaces.
    struct Line {
        private var text = ""

        mutating func add(_ column: String?) {
            guard let column, !column.isEmpty else { return }
            if !text.isEmpty { text += "  " }
            text += column
        }

        var finished: String {
            var trailing = 0
            for b in text.utf8.reversed() {
                if b != 0x20 { break }
                trailing += 1
            }
            return trailing == 0 ? text : String(text.dropLast(trailing))
        }
    }

    /// `+tag` for each of the task's tags, escaped.
    static func tagList(_ states: [String: TagState]) -> [String] { Task.visibleTags(states).map { "+" + Terminal.safe($0) } }

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
