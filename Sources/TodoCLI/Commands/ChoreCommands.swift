import TodoWording
import ArgumentParser
import TodoCore
import TodoStore

/// `done` and `skip`: records the current occurrence of each task (with `all`, every open one up
/// to today on a catch-up chore; with `on`, that occurrence) and prints what changed.
func recordOccurrences(
    _ ids: [String], _ action: OccurrenceAction, all: Bool, on: String?, household: HouseholdOptions, label: String,
    already: String
) throws {
    if ids.isEmpty { throw CLIError("Name at least one task id.", exit: .usage) }
    if all && on != nil { throw CLIError("Use either --all or --on, not both.", exit: .usage) }
    let h = try household.open()
    let today = Env.today(h.clock)
    var date: CivilDate?
    if let on {
        date = try Input.date(on, option: "--on", today: today)
    }
    let outcome = try h.complete(ids, action, all: all, on: date)
    renderOccurrenceChanges(
        outcome, label: label, already: already, today: today, context: try outcome.context ?? h.turnContext(), recorded: true)
}

/// Prints what `done`, `skip` or `reopen` did: for a chore the occurrences and the next one.
/// With `recorded` (done, skip), an occurrence dealt with ahead of one still open (`skip --on`
/// tomorrow while today's is open) is told as such: the one still open, then the next open one
/// after the dates recorded, never "next:" an occurrence before them.
func renderOccurrenceChanges(
    _ outcome: ChangeOutcome, label: String, already: String, today: CivilDate, context: TurnContext, recorded: Bool = false
) {
    var out = Output()
    for r in outcome.tasks {
        let name = "\(Terminal.safe(r.task.title)) (\(r.short))"
        guard let s = r.task.schedule(today: today, context: context) else {
            out.line("\(r.changed ? label : already): \(name)")
            continue
        }
        guard r.changed else {
            out.line("Nothing to change: \(name)")
            continue
        }
        let written = r.fields.compactMap { CivilDate(iso: Substring($0)) }
        let dates = written.map { ChoreText.day($0, today: today) }
        var line = "\(label): \(name), \(dates.joined(separator: ", "))"
        if recorded, let last = written.max(), let open = s.current, open < last {
            line += "; still open\(open == today ? " today" : ""): " + ChoreText.occurrence(open, of: s, today: today)
            if let after = s.upcoming(written.count + 2).first(where: { $0 > last }) {
                line += "; next after: " + ChoreText.occurrence(after, of: s, today: today)
            }
        } else if let next = s.current {
            line += "; next: " + ChoreText.occurrence(next, of: s, today: today)
        }
        out.line(line)
    }
    out.flush()
}

struct DoneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "done", abstract: "Mark tasks done (a chore: its current occurrence).",
        discussion: """
            On a chore, completes the current occurrence (the one due now, or the earliest open one \
            on a catch-up chore), credits you with it on today's date, and shows the next. \
            --on DATE completes that occurrence instead (a missed one caught up later). With \
            --all, a catch-up chore has every open occurrence up to today completed.

            Example: todo done 3f2a 91bc
            Example: todo done 3f2a --on "last saturday"
            """)
    @OptionGroup var household: HouseholdOptions
    @Argument(help: "Task ids (each a unique prefix of 4 or more characters).", completion: Completions.taskIDs) var ids: [String] = []
    @Flag(help: "On a catch-up chore: complete every open occurrence up to today, not just the current one.") var all = false
    @Option(help: ArgumentHelp("On a chore: complete the occurrence of this date.", valueName: "date")) var on: String?

    func run() throws {
        try recordOccurrences(ids, .done, all: all, on: on, household: household, label: "Done", already: "Already done")
    }
}

