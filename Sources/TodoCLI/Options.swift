import ArgumentParser
import TodoCore
import TodoStore

/// Options every household command takes.
struct HouseholdOptions: ParsableArguments {
    @Option(
        name: [.customShort("H"), .long],
        help: ArgumentHelp("The household to use (default: $TODO_HOUSEHOLD, else \"home\").", valueName: "name"),
        completion: Completions.households)
    var household: String?

    @Flag(help: "Add libgit2's technical detail to error messages.")
    var verbose = false

    var name: String { household ?? Env.get("TODO_HOUSEHOLD") ?? "home" }

    /// Opens the selected household for a command that changes it (`Household.openForChange`):
    /// a merge driver whose binary has gone (todo was moved or reinstalled) is pointed at this
    /// one, and a change a killed command left half done is finished first.
    func open() throws -> Household {
        try Household.openForChange(home: Env.home, name: name, clock: Env.clock, searchPath: Env.get("PATH")) {
            Env.driverCommand
        }
    }

    /// Opens the selected household for a command that only reads it: its read view, so the
    /// command cannot write (only what docs/FORMAT.md lists as caches may be refreshed). A
    /// change a killed command left half done is told, not finished: what is shown is the last
    /// complete change, and the next command that changes something finishes it.
    func openForReading() throws -> HouseholdReader {
        let h = try Household.openForReading(home: Env.home, name: name, clock: Env.clock)
        if h.hasInterruptedChange {
            printError("todo: warning: a change was interrupted before it finished; this shows the household as of the last complete change. The next command that changes something finishes it.")
        }
        return h
    }
}

/// `--json` for commands with machine output.
struct JSONFlag: ParsableArguments {
    @Flag(name: .long, help: "Print JSON (see todo(1), JSON OUTPUT).")
    var json = false
}
