/// What one member's reminder says (docs/FORMAT.md, "What a reminder holds"): overdue tasks and
/// chores, those due today, and what became theirs since the last delivered reminder.
public struct Reminder: Sendable {
    /// Positions in the task array given to `init`.
    public var overdue: [Int] = []
    public var today: [Int] = []
    public var new: [Int] = []
    /// The ids of every open task or chore that is the member's now (the next `previous`).
    public var theirs: Set<String> = []

    public var isEmpty: Bool { overdue.isEmpty && today.isEmpty && new.isEmpty }

    /// `names`: the member's name and email, lowercased. `previous`: the member's `theirs` at
    /// the last delivered reminder, nil when there was none.
    public init(
        _ tasks: [Task], names: Set<String>, today day: CivilDate, minuteOfDay: Int, previous: Set<String>?, context: TurnContext
    ) {
        func mine(_ assignee: String?) -> Bool { assignee.map { names.contains($0.lowercased()) } == true }
        let agenda = Agenda(tasks, today: day, minuteOfDay: minuteOfDay, days: 0, context: context) { _, assignee in mine(assignee) }
        overdue = agenda.overdue
        self.today = agenda.today
        let listed = Set(overdue + self.today)
        var fresh: [(Due?, Int)] = []
        for (i, t) in tasks.enumerated() where t.status == .open && !t.deleted {
            let (due, assignee) = Agenda.due(of: t, today: day, context: context)
            guard mine(assignee) else { continue }
            let key = t.id.description
            theirs.insert(key)
            if !listed.contains(i), previous?.contains(key) != true { fresh.append((due, i)) }
        }
        fresh.sort { a, b in
            switch (a.0, b.0) {
            case let (x?, y?) where x != y: return x < y
            case (nil, _?): return false
            case (_?, nil): return true
            default: return tasks[a.1].id < tasks[b.1].id
            }
        }
        new = fresh.map(\.1)
    }

    /// What the reminder holds, as facts for a front end to word (subject and body).
    public func facts(_ tasks: [Task], member: String, household: String, today day: CivilDate, context: TurnContext) -> ReminderFacts {
        func item(_ i: Int) -> ReminderItem {
            let t = tasks[i]
            return ReminderItem(id: t.id, title: t.title, isChore: t.isChore, due: Agenda.due(of: t, today: day, context: context).due)
        }
        return ReminderFacts(
            member: member, household: household, day: day, overdue: overdue.map(item), today: today.map(item), new: new.map(item))
    }
}

/// What one member's reminder says, as facts: whom it is for, the household's day, and the tasks
/// and chores in each group, in order. A front end words it (for the command line,
/// `RemindMessages.swift`); the reminder's identity hashes those words.
public struct ReminderFacts: Sendable, Equatable {
    public var member: String
    public var household: String
    /// The household's today.
    public var day: CivilDate
    public var overdue: [ReminderItem]
    public var today: [ReminderItem]
    public var new: [ReminderItem]

    public init(member: String, household: String, day: CivilDate, overdue: [ReminderItem], today: [ReminderItem], new: [ReminderItem]) {
        self.member = member
        self.household = household
        self.day = day
        self.overdue = overdue
        self.today = today
        self.new = new
    }
}

/// One task or chore in a reminder.
public struct ReminderItem: Sendable, Equatable {
    public var id: TaskID
    /// As its author wrote it: `ReminderText.line` makes it one line.
    public var title: String
    /// A chore: the member's turn.
    public var isChore: Bool
    /// The task's due date, or the chore's current occurrence; nil when undated.
    public var due: Due?

    public init(id: TaskID, title: String, isChore: Bool, due: Due?) {
        self.id = id
        self.title = title
        self.isChore = isChore
        self.due = due
    }
}

public enum ReminderText {
    /// `text` on one line: controls (newlines, escapes) become spaces, so a title from another
    /// member cannot add a header to a mail or a line to a terminal.
    public static func line(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { s in
            (s.value < 0x20 || s.value == 0x7F || (s.value >= 0x80 && s.value < 0xA0) || s.value == 0x2028 || s.value == 0x2029)
                ? " " : s
        }))
    }

    /// The stable identity of a reminder: two 64-bit FNV-1a hashes of member, day, subject and
    /// body, as 32 hex digits.
    public static func identity(member: String, day: CivilDate, subject: String, body: String) -> String {
        var bytes = Array(member.lowercased().utf8)
        bytes.append(0)
        bytes += Array(day.description.utf8)
        bytes.append(0)
        bytes += Array(subject.utf8)
        bytes.append(0)
        bytes += Array(body.utf8)
        func fnv(_ seed: UInt64) -> UInt64 {
            var h = seed
            for b in bytes {
                h ^= UInt64(b)
                h = h &* 0x100_0000_01B3
            }
            return h
        }
        func hex(_ v: UInt64) -> String {
            let s = String(v, radix: 16)
            return String(repeating: "0", count: 16 - s.count) + s
        }
        return hex(fnv(0xCBF2_9CE4_8422_2325)) + hex(fnv(0x6C62_272E_07BB_0142))
    }
}
