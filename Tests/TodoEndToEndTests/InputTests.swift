import Foundation
import Testing

/// What people type: id prefixes, dates, priorities, titles. Bad input is exit 64 and commits
/// nothing. The clock is fixed at Thursday 2025-11-20 09:00 UTC.
@Suite(.timeLimit(.minutes(20)), .kit) struct InputTests {
    /// A household holding tasks whose ids were chosen so that some share long prefixes.
    func householdWithChosenIDs() throws -> (Sandbox, [String: String]) {
        let sb = try Sandbox()
        try sb.initHousehold()
        let ids = [
            "one": "abcd1" + String(repeating: "0", count: 27),
            "two": "abcd2" + String(repeating: "0", count: 27),
            "three": "abce" + String(repeating: "0", count: 28),
            "four": "fedc" + String(repeating: "0", count: 28),
        ]
        let doc = jsonArray(ids.keys.sorted().map { jsonObject(["id": ids[$0]!, "title": $0]) })
        let r = try sb.todo("import", "-", stdin: doc)
        try #require(r.exitCode == 0, "\(r)")
        return (sb, ids)
    }

    @Test func uniquePrefixesAndFullIDsResolve() throws {
        let (sb, ids) = try householdWithChosenIDs()
        for (prefix, title) in [("abcd1", "one"), ("ABCD2", "two"), ("abce", "three"), ("fedc", "four"), (ids["one"]!, "one")] {
            let r = try sb.todo("show", "--json", prefix)
            #expect(r.exitCode == 0, "\(r)")
            #expect(try json(r.stdout)["title"] == .string(title), "\(prefix)")
        }
        // Lists show the shortest unique prefix of at least four characters.
        let list = try sb.todo("list")
        #expect(list.lines.map { String($0.prefix(while: { $0 != " " })) } == ["abcd1", "abcd2", "abce", "fedc"], "\(list)")
    }

    @Test func anAmbiguousPrefixIsAUsageErrorListingTheCandidates() throws {
        let (sb, _) = try householdWithChosenIDs()
        let before = try sb.commits()
        for (prefix, candidates) in [("abcd", "abcd1, abcd2"), ("ABCD", "abcd1, abcd2")] {
            for command in ["show", "done", "edit", "log"] {
                let args = command == "edit" ? [command, prefix, "--title", "x"] : [command, prefix]
                let r = try sb.todo(args)
                #expect(r.exitCode == 64, "\(r)")
                #expect(r.stderr.contains("The id \"\(prefix)\" matches several tasks: \(candidates)."), "\(r)")
                #expect(r.stderr.contains("Type more of the id."), "\(r)")
            }
        }
        // All or nothing: one ambiguous id among good ones changes nothing.
        let r = try sb.todo("done", "fedc", "abcd")
        #expect(r.exitCode == 64, "\(r)")
        #expect(try sb.commits() == before)
    }

    /// Like git's abbreviations, a task id is at least 4 characters: a shorter one is refused
    /// by every command that takes one, even when it names one task alone.
    @Test func anIDShorterThanFourCharactersIsAUsageErrorInEveryCommand() throws {
        let (sb, _) = try householdWithChosenIDs()
        // "f" names task four alone (fedc…).
        let head = try sb.git("rev-parse", "HEAD").stdout
        for prefix in ["f", "fe", "FED"] {
            for args in [
                ["show", prefix], ["edit", prefix, "--title", "x"], ["done", prefix], ["skip", prefix], ["rm", prefix],
                ["restore", prefix], ["reopen", prefix], ["swap", prefix, "--with", "Bob"], ["pass", prefix, "--to", "Bob"],
                ["log", prefix], ["conflicts", prefix], ["done", "fedc", prefix],
            ] {
                let r = try sb.todo(args)
                #expect(r.exitCode == 64, "\(r)")
                #expect(
                    r.stderr.contains("\"\(prefix)\" is too short for a task id: give at least 4 characters.\n`todo list` shows them."),
                    "\(r)")
                #expect(r.stdout.isEmpty, "\(r)")
            }
        }
        #expect(try sb.git("rev-parse", "HEAD").stdout == head, "nothing committed")
        // Four characters are enough.
        let done = try sb.todo("done", "fedc")
        #expect(done.exitCode == 0 && done.stdout.hasPrefix("Done: four (fedc)"), "\(done)")
        #expect(try sb.git("rev-parse", "HEAD").stdout != head)
        try sb.expectClean()
    }

    @Test func anUnknownIDIsNotFound() throws {
        let (sb, ids) = try householdWithChosenIDs()
        let before = try sb.commits()
        for prefix in ["9999", "abcd3", "wxyz", "12-4", ids["one"]! + "0", "abcd1 "] {
            for command in ["show", "done", "rm", "log"] {
                let r = try sb.todo(command, prefix)
                #expect(r.exitCode == 66, "\(r)")
                #expect(r.stderr.contains("No task has an id starting with"), "\(r)")
            }
        }
        #expect(try sb.commits() == before)
    }

    @Test func dueDatesInEveryAcceptedForm() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let cases: [(String, String)] = [
            ("today", "2025-11-20"),
            ("tomorrow", "2025-11-21"),
            ("friday", "2025-11-21"),
            ("Fri", "2025-11-21"),
            ("monday", "2025-11-24"),
            ("thursday", "2025-11-27"),  // today's weekday means next week
            ("+0d", "2025-11-20"),
            ("+3d", "2025-11-23"),
            ("+2w", "2025-12-04"),
            ("2025-12-24", "2025-12-24"),
            ("2028-02-29", "2028-02-29"),
            ("friday 18:00", "2025-11-21T18:00"),
            ("tomorrow 7:05", "2025-11-21T07:05"),
            ("2025-12-24T07:30", "2025-12-24T07:30"),
            ("  +1d 23:59 ", "2025-11-21T23:59"),
        ]
        for (input, stored) in cases {
            let r = try sb.todo("add", "--json", "Task due \(input)", "--due", input)
            #expect(r.exitCode == 0, "\(r)")
            #expect((try? json(r.stdout)["due"]) == .string(stored), "--due \(input): \(r.stdout)")
        }
        // edit --due takes the same forms; --no-due clears it.
        let t = try sb.add("Water plants")
        #expect(try sb.todo("edit", t.short, "--due", "+2w 08:00").exitCode == 0)
        #expect(try json(try sb.todo("show", "--json", t.short).stdout)["due"] == .string("2025-12-04T08:00"))
        #expect(try sb.todo("edit", t.short, "--no-due").exitCode == 0)
        #expect(try json(try sb.todo("show", "--json", t.short).stdout)["due"] == .null)
    }

    @Test(arguments: [
        "yestreday", "2025-13-01", "2025-02-29", "2025-11-20T25:00", "friday 18:60", "tomorrow 18:0", "+3x", "+d",
        "13:0", "next week", "32nd", "2th", "+1q", "next 15th", "", "2025/12/24",
    ])
    func aBadDateIsAUsageErrorAndCommitsNothing(_ input: String) throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let t = try sb.add("Water plants")
        let before = try sb.commits()
        for args in [["add", "Task", "--due", input], ["edit", t.short, "--due", input]] {
            let r = try sb.todo(args)
            #expect(r.exitCode == 64, "\(r)")
            #expect(r.stderr.contains("is not a date I understand"), "\(r)")
            #expect(r.stderr.contains("Use YYYY-MM-DD, today, tomorrow, yesterday, now, a weekday"), "\(r)")
        }
        #expect(try sb.commits() == before)
    }

    @Test func badPrioritiesTitlesTagsAndAssigneesAreUsageErrors() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let t = try sb.add("Water plants")
        let before = try sb.commits()
        let bad: [([String], String)] = [
            (["add", "Task", "--priority", "urgent"], "\"urgent\" is not a priority. Use low, normal or high."),
            (["add", "Task", "--priority", ""], "is not a priority"),
            (["edit", t.short, "--priority", "5"], "\"5\" is not a priority"),
            (["add"], "The title is empty."),
            (["add", ""], "The title is empty."),
            (["add", "  ", "\t"], "The title is empty."),
            (["edit", t.short, "--title", " "], "The title is empty."),
            (["add", String(repeating: "x", count: 1001)], "The title is longer than 1000 characters."),
            (["add", "Task", "--tag", "two words"], "is not a valid tag"),
            (["add", "Task", "--tag", "+"], "is not a valid tag"),
            (["add", "Task", "--tag", "bell\u{07}"], "is not a valid tag"),
            (["add", "Task", "--assign", "  "], "The assignee is empty"),
            (["list", "--assignee", "Bob", "--mine"], "Use either --assignee or --mine"),
            (["log", "-n", "0"], "-n must be at least 1"),
            (["frobnicate"], ""),
            (["add", "Task", "--no-such-flag"], ""),
        ]
        for (args, message) in bad {
            let r = try sb.todo(args)
            #expect(r.exitCode == 64, "\(r)")
            #expect(message.isEmpty || r.stderr.contains(message), "\(r)")
            #expect(r.stdout.isEmpty, "\(r)")
        }
        #expect(try sb.commits() == before)
        // The forms that are accepted, for contrast.
        for p in ["low", "L", "normal", "medium", "High", "h"] {
            #expect(try sb.todo("add", "Task", "--priority", p).exitCode == 0, "--priority \(p)")
        }
    }

    @Test func listMarksOverdueAndDueTodayTasks() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let yesterday = try sb.add("Pay rent", "--due", "2025-11-19")
        let early = try sb.add("Take out bins", "--due", "today 08:00")
        let now = try sb.add("Start the oven", "--due", "today 09:00")
        let evening = try sb.add("Cook dinner", "--due", "today 18:00")
        let today = try sb.add("Call grandma", "--due", "today")
        let tomorrow = try sb.add("Buy bread", "--due", "tomorrow")
        let later = try sb.add("Renew passport", "--due", "2026-01-15")
        let someday = try sb.add("Learn the cello")
        let finished = try sb.add("Old chore", "--due", "2025-11-01")
        #expect(try sb.todo("done", finished.short).exitCode == 0)

        /// Each row's id, due and title columns (columns are separated by two or more spaces).
        func rows(_ r: Run) -> [[String]] {
            r.lines.map { $0.split(separator: /\s{2,}/).map(String.init) }
        }
        let list = try sb.todo("list")
        #expect(list.exitCode == 0, "\(list)")
        #expect(rows(list) == [
            [yesterday.short, "yesterday !", "Pay rent"],
            [early.short, "today 08:00 !", "Take out bins"],
            [now.short, "today 09:00 !", "Start the oven"],
            [evening.short, "today 18:00", "Cook dinner"],
            [today.short, "today", "Call grandma"],
            [tomorrow.short, "tomorrow", "Buy bread"],
            [later.short, "2026-01-15", "Renew passport"],
            [someday.short, "Learn the cello"],
        ])
        #expect(!list.stdoutBytes.contains(0x1B), "NO_COLOR and no terminal: no escapes")

        let overdue = try sb.todo("list", "--overdue")
        #expect(rows(overdue).map(\.[0]) == [yesterday.short, early.short, now.short])
        // A done task is never overdue.
        let all = try sb.todo("list", "--all", "--overdue")
        #expect(rows(all).map(\.[0]) == [yesterday.short, early.short, now.short])
        #expect(rows(try sb.todo("list", "--done")) == [[finished.short, "2025-11-01", "[done] Old chore"]])

        // show says "overdue" too.
        #expect(try sb.todo("show", yesterday.short).stdout.contains("Due:      yesterday  (2025-11-19) (overdue)"))
        #expect(try sb.todo("show", today.short).stdout.contains("Due:      today  (2025-11-20)\n"))
    }

    @Test func listFiltersByAssigneeTagAndMine() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let a = try sb.add("Buy milk", "--assign", "Bob", "--tag", "groceries")
        let b = try sb.add("Mow the lawn", "--assign", "alice")
        let c = try sb.add("Buy bread", "--tag", "groceries")
        func ids(_ args: String...) throws -> [String] {
            try json(try sb.todo(["list", "--json"] + args).stdout).items.compactMap { $0["id"]?.stringValue }.sorted()
        }
        #expect(try ids("--assignee", "bob") == [a.id])
        #expect(try ids("--mine") == [b.id])
        #expect(try ids("--tag", "groceries") == [a.id, c.id].sorted())
        #expect(try ids("--tag", "+groceries", "--assignee", "Bob") == [a.id])
        #expect(try ids("--tag", "nothing").isEmpty)
    }
}
