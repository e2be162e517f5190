import Hummingbird
import TodoCore
import TodoStore

/// `GET /`: the member's chores and tasks overdue, today and this week (`todo agenda --mine`).
enum MinePage {
    static func render(_ site: Site, _ session: Session, _ request: Request) throws -> Response {
        let h = try site.store { () throws(StoreError) in try site.openForReading() }
        let (tasks, commit, bad) = try site.tasksAndCommit(h)
        let today = h.clock.today
        let minute = h.clock.minuteOfDay
        let key = "\(commit) \(today) \(minute) \(session.member.lowercased())"
        let make = { try body(site, session, h, tasks, bad, agendaKey: key, today: today, minute: minute, request: request) }
        // Without a notice, the page is the same for the same commit (its tasks and the files
        // that could not be read), minute and session.
        return Pages.html(try Pages.notice(request) == nil ? site.page(key: key + " " + session.csrf, make) : make())
    }

    private static func body(
        _ site: Site, _ session: Session, _ h: HouseholdReader, _ tasks: [Task], _ bad: [BadFile], agendaKey: String, today: CivilDate,
        minute: Int, request: Request
    ) throws -> String {
        let context = try site.store { () throws(StoreError) in try h.turnContext() }
        let me = session.member.lowercased()
        let agenda = site.agenda(key: agendaKey) {
            // No email readable: the member is matched by name alone.
            let email = (try? h.memberEmail(session.member))??.lowercased()
            return Agenda(tasks, today: today, minuteOfDay: minute, days: 7, context: context) { _, assignee in
                guard let a = assignee?.lowercased() else { return false }
                return a == me || (email != nil && a == email)
            }
        }
        let back = site.prefix + "/"
        var groups: [[String: Any]] = []
        for (heading, indices, overdue) in [
            ("Overdue", agenda.overdue, true), ("Today", agenda.today, false), ("This week", agenda.upcoming, false),
        ] where !indices.isEmpty {
            // At most a page's worth in each part, as every list here; the rest is in the
            // household list, filtered to the member.
            let rows = indices.prefix(ListPages.pageSize).map {
                Pages.row(tasks[$0], site: site, session: session, today: today, minute: minute, back: back, context: context)
            }
            var group: [String: Any] = ["heading": heading, "rows": rows]
            if indices.count > ListPages.pageSize {
                group["more"] = [
                    "count": indices.count - ListPages.pageSize,
                    "href": site.prefix + "/tasks?assignee=\(percentEncoded(session.member))" + (overdue ? "&overdue=1" : ""),
                ]
            }
            groups.append(group)
        }
        var c = Pages.frame(site, session, title: "Mine", nav: "navMine", request: request)
        c["groups"] = groups
        Pages.unreadable(bad, into: &c)
        ZoneNotice.add(h, session: session, site: site, into: &c)
        return site.render("mine", c)
    }
}

enum ListPages {
    static let pageSize = 50

    /// `GET /tasks`: the household's list with `list`'s filters, 50 rows a page after `after`.
    static func tasks(_ site: Site, _ session: Session, _ request: Request) throws -> Response {
        let q = request.uri.queryParameters
        var query = TaskQuery()
        let which = q["which"].map(String.init) ?? "open"
        switch which {
        case "done": query.which = .done
        case "all": query.which = .openAndDone
        default: query.which = .open
        }
        let tag = q["tag"].map(String.init).flatMap { $0.isEmpty ? nil : String($0.prefix(FieldRules.maxTag + 1)) }
        let assignee = q["assignee"].map(String.init).flatMap { $0.isEmpty ? nil : String($0.prefix(FieldRules.maxName)) }
        query.tag = tag
        query.assignee = assignee
        query.overdueOnly = q["overdue"] == "1"
        let h = try site.store { () throws(StoreError) in try site.openForReading() }
        let (tasks, bad) = try site.tasks(h)
        let today = h.clock.today
        let minute = h.clock.minuteOfDay
        let context = try site.store { () throws(StoreError) in try h.turnContext() }
        let ordered = TaskQuery.order(tasks, query.select(tasks, today: today, minuteOfDay: minute))
        var start = 0
        if let after = q["after"].map(String.init).flatMap(TaskQuery.Position.init(text:)) {
            start = ordered.firstIndex { TaskQuery.Position(tasks[$0]) > after } ?? ordered.count
        }
        let page = ordered[min(start, ordered.count)..<min(start + pageSize, ordered.count)]
        let filters =
            "which=\(percentEncoded(which))" + (tag.map { "&tag=\(percentEncoded($0))" } ?? "")
            + (assignee.map { "&assignee=\(percentEncoded($0))" } ?? "") + (query.overdueOnly ? "&overdue=1" : "")
        let back = site.prefix + "/tasks?" + filters + (start > 0 ? "&after=\(percentEncoded(TaskQuery.Position(tasks[ordered[start - 1]]).text))" : "")
        var c = Pages.frame(site, session, title: "All tasks", nav: "navTasks", request: request)
        Pages.unreadable(bad, into: &c)
        c["rows"] = page.map { Pages.row(tasks[$0], site: site, session: session, today: today, minute: minute, back: back, context: context) }
        c["whichOptions"] = [("open", "Open tasks"), ("done", "Done tasks"), ("all", "Open and done")].map {
            ["value": $0.0, "text": $0.1, "selected": $0.0 == which] as [String: Any]
        }
        c["tag"] = tag ?? ""
        c["assignee"] = assignee ?? ""
        c["overdue"] = query.overdueOnly
        c["countText"] =
            ordered.isEmpty ? "No tasks." : "Tasks \(min(start + 1, ordered.count))–\(start + page.count) of \(ordered.count)."
        if let last = page.last, start + page.count < ordered.count {
            c["next"] = site.prefix + "/tasks?" + filters + "&after=\(percentEncoded(TaskQuery.Position(tasks[last]).text))"
        }
        return Pages.html(site.render("tasks", c))
    }

