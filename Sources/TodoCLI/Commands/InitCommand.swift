import TodoWording
import TodoCore
import ArgumentParser
import TodoStore

struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a household.",
        discussion: """
            Creates $TODO_HOME/<household> as a git repository on branch main, records who you are \
            (from --name/--email, else git's user.name/user.email, else your login and host), and \
            sets up the field-level merge driver. Records the household's time zone: --timezone, \
            else this machine's (none when it is UTC; see `todo timezone`).

            Example: todo init --household cabin --name Alice --email alice@example.org
            """)

    @OptionGroup var household: HouseholdOptions
    @Option(help: "Your name as other members see it.") var name: String?
    @Option(help: "Your email address, for commits.") var email: String?
    @Option(help: "The shared remote to sync with (see `todo remote`).") var remote: String?
    @Flag(help: "Keep the household on its remote encrypted (with --remote; see `todo remote set --help`).") var encrypt = false
    @Option(help: ArgumentHelp("Record the household's time zone, like Europe/Paris (see `todo timezone`).", valueName: "zone"))
    var timezone: String?

    func run() throws {
        if let name, name.trimmingSpaces.isEmpty { throw CLIError("The name is empty.", exit: .usage) }
        // The creating member's zone unless one is given (none for a machine on UTC).
        let zone = timezone?.trimmingSpaces ?? HouseholdZone.machineZoneToRecord()
        if let zone, HouseholdZone.load(zone) == nil {
            throw CLIError("\"\(Terminal.safe(zone))\" is not a time zone of the tz database (/usr/share/zoneinfo).", exit: .usage)
        }
        if encrypt && remote == nil { throw CLIError("--encrypt needs --remote URL.", exit: .usage) }
        let identity = Identity.resolve(name: name?.trimmingSpaces, email: email)
        let h = try Household.create(
            home: Env.home, name: household.name, identity: identity, clock: Env.clock,
            driverCommand: Env.driverCommand)
        if let remote, !encrypt { try h.setRemote(remote.trimmingSpaces) }
        if let zone { try h.setZone(zone) }
        print("Created household \"\(h.name)\" in \(Terminal.safe(h.path)) for \(Terminal.safe(identity.name)) <\(Terminal.safe(identity.email))>.")
        if let zone { print("Household time zone: \(zone) (for every member; `todo timezone ZONE` changes it).") }
        if let remote, encrypt { try encryptRemote(h, remote.trimmingSpaces) }
    }
}

struct HouseholdsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "households", abstract: "List the households in $TODO_HOME.")

    func run() throws {
        let names = Household.list(home: Env.home)
        let current = Env.get("TODO_HOUSEHOLD") ?? "home"
        var out = Output()
        for name in names { out.line((name == current ? "* " : "  ") + name) }
        out.flush()
        if names.isEmpty && Terminal.stdoutIsTTY { printError("No households in \(Env.home). Run `todo init`.") }
    }
}
