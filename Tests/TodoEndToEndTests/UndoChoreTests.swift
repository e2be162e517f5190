import Foundation
import Testing
import TodoCore

/// `todo undo` of a change to a chore's occurrences or take-overs or a checklist's items takes
/// back those entries, not some earlier change.
@Suite(.timeLimit(.minutes(20)), .kit) struct UndoChoreTests {
    func run(_ sb: Sandbox, _ args: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        let r = try sb.todo(args)
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)", sourceLocation: sourceLocation)
        return r
    }

    @Test func undoTakesBackOccurrencesTakeOversAndItems() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let milk = try sb.add("Buy milk")
        let trash = try sb.add("Take out the trash", "--every", "tue", "--rotate", "Alice,Bob", "--from", "2025-11-04", "--catch-up")
        let groceries = try sb.add("Groceries", "--item", "milk")
        func task(_ t: TaskRef) throws -> Task { try TaskCodec.decode(try sb.committedBytes(t.path)) }
        let today = CivilDate(year: 2025, month: 11, day: 20)!

        _ = try run(sb, "done", trash.short)
        var r = try run(sb, "undo")
        #expect(r.lines.first?.hasPrefix("Undone: done: Take out the trash (") == true, "\(r)")
        #expect(try task(trash).currentOccurrence(today: today)?.description == "2025-11-04")
        // The completion is taken back, not erased: it stays in the file, undone, and counts for nobody.
        #expect(try task(trash).completions.map(\.state) == [.undone])
        #expect(try task(trash).schedule(today: today, context: .plain)?.credits.isEmpty == true)
        #expect(try task(milk).deleted == false)
        // A redo completes it again.
        r = try run(sb, "redo")
        #expect(try task(trash).occurrenceEntries["2025-11-04"]?.state == .done, "\(r)")
        #expect(try task(trash).schedule(today: today, context: .plain)?.credits.map(\.occurrence.description) == ["2025-11-04"])

        _ = try run(sb, "edit", trash.short, "--assign", "Carol")
        #expect(try task(trash).schedule(today: today, context: .plain)?.turn(on: CivilDate(year: 2025, month: 11, day: 11)!) == "Carol")
        r = try run(sb, "undo")
        #expect(r.lines.first?.hasPrefix("Undone: edit: Take out the trash (") == true, "\(r)")
        #expect(try task(trash).schedule(today: today, context: .plain)?.turn(on: CivilDate(year: 2025, month: 11, day: 11)!) == "Bob")

        _ = try run(sb, "edit", groceries.short, "--check", "milk", "--item", "bread")
        r = try run(sb, "undo")
        #expect(r.lines.first?.hasPrefix("Undone: edit: Groceries (") == true, "\(r)")
        let items = try task(groceries).visibleItems
        #expect(items.map(\.text) == ["milk"] && items.map(\.state) == [.open], "\(items)")
        #expect(try task(milk).deleted == false && (try task(trash)).deleted == false)
        try sb.expectClean()
    }
}
