import TodoWording
import ArgumentParser
import TodoCore
import TodoStore

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check a household and say what to do.",
        discussion: """
            Checks, one line per finding: stale locks and interrupted changes; commits not yet \
            sent that other members would refuse (a path the format does not allow); task files that \
            cannot be read or are not where their id says; task files changed by hand and not \
            committed; the merge driver that plain `git merge` uses (the program it names exists \
            and is this version of todo); the user unit `todo serve install` wrote for the household, \
            when there is one (the programs it names still exist); stamps more than a day ahead of this machine's clock; \
            the remote (reachable, and its main shares history with this household, or, for a \
            household cloned from an empty remote, that it waits for the remote's first history).

            --fix repairs what is safe to repair: removes stale locks, finishes an interrupted \
            change, puts one new commit on the remote's main in place of unsent commits that \
            others would refuse (kept under refs/todo/set-aside/), points the merge driver at \
            this todo, and restores each unreadable task file to its last readable version in one \
            new commit (history others have is never rewritten).

            Exit status: 0 when healthy (or everything found was fixed), 65 when something needs \
            a person.

            Example:
              todo doctor            (one line per check: ok: locks: no stale locks. ...)
              todo doctor --fix      (restores an unreadable file with a new commit)
              todo doctor --offline --json
            """)

    @OptionGroup var household: HouseholdOptions
    @Flag(help: "Repair what is safe to repair.") var fix = false
    @Flag(help: "Do not contact the remote.") var offline = false
    @Option(help: "Seconds allowed for the network (default 60).") var timeout: Double = 60
    @OptionGroup var output: JSONFlag

    func validate() throws {
        if !(timeout > 0 && timeout <= 86_400) { throw ValidationError("--timeout must be between 0 and 86400 seconds.") }
    }

    func run() throws {
        var options = DoctorOptions(
            executable: Env.executablePath, version: Todo.configuration.version, driverCommand: Env.driverCommand,
            searchPath: Env.get("PATH"), sync: .fromEnvironment(timeout: timeout, quiet: true))
        options.fix = fix
        options.offline = offline
        options.configHome = Env.configHome
        // Without --fix, through the read view: the checks cannot repair. With it, opened
        // without `household.open()`'s quiet repair of the merge driver, so that the check sees
        // the setting as it is before it repairs.
        let findings =
            fix
            ? try Household.open(home: Env.home, name: household.name, clock: Env.clock).doctor(options)
            : try Household.openForReading(home: Env.home, name: household.name, clock: Env.clock).check(options)
        let healthy = !findings.contains { $0.status == .problem }
        var out = Output()
        if output.json {
            out.line(
                JSONWriter.compact(
                    .object([
                        ("healthy", .bool(healthy)),
                        (
                            "findings",
                            .array(
                                findings.map { f in
                                    .object([
                                        ("check", .string(f.check)), ("status", .string(f.status.rawValue)),
                                        ("path", f.path.map { .string($0) } ?? .null), ("message", .string(DoctorMessages.message(f))),
                                        ("advice", DoctorMessages.advice(f).map { .string($0) } ?? .null), ("fixable", .bool(f.fixable)),
                                    ])
                                })
                        ),
                    ])))
        } else {
            for f in findings {
                var line = "\(f.status.rawValue): \(f.check): \(Terminal.safe(sentence(DoctorMessages.message(f))))"
                if let advice = DoctorMessages.advice(f), !advice.isEmpty { line += " " + Terminal.safe(sentence(advice.prefix(1).uppercased() + advice.dropFirst())) }
                out.line(line)
            }
        }
        out.flush()
        if !healthy { throw ExitCode(Exit.data.rawValue) }
    }
}

/// `text` ending in one full stop.
private func sentence(_ text: String) -> String {
    var t = Substring(text)
    while t.hasSuffix(".") { t = t.dropLast() }
    return t + "."
}

extension Env {
    /// The `merge.todo.driver` setting that runs this binary: `todo merge-driver ...` when
    /// `todo` on `PATH` is this binary (so that a reinstall along `PATH` keeps working), else
    /// its absolute path.
    static var driverCommand: String {
        MergeDriverConfig.command(for: executablePath, searchPath: get("PATH"))
    }
}
