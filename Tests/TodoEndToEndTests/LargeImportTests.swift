import Foundation
import Glibc
import Testing
import TodoCore

/// `todo import` of more tasks than one change writes loose (`Household.bulkThreshold`): the
/// blobs go to disk as they are made (`PackSpool`), yet the commit is the one it always was,
/// and a kill at any moment leaves the household as before the import or with all of it.
@Suite(.timeLimit(.minutes(20)), .kit) struct LargeImportTests {
    /// The commit and tree that `todo import` made of `fixtures/tasks/bulk-import.json` (after
    /// `bulk-import-earlier.json`: six of its Taskwarrior tasks re-imported, four tasks present)
    /// with the clock and ids fixed, when it still built every object in memory.
    static let expectedTree = "eef26d38c588d63604398dec5c3538fe2b344ef2"
    static let expectedCommit = "f9fff7be000046aa859f38e0b7117eeb8dca1142"

    @Test(needsTestHook("TODO_ID_SEED")) func aBulkImportMakesTheSameCommitAsBefore() throws {
        let sb = try Sandbox()
        sb.idSeed = 4242
        try sb.initHousehold()
        let earlier = try sb.todo("import", fixturesDirectory + "/bulk-import-earlier.json")
        try #require(earlier.exitCode == 0, "\(earlier)")
        let r = try sb.todo("import", fixturesDirectory + "/bulk-import.json")
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stdout.hasPrefix("Imported 191 tasks, updated 6 (4 already present, unchanged).\n"), "\(r)")
        #expect(try sb.subject() == "import: 197 tasks from bulk-import.json")
        #expect(try sb.git("rev-parse", "HEAD^{tree}").stdout == Self.expectedTree + "\n")
        #expect(try sb.commits().first == Self.expectedCommit)
        try sb.expectClean()
    }

    /// The titles of every task, sorted.
    func titles(_ sb: Sandbox) throws -> [String] {
        let listed = try sb.todo("list", "--all", "--json")
        try #require(listed.exitCode == 0, "\(listed)")
        return try json(listed.stdout).items.compactMap { $0["title"]?.stringValue }.sorted()
    }

    /// SIGKILL at moments spread over a large import (the delay only picks where the kill lands;
    /// nothing waits on time to synchronise): after the next change the household is as before
    /// the import or holds all of it, git finds it sound and the work tree matches it.
    @Test func aKilledLargeImportLeavesTheHouseholdAsBeforeOrWhole() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        _ = try sb.add("Walk the dog")
        let count = 3_000
        let file = try sb.file("large.json", jsonArray((0..<count).map { jsonObject(["title": "Large \($0)", "notes": "n"]) }))
        // How long an import takes here, in another household, to spread the kills over.
        try sb.initHousehold("timing")
        let started = ContinuousClock.now
        let whole = try sb.todo("import", "-H", "timing", file)
        try #require(whole.exitCode == 0, "\(whole)")
        let span = started.duration(to: .now)
        let micros = Int(span.components.seconds) * 1_000_000 + Int(span.components.attoseconds / 1_000_000_000_000)

        var before = try titles(sb)
        var kills = 0
        var landed = 0
        let attempts = 12
        for k in 0..<attempts {
            let head = try sb.commits().first
            let delay = UInt32(clamping: micros * k / attempts)
            let ended = try sb.start(["import", file]).kill(after: delay)
            let context = "attempt \(k), killed after \(delay) µs of \(micros): \(ended)"
            if ended.signal == SIGKILL { kills += 1 } else { #expect(ended.exitCode == 0, "\(context)") }
            // The next change finishes what the kill interrupted (a query only reads).
            let title = "After kill \(k)"
            let add = try sb.todo("add", title)
            #expect(add.exitCode == 0, "\(context)\n\(add)")
            let after = try titles(sb)
            let fsck = try sb.git("fsck", "--strict", "--no-progress")
            #expect(fsck.exitCode == 0, "\(context)\n\(fsck)")
            try sb.expectStatusEmpty()
            let commits = try sb.commits()
            if commits.count > 1, commits[1] == head {
                #expect(after == (before + [title]).sorted(), "\(context): the household changed without a commit")
            } else {
                #expect(try sb.subject("HEAD~1") == "import: \(count) tasks from large.json", "\(context)")
                #expect(after.count == before.count + count + 1, "\(context)")
                landed += 1
            }
            before = after
        }
        print("large import kill test: \(kills) of \(attempts) imports killed, \(landed) committed")
        #expect(kills > 0, "no kill landed while todo ran")
    }
}
