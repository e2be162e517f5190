/// `todo agenda`: the open tasks that need attention, in three groups.
public struct Agenda: Sendable {
    /// Positions in the task array given to `init`, soonest due first within each group.
    public var overdue: [Int] = []
    public var today: [Int] = []
    public var upcoming: [Int] = []

    public var isEmpty: Bool { overdue.isEmpty && today.isEmpty && upcoming.isEmpty }

    /// Open, undeleted tasks with a due date: overdue ones (a past day, or today at a time that
    /// has passed), those due later today, and those due in the `days` days after today.
    public init(_ tasks: [Task], today day: CivilDate, minuteOfDay: Int, days: Int, include: (Task) -> Bool = { _ in true }) {
        let last = day.checkedAdding(days: days) ?? day
        var picked: [(Due, Int)] = []
        for (i, t) in tasks.enumerated() {
            guard t.status == .open, !t.deleted, let due = t.due, due.date <= last, include(t) else { continue }
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
}
