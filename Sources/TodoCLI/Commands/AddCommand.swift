import ArgumentParser
import TodoCore
import TodoStore

struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a task and print its short id.",
        discussion: """
            Example: todo add "Buy milk" --due tomorrow --assign Bob --tag groceries --priority high
            """)

    @OptionGroup var household: HouseholdOptions
    @Argument(help: "The title (several words are joined with spaces).") var title: [String] = []
    @Option(help: "When it is due: YYYY-MM-DD, today, friday, eow, 15th, +3d, +1m... (todo(1), DATES); optionally with HH:MM.")
    var due: String?
    @Option(name: .customLong("assign"), help: "Who should do it.", completion: Completions.assignees) var assignee: String?
    @Option(name: .customLong("tag"), help: "A tag (repeat for more).") var tags: [String] = []
    @Option(help: "low, normal or high.", completion: Completions.priorities) var priority: String?
    @Option(help: "A note.") var note: String?
    @OptionGroup var output: JSONFlag

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
        new.due = try due.map { try Input.due($0, today: Env.today(h.clock)) }
        new.priority = priority
        new.tags = tags
        let added = try h.add(new)
        guard let task = added.tasks.first else { return }
        if output.json {
            print(JSONWriter.compact(TaskCodec.publicObject(task.task)))
        } else {
            print(task.short)
        }
    }
}
