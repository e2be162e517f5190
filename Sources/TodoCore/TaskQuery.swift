/// Which tasks a listing shows and in what order: the rules every front end applies (the
/// command line's `list`, a web page's list), so that none of them filters tasks itself.
public struct TaskQuery: Sendable {
    public enum Which: Sendable {
        /// Open tasks (the default), open and done, done only, deleted only.
        case open, openAndDone, done, deleted
    }

    public var which: Which = .open
    /// Only tasks assigned to this name (case aside), or to `assigneeEmail`.
    public var assignee: String?
    public var assigneeEmail: String?
    /// Only tasks with this tag (exactly, else case aside); a leading `+` is ignored.
    public var tag: String?
    /// Every word must appear in the title, notes, tags or assignee (case and accents aside).
    public var words: [String] = []
    /// Only overdue tasks.
    public var overdueOnly = false

    public init() {}

    /// The positions of the tasks that pass, in `tasks`' order. `today` and `minuteOfDay` (the
    /// household's local date and time now) decide what is overdue.
    public func select(_ tasks: [Task], today: CivilDate, minuteOfDay: Int) -> [Int] {
        let who = assignee?.lowercased()
        let whoEmail = assigneeEmail?.lowercased()
        let tagFilter = tag.map { $0.hasPrefix("+") ? String($0.dropFirst()) : $0 }
        let tagFolded = tagFilter?.lowercased()
        let search = TaskSearch(words)
        // Fields read in place: a copy of each Task would retain and release all of its fields.
        return tasks.withUnsafeBufferPointer { tasks in
            tasks.indices.filter { i in
                switch which {
                case .deleted: if !tasks[i].deleted { return false }
                case .done: if tasks[i].deleted || tasks[i].status != .done { return false }
                case .open: if tasks[i].deleted || tasks[i].status != .open { return false }
                case .openAndDone: if tasks[i].deleted { return false }
                }
                if let who {
                    let a = tasks[i].assignee?.lowercased()
                    if a != who && (whoEmail == nil || a != whoEmail) { return false }
                }
                if let tagFilter, let tagFolded, tasks[i].tagStates[tagFilter]?.present != true,
                    !tasks[i].tagStates.contains(where: { $0.value.present && $0.key.lowercased() == tagFolded })
                {
                    return false
                }
                if !search.isEmpty && !search.matches(tasks[i]) { return false }
                if overdueOnly && !tasks[i].isOverdue(today: today, minuteOfDay: minuteOfDay) { return false }
                return true
            }
        }
    }

    /// The positions of `indices` in `tasks` in list order: soonest due first (undated last),
    /// then higher priority, then oldest. Positions rather than tasks, which are costly to move.
    public static func order(_ tasks: [Task], _ indices: [Int]) -> [Int] {
        // Fields read in place: a copy of each Task would retain and release all of its fields.
        let keys = tasks.withUnsafeBufferPointer { tasks in indices.map { i in (Position(tasks[i]), i) } }
        return keys.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Where a task stands in list order: a page of a long list starts after the last row's
    /// position, so a row that left the list since does not move the page.
    public struct Position: Comparable, Sendable {
        let due: Int
        let priority: Int
        let createdAt: String
        let id: String

        public init(_ task: Task) {
            due = task.due.map { $0.date.daysSinceEpoch * 1441 + ($0.minutes ?? 1440) } ?? Int.max
            priority = task.priority == .high ? 0 : task.priority == .normal ? 1 : 2
            createdAt = task.createdAt
            id = task.id.hex
        }

        public static func < (a: Position, b: Position) -> Bool {
            if a.due != b.due { return a.due < b.due }
            if a.priority != b.priority { return a.priority < b.priority }
            // By bytes: for these ASCII values (a timestamp, hex) the same order, and quicker.
            if a.createdAt != b.createdAt { return a.createdAt.utf8.lexicographicallyPrecedes(b.createdAt.utf8) }
            return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
        }

        /// As text for an address: `due~priority~createdAt~id`.
        public var text: String { "\(due)~\(priority)~\(createdAt)~\(id)" }

        public init?(text: String) {
            let parts = text.split(separator: "~", omittingEmptySubsequences: false)
            guard parts.count == 4, let due = Int(parts[0]), let priority = Int(parts[1]), parts[2].utf8.count <= 64,
                parts[3].utf8.count == 32
            else { return nil }
            self.due = due
            self.priority = priority
            createdAt = String(parts[2])
            id = String(parts[3])
        }
    }
}

extension Task {
    /// Open, not deleted, and due before now: a date before today, or today at a time that
    /// has passed (a date without a time is due by the end of its day).
    public func isOverdue(today: CivilDate, minuteOfDay: Int) -> Bool {
        guard let due, status == .open, !deleted else { return false }
        if due.date != today { return due.date < today }
        return (due.minutes ?? 24 * 60) <= minuteOfDay
    }

    /// Open, not deleted, due today and not yet overdue.
    public func isDueToday(today: CivilDate, minuteOfDay: Int) -> Bool {
        due?.date == today && status == .open && !deleted && !isOverdue(today: today, minuteOfDay: minuteOfDay)
    }
}
