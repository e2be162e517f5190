import ArgumentParser
import TodoCore
import TodoStore

struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Show the history of the household or of one task.",
        discussion: """
            Who changed which fields, and when, read from git.

            Examples:
              todo log 3f2a -n 5
              todo log --since monday --author Bob
            """)

    @OptionGroup var household: HouseholdOptions
    @Argument(help: "Only this task's history.", completion: Completions.taskIDs) var id: String?
    @Option(name: .short, help: "Show at most N commits.") var n: Int?
    @Option(help: "Only commits made on or after this date (YYYY-MM-DD, yesterday, sow, monday 18:00...).")
    var since: String?
    @Option(help: "Only commits by this member (name or email, case aside).") var author: String?
    @OptionGroup var output: JSONFlag

    func validate() throws {
        if let n, n < 1 { throw ValidationError("-n must be at least 1.") }
    }

    func run() throws {
        let h = try household.openForReading()
        let sinceTime = try since.map { try Input.due($0, clock: h.clock) }
        let log = try h.log(of: id, limit: n, since: sinceTime, author: author, withShortIDs: !output.json)
        let (entries, taskID, shorts) = (log.entries, log.task, log.shortIDs)
        var out = Output()
        if output.json {
            out.line("[")
            for (i, e) in entries.enumerated() {
                out.line(JSONWriter.compact(json(e)) + (i < entries.count - 1 ? "," : ""))
            }
            out.line("]")
            out.flush()
            return
        }
        for e in entries {
            let subject = e.message.split(separator: "\n").first.map(String.init) ?? ""
            out.line(
                "\(Terminal.dim(String(e.commit.prefix(8))))  \(localTime(e))  \(Terminal.safe(e.authorName))  \(Terminal.safe(subject))")
            for c in e.changes {
                if c.id == HouseholdSettings.id {
                    // The settings file is no task: its keys, as the file names them.
                    let keys = c.isNew ? (c.after?.extra.keys.sorted() ?? []) : c.fields.filter { c.after?.extra[$0] != nil }
                    if !keys.isEmpty { out.line("    household settings: " + keys.map(Terminal.safe).joined(separator: ", ")) }
                    continue
                }
                let short = shorts[c.id.hex] ?? String(c.id.hex.prefix(4))
                let title = Terminal.safe((c.after ?? c.before)?.title ?? "")
                if c.isNew {
                    out.line("    \(short) \(title): created")
                } else if taskID != nil, let before = c.before, let after = c.after {
                    for f in c.fields {
                        out.line("    \(f): \(show(before.value(of: f))) -> \(show(after.value(of: f)))")
                    }
                } else if !c.fields.isEmpty {
                    out.line("    \(short) \(title): \(c.fields.joined(separator: ", "))")
                }
            }
        }
        out.flush()
    }

    func show(_ v: JSONValue?) -> String { Terminal.safe(v.map(JSONWriter.compact) ?? "none") }

    func localTime(_ e: HistoryEntry) -> String {
        Render.localTime(Millis.fromSeconds(e.time), offsetMinutes: e.offsetMinutes)
    }

    func json(_ e: HistoryEntry) -> JSONValue {
        .object([
            ("commit", .string(e.commit)),
            ("author", .string(e.authorName)),
            ("email", .string(e.authorEmail)),
            ("time", .string(isoMillis(Millis.fromSeconds(e.time)))),
            ("message", .string(e.message.hasSuffix("\n") ? String(e.message.dropLast()) : e.message)),
            ("merge", .bool(e.isMerge)),
            (
                "changes",
                .array(
                    e.changes.map { c in
                        .object([
                            ("id", .string(c.id.hex)),
                            ("title", .string((c.after ?? c.before)?.title ?? "")),
                            ("created", .bool(c.isNew)),
                            ("fields", .array(c.fields.map { .string($0) })),
                        ])
                    })
            ),
        ])
    }
}