struct SkipCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skip", abstract: "Skip a chore's current occurrence.",
        discussion: """
            The occurrence counts as dealt with but not done: it counts for nobody in `todo chores`, \
            and the member whose turn it was has the next occurrence instead (everyone after moves \
            one on). --on DATE skips that occurrence; with --all, a catch-up chore has every open \
            occurrence up to today skipped.

            Example: todo skip 3f2a --on 2026-12-24
            """)
    @OptionGroup var household: HouseholdOptions
    @Argument(help: "Chore ids (each a unique prefix of 4 or more characters).", completion: Completions.taskIDs) var ids: [String] = []
    @Flag(help: "On a catch-up chore: skip every open occurrence up to today, not just the current one.") var all = false
    @Option(help: ArgumentHelp("Skip the occurrence of this date.", valueName: "date")) var on: String?

    func run() throws {
        try recordOccurrences(ids, .skip, all: all, on: on, household: household, label: "Skipped", already: "Already skipped")
    }
}

struct SwapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swap", abstract: "Exchange your next turn of a chore with someone's.",
        discussion: """
            Your next open turn becomes theirs and their next open turn becomes yours; nobody \
            else's turns move. Both must be in the chore's rotation.

            Example: todo swap 3f2a --with Kim
            """)
    @OptionGroup var household: HouseholdOptions
    @Argument(help: "The chore's id (a unique prefix of 4 or more characters).", completion: Completions.taskIDs) var id: String
    @Option(name: .customLong("with"), help: ArgumentHelp("The member to swap with.", valueName: "name")) var member: String

    func run() throws {
        let h = try household.open()
        let today = Env.today(h.clock)
        let outcome = try h.swapTurn(id, with: try Input.name(member, option: "--with"))
        renderTurnChanges(outcome, today: today, context: try outcome.context ?? h.turnContext())
    }
}

struct PassCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pass", abstract: "Give your next turn of a chore to someone else.",
        discussion: """
            They take your next open turn; the rotation goes on from you as if you had taken it, \
            so your later turns stay where they were. They must be in the chore's rotation.

            Example: todo pass 3f2a --to Lee
            """)
    @OptionGroup var household: HouseholdOptions
    @Argument(help: "The chore's id (a unique prefix of 4 or more characters).", completion: Completions.taskIDs) var id: String
    @Option(name: .customLong("to"), help: ArgumentHelp("The member who takes your turn.", valueName: "name")) var member: String

    func run() throws {
        let h = try household.open()
        let today = Env.today(h.clock)
        let outcome = try h.passTurn(id, to: try Input.name(member, option: "--to"))
        renderTurnChanges(outcome, today: today, context: try outcome.context ?? h.turnContext())
    }
}

/// Prints the turns `swap` or `pass` moved: each date and whose it is now; when one is
/// today's, already announced, a line says that it moved.
func renderTurnChanges(_ outcome: ChangeOutcome, today: CivilDate, context: TurnContext) {
    var out = Output()
    for r in outcome.tasks {
        guard let s = r.task.schedule(today: today, context: context) else { continue }
        let dates = r.fields.compactMap { CivilDate(iso: Substring($0)) }
        let turns = dates.map { ChoreText.occurrence($0, of: s, today: today) }
        out.line("Turns: \(Terminal.safe(r.task.title)) (\(r.short)): \(turns.joined(separator: "; "))")
        if dates.contains(today), let line = ChoreText.todaysTurnMoved(s, today: today) { out.line(line) }
    }
    out.flush()
}

struct ReopenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reopen", abstract: "Reopen done tasks (a chore: its last occurrence).",
        discussion: "On a chore, the latest occurrence done or skipped is open again.")
    @OptionGroup var household: HouseholdOptions
    @Argument(help: "Task ids (each a unique prefix of 4 or more characters).", completion: Completions.taskIDs) var ids: [String] = []

    func run() throws {
        if ids.isEmpty { throw CLIError("Name at least one task id.", exit: .usage) }
        let h = try household.open()
        let today = Env.today(h.clock)
        let outcome = try h.reopen(ids)
        renderOccurrenceChanges(
            outcome, label: "Reopened", already: "Already open", today: today, context: try outcome.context ?? h.turnContext())
    }
}

