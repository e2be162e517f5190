import ArgumentParser
import TodoCore
import TodoStore

struct AgendaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agenda",
        abstract: "What is overdue, due today and due soon.",
        discussion: """
            A chore counts by its current occurrence, with whose turn it is. Prints nothing and \
            exits 0 when nothing is due, so that cron mails only when there is something to do.

            Examples:
              todo agenda --mine
              crontab: 0 7 * * * todo sync --quiet; todo agenda --mine
            """)

    @OptionGroup var household: HouseholdOptions
    @Flag(help: "Only tasks assigned to you, and chores whose turn is yours.") var mine = false
    @Option(help: "How many days after today to look ahead (default 7).") var days = 7
    @OptionGroup var output: JSONFlag

    func validate() throws {
        if days < 0 || days > 366 { throw ValidationError("--days must be from 0 to 366.") }
    }

    func run() throws {
        let h = try household.openForReading()
        let snap = try h.snapshot()
        let (tasks, _) = try snap.loadAll()
        let context = snap.turnContext(h.clock)
        var me: Set<String> = []
        if mine {
            let identity = try h.identity()
            me = [identity.name.lowercased(), identity.email.lowercased()]
        }
        let today = Env.today(h.clock)
        let minute = Env.minuteOfDay(h.clock)
        let agenda = Agenda(tasks, today: today, minuteOfDay: minute, days: days, context: context) { _, assignee in
            !mine || assignee.map { me.contains($0.lowercased()) } == true
        }
        let groups = [("overdue", "Overdue:", agenda.overdue), ("today", "Due today:", agenda.today),
                      ("upcoming", days == 1 ? "Tomorrow:" : "Next \(days) days:", agenda.upcoming)]
        var out = Output()
        if output.json {
            out.line(JSONWriter.compact(.object(groups.map { key, _, indices in
                (key, .array(indices.map { ChoreText.json(tasks[$0], today: today, context: context) }))
            })))
        } else if !agenda.isEmpty {
            let render = Render(today: today, minuteOfDay: minute)
            let lengths = ShortIDs.lengths(tasks.map(\.id))
            // A chore as `list` shows it: its current occurrence, whose turn, a repeat mark.
            var shown = tasks
            for i in [agenda.overdue, agenda.today, agenda.upcoming].joined() {
                if let facts = ListFacts(tasks[i], today: today, context: context) { shown[i] = ChoreText.listView(tasks[i], facts) }
            }
            for (_, title, indices) in groups where !indices.isEmpty {
                out.line(title)
                let lines = render.table(
                    shown, order: indices, shortLengths: lengths, header: false, width: Terminal.columns.map { $0 - 2 })
                for line in lines { out.line("  " + line) }
            }
        }
        out.flush()
    }
}
