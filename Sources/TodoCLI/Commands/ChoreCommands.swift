import ArgumentParser
import TodoCore
import TodoStore

/// `done` and `skip`: records the current occurrence of each task (with `all`, every open one up
/// to today) and prints what changed.
func recordOccurrences(
    _ ids: [String], _ action: OccurrenceAction, all: Bool, household: HouseholdOptions, label: String, already: String
) throws {
    if ids.isEmpty { throw CLIError("Name at least one task id.", exit: .usage) }
    let h = try household.open()
    let today = Env.today(h.clock)
    let outcome = try h.complete(ids, action, through: all ? today : nil)
    renderOccurrenceChanges(outcome, label: label, already: already, today: today)
}

/// Prints what `done`, `skip` or `reopen` did: for a chore the occurrences and the next one.
func renderOccurrenceChanges(_ outcome: ChangeOutcome, label: String, already: String, today: CivilDate) {
    var out = Output()
    for r in outcome.tasks {
        let name = "\(Terminal.safe(r.task.title)) (\(r.short))"
        guard r.task.isChore else {
            out.line("\(r.changed ? label : already): \(name)")
            continue
        }
        guard r.changed else {
            out.line("Nothing to change: \(name)")
            continue
        }
        let dates = r.fields.compactMap { CivilDate(iso: Substring($0)) }.map { ChoreText.day($0, today: today) }
        var line = "\(label): \(name), \(dates.joined(separator: ", "))"
        if let next = r.task.currentOccurrence {
            line += "; next: " + ChoreText.occurrence(next, of: r.task, today: today)
        }
        out.line(line)
    }
    out.flush()
}

struct DoneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "done", abstract: "Mark tasks done (a chore: its current occurrence).",
        discussion: """
            On a chore, completes the current occurrence (the earliest one not yet done or skipped) \
            and shows the next. With --all, every open occurrence up to today is completed.

            Example: todo done 3f2a 91bc
            """)
    @OptionGroup var household: HouseholdOptions
    @Argument(help: "Task ids (any unique prefix).", completion: Completions.taskIDs) var ids: [String] = []
    @Flag(help: "On a chore: complete every open occurrence up to today, not just the current one.") var all = false

    func run() throws {
        try recordOccurrences(ids, .done, all: all, household: household, label: "Done", already: "Already done")
    }
}

struct SkipCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skip", abstract: "Skip a chore's current occurrence.",
        discussion: """
            The occurrence counts as dealt with but not done (it does not count for anyone in \
            `todo chores`). With --all, every open occurrence up to today is skipped.

            Example: todo skip 3f2a
            """)
    @OptionGroup var household: HouseholdOptions
    @Argument(help: "Chore ids (any unique prefix).", completion: Completions.taskIDs) var ids: [String] = []
    @Flag(help: "Skip every open occurrence up to today, not just the current one.") var all = false

    func run() throws {
        try recordOccurrences(ids, .skip, all: all, household: household, label: "Skipped", already: "Already skipped")
    }
}

struct ReopenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reopen", abstract: "Reopen done tasks (a chore: its last occurrence).",
        discussion: "On a chore, the latest occurrence done or skipped is open again.")
    @OptionGroup var household: HouseholdOptions
    @Argument(help: "Task ids (any unique prefix).", completion: Completions.taskIDs) var ids: [String] = []

    func run() throws {
        if ids.isEmpty { throw CLIError("Name at least one task id.", exit: .usage) }
        let h = try household.open()
        let today = Env.today(h.clock)
        renderOccurrenceChanges(try h.reopen(ids), label: "Reopened", already: "Already open", today: today)
    }
}

struct ChoresCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chores", abstract: "Chores: rule, next due, turn, who did how many.",
        discussion: """
            Completions are counted per member who recorded them: in the last 4 weeks (occurrences \
            dated in the 28 days up to today) and in all.

            Example: todo chores --json
            """)
    @OptionGroup var household: HouseholdOptions
    @OptionGroup var output: JSONFlag

    func run() throws {
        let h = try household.open()
        let snap = try h.snapshot()
        let (tasks, bad) = try snap.loadAll()
        for b in bad {
            printError("todo: warning: \(Terminal.safe(b.path)) cannot be read (\(Terminal.safe(b.reason))); it is left out.")
        }
        let today = Env.today(h.clock)
        let chores = tasks.filter { $0.isChore && !$0.deleted }.sorted {
            ($0.currentOccurrence ?? CivilDate(year: 9999, month: 12, day: 31)!, $0.title, $0.id.hex)
                < ($1.currentOccurrence ?? CivilDate(year: 9999, month: 12, day: 31)!, $1.title, $1.id.hex)
        }
        let lengths = ShortIDs.map(tasks.map(\.id.hex))
        var out = Output()
        if output.json {
            out.line("[")
            for (n, t) in chores.enumerated() {
                let current = t.currentOccurrence
                let counts = ChoreText.completions(t, today: today)
                let value = JSONValue.object([
                    ("id", .string(t.id.hex)), ("title", .string(t.title)),
                    ("every", .string(t.recurrence?.rule.description ?? "")),
                    ("from", .string(t.recurrence?.from.description ?? "")),
                    ("next", current.map { .string($0.description) } ?? .null),
                    ("turn", current.flatMap { t.assignee(on: $0) }.map { .string($0) } ?? .null),
                    ("rotation", .array(t.rotation.map { .string($0) })),
                    ("completions", .object(counts.map {
                        ($0.member, .object([("last4Weeks", .number(String($0.recent))), ("all", .number(String($0.all)))]))
                    })),
                ])
                out.line(JSONWriter.compact(value) + (n < chores.count - 1 ? "," : ""))
            }
            out.line("]")
            out.flush()
            return
        }
        if chores.isEmpty {
            if Terminal.stdoutIsTTY { out.line("No chores. Add one with todo add \"Take out the trash\" --every tue.") }
            out.flush()
            return
        }
        for t in chores {
            let short = lengths[t.id.hex] ?? String(t.id.hex.prefix(4))
            var line = "\(Terminal.dim(short))  \(Terminal.safe(t.title))  \(t.recurrence?.rule.phrase ?? "")"
            if let current = t.currentOccurrence {
                line += "  next: " + ChoreText.occurrence(current, of: t, today: today)
                if current < today { line += Terminal.red(" (overdue)") }
            }
            out.line(line)
            let counts = ChoreText.completions(t, today: today)
            if counts.isEmpty {
                out.line("      done: nobody yet")
            } else {
                out.line("      done (4 weeks / all): " + counts.map { "\(Terminal.safe($0.member)) \($0.recent)/\($0.all)" }.joined(separator: ", "))
            }
        }
        out.flush()
    }
}
