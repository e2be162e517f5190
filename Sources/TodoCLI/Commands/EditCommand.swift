import ArgumentParser
import TodoCore
import TodoStore

struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Change a task's fields.",
        discussion: "Example: todo edit 3f2a --title \"Buy oat milk\" --due friday --tag shop --untag weekly")

    @OptionGroup var household: HouseholdOptions
    @Argument(help: "The task id (any unique prefix).", completion: Completions.taskIDs) var id: String
    @Option(help: "A new title.") var title: String?
    @Option(help: "A new due date.") var due: String?
    @Flag(name: .customLong("no-due"), help: "Remove the due date.") var noDue = false
    @Option(name: .customLong("assign"), help: "Who should do it.", completion: Completions.assignees) var assignee: String?
    @Flag(help: "Remove the assignee.") var unassign = false
    @Option(name: .customLong("tag"), help: "Add a tag (repeatable).") var tags: [String] = []
    @Option(name: .customLong("untag"), help: "Remove a tag (repeatable).") var untags: [String] = []
    @Option(help: "low, normal or high.", completion: Completions.priorities) var priority: String?
    @Option(help: "Replace the note.") var note: String?

    func validate() throws {
        if due != nil && noDue { throw ValidationError("Use either --due or --no-due, not both.") }
        if assignee != nil && unassign { throw ValidationError("Use either --assign or --unassign, not both.") }
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
        if let due { edit.due = .set(try Input.due(due, today: Env.today(h.clock))) }
        if edit.isEmpty {
            throw CLIError("Say what to change, e.g. todo edit \(Terminal.safe(id)) --title \"New title\".", exit: .usage)
        }
        guard let r = try h.edit(id, edit).tasks.first else { return }
        if r.changed {
            print("Changed \(r.fields.map(Terminal.safe).joined(separator: ", ")): \(Terminal.safe(r.task.title)) (\(r.short))")
        } else {
            print("Nothing changed: \(Terminal.safe(r.task.title)) (\(r.short))")
        }
    }
}
