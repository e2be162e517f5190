/// What `todo list` shows of a chore or a checklist, all derived from the task's fields: kept
/// beside each record in the list cache, so that a list reads no chore maps. A chore's facts
/// hold for the days `validFrom...validThrough` (its current occurrence moves with the calendar).
public struct ListFacts: Equatable, Sendable {
    public var isChore: Bool
    /// The chore's current occurrence (nil: every occurrence is done, or not a chore).
    public var current: CivilDate?
    /// Whose turn the current occurrence is (a take-over, the rotation, else the assignee).
    public var turn: String?
    /// Checked and total items of a checklist (nil: no items).
    public var checked: Int
    public var total: Int
    /// The days on which `current` and `turn` are what the chore shows (nil: any day).
    public var validFrom: CivilDate?
    public var validThrough: CivilDate?

    public init(
        isChore: Bool, current: CivilDate?, turn: String?, checked: Int, total: Int, validFrom: CivilDate? = nil,
        validThrough: CivilDate? = nil
    ) {
        self.isChore = isChore
        self.current = current
        self.turn = turn
        self.checked = checked
        self.total = total
        self.validFrom = validFrom
        self.validThrough = validThrough
    }

    /// The facts of `task` on `today`; nil for a task that is neither a chore nor a checklist
    /// with items.
    public init?(_ task: Task, today: CivilDate, context: TurnContext) {
        if task.extra.isEmpty { return nil }
        let rule = task.recurrence
        let progress = task.checklistProgress
        if rule == nil && progress == nil { return nil }
        var current: CivilDate?
        var turn: String?
        var from: CivilDate?
        var through: CivilDate?
        if let rule {
            let s = ChoreSchedule(task, recurrence: rule, today: today, context: context)
            current = s.current
            turn = current.flatMap { s.assignee(on: $0) }
            // The current occurrence stays until the one after it arrives (it is then missed or
            // passed); a turn decided by recent completions may change with the day.
            from = today
            if s.rotate == .fewest && !s.rotation.isEmpty {
                through = today
            } else if s.followsCalendar {
                through = current.flatMap { s.occurrences.next(after: max($0, today)) }.map { $0.adding(days: -1) }
            } else {
                from = nil
            }
        }
        self.init(
            isChore: rule != nil, current: current, turn: turn, checked: progress?.checked ?? 0,
            total: progress?.total ?? 0, validFrom: from, validThrough: through)
    }

    /// Whether these facts are the chore's on `day`.
    public func holds(on day: CivilDate) -> Bool {
        if let validFrom, day < validFrom { return false }
        if let validThrough, day > validThrough { return false }
        return true
    }
}

/// The list facts of many tasks, most of them plain (no facts): a 4-byte slot per task and
/// the facts themselves only for the chores and checklists. An array of `ListFacts?` takes
/// 136 bytes a task, nil or not (13.6 MB at 100,000 tasks, nearly all of it nil).
public struct SparseFacts: RandomAccessCollection, MutableCollection, Sendable, Equatable {
    /// For each task, where its facts are in `values`; -1 for none.
    private var slots: [Int32] = []
    private var values: [ListFacts] = []

    public init() {}

    public init(_ facts: some Sequence<ListFacts?>) {
        for f in facts { append(f) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { slots.count }

    public subscript(i: Int) -> ListFacts? {
        get { slots[i] < 0 ? nil : values[Int(slots[i])] }
        set {
            guard let newValue else {
                slots[i] = -1
                return
            }
            if slots[i] >= 0 {
                values[Int(slots[i])] = newValue
            } else {
                slots[i] = Int32(values.count)
                values.append(newValue)
            }
        }
    }

    public mutating func append(_ facts: ListFacts?) {
        slots.append(-1)
        self[slots.count - 1] = facts
    }

    public mutating func reserveCapacity(_ n: Int) { slots.reserveCapacity(n) }

    public static func == (a: SparseFacts, b: SparseFacts) -> Bool { a.elementsEqual(b) }
}