struct ChoresCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chores", abstract: "Chores: rule, next due, turn, who did how many.",
        discussion: """
            Completions are counted per member who did them: in the last 4 weeks (done in the 28 \
            days up to today) and in all. Two members who did one occurrence both count. Missed \
            occurrences (not done when the next one came) count for nobody and are listed with \
            whose turn they were.

            Example: todo chores --json
            """)
    @OptionGroup var household: HouseholdOptions
    @OptionGroup var output: JSONFlag

    func run() throws {
        let h = try household.openForReading()
        let snap = try h.snapshot()
        let (tasks, bad) = try snap.loadAll()
        for b in bad {
            printError("todo: warning: \(Terminal.safe(b.path)) cannot be read (\(Terminal.safe(b.reason))); it is left out.")
        }
        let today = Env.today(h.clock)
        let context = snap.turnContext(h.clock)
        let last = CivilDate(year: 9999, month: 12, day: 31)!
        var chores: [(task: Task, schedule: ChoreSchedule, current: CivilDate?)] = []
        for t in tasks where !t.deleted {
            guard let s = t.schedule(today: today, context: context) else { continue }
            chores.append((t, s, s.current))
        }
        chores.sort { a, b in
            let x = a.current ?? last
            let y = b.current ?? last
            if x != y { return x < y }
            if a.task.title != b.task.title { return a.task.title < b.task.title }
            return a.task.id < b.task.id
        }
        let lengths = ShortIDs.map(tasks.map(\.id.hex))
        let since = today.adding(days: -27)
        var out = Output()
        if output.json {
            out.line("[")
            for (n, c) in chores.enumerated() {
                out.line(JSONWriter.compact(Self.json(c.task, c.schedule, since: since)) + (n < chores.count - 1 ? "," : ""))
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
        for (t, s, current) in chores {
            let short = lengths[t.id.hex] ?? String(t.id.hex.prefix(4))
            var line = "\(Terminal.dim(short))  \(Terminal.safe(t.title))  \(ChoreText.phrase(s))"
            if let current {
                line += "  next: " + ChoreText.occurrence(current, of: s, today: today)
                if current < today { line += Terminal.red(" (overdue)") }
            }
            out.line(line)
            let counts = s.tally()
            if counts.isEmpty {
                out.line("      done: nobody yet")
            } else {
                out.line("      done (4 weeks / all): " + counts.map { "\(Terminal.safe($0.member)) \($0.recent)/\($0.all)" }.joined(separator: ", "))
            }
            let missed = s.missed(since: since)
            if !missed.isEmpty {
                let turns = missed.map { d in ChoreText.day(d, today: today) + (s.turn(on: d).map { " (\(Terminal.safe($0)))" } ?? "") }
                out.line("      missed (4 weeks): \(missed.count): " + turns.joined(separator: ", "))
            }
        }
        out.flush()
    }

    static func json(_ t: Task, _ s: ChoreSchedule, since: CivilDate) -> JSONValue {
        let current = s.current
        let counts = s.tally()
        let missed = s.missed(since: since)
        return .object([
            ("id", .string(t.id.hex)), ("title", .string(t.title)),
            ("every", .string(s.recurrence.rule.description)),
            ("from", .string(s.recurrence.from.description)),
            ("anchor", .string(s.occurrences.afterDone ? ChoreAnchor.done.rawValue : ChoreAnchor.due.rawValue)),
            ("schedule", .string(s.mode.rawValue)),
            ("rotate", .string(s.rotate.rawValue)),
            ("next", current.map { .string($0.description) } ?? .null),
            ("turn", current.flatMap { s.assignee(on: $0) }.map { .string($0) } ?? .null),
            ("rotation", .array(s.rotation.map { .string($0) })),
            ("completions", .object(counts.map {
                ($0.member, .object([("last4Weeks", .number(String($0.recent))), ("all", .number(String($0.all)))]))
            })),
            ("missed", .array(missed.map { d in
                .object([("date", .string(d.description)), ("turn", s.turn(on: d).map { .string($0) } ?? .null)])
            })),
        ])
    }
}
