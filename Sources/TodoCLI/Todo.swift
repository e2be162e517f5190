import ArgumentParser
import Synchronization
import TodoCore

struct Todo: ParsableCommand {
    /// What `todo --version` prints (TodoCore's Version.swift).
    static var version: String { TodoVersion.text }

    /// The root command's configuration: `plain`, except while `parseCommandLine(_:)` parses a
    /// command line that asks for no completion script.
    static var configuration: CommandConfiguration {
        skipsCompletionScriptLook.withLock { $0 } ? withoutCompletionScriptLook : plain
    }

    static let plain = CommandConfiguration(
        commandName: "todo",
        abstract: "A household's shared to-do list, kept in git.",
        discussion: """
            Each household is a git repository under $TODO_HOME (default ~/.local/share/todo), one \
            JSON file per task; every change is one commit. Works fully offline.

            Examples:
              todo init --name Alice --email alice@example.org
              todo add "Buy milk" --due tomorrow --tag groceries
              todo list
              todo done 3f2a
            """,
        version: version,
        subcommands: [
            InitCommand.self, AddCommand.self, ListCommand.self, ShowCommand.self, EditCommand.self,
            DoneCommand.self, SkipCommand.self, SwapCommand.self, PassCommand.self, ReopenCommand.self, RemoveCommand.self, RestoreCommand.self, LogCommand.self, ChoresCommand.self,
            AgendaCommand.self, CalendarCommand.self, TimeZoneCommand.self, MemberCommand.self, KeyCommand.self, RemindCommand.self, UndoCommand.self, RedoCommand.self, ChangesCommand.self,
            ImportCommand.self, HouseholdsCommand.self, ConflictsCommand.self, SyncCommand.self, CloneCommand.self, RemoteCommand.self, StatusCommand.self,
            DoctorCommand.self, MaintenanceCommand.self, MergeDriverCommand.self, ServeCommand.self,
        ]
    )
}

extension Todo {
    /// Parses a command line (without the program name) the way `parseAsRoot` does, skipping
    /// argument-parser's look for `--generate-completion-script` when no argument starts so: that
    /// look parses the line twice more, as two commands of argument-parser's own, and cost half of
    /// `todo --version`'s instructions and a quarter of `todo add`'s at c80d975 (docs/SPEED.md).
    /// argument-parser makes no such look for a root command with a `_superCommandName`, which it
    /// reads elsewhere only to render help and usage; the root has one only during the parse, and
    /// help and errors are rendered after it. So every line parses as before: a line that asks
    /// for a script gets the look, and no other line could have matched it.
    static func parseCommandLine(_ arguments: [String]) throws -> ParsableCommand {
        let asksForScript = arguments.contains { $0.hasPrefix("--generate-completion-script") }
        if asksForScript { return try parseAsRoot(arguments) }
        skipsCompletionScriptLook.withLock { $0 = true }
        defer { skipsCompletionScriptLook.withLock { $0 = false } }
        return try parseAsRoot(arguments)
    }

    private static let skipsCompletionScriptLook = Mutex(false)

    private static let withoutCompletionScriptLook: CommandConfiguration = {
        var configuration = plain
        configuration._superCommandName = ""
        return configuration
    }()
}
