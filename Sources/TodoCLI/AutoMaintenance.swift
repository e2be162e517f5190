import Glibc
import TodoStore

/// A command that may have written to a household: after it succeeded, the cheap housekeeping
/// check runs (docs/FORMAT.md, "Housekeeping"). Read-only commands do not conform.
protocol WritesHousehold {
    /// The household written; nil when this run only read (`undo --list`, `doctor` without `--fix`).
    var writtenHousehold: String? { get }
    /// Whether the run may have pushed to a path remote, whose objects are checked too.
    var syncedRemote: Bool { get }
}

extension WritesHousehold {
    var syncedRemote: Bool { false }
}

extension AddCommand: WritesHousehold { var writtenHousehold: String? { household.name } }
extension EditCommand: WritesHousehold { var writtenHousehold: String? { household.name } }
extension DoneCommand: WritesHousehold { var writtenHousehold: String? { household.name } }
extension SkipCommand: WritesHousehold { var writtenHousehold: String? { household.name } }
extension SwapCommand: WritesHousehold { var writtenHousehold: String? { household.name } }
extension PassCommand: WritesHousehold { var writtenHousehold: String? { household.name } }
extension ReopenCommand: WritesHousehold { var writtenHousehold: String? { household.name } }
extension RemoveCommand: WritesHousehold { var writtenHousehold: String? { household.name } }
extension RestoreCommand: WritesHousehold { var writtenHousehold: String? { household.name } }
extension ImportCommand: WritesHousehold { var writtenHousehold: String? { household.name } }
extension ConflictsRestoreCommand: WritesHousehold { var writtenHousehold: String? { household.name } }
extension UndoCommand: WritesHousehold { var writtenHousehold: String? { list ? nil : household.name } }
extension RedoCommand: WritesHousehold { var writtenHousehold: String? { household.name } }
extension DoctorCommand: WritesHousehold { var writtenHousehold: String? { fix ? household.name : nil } }
/// A clone from a path remote copies the remote's packs as they are: one a bulk push wrote
/// with its objects whole, not yet repacked there, is repacked here.
extension CloneCommand: WritesHousehold { var writtenHousehold: String? { household.name } }
extension SyncCommand: WritesHousehold {
    var writtenHousehold: String? { household.name }
    var syncedRemote: Bool { true }
}

enum AutoMaintenance {
    /// Packs the household's object store (or, after a sync, its path remote's) when it is
    /// above the thresholds: in this command when it is small, else by starting `todo
    /// maintenance --auto` detached. Costs three directory reads when nothing is due; never
    /// fails the command.
    static func check(after command: Any) {
        guard let writer = command as? WritesHousehold, let name = writer.writtenHousehold else { return }
        let setting = Env.get("TODO_MAINTENANCE_THRESHOLD")
        if setting == "off" { return }
        let exact = setting.flatMap { Int($0) }
        let afterSync = writer.syncedRemote
        var due = Household.maintenanceDue(home: Env.home, name: name, exact: exact, afterSync: afterSync)
        if !due && afterSync, let h = try? Household.openForReading(home: Env.home, name: name, clock: Env.clock),  // unreadable: no estimate, so no housekeeping now; the command's own work is done
            let remote = h.pathRemoteObjectsDirectory()
        {
            due = Household.maintenanceDue(objectsDirectory: remote, exact: exact, afterSync: true)
        }
        guard due else { return }
        // A small store is packed now, in this command (about 0.1 s): nothing is left running
        // after it returns. A larger one is packed detached.
        if let h = try? Household.open(home: Env.home, name: name, clock: Env.clock),
            h.objectStores().allSatisfy({ $0.state.bytes < Household.inlineMaintenanceBytes })
        {
            var options = MaintenanceOptions()
            options.auto = true
            options.afterSync = afterSync
            options.exactThreshold = exact
            _ = try? h.maintain(options)  // housekeeping on its own: a failure leaves every object where it was, the next run tries again and `todo doctor` reports
            return
        }
        startDetached(["maintenance", "--auto"] + (afterSync ? ["--after-sync"] : []) + ["-H", name])
    }

    /// Runs this executable with `arguments` detached, and does not wait for it.
    static func startDetached(_ arguments: [String]) {
        Household.startDetached(Env.executablePath, arguments)
    }
}
