import ArgumentParser
import TodoCore
import TodoStore

struct ConflictsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts",
        abstract: "Show what merges set aside, and bring it back.",
        discussion: """
            When two members changed the same field between syncs (or the same chore occurrence \
            or checklist item, differently), the later write wins and the other value is logged \
            here, in the household repository, for every member to see.

            Examples:
              todo conflicts                 newest first
              todo conflicts 3f2a --json     one task's entries
              todo conflicts --stats
              todo conflicts restore 9c41    make a lost value current again
            """,
        subcommands: [ConflictsListCommand.self, ConflictsRestoreCommand.self],
        defaultSubcommand: ConflictsListCommand.self)
}

struct ConflictsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List conflict-log entries, newest first (the default).")

    @OptionGroup var household: HouseholdOptions
    @Argument(help: "Only this task's entries.", completion: Completions.taskIDs) var id: String?
    @Option(help: "Only entries from this date on (YYYY-MM-DD, today, +3d, a weekday...).") var since: String?
    @Flag(help: "Totals: per field, per member, and the latest.") var stats = false
    @OptionGroup var output: JSONFlag

    func run() throws {
        let h = try household.openForReading()
        let day = try since.map { try Input.due($0, clock: h.clock).date }
        let log = try h.conflictLog(of: id, since: day, withShortIDs: !stats && !output.json)
        let entries = log.entries
        if stats { return printStats(entries, clock: h.clock) }
        var out = Output()
        if output.json {
            out.line("[")
            for (n, c) in entries.enumerated() {
                var json = c.entry.json
                if case .object(var members) = json {
                    members.append(("time", .string(isoMillis(c.time))))
                    json = .object(members)
                }
                out.line(JSONWriter.compact(json) + (n < entries.count - 1 ? "," : ""))
            }
            out.line("]")
            out.flush()
            return
        }
        if entries.isEmpty {
            out.line("No conflicts.")
            out.flush()
            return
        }
        let shorts = log.shortIDs
        let today = Env.today(h.clock)
        for c in entries {
            let short = shorts[c.task.id] ?? String(c.task.id.hex.prefix(4))
            out.line(
                "\(Terminal.dim(String(c.entry.id.prefix(8))))  \(Render.localTime(c.time, h.clock))  \(short) \(Terminal.safe(c.task.title))")
            out.line("    " + Self.sentence(c.entry, short: short, today: today))
        }
        out.line(Terminal.dim("Bring a lost value back with: todo conflicts restore <entry id>"))
        out.flush()
    }

    /// One readable line: whose value was replaced by whose, and why.
    static func sentence(_ e: ConflictEntry, short: String, today: CivilDate? = nil) -> String {
        let kept = who(e.kept.member)
        let lost = who(e.lost.member)
        switch e.kind {
        case .field:
            if let (map, key) = ChoreFields.mapEntry(ofLogField: e.field) {
                let doer = e.lost.member.isEmpty ? "Someone" : Terminal.safe(e.lost.member)
                return "\(doer) \(entryAction(map: map, key: key, e.lost.value, today: today)); "
                    + "\(kept) \(entryValue(map: map, e.kept.value)) was kept (written later)"
            }
            let why = e.kept.member == e.lost.member || e.kept.member.isEmpty ? "written later" : "\(Terminal.safe(e.kept.member)) wrote later"
            return "\(lost) \(Terminal.safe(e.field)) \(value(e.lost.value)) was replaced by \(kept) \(value(e.kept.value)) (\(why))"
        case .tag:
            let tag = Terminal.safe(String(e.field.dropFirst(4)))
            let keptAction = e.kept.value == .bool(true) ? "adding" : "removing"
            let lostAction = e.lost.value == .bool(true) ? "adding" : "removing"
            return "\(lost) \(lostAction) tag '\(tag)' was overruled by \(kept) \(keptAction) it (written later)"
        case .deletedEdit:
            let field = e.field.hasPrefix("tag:") ? "tag '\(Terminal.safe(String(e.field.dropFirst(4))))'" : Terminal.safe(e.field)
            return "\(lost) change of \(field) to \(value(e.lost.value)) was made while \(Terminal.safe(e.kept.member.isEmpty ? "someone" : e.kept.member)) deleted the task; `todo restore \(short)` brings it back with it"
        case .invalidFile:
            let size = e.lost.value["size"].map(JSONWriter.compact) ?? "?"
            return "a broken version of this task file (\(size) bytes) was set aside; the readable version was kept"
        case .modifyDelete:
            return "the file was removed on one side and changed on the other; the task was kept"
        }
    }

    /// What a chore or checklist entry did, as a verb phrase: "skipped Tue 3 Nov", "checked 'milk'".
    static func entryAction(map: String, key: String, _ v: JSONValue, today: CivilDate?) -> String {
        let date = CivilDate(iso: Substring(key)).map { d in today.map { ChoreText.day(d, today: $0) } ?? d.description }
            ?? Terminal.safe(key)
        switch (map, v) {
        case ("occurrences", .string("done")): return "did \(date)"
        case ("occurrences", .string("skipped")): return "skipped \(date)"
        case ("occurrences", .string("open")): return "reopened \(date)"
        case ("turns", .string("")): return "gave \(date) back to the rotation"
        case ("turns", .string(let m)): return "gave \(date) to \(Terminal.safe(m))"
        case ("items", .array(let p)) where p.count == 2:
            let text = value(p[1])
            switch p[0] {
            case .string("checked"): return "checked \(text)"
            case .string("removed"): return "removed \(text)"
            default: return "marked \(text) open"
            }
        default: return "set \(Terminal.safe(ChoreFields.logField(map: map, key: key))) to \(value(v))"
        }
    }

    /// A map entry's kept value in a few words: "'done'", "'removed'", "'Cy'".
    static func entryValue(map: String, _ v: JSONValue) -> String {
        switch (map, v) {
        case ("turns", .string("")): return "'no take-over'"
        case ("items", .array(let p)) where p.count == 2: return value(p[0])
        default: return value(v)
        }
    }

    static func who(_ member: String) -> String { member.isEmpty ? "someone's" : "\(Terminal.safe(member))'s" }

    static func value(_ v: JSONValue) -> String {
        switch v {
        case .string(let s): return "'\(Terminal.safe(Terminal.truncated(s, 60)))'"
        case .null: return "(none)"
        default: return Terminal.safe(JSONWriter.compact(v))
        }
    }

    func printStats(_ entries: [LoggedConflict], clock: WallClock) {
        var byField: [String: Int] = [:]
        var lostBy: [String: Int] = [:]
        var wonBy: [String: Int] = [:]
        for c in entries {
            let field = c.entry.field.hasPrefix("tag:") ? "tags" : ChoreFields.mapEntry(ofLogField: c.entry.field)?.map ?? c.entry.field
            byField[field, default: 0] += 1
            lostBy[c.entry.lost.member, default: 0] += 1
            wonBy[c.entry.kept.member, default: 0] += 1
        }
        let members = Set(lostBy.keys).union(wonBy.keys).sorted()
        if output.json {
            let json = JSONValue.object([
                ("total", .number(String(entries.count))),
                ("fields", .object(byField.keys.sorted().map { ($0, .number(String(byField[$0] ?? 0))) })),
                (
                    "members",
                    .object(members.map { m in
                        (m, .object([("kept", .number(String(wonBy[m] ?? 0))), ("lost", .number(String(lostBy[m] ?? 0)))]))
                    })
                ),
                ("latest", entries.first.map { .string(isoMillis($0.time)) } ?? .null),
            ])
            print(JSONWriter.compact(json))
            return
        }
        var out = Output()
        out.line("Conflicts: \(entries.count)")
        if let latest = entries.first {
            out.line("Latest:    \(Render.localTime(latest.time, clock)) (\(latest.entry.id.prefix(8)))")
        }
        if !byField.isEmpty {
            out.line("By field:")
            for f in byField.keys.sorted() { out.line("  \(Terminal.padded(Terminal.safe(f), 12)) \(byField[f] ?? 0)") }
            out.line("By member (value kept / value lost):")
            for m in members {
                out.line("  \(Terminal.padded(Terminal.safe(m.isEmpty ? "(unknown)" : m), 12)) \(wonBy[m] ?? 0) / \(lostBy[m] ?? 0)")
            }
        }
        out.flush()
    }
}

struct ConflictsRestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Make a lost value current again, as a new edit.",
        discussion: """
            Writes the value the entry lost as a new edit (one commit). Its stamp is newer than \
            everything in the task, so it wins on every replica after the next sync.
            """)

    @OptionGroup var household: HouseholdOptions
    @Argument(help: "The entry id (any unique prefix).") var entry: String

    func run() throws {
        let h = try household.open()
        guard let restored = try h.restoreConflict(entry).tasks.first else { return }
        let (task, short, fields) = (restored.task, restored.short, restored.fields)
        if fields.isEmpty {
            print("Already current: \(Terminal.safe(task.title)) (\(short))")
        } else {
            print("Restored \(fields.map(Terminal.safe).joined(separator: ", ")): \(Terminal.safe(task.title)) (\(short))")
        }
    }
}
