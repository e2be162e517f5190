import ArgumentParser

struct Todo: ParsableCommand {
    static let configuration = CommandConfiguration(
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
        version: "0.1.0",
        subcommands: [
            InitCommand.self, AddCommand.self, ListCommand.self, ShowCommand.self, EditCommand.self,
            DoneCommand.self, SkipCommand.self, SwapCommand.self, PassCommand.self, ReopenCommand.self, RemoveCommand.self, RestoreCommand.self, LogCommand.self, ChoresCommand.self,
            AgendaCommand.self, CalendarCommand.self, TimeZoneCommand.self, MemberCommand.self, RemindCommand.self, UndoCommand.self, RedoCommand.self, ChangesCommand.self,
            ImportCommand.self, HouseholdsCommand.self, ConflictsCommand.self, SyncCommand.self, CloneCommand.self, RemoteCommand.self, StatusCommand.self,
            DoctorCommand.self, MaintenanceCommand.self, MergeDriverCommand.self, ServeCommand.self,
        ]
    )
}
