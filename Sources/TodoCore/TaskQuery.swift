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
        // The keys sorted are plain numbers (no strings to retain and release as they move);
        // only a tie on due and priority reads the creation times and ids, the order `Position` has.
        tasks.withUnsafeBufferPointer { tasks in
            var keys = indices.map { i in (due: Position.dueKey(tasks[i].due), priority: Position.priorityKey(tasks[i].priority), index: i) }
            keys.sort { a, b in
                if a.due != b.due { return a.due < b.due }
                if a.priority != b.priority { return a.priority < b.priority }
                let x = a.index
                let y = b.index
                if tasks[x].createdAt != tasks[y].createdAt { return tasks[x].createdAt.utf8.lexicographicallyPrecedes(tasks[y].createdAt.utf8) }
                // Ids are 32 lowercase hex digits: their numbers' order is their text's.
                return tasks[x].id < tasks[y].id
            }
            return keys.map(\.index)
        }
    }

    /// Where a task stands in list order: a page of a long list starts after the last row's
    /// position, so a row that left the list since does not move the page.
    public struct Position: Comparable, Sendable {
        let due: Int
        let priority: Int
        let createdAt: String
        let id: String

        public init(_ task: Task) {
            due = Self.dueKey(task.due)
            priority = Self.priorityKey(task.priority)
            createdAt = task.createdAt
            id = task.id.hex
        }

        /// Soonest first, a time before the end of its day, undated last.
        static func dueKey(_ due: Due?) -> Int { due.map { $0.date.daysSinceEpoch * 1441 + ($0.minutes ?? 1440) } ?? Int.max }

        /// High first.
        static func priorityKey(_ priority: Priority) -> Int { priority == .high ? 0 : priority == .normal ? 1 : 2 }

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
        Self.isOverdue(due: due, open: status == .open && !deleted, today: today, minuteOfDay: minuteOfDay)
    }

    /// Open, not deleted, due today and not yet overdue.
    public func isDueToday(today: CivilDate, minuteOfDay: Int) -> Bool {
        Self.isDueToday(due: due, open: status == .open && !deleted, today: today, minuteOfDay: minuteOfDay)
    }

    /// `isOverdue` from the fields that decide it (`open`: open and not deleted), for a caller
    /// reading tasks in place: a call on a task in an array would copy it (retaining and
    /// releasing all of its fields).
    public static func isOverdue(due: Due?, open: Bool, today: CivilDate, minuteOfDay: Int) -> Bool {
        guard let due, open else { return false }
        if due.date != today { return due.date < today }
        return (due.minutes ?? 24 * 60) <= minuteOfDay
    }

    /// `isDueToday` from the fields that decide it, as `isOverdue(due:open:today:minuteOfDay:)`.
    public static func isDueToday(due: Due?, open: Bool, today: CivilDate, minuteOfDay: Int) -> Bool {
        due?.date == today && open && !isOverdue(due: due, open: open, today: today, minuteOfDay: minuteOfDay)
    }
}
