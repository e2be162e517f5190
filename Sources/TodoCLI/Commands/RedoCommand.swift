import TodoWording
import ArgumentParser
import TodoStore

struct RedoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redo",
        abstract: "Bring back what your last undo took back.",
        discussion: """
            Writes back the values the undo replaced, with fresh stamps, as a new commit. Run \
            again, redo brings back what the undo before it took back, and so on; a change of yours \
            made since the undos ends that, and redo then has nothing to do. If someone changed one \
            of the same fields since the undo, nothing is written and redo says who and what, unless \
            --force.

            Examples:
              todo undo
              todo redo
            """)

    @OptionGroup var household: HouseholdOptions
    @Flag(help: "Redo even when others changed the same fields since.") var force = false

    func run() throws {
        let h = try household.open()
        guard let step = try h.nextRedo(depth: UndoCommand.searchDepth) else {
            throw CLIError("Nothing to redo: no undo of yours is left to take back since your last change.", exit: .notFound)
        }
        try UndoCommand.takeBack(step, h, force: force, again: "todo redo --force")
    }
}
