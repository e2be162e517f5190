import TodoWording
import ArgumentParser
import TodoCore
import TodoStore

/// rm and restore: one state change on one or more tasks (done, skip and reopen: ChoreCommands.swift).
protocol StateCommand: ParsableCommand {
    var household: HouseholdOptions { get }
    var ids: [String] { get }
    static var state: TaskState { get }
    static var doneLabel: String { get }
    static var alreadyLabel: String { get }
}

extension StateCommand {
    func run() throws {
        if ids.isEmpty { throw CLIError("Name at least one task id.", exit: .usage) }
        let h = try household.open()
        var out = Output()
        for r in try h.set(Self.state, ids: ids).tasks {
            let label = r.changed ? Self.doneLabel : Self.alreadyLabel
            var line = "\(label): \(Terminal.safe(r.task.title)) (\(r.short))"
            if r.changed && Self.state == .rm { line += " (undo with `todo restore \(r.short)`)" }
            out.line(line)
        }
        out.flush()
    }
}

struct RemoveCommand: StateCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm", abstract: "Delete tasks (they can be restored).",
        discussion: "Deleting writes a tombstone; the file stays and `todo restore` brings the task back.")
    @OptionGroup var household: HouseholdOptions
    @Argument(help: "Task ids (each a unique prefix of 4 or more characters).", completion: Completions.taskIDs) var ids: [String] = []
    static let state = TaskState.rm
    static let doneLabel = "Deleted"
    static let alreadyLabel = "Already deleted"
}

struct RestoreCommand: StateCommand {
    static let configuration = CommandConfiguration(commandName: "restore", abstract: "Bring deleted tasks back.")
    @OptionGroup var household: HouseholdOptions
    @Argument(help: "Task ids (each a unique prefix of 4 or more characters).", completion: Completions.taskIDs) var ids: [String] = []
    static let state = TaskState.restore
    static let doneLabel = "Restored"
    static let alreadyLabel = "Not deleted"
}
