import Foundation
import Testing
import TodoCore

/// Every date a command writes lies from 1970-01-01 through 2199-12-31 (docs/FORMAT.md,
/// "Dates"); outside it the command exits 64 (an import 65, naming the task), says the range
/// and commits nothing. A date already stored outside it is read and shown. The clock is fixed
/// at Thursday 2025-11-20, 09:00 UTC.
@Suite(.timeLimit(.minutes(10)), .kit) struct DateRangeTests {
    static let range = "1970-01-01 through 2199-12-31"

    func refused(_ sb: Sandbox, _ args: [String], exit: Int32 = 64, sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        let before = try sb.commits()
        let r = try sb.todo(args)
        #expect(r.exitCode == exit, "\(args): \(r)", sourceLocation: sourceLocation)
        #expect(r.stderr.contains(Self.range), "\(args): \(r)", sourceLocation: sourceLocation)
        #expect(try sb.commits() == before, "\(args) committed nothing", sourceLocation: sourceLocation)
        return r
    }

    @Test func everyDateACommandWritesIsInTheRange() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        #expect(try sb.todo("member", "add", "Bob").exitCode == 0)
        let plates = try sb.add("Plates")
        let dishes = try sb.add("Dishes", "--every", "day", "--rotate", "Alice,Bob", "--from", "1970-01-01")
        for outside in ["0001-01-01", "1969-12-31", "2200-01-01"] {
            _ = try refused(sb, ["add", "Old", "--due", outside])
            _ = try refused(sb, ["add", "Old", "--every", "day", "--from", outside])
            _ = try refused(sb, ["edit", plates.short, "--due", outside])
            _ = try refused(sb, ["edit", dishes.short, "--every", "week", "--from", outside])
            _ = try refused(sb, ["done", dishes.short, "--on", outside])
            _ = try refused(sb, ["skip", dishes.short, "--on", outside])
            _ = try refused(sb, ["member", "away", "Bob", "--from", "2025-12-01", "--until", outside])
        }
        // The range's ends are dates like any other.
        #expect(try sb.todo("edit", plates.short, "--due", "2199-12-31").exitCode == 0)
        #expect(try sb.todo("add", "First", "--due", "1970-01-01").exitCode == 0)
        #expect(try sb.todo("member", "away", "Bob", "--from", "2025-12-01", "--until", "2199-12-31").exitCode == 0)
    }

    @Test func anImportHoldingADateOutsideTheRangeIsRefusedNamingTheTask() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let doc = jsonArray([
            jsonObject(["title": "Fine", "due": "2025-12-01"]),
            jsonObject(["title": "From the year one", "due": "0001-01-01"]),
        ])
        let before = try sb.commits()
        let imported = try sb.todo("import", "-", stdin: doc)
        #expect(imported.exitCode == 65, "\(imported)")
        #expect(imported.stderr.contains("task 2"), "\(imported)")
        #expect(imported.stderr.contains("From the year one"), "\(imported)")
        #expect(imported.stderr.contains("0001-01-01"), "\(imported)")
        #expect(imported.stderr.contains(Self.range), "\(imported)")
        #expect(try sb.commits() == before)
    }

    /// A chore whose file says it started in the year 1 (a hand edit, an older version) is
    /// read and shown: `show`, `agenda` and `list` work, and its turns still alternate.
    @Test func aChoreFromTheYearOneIsStillReadAndShown() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        #expect(try sb.todo("member", "add", "Bob").exitCode == 0)
        let dishes = try sb.add("Dishes", "--every", "day", "--rotate", "Alice,Bob", "--from", "2025-11-20")
        let bytes = try sb.committedBytes(dishes.path)
        let text = String(decoding: bytes, as: UTF8.self)
        let edited = text.replacingOccurrences(of: "\"2025-11-20\"", with: "\"0001-01-01\"")
        try #require(edited != text, "\(text)")
        try sb.commitByHand([(dishes.path, Array(edited.utf8))], message: "by hand: from the year 1")
        let show = try sb.todo("show", dishes.short)
        #expect(show.exitCode == 0, "\(show)")
        #expect(show.stdout.contains("Alice") && show.stdout.contains("Bob"), "\(show)")
        for args in [["agenda"], ["list"], ["show", "--json", dishes.short]] {
            let r = try sb.todo(args)
            #expect(r.exitCode == 0, "\(args): \(r)")
            #expect(r.stdout.contains("Dishes"), "\(args): \(r)")
        }
        // Another field of it can still be changed: only what a change writes is checked.
        #expect(try sb.todo("edit", dishes.short, "--title", "Plates").exitCode == 0)
        #expect(try sb.todo("done", dishes.short).exitCode == 0)
    }
}
