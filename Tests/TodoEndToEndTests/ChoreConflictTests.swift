import Foundation
import Testing
import TodoCore

/// Concurrent writes to one occurrence or one checklist item: the later stamp wins and the other
/// entry goes into the conflict log, from which it can be brought back (docs/MERGE.md).
@Suite(.timeLimit(.minutes(20)), .kit) struct ChoreConflictTests {
    @Test func aLostCompletionAndCheckAreLoggedAndRestored() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let url = host.url()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host, now: fixedNow + 60_000)
        try alice.create(remote: url)
        let trash = try alice.add("Take out the trash", "--every", "tue", "--from", "2025-11-04", "--catch-up")
        let groceries = try alice.add("Groceries", "--item", "milk", "--item", "eggs")
        try alice.sync()
        try bob.join(url)

        // Offline, Alice does Tuesday's trash and checks milk; Bob, a minute later, skips that
        // Tuesday and removes milk.
        try alice.change("done", trash.short)
        try alice.change("edit", groceries.short, "--check", "milk")
        try bob.change("skip", trash.short)
        try bob.change("edit", groceries.short, "--remove-item", "milk")
        let alicesOwn = try alice.head()
        try alice.sync()

        // Alice merges Bob's commit with plain git; Bob merges hers with `todo sync`: the same
        // entries, with the same ids, whichever replica merged.
        let fetch = try alice.git("fetch", "-q", bob.repo, "main")
        try #require(fetch.exitCode == 0, "\(fetch)")
        let merge = try alice.git("merge", "-q", "--no-edit", "FETCH_HEAD")
        try #require(merge.exitCode == 0, "\(merge)")
        let byAlice = try alice.tree()
        let reset = try alice.git("reset", "-q", "--hard", alicesOwn)
        try #require(reset.exitCode == 0, "\(reset)")

        let told = try bob.sync()
        let newConflicts = try #require(told.lines.first { $0.hasPrefix("  New conflicts (todo conflicts): ") }, "\(told)")
        #expect(newConflicts.contains("Take out the trash (\(trash.id.prefix(4)): occurrence Tue 4 Nov)"), "\(told)")
        #expect(newConflicts.contains("Groceries (\(groceries.id.prefix(4)): item 'milk')"), "\(told)")
        #expect(try bob.tree() == byAlice)
        try alice.sync()
        #expect(try alice.tree() == byAlice)

        let t = try TaskCodec.decode(try alice.sb.committedBytes(trash.path))
        #expect(t.occurrenceEntries["2025-11-04"]?.state == .skipped)
        let g = try TaskCodec.decode(try alice.sb.committedBytes(groceries.path))
        #expect(g.visibleItems.map(\.text) == ["eggs"])

        let listed = try alice.todo("conflicts")
        #expect(listed.exitCode == 0, "\(listed)")
        #expect(listed.lines.contains("    Alice did Tue 4 Nov; Bob's 'skipped' was kept (written later)"), "\(listed)")
        #expect(listed.lines.contains("    Alice checked 'milk'; Bob's 'removed' was kept (written later)"), "\(listed)")
        let entries = try json(try alice.todo("conflicts", "--json").stdout).items
        try #require(entries.count == 2, "\(entries)")
        let occurrence = try #require(entries.first { $0["field"] == .string("occurrence:2025-11-04") })
        #expect(occurrence["kind"] == .string("field"))
        #expect(occurrence["lost"]?["value"] == .string("done") && occurrence["lost"]?["member"] == .string("Alice"))
        #expect(occurrence["kept"]?["value"] == .string("skipped") && occurrence["kept"]?["member"] == .string("Bob"))
        let item = try #require(entries.first { $0["field"]?.stringValue?.hasPrefix("item:") == true })
        #expect(item["lost"]?["value"] == .array([.string("checked"), .string("milk")]))
        #expect(item["kept"]?["value"] == .array([.string("removed"), .string("milk")]))
        #expect(Set(try json(try bob.todo("conflicts", "--json").stdout).items.compactMap { $0["id"]?.stringValue }) == Set(entries.compactMap { $0["id"]?.stringValue }))

        let stats = try json(try alice.todo("conflicts", "--stats", "--json").stdout)
        #expect(stats["fields"] == .object([("items", .number("1")), ("occurrences", .number("1"))]), "\(stats)")

        // Alice brings both back, as new writes that win on every replica after the next sync.
        for e in [occurrence, item] {
            let id = try #require(e["id"]?.stringValue)
            let r = try alice.todo("conflicts", "restore", String(id.prefix(8)))
            #expect(r.exitCode == 0 && r.stdout.hasPrefix("Restored \(e["field"]!.stringValue!): "), "\(r)")
        }
        let again = try alice.todo("conflicts", "restore", String(try #require(occurrence["id"]?.stringValue).prefix(8)))
        #expect(again.exitCode == 0 && again.stdout.hasPrefix("Already current: "), "\(again)")
        try alice.sync()
        try bob.sync()
        #expect(try bob.tree() == (try alice.tree()))
        let after = try TaskCodec.decode(try bob.sb.committedBytes(trash.path))
        let done = try #require(after.occurrenceEntries["2025-11-04"])
        #expect(done.state == .done && done.stamp.member == "Alice")
        #expect(after.currentOccurrence(today: CivilDate(year: 2025, month: 11, day: 20)!)?.description == "2025-11-11")
        let items = try TaskCodec.decode(try bob.sb.committedBytes(groceries.path)).visibleItems
        #expect(items.map(\.text) == ["milk", "eggs"] && items.map(\.state) == [.checked, .open])
        try alice.expectClean()
        try bob.expectClean()
    }
}
