import TodoWording
import ArgumentParser
import TodoCore
import TodoStore

struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Change a task's fields.",
        discussion: """
            Example: todo edit 3f2a --title "Buy oat milk" --due friday --tag shop --untag weekly

            On a chore with a rotation, --assign gives the current occurrence to that member only.
            Checklist items are named by their text or by the number `todo show` prints.
            """)

    @OptionGroup var household: HouseholdOptions
    @Argument(help: "The task id (a unique prefix of 4 or more characters).", completion: Completions.taskIDs) var id: String
    @Option(help: "A new title.") var title: String?
    @Option(help: "A new due date.") var due: String?
    @Flag(name: .customLong("no-due"), help: "Remove the due date.") var noDue = false
    @Option(name: .customLong("assign"), help: "Who should do it.", completion: Completions.assignees) var assignee: String?
    @Flag(help: "Remove the assignee.") var unassign = false
    @Option(name: .customLong("tag"), help: "Add a tag (repeatable).") var tags: [String] = []
    @Option(name: .customLong("untag"), help: "Remove a tag (repeatable).") var untags: [String] = []
    @Option(help: "low, normal or high.", completion: Completions.priorities) var priority: String?
    @Option(help: "Replace the note.") var note: String?
    @Option(help: "Make it a chore, or change its rule (starting --from, default today).") var every: String?
    @Option(help: "With --every: the first day of the new rule.") var from: String?
    @Flag(name: .customLong("no-repeat"), help: "Make a chore a plain task.") var noRepeat = false
    @Option(help: "Members taking turns (A,B,C); an empty value removes the rotation.") var rotate: String?
    @Option(help: "How the rotation takes turns: order or fewest.") var turns: String?
    @Flag(name: .customLong("catch-up"), help: "Every occurrence must be done (a missed one stays due).") var catchUp = false
    @Flag(name: .customLong("no-catch-up"), help: "Follow the calendar: a missed occurrence is missed (the default).") var noCatchUp = false
    @Flag(name: .customLong("after-done"), help: "Count the next date from the day it is done (rules 3d, 2w, month...).") var afterDone = false
    @Flag(name: .customLong("no-after-done"), help: "Count the next date from the calendar (the default).") var noAfterDone = false
    @Option(help: ArgumentHelp("Its own alarm in `todo calendar`: this long before (30m, 2h, 1d) or a time of day on its day (HH:MM).", valueName: "when"))
    var alarm: String?
    @Flag(name: .customLong("no-alarm"), help: "Remove its own alarm (the feed's --alarm applies again).") var noAlarm = false
    @Option(name: .customLong("item"), help: "Add a checklist item (repeatable).") var addItems: [String] = []
    @Option(name: .customLong("check"), help: "Check an item off, by text or number (repeatable).") var checkItems: [String] = []
    @Option(name: .customLong("uncheck"), help: "Uncheck an item (repeatable).") var uncheckItems: [String] = []
    @Option(name: .customLong("remove-item"), help: "Remove an item (repeatable).") var removeItems: [String] = []

    func validate() throws {
        if due != nil && noDue { throw ValidationError("Use either --due or --no-due, not both.") }
        if assignee != nil && unassign { throw ValidationError("Use either --assign or --unassign, not both.") }
        if every != nil && noRepeat { throw ValidationError("Use either --every or --no-repeat, not both.") }
        if from != nil && every == nil { throw ValidationError("--from needs --every.") }
        if catchUp && noCatchUp { throw ValidationError("Use either --catch-up or --no-catch-up, not both.") }
        if afterDone && noAfterDone { throw ValidationError("Use either --after-done or --no-after-done, not both.") }
        if afterDone && catchUp { throw ValidationError(Input.afterDoneAndCatchUp) }
        if alarm != nil && noAlarm { throw ValidationError("Use either --alarm or --no-alarm, not both.") }
        if let alarm, TaskAlarm(alarm) == nil { throw ValidationError(Input.badAlarm(alarm)) }
    }

    func run() throws {
        var edit = TaskEdit()
        edit.title = try title.map { try Input.title([$0]) }
        if let assignee { edit.assignee = .set(try Input.assignee(assignee)) }
        if unassign { edit.assignee = .clear }
        edit.priority = try priority.map(Input.priority)
        edit.notes = try note.map(Input.notes)
        if noDue { edit.due = .clear }
        edit.addTags = try tags.map(Input.tag)
        edit.removeTags = try untags.map(Input.tag)
        if let both = Set(edit.addTags).intersection(edit.removeTags).first {
            throw CLIError("Tag \"\(Terminal.safe(both))\" is both added and removed.", exit: .usage)
        }
        let h = try household.open()
        if let due { edit.due = .set(try Input.due(due, clock: h.clock)) }
        if let every {
            edit.recurrence = .set(Recurrence(rule: try Input.rule(every), from: try Input.startDate(from, today: Env.today(h.clock))))
        }
        if noRepeat { edit.recurrence = .clear }
        if let rotate { edit.rotation = rotate.trimmingSpaces.isEmpty ? [] : try Input.rotation(rotate) }
        if let turns { edit.rotate = try Input.turns(turns) }
        if catchUp { edit.schedule = .catchUp }
        if noCatchUp { edit.schedule = .calendar }
        if afterDone { edit.anchor = .done }
        if noAfterDone { edit.anchor = .due }
        if let a = alarm.flatMap(TaskAlarm.init) { edit.alarm = .set(a) }
        if noAlarm { edit.alarm = .clear }
        edit.addItems = try addItems.map(Input.item)
        edit.checkItems = checkItems
        edit.uncheckItems = uncheckItems
        edit.removeItems = removeItems
        if edit.isEmpty {
            throw CLIError("Say what to change, e.g. todo edit \(Terminal.safe(id)) --title \"New title\".", exit: .usage)
        }
        let outcome = try h.edit(id, edit)
        guard let r = outcome.tasks.first else { return }
        if r.changed {
            print("Changed \(r.fields.map(Terminal.safe).joined(separator: ", ")): \(Terminal.safe(r.task.title)) (\(r.short))")
            // --assign on a rotating chore took over its current occurrence: say so when it is today's.
            let today = Env.today(h.clock)
            if r.fields.contains("turn"), let s = r.task.schedule(today: today, context: try outcome.context ?? h.turnContext()),
                s.current == today, let line = ChoreText.todaysTurnMoved(s, today: today)
            {
                print(line)
            }
        } else {
            print("Nothing changed: \(Terminal.safe(r.task.title)) (\(r.short))")
        }
    }
}
