/// `todo agenda`: the open tasks that need attention, in three groups.
public struct Agenda: Sendable {
    /// Positions in the task array given to `init`, soonest due first within each group.
    public var overdue: [Int] = []
    public var today: [Int] = []
    public var upcoming: [Int] = []

    public var isEmpty: Bool { overdue.isEmpty && today.isEmpty && upcoming.isEmpty }

    /// Open, undeleted tasks with a due date: overdue ones (a past day, or today at a time that
    /// has passed), those due later today, and those due in the `days` days after today. A chore
    /// counts by its current occurrence. `include` is given each task and whose it is (for a
    /// chore, whose turn the current occurrence is).
    public init(
        _ tasks: [Task], today day: CivilDate, minuteOfDay: Int, days: Int, context: TurnContext,
        include: (Task, _ assignee: String?) -> Bool = { _, _ in true }
    ) {
        let last = day.checkedAdding(days: days) ?? day
        var picked: [(Due, Int)] = []
        for (i, t) in tasks.enumerated() {
            guard t.status == .open, !t.deleted else { continue }
            let (due, assignee) = Self.due(of: t, today: day, context: context)
            guard let due, due.date <= last, include(t, assignee) else { continue }
            picked.append((due, i))
        }
        picked.sort { $0.0 != $1.0 ? $0.0 < $1.0 : tasks[$0.1].id < tasks[$1.1].id }
        for (due, i) in picked {
            if due.date < day || (due.date == day && (due.minutes ?? 24 * 60) <= minuteOfDay) {
                overdue.append(i)
            } else if due.date == day {
                today.append(i)
            } else {
                upcoming.append(i)
            }
        }
    }

    /// When a task is due and whose it is: for a chore, its current occurrence (at the chore's
    /// time of day, if it has one) and whose turn that is; for any other task, its own.
    public static func due(of task: Task, today: CivilDate, context: TurnContext) -> (due: Due?, assignee: String?) {
        guard let r = task.recurrence else { return (task.due, task.assignee) }
        let s = ChoreSchedule(task, recurrence: r, today: today, context: context)
        guard let current = s.current else { return (nil, task.assignee) }
        return (Due(date: current, minutes: task.due?.minutes), s.assignee(on: current))
    }
}
