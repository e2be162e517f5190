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
    @Option(help: "When it is due: YYYY-MM-DD, today, tomorrow, a weekday, +3d, +2w; optionally with HH:MM.")
    var due: String?
    @Option(name: .customLong("assign"), help: "Who should do it.") var assignee: String?
    @Option(name: .customLong("tag"), help: "A tag (repeat for more).") var tags: [String] = []
    @Option(help: "low, normal or high.") var priority: String?
    @Option(help: "A note.") var note: String?
    @OptionGroup var output: JSONFlag

    func run() throws {
        let title = try Input.title(self.title)
        let tags = try self.tags.map(Input.tag)
        let priority = try priority.map(Input.priority) ?? .normal
        let assignee = try assignee.map(Input.assignee)
        let notes = try note.map(Input.notes) ?? ""
        let h = try household.open()
        let dueValue = try due.map { try Input.due($0, today: Env.today(h.clock)) }
        let stamper = try h.stamper()
        var rng = SystemRandomNumberGenerator()
        let (task, short) = try h.update { snap in
            var id = TaskID.random(using: &rng)
            while try snap.task(id) != nil { id = TaskID.random(using: &rng) }
            let stamp = stamper.stamp(after: nil)
            var task = Task(
                id: id, title: title, createdAt: isoMillis(stamper.clock.nowMillis()), createdBy: stamper.member,
                notes: notes, assignee: assignee, due: dueValue, priority: priority)
            for field in Task.stampedFields { task.stamps[field] = stamp }
            for tag in tags { task.setTag(tag, present: true, stamp: stamp) }
            let short = try snap.shortIDs([id], adding: [id])[id] ?? String(id.hex.prefix(4))
            return Household.Update(
                tasks: [task], message: "add: \(CommitText.title(title)) (\(short))", value: (task, short))
        }
        if output.json {
            print(JSONWriter.compact(TaskCodec.publicObject(task)))
        } else {
            print(short)
        }
    }
}

/// How task text appears in commit messages: one line, control characters escaped, short.
enum CommitText {
    static func title(_ s: String) -> String {
        Terminal.truncated(Terminal.safe(s), 60)
    }
}
