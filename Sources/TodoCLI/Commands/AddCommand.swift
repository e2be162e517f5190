import ArgumentParser
import TodoCore
import TodoStore

struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a task and print its short id.",
        discussion: """
            Example: todo add "Buy milk" --due tomorrow --assign Bob --tag groceries --priority high

            A chore: todo add "Take out the trash" --every tue --rotate Alice,Bob,Carol
            One that repeats from when it was done: todo add "Water plants" --every 3d --after-done
            A checklist: todo add "Groceries" --item milk --item eggs
            """)

    @OptionGroup var household: HouseholdOptions
    @Argument(help: "The title (several words are joined with spaces).") var title: [String] = []
    @Option(help: "When it is due: YYYY-MM-DD, today, friday, eow, 15th, +3d, +1m... (todo(1), DATES); optionally with HH:MM.")
    var due: String?
    @Option(name: .customLong("assign"), help: "Who should do it.", completion: Completions.assignees) var assignee: String?
    @Option(name: .customLong("tag"), help: "A tag (repeat for more).") var tags: [String] = []
    @Option(help: "low, normal or high.", completion: Completions.priorities) var priority: String?
    @Option(help: "A note.") var note: String?
    @Option(help: "Make it a chore that repeats: day, 3d, week, 2w, tue, mon,thu, weekday, month, 15th.") var every: String?
    @Option(help: "With --every: members taking turns, e.g. Alice,Bob,Carol.") var rotate: String?
    @Option(help: "With --every: the first day (default today).") var from: String?
    @Flag(name: .customLong("catch-up"), help: "With --every: every occurrence must be done (a missed one stays due).") var catchUp = false
    @Flag(name: .customLong("after-done"), help: "With --every 3d, 2w, month...: count the next date from the day it is done, not from the calendar.")
    var afterDone = false
    @Option(help: "With --rotate: order (one after another, the default) or fewest (whoever did it least in 4 weeks).") var turns: String?
    @Option(name: .customLong("item"), help: "A checklist item (repeat for more).") var items: [String] = []
    @Option(help: ArgumentHelp("Its own alarm in `todo calendar`: this long before (30m, 2h, 1d) or a time of day on its day (HH:MM).", valueName: "when"))
    var alarm: String?
    @OptionGroup var output: JSONFlag

    func validate() throws {
        if every == nil && (rotate != nil || from != nil || catchUp || afterDone) {
            throw ValidationError("--rotate, --from, --catch-up and --after-done need --every.")
        }
        if afterDone && catchUp { throw ValidationError(Input.afterDoneAndCatchUp) }
        if rotate == nil && turns != nil { throw ValidationError("--turns needs --rotate.") }
        if items.count > Input.maxItems { throw ValidationError("At most \(Input.maxItems) items.") }
        if let alarm, TaskAlarm(alarm) == nil { throw ValidationError(Input.badAlarm(alarm)) }
    }

    func run() throws {
        let title = try Input.title(self.title)
        let tags = try self.tags.map(Input.tag)
        let priority = try priority.map(Input.priority) ?? .normal
        let assignee = try assignee.map(Input.assignee)
        let notes = try note.map(Input.notes) ?? ""
        let h = try household.open()
        var new = NewTask(title: title)
        new.notes = notes
        new.assignee = assignee
        new.due = try due.map { try Input.due($0, clock: h.clock) }
        new.priority = priority
        new.tags = tags
        if let every {
            let rule = try Input.rule(every)
            new.recurrence = Recurrence(rule: rule, from: try Input.startDate(from, today: Env.today(h.clock)))
            new.rotation = try rotate.map(Input.rotation) ?? []
            new.schedule = catchUp ? .catchUp : .calendar
            new.anchor = afterDone ? .done : .due
            new.rotate = try turns.map(Input.turns) ?? .order
        }
        new.items = try items.map(Input.item)
        new.alarm = alarm.flatMap(TaskAlarm.init)
        let added = try h.add(new)
        guard let task = added.tasks.first else { return }
        if output.json {
            print(JSONWriter.compact(ChoreText.json(task.task, today: Env.today(h.clock), context: try h.turnContext())))
        } else {
            print(task.short)
        }
    }
}
