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

    /// The household's changes first, one line each; then one line per member and kind,
    /// people's lines before `new conflicts`; lines about me marked `*`. With a `limit`, at
    /// most that many lines and then how many more there are. Occurrence dates (a chore's
    /// changes) read "Tue 2 Dec".
    static func lines(_ report: ReceivedChanges, shorts: [TaskID: String], limit: Int?, today: CivilDate) -> [String] {
        let changes = report.tasks
        func field(_ f: String) -> String {
            CivilDate(iso: Substring(f)).map { ChoreText.day($0, today: today) } ?? Terminal.safe(f)
        }
        func name(_ c: ReceivedChange) -> String {
            let short = shorts[c.task.id] ?? String(c.task.id.hex.prefix(4))
            let fields = c.fields.isEmpty || c.kind == .conflict || c.kind == .deletedMyEdit ? "" : ": " + c.fields.map(field).joined(separator: ", ")
            return "\(Terminal.safe(DisplayText.truncated(c.task.title, 40))) (\(short)\(fields))"
        }
        var out = report.household.map { ($0.touchesMe ? "* " : "  ") + household($0, shorts: shorts, today: today) }
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

    /// A change to the household settings, in words: "Kim set the household's time zone to
    /// Europe/Paris", "Alice: Bob left the household as of Tue 2 Dec; 3 tasks to Kim".
    static func household(_ c: HouseholdChange, shorts: [TaskID: String], today: CivilDate) -> String {
        let who = c.member.isEmpty ? "Someone" : Terminal.safe(c.member)
        let day = { (d: CivilDate) in ChoreText.day(d, today: today) }
        switch c.what {
        case .timeZone(let zone?): return "\(who) set the household's time zone to \(Terminal.safe(zone))"
        case .timeZone(nil): return "\(who) cleared the household's time zone"
        case .memberDetails(let name, let fields):
            return "\(who) changed \(Terminal.safe(name))'s reminder details (\(fields.map(detailName).joined(separator: ", ")))"
        case .joined(let name, let from): return "\(who): \(Terminal.safe(name)) joined the household as of \(day(from))"
        case .left(let name, let from, let tasks):
            return "\(who): \(Terminal.safe(name)) left the household as of \(day(from))" + given(tasks, shorts: shorts)
        case .away(let name, let from, let through?):
            return "\(who): \(Terminal.safe(name)) is away from \(day(from)) through \(day(through))"
        case .away(let name, let from, nil): return "\(who): \(Terminal.safe(name))'s time away from \(day(from)) is cleared"
        case .keyGranted(let name, _): return "\(who) granted a device key to \(Terminal.safe(name))"
        case .keyRemoved(let name, _): return "\(who) removed a device key of \(Terminal.safe(name))"
        case .recoveryKey: return "\(who) set the recovery key"
        case .other(let keys): return "\(who) changed the household settings (\(keys.map(Terminal.safe).joined(separator: ", ")))"
        }
    }

    /// A member detail's field as `todo member set` names its option.
    static func detailName(_ field: String) -> String {
        switch field {
        case MemberFields.postURL: "post-url"
        case MemberFields.every: "every-days"
        default: Terminal.safe(field)
        }
    }

    /// "; 2 tasks to you (Fix the tap (3f2a), Buy paint (91bc)), 1 to Lee, 1 unassigned": where a
    /// leaver's tasks went, those given to me by name.
    static func given(_ tasks: [Reassignment], shorts: [TaskID: String]) -> String {
        guard !tasks.isEmpty else { return "" }
        var parts: [String] = []
        let mine = tasks.filter(\.toMe).sorted { ($0.title, $0.id) < ($1.title, $1.id) }
        if !mine.isEmpty {
            let names = mine.map { "\(Terminal.safe(DisplayText.truncated($0.title, 40))) (\(shorts[$0.id] ?? String($0.id.hex.prefix(4))))" }
            parts.append("\(mine.count) to you (\(names.joined(separator: ", ")))")
        }
        var others: [String: Int] = [:]
        for t in tasks where !t.toMe { if let to = t.to { others[to, default: 0] += 1 } }
        for (to, n) in others.sorted(by: { $0.key < $1.key }) { parts.append("\(n) to \(Terminal.safe(to))") }
        let unassigned = tasks.filter { $0.to == nil }.count
        if unassigned > 0 { parts.append("\(unassigned) unassigned") }
        // The noun once, on the first count: "3 tasks to Kim", "1 task unassigned".
        let first = parts[0]
        let space = first.firstIndex(of: " ") ?? first.endIndex
        parts[0] = first[..<space] + (tasks.count == 1 || first.hasPrefix("1 ") ? " task" : " tasks") + first[space...]
        return "; " + parts.joined(separator: ", ")
    }

    /// The household's changes, then the tasks'.
    static func json(_ report: ReceivedChanges) -> JSONValue {
        .array(report.household.map(json) + report.tasks.map(json))
    }

    /// A household change: its own kind, who wrote it, the member it is about, what it says.
    static func json(_ c: HouseholdChange) -> JSONValue {
        var members: [(String, JSONValue)] = [("kind", .string(kind(c.what))), ("member", .string(c.member))]
        switch c.what {
        case .timeZone(let zone): members.append(("zone", zone.map { .string($0) } ?? .null))
        case .memberDetails(let name, let fields):
            members += [("name", .string(name)), ("fields", .array(fields.map { .string($0) }))]
        case .joined(let name, let from): members += [("name", .string(name)), ("from", .string(from.description))]
        case .left(let name, let from, let tasks):
            members += [
                ("name", .string(name)), ("from", .string(from.description)),
                ("tasks", .array(tasks.map { t in
                    .object([("id", .string(t.id.hex)), ("title", .string(t.title)), ("assignee", t.to.map { .string($0) } ?? .null)])
                })),
            ]
        case .away(let name, let from, let through):
            members += [
                ("name", .string(name)), ("from", .string(from.description)),
                ("through", through.map { .string($0.description) } ?? .null),
            ]
        case .keyGranted(let name, let recipient), .keyRemoved(let name, let recipient):
            members += [("name", .string(name)), ("recipient", .string(recipient))]
        case .recoveryKey(let recipient): members.append(("recipient", .string(recipient)))
        case .other(let keys): members.append(("keys", .array(keys.map { .string($0) })))
        }
        members.append(("mine", .bool(c.touchesMe)))
        return .object(members)
    }

    static func kind(_ what: HouseholdChange.What) -> String {
        switch what {
        case .timeZone: "time-zone"
        case .memberDetails: "member-details"
        case .joined: "member-joined"
        case .left: "member-left"
        case .away: "member-away"
        case .keyGranted: "member-key-granted"
        case .keyRemoved: "member-key-removed"
        case .recoveryKey: "recovery-key"
        case .other: "settings"
        }
    }

    static func json(_ c: ReceivedChange) -> JSONValue {
        .object([
            ("kind", .string(c.kind.rawValue)), ("member", .string(c.member)), ("id", .string(c.task.id.hex)),
            ("title", .string(c.task.title)), ("fields", .array(c.fields.map { .string($0) })),
            ("entry", c.entry.map { .string($0) } ?? .null), ("mine", .bool(c.touchesMe)),
        ])
    }
}

extension SyncCommand {
    /// Records the sync's range for `todo changes` and tells, in at most ten lines, what it
    /// received from others. A failure here never fails the sync: the summary is left out.
    func receivedSummary(_ h: Household, before: String??) -> [String] {
        guard let after = try? h.headCommit(), let before, before != after else { return [] }  // the sync succeeded: without its commit there is only no summary of what came in
        h.recordLastSync(from: before, to: after)
        guard let changes = try? h.receivedChangeReport(from: before, to: after), !changes.isEmpty,  // what came in cannot be read: no summary; the sync itself succeeded
            let shorts = try? h.snapshot().shortIDs(changes.taskIDs)  // as above
        else { return [] }
        return ChangesText.lines(changes, shorts: shorts, limit: 10, today: Env.today(h.clock))
    }
}