    /// `GET /lists`: open tasks with checklist items, those tagged `shopping` first.
    static func lists(_ site: Site, _ session: Session, _ request: Request) throws -> Response {
        let h = try site.store { () throws(StoreError) in try site.openForReading() }
        let (tasks, bad) = try site.tasks(h)
        let withItems = tasks.indices.filter { tasks[$0].status == .open && !tasks[$0].deleted && !tasks[$0].visibleItems.isEmpty }
        let ordered = TaskQuery.order(tasks, withItems)
        let shopping = ordered.filter { tasks[$0].tagStates.contains { $0.value.present && $0.key.lowercased() == "shopping" } }
        let rest = ordered.filter { !shopping.contains($0) }
        let back = site.prefix + "/lists"
        var c = Pages.frame(site, session, title: "Lists", nav: "navLists", request: request)
        Pages.unreadable(bad, into: &c)
        c["lists"] = (shopping + rest).prefix(50).map { i -> [String: Any] in
            [
                "id": tasks[i].id.hex, "title": Pages.safe(tasks[i].title),
                "items": Pages.itemRows(tasks[i], site: site, session: session, back: back),
            ]
        }
        return Pages.html(site.render("lists", c))
    }
}

/// `GET /t/<id>`: details, checklist, history and buttons.
enum TaskPage {
    static func render(
        _ site: Site, _ session: Session, id: String, request: Request, itemError: String? = nil, itemText: String = ""
    ) throws -> Response {
        let taskID = try site.taskID(id)
        let h = try site.store { () throws(StoreError) in try site.openForReading() }
        guard let task = try site.store({ () throws(StoreError) in try h.snapshot().task(taskID) }), !task.deleted else {
            throw PageError(status: 404, title: "No such task", text: "This task is not in the household (it may have been removed).")
        }
        let today = h.clock.today
        let minute = h.clock.minuteOfDay
        let context = try site.store { () throws(StoreError) in try h.turnContext() }
        let back = site.prefix + "/t/" + task.id.hex
        let shown = min(max(Int(request.uri.queryParameters["history"].map(String.init) ?? "") ?? 20, 20), 500)
        let history = try site.store { () throws(StoreError) in try h.history(of: taskID, limit: shown + 1) }
        var facts: [[String: String]] = []
        let (due, who) = Agenda.due(of: task, today: today, context: context)
        facts.append(["name": "State", "value": task.status == .done ? "done" : "open"])
        if let due { facts.append(["name": task.recurrence != nil ? "Next" : "Due", "value": due.display(today: today)]) }
        if let who { facts.append(["name": task.recurrence != nil ? "Turn" : "Assigned to", "value": Pages.safe(who)]) }
        if task.priority != .normal { facts.append(["name": "Priority", "value": task.priority.rawValue]) }
        if !task.tags.isEmpty {
            let tags = task.tags.map { "+" + Pages.safe($0) }.joined(separator: " ")
            facts.append(["name": "Tags", "value": tags])
        }
        facts.append(["name": "Added by", "value": Pages.safe(task.createdBy)])
        var t: [String: Any] = [
            "id": task.id.hex, "title": Pages.safe(task.title), "facts": facts,
            "rows": [Pages.row(task, site: site, session: session, today: today, minute: minute, back: back, context: context)],
            "items": Pages.itemRows(task, site: site, session: session, back: back), "csrf": session.csrf, "base": site.prefix,
            "itemText": itemText,
            "history": history.prefix(shown).map { e -> [String: String] in
                [
                    "when": localTime(e.time, offsetMinutes: e.offsetMinutes), "who": Pages.safe(e.authorName),
                    "what": Pages.safe(String(e.message.split(separator: "\n").first ?? "")),
                ]
            },
        ]
        if !task.notes.isEmpty { t["notes"] = Pages.safeLines(task.notes) }
        if task.status == .done && task.recurrence == nil { t["reopen"] = true }
        if let itemError { t["itemError"] = itemError }
        if history.count > shown { t["older"] = back + "?history=\(shown + 20)" }
        var c = Pages.frame(site, session, title: Pages.safe(task.title), request: request)
        c["titleClass"] = true
        c["task"] = t
        return Pages.html(site.render("task", c), status: itemError == nil ? .ok : .unprocessableContent)
    }

    /// `YYYY-MM-DD HH:MM` in the commit's own offset.
    static func localTime(_ seconds: Int64, offsetMinutes: Int32) -> String {
        let local = seconds + Int64(offsetMinutes) * 60
        let days = Int(local >= 0 ? local / 86_400 : (local - 86_399) / 86_400)
        let minute = Int((local - Int64(days) * 86_400) / 60)
        let date = CivilDate(daysSinceEpoch: days)
        return "\(date) \(minute / 60 < 10 ? "0" : "")\(minute / 60):\(minute % 60 < 10 ? "0" : "")\(minute % 60)"
    }
}
