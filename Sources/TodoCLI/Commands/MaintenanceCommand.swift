import TodoWording
import Glibc
import ArgumentParser
import TodoCore
import TodoStore

struct MaintenanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "maintenance",
        abstract: "Pack the history to save disk space.",
        discussion: """
            Writes every object the household's history needs into one pack with deltas, makes \
            it durable, then removes the loose objects and older packs it holds (see \
            docs/FORMAT.md, "Housekeeping"). Leftovers of interrupted changes are removed once \
            older than 14 days. A path remote the household syncs with is packed the same way. \
            Safe while other commands, syncs and pushes run, and at any interruption.

            It also runs by itself, detached, after a command that wrote once the household \
            holds more than about 2,000 loose objects (256 after a sync) or its packs need \
            combining; `todo doctor` shows the state.

            Exit status: 0 when done; 75 when another `todo maintenance` is running on the \
            household; 73 when the disk is full (nothing is lost).

            Example:
              todo maintenance
              todo maintenance --json
            """)

    @OptionGroup var household: HouseholdOptions
    @Flag(help: "Only when above the thresholds, quietly (what commands start by themselves).") var auto = false
    @Flag(help: .hidden) var afterSync = false
    @OptionGroup var output: JSONFlag

    #if TODO_TEST_HOOKS
    /// The tests' hooks (debug builds only, docs/TESTING.md): `TODO_MAINTENANCE_GRACE` replaces
    /// the grace period; `TODO_MAINTENANCE_STOP_AT=NAME:MARKER` creates MARKER at checkpoint
    /// NAME and waits there to be killed.
    static func testHooks(_ options: inout MaintenanceOptions) {
        if let grace = Env.get("TODO_MAINTENANCE_GRACE").flatMap(Double.init), grace >= 0 { options.grace = grace }
        if let stop = Env.get("TODO_MAINTENANCE_STOP_AT"), let colon = stop.firstIndex(of: ":") {
            let name = String(stop[..<colon])
            let marker = String(stop[stop.index(after: colon)...])
            options.checkpoint = { point in
                guard point == name else { return }
                close(open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644))
                while true { pause() }
            }
        }
    }
    #endif

    func run() throws {
        // Started by a command in the background: the commands people wait for go first.
        if auto { _ = nice(10) }
        let h = try household.open()
        var options = MaintenanceOptions()
        options.auto = auto
        options.afterSync = afterSync
        options.exactThreshold = Env.get("TODO_MAINTENANCE_THRESHOLD").flatMap { Int($0) }
        #if TODO_TEST_HOOKS
        Self.testHooks(&options)
        #endif
        let report = try h.maintain(options)
        if auto { return }
        var out = Output()
        if output.json {
            out.line(JSONWriter.compact(.object([("repositories", .array(report.parts.map(Self.json)))])))
        } else {
            for part in report.parts {
                let name = part.isRemote ? "Remote \(Terminal.safe(part.place))" : "Household \(h.name)"
                if part.busy {
                    out.line("\(name): another maintenance is running; left to it.")
                    continue
                }
                if part.skipped {
                    out.line("\(name): already packed (\(DoctorMessages.describe(part.before))).")
                    continue
                }
                var line = "\(name): packed \(part.objectsPacked) objects into one pack; removed \(part.looseRemoved) loose objects"
                line += part.packsRemoved == 1 ? " and 1 older pack." : " and \(part.packsRemoved) older packs."
                out.line(line)
                out.line("  before: \(DoctorMessages.describe(part.before)); after: \(DoctorMessages.describe(part.after)).")
                if part.unreachableRemoved > 0 || part.unreachableKept > 0 {
                    out.line(
                        "  Leftovers of interrupted changes: \(part.unreachableRemoved) removed, \(part.unreachableKept) kept (younger than 14 days, or in a remote).")
                }
            }
            if let missing = report.remoteMissing {
                out.line("The remote \(Terminal.safe(missing)) could not be opened; only the household was packed.")
            }
        }
        out.flush()
        if report.busy && report.parts.allSatisfy(\.busy) {
            throw CLIError(
                "Another `todo maintenance` is packing this household now; nothing was done. Try again when it has finished.",
                exit: .busy)
        }
    }

    static func json(_ part: MaintenancePart) -> JSONValue {
        func state(_ s: StorageState) -> JSONValue {
            .object([("looseObjects", .number(String(s.looseObjects))), ("packs", .number(String(s.packs))), ("bytes", .number(String(s.bytes)))])
        }
        return .object([
            ("place", .string(part.place)), ("remote", .bool(part.isRemote)), ("busy", .bool(part.busy)),
            ("skipped", .bool(part.skipped && !part.busy)),
            ("objectsPacked", .number(String(part.objectsPacked))), ("looseRemoved", .number(String(part.looseRemoved))),
            ("packsRemoved", .number(String(part.packsRemoved))), ("unreachableRemoved", .number(String(part.unreachableRemoved))),
            ("unreachableKept", .number(String(part.unreachableKept))), ("before", state(part.before)), ("after", state(part.after)),
        ])
    }
}
