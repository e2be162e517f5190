import ArgumentParser
import TodoCore
import TodoStore

struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Change a task's fields.",
        discussion: "Example: todo edit 3f2a --title \"Buy oat milk\" --due friday --tag shop --untag weekly")

    @OptionGroup var household: HouseholdOptions
    @Argument(help: "The task id (any unique prefix).") var id: String
    @Option(help: "A new title.") var title: String?
    @Option(help: "A new due date.") var due: String?
    @Flag(name: .customLong("no-due"), help: "Remove the due date.") var noDue = false
    @Option(name: .customLong("assign"), help: "Who should do it.") var assignee: String?
    @Flag(help: "Remove the assignee.") var unassign = false
    @Option(name: .customLong("tag"), help: "Add a tag (repeatable).") var tags: [String] = []
    @Option(name: .customLong("untag"), help: "Remove a tag (repeatable).") var untags: [String] = []
    @Option(help: "low, normal or high.") var priority: String?
    @Option(help: "Replace the note.") var note: String?

    func validate() throws {
        if due != nil && noDue { throw ValidationError("Use either --due or --no-due, not both.") }
        if assignee != nil && unassign { throw ValidationError("Use either --assign or --unassign, not both.") }
    }

    func run() throws {
        var values: [(String, JSONValue)] = []
        if let title { values.append(("title", .string(try Input.title([title])))) }
        if let assignee { values.append(("assignee", .string(try Input.assignee(assignee)))) }
        if unassign { values.append(("assignee", .null)) }
        if let priority { values.append(("priority", .string(try Input.priority(priority).rawValue))) }
        if let note { values.append(("notes", .string(try Input.notes(note)))) }
        if noDue { values.append(("due", .null)) }
        let add = try tags.map(Input.tag)
        let remove = try untags.map(Input.tag)
        if let both = Set(add).intersection(remove).first {
            throw CLIError("Tag \"\(Terminal.safe(both))\" is both added and removed.", exit: .usage)
        }
        let h = try household.open()
        if let due { values.append(("due", .string(try Input.due(due, today: Env.today(h.clock)).description))) }
        if values.isEmpty && add.isEmpty && remove.isEmpty {
            throw CLIError("Say what to change, e.g. todo edit \(Terminal.safe(id)) --title \"New title\".", exit: .usage)
        }
        var fields: [String] = []
        let results = try h.change(ids: [id], verb: "edit") { task, stamp in
            for (field, value) in values where task.value(of: field) != value {
                try task.write(field, value, stamp: stamp)
                fields.append(field)
            }
            for tag in add where task.tagStates[tag]?.present != true {
                task.setTag(tag, present: true, stamp: stamp)
                fields.append("+\(tag)")
            }
            for tag in remove where task.tagStates[tag]?.present == true {
                task.setTag(tag, present: false, stamp: stamp)
                fields.append("-\(tag)")
            }
            return !fields.isEmpty
        }
        guard let r = results.first else { return }
        if r.changed {
            print("Changed \(fields.map(Terminal.safe).joined(separator: ", ")): \(Terminal.safe(r.task.title)) (\(r.short))")
        } else {
            print("Nothing changed: \(Terminal.safe(r.task.title)) (\(r.short))")
        }
    }
}
