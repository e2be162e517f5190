import ArgumentParser
import TodoCore
import TodoStore

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List tasks (open ones by default).",
        discussion: """
            Columns: id, due, assignee, title, tags. Overdue dates are marked with "!" (red on a \
            terminal), tasks due today in yellow.

            Words after the options search: a task is listed when every word appears, case and \
            accents aside, in its title, notes, tags or assignee. --tag and --assignee ignore case.

            Examples:
              todo list --mine --tag groceries
              todo list garage door
            """)

    @OptionGroup var household: HouseholdOptions
    @Flag(help: "Open and done tasks.") var all = false
    @Flag(help: "Done tasks only.") var done = false
    @Flag(help: "Deleted tasks only.") var deleted = false
    @Option(help: "Only tasks assigned to WHO.", completion: Completions.assignees) var assignee: String?
    @Flag(help: "Only tasks assigned to you.") var mine = false
    @Option(help: "Only tasks with this tag.") var tag: String?
    @Flag(help: "Only overdue tasks.") var overdue = false
    @OptionGroup var output: JSONFlag
    @Argument(help: "Only tasks with every word in the title, notes, tags or assignee (case and accents aside).")
    var words: [String] = []

    func validate() throws {
        if assignee != nil && mine { throw ValidationError("Use either --assignee or --mine, not both.") }
    }

    func run() throws {
        let h = try household.openForReading()
        let snap = try h.snapshot()
        let context = snap.turnContext(h.clock)
        let today = Env.today(h.clock)
        // Chores show once, at their current occurrence and turn; checklists with progress.
        // --json gives the stored form (with the chore's and checklist's maps) and adds these.
        var tasks: [Task]
        let bad: [BadFile]
        var stored: [Int: Task] = [:]
        if output.json {
            (tasks, bad) = try snap.loadAll()
            for i in tasks.indices where !tasks[i].extra.isEmpty {
                guard let facts = ListFacts(tasks[i], today: today, context: context) else { continue }
                stored[i] = tasks[i]
                tasks[i] = ChoreText.listView(tasks[i], facts)
            }
        } else {
            let facts: SparseFacts
            (tasks, facts, bad) = try snap.loadListView(today: today, context: context)
            // Changed in place (the array is not copied).
            for i in tasks.indices { if let f = facts[i] { tasks[i] = ChoreText.listView(tasks[i], f) } }
        }
        for b in bad {
            printError("todo: warning: \(Terminal.safe(b.path)) cannot be read (\(Terminal.safe(b.reason))); it is left out.")
        }
        HealthWarnings.handEdits { () throws(StoreError) in try h.quickHandEdits(snap) }
        let render = Render(today: today, minuteOfDay: Env.minuteOfDay(h.clock))
        var query = TaskQuery()
        query.which = deleted ? .deleted : done ? .done : all ? .openAndDone : .open
        query.assignee = assignee
        if mine {
            let me = try h.identity()
            query.assignee = me.name
            query.assigneeEmail = me.email
        }
        query.tag = tag
        query.words = words
        query.overdueOnly = overdue
        // The household settings file is kept as a deleted task; it is never one to list or restore.
        let shown = query.select(tasks, today: today, minuteOfDay: render.minuteOfDay).filter { tasks[$0].id != HouseholdSettings.id }
        let order = TaskQuery.order(tasks, shown)
        var out = Output()
        if output.json {
            out.line("[")
            for (n, i) in order.enumerated() {
                out.line(JSONWriter.compact(ChoreText.json(stored[i] ?? tasks[i], today: today, context: context)) + (n < order.count - 1 ? "," : ""))
            }
            out.line("]")
        } else if order.isEmpty {
            if Terminal.stdoutIsTTY { out.line("No tasks.") }
        } else {
            let lengths = ShortIDs.lengths(tasks.map(\.id))
            render.table(tasks, order: order, shortLengths: lengths, header: Terminal.stdoutIsTTY, width: Terminal.columns) { line in
                out.line(line)
                out.flush(past: 1 << 16)
            }
        }
        out.flush()
    }
}

struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show one task in full.", discussion: "Example: todo show 3f2a")

    @OptionGroup var household: HouseholdOptions
    @Argument(help: "The task id (a unique prefix of 4 or more characters).", completion: Completions.taskIDs) var id: String
    @OptionGroup var output: JSONFlag

    func run() throws {
        let h = try household.openForReading()
        let snap = try h.snapshot()
        let context = snap.turnContext(h.clock)
        let taskID = try snap.resolve(id)
        guard let task = try snap.task(taskID) else { throw StoreError.taskNotFound(id) }
        HealthWarnings.handEdits { () throws(StoreError) in try h.handEdits(snap, task: taskID) }
        HealthWarnings.unreadable { () throws(StoreError) in try snap.unreadable() }
        if output.json {
            print(JSONWriter.compact(ChoreText.json(task, today: Env.today(h.clock), context: context)))
            return
        }
        let short = try snap.shortIDs([taskID])[taskID] ?? id
        let render = Render(today: Env.today(h.clock), minuteOfDay: Env.minuteOfDay(h.clock))
        var out = Output()
        out.line(Terminal.bold("\(short)  \(Terminal.safe(task.title))"))
        func field(_ name: String, _ value: String) { out.line(Terminal.padded(name + ":", 9) + " " + value) }
        var status = task.status.rawValue
        if task.deleted { status += ", deleted (todo restore \(short))" }
        field("Status", status)
        if let due = task.due {
            let mark = render.isOverdue(task) ? Terminal.red(" (overdue)") : ""
            // The stored form when the words differ from it, and how far off when the words do not say.
            let shown = render.due(due)
            let relative = due.relative(today: render.today)
            let notes = [shown == due.description ? nil : due.description, shown.hasPrefix(relative) ? nil : relative]
            field("Due", shown + "  (" + notes.compactMap { $0 }.joined(separator: ", ") + ")" + mark)
        }
        if let a = task.assignee { field("Assignee", Terminal.safe(a)) }
        field("Priority", task.priority.rawValue)
        if !task.tags.isEmpty { field("Tags", task.tags.map(Terminal.safe).joined(separator: ", ")) }
        if let alarm = task.alarm {
            switch alarm {
            case .before: field("Alarm", alarm.text + " before (todo calendar)")
            case .timeOfDay: field("Alarm", "at " + alarm.text + " on its day (todo calendar)")
            }
        }
        if !task.notes.isEmpty {
            let lines = task.notes.split(separator: "\n", omittingEmptySubsequences: false)
            field("Notes", Terminal.safe(String(lines[0])))
            for l in lines.dropFirst() { out.line(String(repeating: " ", count: 10) + Terminal.safe(String(l))) }
        }
        field("Created", "\(Terminal.safe(task.createdAt)) by \(Terminal.safe(task.createdBy))")
        for (name, value) in ChoreText.showLines(task, today: render.today, context: context) {
            if name.isEmpty { out.line(String(repeating: " ", count: 10) + value) } else { field(name, value) }
        }
        // Who finished or deleted it, and when: from the stamp of that write.
        if let done = task.completion { field("Done", render.written(done, h.clock)) }
        if let deletion = task.deletion { field("Deleted", render.written(deletion, h.clock)) }
        if !task.conflicts.isEmpty { field("Conflicts", "\(task.conflicts.count) (todo conflicts \(short))") }
        field("ID", task.id.hex)
        out.flush()
    }
}
