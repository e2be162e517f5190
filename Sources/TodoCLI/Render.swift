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
        let c = cells(tasks, order: order, shortLengths: shortLengths, width: width)
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
        var titleW = header || width != nil ? max(widest(c.titles), header ? 5 : 0) : 0
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
        var lines: [String] = []
        lines.reserveCapacity(order.count + 1)
        if header {
            lines.append(
                Terminal.dim(Self.join([
                    Terminal.padded("ID", idW), showDue ? Terminal.padded("DUE", dueW) : nil,
                    showWho ? Terminal.padded("WHO", whoW) : nil, Terminal.padded(Terminal.truncated("TITLE", titleW), titleW),
                    tagsHeader ? "TAGS" : nil,
                ])))
        }
        for k in order.indices {
            let rowTags = width == nil || tagWidths[k] <= tagsRoom ? c.tags[k] : Self.fitting(Self.tagList(tasks[order[k]]), tagsRoom)
            var dueCol = Terminal.padded(width == nil ? c.dues[k] : Terminal.truncated(c.dues[k], dueW), dueW)
            if c.marks[k] & Cells.overdue != 0 { dueCol = Terminal.red(dueCol) } else if c.marks[k] & Cells.today != 0 { dueCol = Terminal.yellow(dueCol) }
            let cut = width == nil ? c.titles[k] : Terminal.truncated(c.titles[k], titleW)
            // With a header the tags line up under TAGS; otherwise they follow the title.
            let title = header ? Terminal.padded(cut, titleW) : cut
            lines.append(
                Self.join([
                    Terminal.dim(Terminal.padded(c.ids[k], idW)), showDue ? dueCol : nil,
                    showWho ? Terminal.padded(width == nil ? c.whos[k] : Terminal.truncated(c.whos[k], whoW), whoW) : nil, c.marks[k] & Cells.high != 0 ? Terminal.bold(title) : title,
                    rowTags.isEmpty ? nil : Terminal.dim(rowTags),
                ]))
        }
        return lines
    }

    /// The table's cells, one array per column rather than an array of rows: rows would be
    /// copied whole each time one of their fields is read (this runs for ten thousand tasks).
    struct Cells {
        var ids: [String] = [], dues: [String] = [], whos: [String] = [], titles: [String] = [], tags: [String] = []
        var marks: [UInt8] = []
        static let overdue: UInt8 = 1, today: UInt8 = 2, high: UInt8 = 4

        init(capacity n: Int) {
            ids.reserveCapacity(n)
            dues.reserveCapacity(n)
            whos.reserveCapacity(n)
            titles.reserveCapacity(n)
            tags.reserveCapacity(n)
            marks.reserveCapacity(n)
        }
    }

    func cells(_ tasks: [Task], order: [Int], shortLengths: [Int], width: Int?) -> Cells {
        var c = Cells(capacity: order.count)
        // Fields read in place: a copy of each Task would retain and release all of its fields.
        tasks.withUnsafeBufferPointer { tasks in
            for i in order {
                var title = Terminal.safe(tasks[i].title)
                if tasks[i].deleted { title = "[deleted] " + title } else if tasks[i].status == .done { title = "[done] " + title }
                if tasks[i].priority != .normal { title += " (\(tasks[i].priority.rawValue))" }
                let who = tasks[i].assignee.map(Terminal.safe) ?? ""
                let overdue = isOverdue(tasks[i])
                c.ids.append(String(tasks[i].id.hex.prefix(shortLengths[i])))
                c.dues.append(tasks[i].due.map { due($0) + (overdue ? " !" : "") } ?? "")
                c.whos.append(width == nil ? who : Terminal.truncated(who, 16))
                c.titles.append(title)
                c.tags.append(tasks[i].tagStates.isEmpty ? "" : Self.tagList(tasks[i]).joined(separator: " "))
                c.marks.append(
                    (overdue ? Cells.overdue : 0) | (isDueToday(tasks[i]) ? Cells.today : 0) | (tasks[i].priority == .high ? Cells.high : 0))
            }
        }
        return c
    }

    /// The non-empty columns, two spaces apart, without trailing spaces.
    static func join(_ cols: [String?]) -> String {
        var line = ""
        for case let c? in cols where !c.isEmpty {
            if !line.isEmpty { line += "  " }
            line += c
        }
        var trailing = 0
        for b in line.utf8.reversed() {
            if b != 0x20 { break }
            trailing += 1
        }
        if trailing > 0 { line.removeLast(trailing) }
        return line
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
