import Foundation
import Testing
import TodoCore

@testable import TodoStore

/// Changes a front end may send twice (a double tap, a form sent again): the second time
/// commits nothing, and the outcome says so. The git CLI counts the commits.
@Suite(.timeLimit(.minutes(10)), .kit)
struct RepeatableChangeTests {
    typealias Fixture = StoreTransactionTests.Fixture

    @Test func addingUnderAChosenIDTwiceCommitsOnce() throws {
        let f = try Fixture()
        var new = NewTask(title: "Buy milk")
        new.id = "0123456789abcdef0123456789abcdef"
        let first = try f.household.add(new)
        #expect(first.commit != nil && first.tasks.first?.task.id.hex == new.id && first.tasks.first?.changed == true)
        let count = try f.commitCount()
        #expect(try git("cat-file", "-t", "main:\(try #require(TaskID(new.id!)).path)", in: f.household.path) == "blob\n")

        new.title = "Buy oat milk"
        let again = try f.household.add(new)
        #expect(again.commit == nil && again.tasks.first?.changed == false)
        #expect(again.tasks.first?.task.title == "Buy milk" && again.tasks.first?.task.id.hex == new.id)
        #expect(try f.commitCount() == count)
    }

    @Test func aChosenIDThatIsNotOneIsRefused() throws {
        let f = try Fixture()
        let count = try f.commitCount()
        for bad in ["", "0123", "0123456789ABCDEF0123456789ABCDEF", "0123456789abcdef0123456789abcdeg",
            "0123456789abcdef0123456789abcdef0", "../../../../etc/passwd", String(repeating: "0", count: 32)]
        {
            var new = NewTask(title: "Buy milk")
            new.id = bad
            #expect {
                try f.household.add(new)
            } throws: { error in
                if case StoreError.invalidTaskID(let id) = error { return id == bad }
                return false
            }
        }
        #expect(try f.commitCount() == count)
    }

    @Test func itemsNamedByKeyAndAlreadySoCommitNothing() throws {
        let f = try Fixture()
        var new = NewTask(title: "Shopping")
        new.items = ["Milk", "Eggs", "Bread"]
        let task = try #require(try f.household.add(new).tasks.first).task
        let eggs = Checklist.key("Eggs")

        var check = TaskEdit()
        check.checkItems = ["key:\(eggs)"]
        let first = try f.household.edit(task.id.hex, check)
        #expect(first.commit != nil && first.tasks.first?.fields == ["x Eggs"])
        let count = try f.commitCount()
        let again = try f.household.edit(task.id.hex, check)
        #expect(again.commit == nil && again.tasks.first?.changed == false)
        #expect(try f.commitCount() == count)

        // A removal before it shifts the indexes, never the key.
        var remove = TaskEdit()
        remove.removeItems = ["key:\(Checklist.key("Milk"))"]
        try f.household.edit(task.id.hex, remove)
        var uncheck = TaskEdit()
        uncheck.uncheckItems = ["key:\(eggs)"]
        #expect(try f.household.edit(task.id.hex, uncheck).tasks.first?.fields == ["o Eggs"])
        #expect(try f.household.edit(task.id.hex, uncheck).commit == nil)

        // A key no item has, or one not spelled as 16 lowercase hex digits, names no item.
        for name in ["key:0000000000000000", "key:\(eggs.uppercased())", "key:\(eggs.prefix(15))"] {
            var e = TaskEdit()
            e.checkItems = [name]
            #expect {
                try f.household.edit(task.id.hex, e)
            } throws: { error in
                if case StoreError.itemNotFound(_, let item) = error { return item == name }
                return false
            }
        }
        #expect(try f.household.snapshot().task(task.id)?.checklist.first { $0.key == eggs }?.state == .open)
    }

    @Test func doneTwiceForTheSameOccurrenceCommitsOnce() throws {
        let f = try Fixture()
        var chore = NewTask(title: "Bins")
        let today = f.household.clock.today
        chore.recurrence = Recurrence(rule: try #require(RepeatRule("daily")), from: today)
        let task = try #require(try f.household.add(chore).tasks.first).task

        let first = try f.household.complete([task.id.hex], .done, on: today)
        #expect(first.commit != nil && first.tasks.first?.fields == [today.description])
        let count = try f.commitCount()
        let again = try f.household.complete([task.id.hex], .done, on: today)
        #expect(again.commit == nil && again.tasks.first?.changed == false)
        #expect(try f.commitCount() == count)

        // Another member's done of the same occurrence is their credit: one commit.
        let bob = try Household.open(
            home: f.dir.path, name: "home", clock: .fixed(1_700_000_000_000),
            acting: Actor(name: "Bob", email: "bob@example.org", replica: "00000000000000b0"))
        #expect(try bob.complete([task.id.hex], .done, on: today).commit != nil)
        #expect(try bob.complete([task.id.hex], .done, on: today).commit == nil)
        #expect(try f.commitCount() == count + 1)

        // Skipping twice, likewise.
        let tomorrow = today.adding(days: 1)
        #expect(try f.household.complete([task.id.hex], .skip, on: tomorrow).commit != nil)
        #expect(try f.household.complete([task.id.hex], .skip, on: tomorrow).commit == nil)
        #expect(try f.commitCount() == count + 2)

        // A plain task done twice: one commit.
        let plain = try #require(try f.household.add(NewTask(title: "Call the plumber")).tasks.first).task
        #expect(try f.household.complete([plain.id.hex], .done).commit != nil)
        let again2 = try f.household.complete([plain.id.hex], .done)
        #expect(again2.commit == nil && again2.tasks.first?.changed == false)
    }
}
