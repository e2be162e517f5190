import TestKit
import Testing

@testable import TodoCore

/// The listing rules every front end shares (`TaskQuery`).
@Suite(.timeLimit(.minutes(5))) struct TaskQueryTests {
    static let today = CivilDate(year: 2026, month: 11, day: 25)!

    static func task(_ n: Int, _ title: String, status: Status = .open, deleted: Bool = false, assignee: String? = nil,
                     tags: [String] = [], due: Due? = nil) -> Task {
        let hex = String(repeating: "0", count: 31) + String(n, radix: 16)
        var t = Task(id: TaskID(hex)!, title: title, createdAt: "2026-11-2\(n % 10)T09:00:00.000Z", createdBy: "Ana")
        t.status = status
        t.deleted = deleted
        t.assignee = assignee
        t.due = due
        let s = FieldStamp(Stamp(wall: 1, counter: 0, replica: "a1"), by: "Ana")
        for tag in tags { t.setTag(tag, present: true, stamp: s) }
        return t
    }

    @Test func selectsByStateAssigneeTagWordsAndOverdue() {
        let tasks = [
            Self.task(1, "Buy milk", assignee: "Kim", tags: ["Shop"], due: Due(date: CivilDate(year: 2026, month: 11, day: 24)!, minutes: nil)),
            Self.task(2, "Fix bike", status: .done, assignee: "kim@example.org"),
            Self.task(3, "Old plan", deleted: true),
            Self.task(4, "Call plumber", due: Due(date: Self.today, minutes: 600)),
            Self.task(5, "Bake bread", due: Due(date: Self.today, minutes: 1200)),
        ]
        func run(_ change: (inout TaskQuery) -> Void, minute: Int = 720) -> [String] {
            var q = TaskQuery()
            change(&q)
            return q.select(tasks, today: Self.today, minuteOfDay: minute).map { tasks[$0].title }
        }
        #expect(run { _ in } == ["Buy milk", "Call plumber", "Bake bread"])
        #expect(run { $0.which = .done } == ["Fix bike"])
        #expect(run { $0.which = .openAndDone } == ["Buy milk", "Fix bike", "Call plumber", "Bake bread"])
        #expect(run { $0.which = .deleted } == ["Old plan"])
        #expect(run { $0.which = .openAndDone; $0.assignee = "KIM"; $0.assigneeEmail = "Kim@Example.org" } == ["Buy milk", "Fix bike"])
        #expect(run { $0.tag = "+shop" } == ["Buy milk"])
        #expect(run { $0.words = ["MILK"] } == ["Buy milk"])
        // At noon: yesterday's task and the one due at 10:00 are overdue, 20:00 is not yet.
        #expect(run { $0.overdueOnly = true } == ["Buy milk", "Call plumber"])
        #expect(run({ $0.overdueOnly = true }, minute: 1200) == ["Buy milk", "Call plumber", "Bake bread"])
        // Soonest due first, undated last.
        let order = TaskQuery.order(tasks, [0, 1, 3, 4]).map { tasks[$0].title }
        #expect(order == ["Buy milk", "Call plumber", "Bake bread", "Fix bike"])
    }

    /// The list order (sorted on numbers, the strings read only on a tie) is `Position`'s, the
    /// order a page of a long list goes by: due, priority, creation time, id. Ties are made
    /// likely (few dates, few creation times, ids that share their first half).
    @Test func listOrderIsPositionOrder() {
        var rng = SplitMix64(seed: 2026_11_27)
        let created = ["2026-11-20T09:00:00.000Z", "2026-11-20T09:00:00.001Z", "2025-01-01T00:00:00.000Z", ""]
        let tasks = (0..<2_000).map { n -> Task in
            let high = rng.next() % 3 == 0 ? 0x1234 : rng.next()
            var t = Task(id: TaskID(high: high, low: rng.next()), title: "T\(n)", createdAt: created[Int(rng.next() % 4)], createdBy: "Ana")
            t.priority = Priority.allCases[Int(rng.next() % 3)]
            if rng.next() % 4 != 0 {
                t.due = Due(date: Self.today.adding(days: Int(rng.next() % 3)), minutes: rng.next() % 2 == 0 ? nil : Int(rng.next() % 1440))
            }
            return t
        }
        let some = tasks.indices.filter { _ in rng.next() % 5 != 0 }
        let byPosition = some.sorted { TaskQuery.Position(tasks[$0]) < TaskQuery.Position(tasks[$1]) }
        #expect(TaskQuery.order(tasks, some) == byPosition)
        #expect(TaskQuery.order(tasks, []) == [])
    }
}
