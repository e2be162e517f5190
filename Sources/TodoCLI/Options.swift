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

    /// Opens the selected household, pointing a merge driver whose binary has gone (todo was
    /// moved or reinstalled) at this one.
    func open() throws -> Household {
        let h = try Household.open(home: Env.home, name: name, clock: Env.clock)
        h.repairStaleMergeDriver(searchPath: Env.get("PATH")) { Env.driverCommand }
        h.finishInterruptedChangeIfFree()
        return h
    }
}

/// `--json` for commands with machine output.
struct JSONFlag: ParsableArguments {
    @Flag(name: .long, help: "Print JSON (see todo(1), JSON OUTPUT).")
    var json = false
}
