import TodoCore
import TodoStore

/// What others did, in a few lines per member: for the end of `todo sync` and for `todo changes`.
enum ChangesText {
    static let order: [ReceivedChange.Kind] = [
        .assignedToMe, .added, .addedAndDeleted, .completed, .choreDone, .choreSkipped, .reopened, .deleted, .restored, .edited,
        .deletedMyEdit, .conflict,
    ]

    static func verb(_ k: ReceivedChange.Kind) -> String {
        switch k {
        case .added: "added"
        case .addedAndDeleted: "added and deleted"
        case .completed: "completed"
        case .choreDone: "did"
        case .choreSkipped: "skipped"
        case .reopened: "reopened"
        case .deleted: "deleted"
        case .restored: "restored"
        case .edited: "edited"
        case .assignedToMe: "assigned to you"
        case .conflict: "new conflicts"
        case .deletedMyEdit: "deleted, with your edit"
        }
    }

    /// One line per member and kind, people's lines before `new conflicts`; lines about me
    /// marked `*`. With a `limit`, at most that many lines and then how many more there are.
    /// Occurrence dates (a chore's changes) read "Tue 2 Dec".
    static func lines(_ changes: [ReceivedChange], shorts: [TaskID: String], limit: Int?, today: CivilDate) -> [String] {
        func field(_ f: String) -> String {
            CivilDate(iso: Substring(f)).map { ChoreText.day($0, today: today) } ?? Terminal.safe(f)
        }
        func name(_ c: ReceivedChange) -> String {
            let short = shorts[c.task.id] ?? String(c.task.id.hex.prefix(4))
            let fields = c.fields.isEmpty || c.kind == .conflict || c.kind == .deletedMyEdit ? "" : ": " + c.fields.map(field).joined(separator: ", ")
            return "\(Terminal.safe(DisplayText.truncated(c.task.title, 40))) (\(short)\(fields))"
        }
        var out: [String] = []
        let members = Set(changes.map(\.member)).sorted()
        for member in members {
            let who = member.isEmpty ? "Someone" : Terminal.safe(member)
            for kind in order where kind != .conflict && kind != .deletedMyEdit {
                let these = changes.filter { $0.member == member && $0.kind == kind }
                guard !these.isEmpty else { continue }
                let mark = kind == .assignedToMe ? "* " : "  "
                out.append(mark + "\(who) \(verb(kind)): " + these.map(name).joined(separator: ", "))
            }
        }
        for c in changes where c.kind == .deletedMyEdit {
            let short = shorts[c.task.id] ?? String(c.task.id.hex.prefix(4))
            let who = c.member.isEmpty ? "Someone" : Terminal.safe(c.member)
            let title = Terminal.safe(DisplayText.truncated(c.task.title, 40))
            let fields = c.fields.map(Terminal.safe).joined(separator: ", ")
            let entry = c.entry.map { String($0.prefix(8)) } ?? ""
            out.append(
                "* \(who) deleted \(title) (\(short)) while you edited its \(fields): "
                    + "`todo conflicts restore \(entry)` brings the task and your edit back")
        }
        let conflicts = changes.filter { $0.kind == .conflict }
        if !conflicts.isEmpty {
            out.append("  New conflicts (todo conflicts): " + conflicts.map { c in
                let short = shorts[c.task.id] ?? String(c.task.id.hex.prefix(4))
                return "\(Terminal.safe(DisplayText.truncated(c.task.title, 40))) (\(short): \(c.fields.map { conflictField($0, c.task, today: today) }.joined(separator: ", ")))"
            }.joined(separator: ", "))
        }
        if let limit, out.count > limit {
            let more = out.count - (limit - 1)
            out = Array(out.prefix(limit - 1)) + ["  … and \(more) more: todo changes"]
        }
        return out
    }

    /// A conflict's field for people: a chore's or checklist's entry by its date or item text
    /// ("occurrence Tue 2 Dec", "turn Tue 2 Dec", "item 'milk'"), any other field by its name.
    static func conflictField(_ field: String, _ task: Task, today: CivilDate) -> String {
        guard let (map, key) = ChoreFields.mapEntry(ofLogField: field) else { return Terminal.safe(field) }
        if map == "items" {
            let text = task.checklist.first { $0.key == key }?.text ?? key
            return "item '\(Terminal.safe(DisplayText.truncated(text, 30)))'"
        }
        let date = CivilDate(iso: Substring(key)).map { ChoreText.day($0, today: today) } ?? Terminal.safe(key)
        return (map == "turns" ? "turn " : "occurrence ") + date
    }

    static func json(_ changes: [ReceivedChange]) -> JSONValue {
        .array(changes.map { c in
            .object([
                ("kind", .string(c.kind.rawValue)), ("member", .string(c.member)), ("id", .string(c.task.id.hex)),
                ("title", .string(c.task.title)), ("fields", .array(c.fields.map { .string($0) })),
                ("entry", c.entry.map { .string($0) } ?? .null), ("mine", .bool(c.touchesMe)),
            ])
        })
    }
}

extension SyncCommand {
    /// Records the sync's range for `todo changes` and tells, in at most ten lines, what it
    /// received from others. A failure here never fails the sync: the summary is left out.
    func receivedSummary(_ h: Household, before: String??) -> [String] {
        guard let after = try? h.headCommit(), let before, before != after else { return [] }
        h.recordLastSync(from: before, to: after)
        guard let changes = try? h.receivedChanges(from: before, to: after), !changes.isEmpty,
            let shorts = try? h.snapshot().shortIDs(changes.map(\.task.id))
        else { return [] }
        return ChangesText.lines(changes, shorts: shorts, limit: 10, today: Env.today(h.clock))
    }
}
