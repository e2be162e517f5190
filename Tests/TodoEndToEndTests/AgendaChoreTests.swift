import Foundation
import Testing
import TodoCore

/// `todo agenda` counts a chore by its current occurrence, with whose turn it is.
@Suite(.timeLimit(.minutes(20)), .kit) struct AgendaChoreTests {
    @Test func choresAppearByTheirCurrentOccurrenceAndTurn() throws {
        let sb = try Sandbox()  // Thursday 2025-11-20 09:00, as Alice
        try sb.initHousehold()
        let trash = try sb.add("Take out the trash", "--every", "tue", "--rotate", "Bob,Alice", "--from", "2025-11-11")
        let plants = try sb.add("Water the plants", "--every", "3d", "--rotate", "Bob,Alice", "--from", "2025-11-21")
        _ = try sb.add("Pay rent", "--every", "1st", "--from", "2025-12-01")
        let laundry = try sb.add("Laundry", "--every", "day", "--rotate", "Bob", "--from", "2025-11-20")
        #expect(try sb.todo("edit", laundry.short, "--assign", "Alice").exitCode == 0)

        let all = try sb.todo("agenda")
        #expect(all.exitCode == 0 && all.stderr.isEmpty, "\(all)")
        #expect(all.lines.map { $0.split(separator: " ").prefix(2).joined(separator: " ") } == [
            // 11 Nov was missed: the chore shows the Tuesday due now, Alice's turn.
            "Overdue:", "\(trash.short) 2025-11-18", "Due today:", "\(laundry.short) today", "Next 7",
            "\(plants.short) tomorrow",
        ], "\(all)")
        #expect(all.lines.contains { $0.contains("Alice") && $0.hasSuffix("Take out the trash ↻") }, "\(all)")
        #expect(all.lines.contains { $0.contains("Bob") && $0.hasSuffix("Water the plants ↻") }, "\(all)")

        // Mine: the plants are Bob's turn; the laundry is mine today, taken over.
        let mine = try sb.todo("agenda", "--mine")
        #expect(mine.lines.count == 4 && !mine.stdout.contains("Water the plants"), "\(mine)")
        let j = try json(try sb.todo("agenda", "--mine", "--json").stdout)
        #expect(j["overdue"]?.items.compactMap { $0["id"]?.stringValue } == [trash.id])
        #expect(j["overdue"]?.items.first?["current"] == .string("2025-11-18"))
        #expect(j["overdue"]?.items.first?["turn"] == .string("Alice"))
        #expect(j["today"]?.items.compactMap { $0["id"]?.stringValue } == [laundry.id])
        #expect(j["today"]?.items.first?["title"] == .string("Laundry"))
        #expect(j["upcoming"]?.items.isEmpty == true)

        // Done up to date: nothing overdue is left of the trash until its next Tuesday.
        #expect(try sb.todo("done", trash.short, "--all").exitCode == 0)
        let after = try json(try sb.todo("agenda", "--json").stdout)
        #expect(after["overdue"]?.items.isEmpty == true, "\(after)")
        #expect(after["upcoming"]?.items.compactMap { $0["id"]?.stringValue } == [plants.id, trash.id])
    }
}
