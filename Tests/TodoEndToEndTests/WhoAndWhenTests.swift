import Foundation
import Testing
import TodoCore

/// Who finished a task and when, the history by date and author, the daily agenda, completions.
@Suite(.timeLimit(.minutes(20)), .kit) struct WhoAndWhenTests {
    @Test func showSaysWhoCompletedOrDeletedATaskAndWhen() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let milk = try sb.add("Buy milk")
        let bins = try sb.add("Take out bins")
        #expect(try sb.git("config", "user.name", "Bob").exitCode == 0)
        sb.now = fixedNow + 90 * 60_000  // 10:30
        #expect(try sb.todo("done", milk.short).exitCode == 0)
        #expect(try sb.todo("rm", bins.short).exitCode == 0)
        let done = try sb.todo("show", milk.short).stdout
        #expect(done.contains("Done:     2025-11-20 10:30 by Bob\n"), "\(done)")
        #expect(!done.contains("Deleted:"))
        let deleted = try sb.todo("show", bins.short).stdout
        #expect(deleted.contains("Deleted:  2025-11-20 10:30 by Bob\n"), "\(deleted)")
        // Reopened: no longer done, so nobody completed it.
        #expect(try sb.todo("reopen", milk.short).exitCode == 0)
        #expect(!(try sb.todo("show", milk.short).stdout.contains("Done:")))
    }

    @Test func logKeepsCommitsSinceADateAndByAnAuthor() throws {
        let sb = try Sandbox()
        sb.now = fixedNow - 3 * 86_400_000  // Monday
        try sb.initHousehold()
        let milk = try sb.add("Buy milk")
        sb.now = fixedNow - 86_400_000 + 3_600_000  // Wednesday 10:00
        #expect(try sb.git("config", "user.name", "Bob").exitCode == 0)
        #expect(try sb.git("config", "user.email", "bob@example.org").exitCode == 0)
        #expect(try sb.todo("edit", milk.short, "--title", "Buy oat milk").exitCode == 0)
        sb.now = fixedNow
        #expect(try sb.git("config", "user.name", "Alice").exitCode == 0)
        #expect(try sb.git("config", "user.email", "alice@example.org").exitCode == 0)
        #expect(try sb.todo("done", milk.short).exitCode == 0)

        func subjects(_ args: String...) throws -> [String] {
            let r = try sb.todo(["log"] + args)
            #expect(r.exitCode == 0, "\(r)")
            return r.lines.filter { !$0.hasPrefix(" ") }.map { String($0.split(separator: "  ").last ?? "") }
        }
        #expect(try subjects().count == 4)
        #expect(try subjects("--since", "yesterday") == ["done: Buy oat milk (\(milk.short))", "edit: Buy oat milk (\(milk.short))"])
        #expect(try subjects("--since", "yesterday 11:00") == ["done: Buy oat milk (\(milk.short))"])
        #expect(try subjects("--since", "today") == ["done: Buy oat milk (\(milk.short))"])
        #expect(try subjects("--author", "BOB") == ["edit: Buy oat milk (\(milk.short))"])
        #expect(try subjects("--author", "bob@example.org") == ["edit: Buy oat milk (\(milk.short))"])
        #expect(try subjects("--author", "alice", "--since", "2025-11-17", "-n", "1") == ["done: Buy oat milk (\(milk.short))"])
        #expect(try subjects("--author", "Carol").isEmpty)
        let json = try json(try sb.todo("log", "--json", "--author", "Bob").stdout)
        #expect(json.items.count == 1)
        let bad = try sb.todo("log", "--since", "someday")
        #expect(bad.exitCode == 64 && bad.stderr.contains("is not a date I understand"), "\(bad)")
    }

    @Test func agendaPrintsNothingWhenNothingIsDue() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        _ = try sb.add("Learn the cello")
        _ = try sb.add("Renew passport", "--due", "+2m")
        let done = try sb.add("Pay rent", "--due", "yesterday")
        #expect(try sb.todo("done", done.short).exitCode == 0)
        let r = try sb.todo("agenda")
        #expect(r.exitCode == 0 && r.stdout.isEmpty && r.stderr.isEmpty, "\(r)")
        let j = try sb.todo("agenda", "--json")
        #expect(j.stdout == "{\"overdue\": [], \"today\": [], \"upcoming\": []}\n", "\(j)")
    }

    @Test func agendaGroupsOverdueTodayAndTheNextDays() throws {
        let sb = try Sandbox()  // Thursday 09:00
        try sb.initHousehold()
        let rent = try sb.add("Pay rent", "--due", "yesterday")
        let bins = try sb.add("Take out bins", "--due", "08:00")
        let dinner = try sb.add("Cook dinner", "--due", "18:00", "--assign", "alice")
        let bread = try sb.add("Buy bread", "--due", "sat", "--assign", "Bob")
        _ = try sb.add("Renew passport", "--due", "+8d")
        _ = try sb.add("Learn the cello")
        let r = try sb.todo("agenda")
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.lines.map { $0.split(separator: " ", omittingEmptySubsequences: true).prefix(2).joined(separator: " ") } == [
            "Overdue:", "\(rent.short) yesterday", "\(bins.short) today", "Due today:", "\(dinner.short) today",
            "Next 7", "\(bread.short) saturday",
        ], "\(r)")
        let mine = try sb.todo("agenda", "--mine")
        #expect(mine.lines.count == 2 && mine.lines[1].contains("Cook dinner"), "\(mine)")
        let soon = try sb.todo("agenda", "--days", "10", "--json")
        let obj = try json(soon.stdout)
        #expect(obj.keys == ["overdue", "today", "upcoming"])
        #expect(obj["overdue"]?.items.compactMap { $0["id"]?.stringValue } == [rent.id, bins.id])
        #expect(obj["upcoming"]?.items.compactMap { $0["title"]?.stringValue } == ["Buy bread", "Renew passport"])
        #expect(try sb.todo("agenda", "--days", "-1").exitCode == 64)
    }

    @Test func completionsOfferTaskIDsWithTitlesHouseholdsAndAssignees() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        try sb.initHousehold("cabin")
        let milk = try sb.add("Buy milk: 2 l", "--assign", "Bob")
        let done = try sb.add("Old chore")
        #expect(try sb.todo("done", done.short).exitCode == 0)
        for shell in ["bash", "zsh", "fish"] {
            let script = try sb.todo("--generate-completion-script", shell)
            #expect(script.exitCode == 0 && script.stdout.contains("---completion show"), "\(shell)")
        }
        let zsh = try sb.todo(["---completion", "show", "--", "positional@0", "2", "0", "todo", "show", ""], env: ["SAP_SHELL": "zsh"])
        #expect(zsh.exitCode == 0, "\(zsh)")
        #expect(zsh.lines.contains("\(milk.short):Buy milk\\: 2 l"), "\(zsh)")
        #expect(!zsh.stdout.contains(done.short), "done tasks are not offered")
        let fish = try sb.todo(["---completion", "done", "--", "positional@0", "2", "0", "todo", "done", ""], env: ["SAP_SHELL": "fish"])
        #expect(fish.lines.contains("\(milk.short)\tBuy milk: 2 l"), "\(fish)")
        let bash = try sb.todo(["---completion", "edit", "--", "positional@0", "2", "0", "todo", "edit", ""], env: ["SAP_SHELL": "bash"])
        #expect(bash.lines.contains(milk.short), "\(bash)")
        let cabin = try sb.todo(["---completion", "show", "--", "positional@0", "4", "0", "todo", "-H", "cabin", "show", ""])
        #expect(cabin.exitCode == 0 && !cabin.stdout.contains(milk.short), "another household's ids: \(cabin)")
        let households = try sb.todo(["---completion", "list", "--", "--household", "2", "0", "todo", "list", "-H", ""])
        #expect(households.lines.prefix(2) == ["cabin", "home"], "\(households)")
        let who = try sb.todo(["---completion", "add", "--", "--assign", "3", "0", "todo", "add", "x", "--assign", ""])
        #expect(who.lines.prefix(2) == ["Alice", "Bob"], "\(who)")
        #expect(try sb.todo("--generate-completion-script", "zsh").stdout.contains("___priority=('low' 'normal' 'high')"))
    }
}
