import ArgumentParser
import TodoCore
import TodoStore

struct ChangesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "Show what others changed (the last sync).",
        discussion: """
            One line per member and kind of change: added, completed, chore occurrences done or \
            skipped (which dates), reopened, deleted, restored, edited (which fields), assigned to \
            you (marked *), a deletion that set your edit aside, new conflicts. Read from the history and the stamps, so it can be asked again.

            Examples:
              todo changes
              todo changes --since monday --mine
            """)

    @OptionGroup var household: HouseholdOptions
    @Option(help: "What others changed since this date instead (see todo(1), DATES).") var since: String?
    @Flag(name: .customLong("last-sync"), help: "What the last sync received (the default).") var lastSync = false
    @Flag(help: "Only what touches your tasks (assigned to you, or your edits).") var mine = false
    @OptionGroup var output: JSONFlag

    func validate() throws {
        if since != nil && lastSync { throw ValidationError("Use either --since or --last-sync, not both.") }
    }

    func run() throws {
        let h = try household.openForReading()
        var changes: ReceivedChanges
        if let since {
            let due = try Input.due(since, clock: h.clock)
            let millis = h.clock.millis(atLocal: due)
            changes = try h.receivedChangeReport(from: try h.commitBefore(millis), to: try h.headCommit(), sinceMillis: millis)
        } else if let range = h.lastSyncRange() {
            changes = try h.receivedChangeReport(from: range.from, to: range.to)
        } else {
            changes = ReceivedChanges(tasks: [], household: [])
        }
        if mine { changes = changes.mine() }
        var out = Output()
        if output.json {
            out.line(JSONWriter.compact(ChangesText.json(changes)))
        } else if changes.isEmpty {
            if Terminal.stdoutIsTTY { out.line(since == nil ? "The last sync received nothing from others." : "Nothing from others since then.") }
        } else {
            let shorts = try h.snapshot().shortIDs(changes.taskIDs)
            for line in ChangesText.lines(changes, shorts: shorts, limit: nil, today: Env.today(h.clock)) { out.line(line) }
        }
        out.flush()
    }
}
