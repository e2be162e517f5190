import Foundation
import Testing

/// `todo log` against git's own history, and the help a person reads.
@Suite(.timeLimit(.minutes(20)), .kit) struct LogAndHelpTests {
    /// A history by two members: Alice adds and edits, Bob (another identity in the same clone)
    /// finishes a task.
    func history() throws -> (Sandbox, milk: TaskRef, plumber: TaskRef) {
        let sb = try Sandbox()
        try sb.initHousehold()
        let milk = try sb.add("Buy milk", "--due", "tomorrow")
        let plumber = try sb.add("Call the plumber")
        #expect(try sb.todo("edit", milk.short, "--title", "Buy oat milk", "--due", "+3d").exitCode == 0)
        #expect(try sb.todo("done", plumber.short).exitCode == 0)
        #expect(try sb.git("config", "user.name", "Bob").exitCode == 0)
        #expect(try sb.git("config", "user.email", "bob@example.org").exitCode == 0)
        #expect(try sb.todo("done", milk.short).exitCode == 0)
        return (sb, milk, plumber)
    }

    /// Every command starts by loading the executable's shared libraries: libgit2 and what it
    /// needs are linked in (Package.swift), so that only the C and C++ runtimes are loaded
    /// (and, in a debug build, Swift's own).
    @Test func theExecutableLoadsNoSharedLibraryOfLibgit2s() throws {
        let r = try runProcess(try requireProgram("readelf"), ["-d", todoExecutable])
        #expect(r.exitCode == 0, "\(r)")
        let needed = r.lines.compactMap { line -> String? in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
        #expect(needed.contains { $0.hasPrefix("libc.so") }, "\(r)")
        let runtimes = ["libc.so", "libm.so", "libstdc++.so", "libgcc_s.so", "ld-linux", "libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime"]
        let others = needed.filter { name in !runtimes.contains { name.hasPrefix($0) } }
        #expect(others.isEmpty, "shared libraries beyond the runtimes: \(others)")
    }

    @Test func logListsEveryCommitNewestFirstWithAuthorAndFields() throws {
        let (sb, milk, plumber) = try history()
        let c = try sb.commits().map { String($0.prefix(8)) }
        try #require(c.count == 6)
        let m = milk.short
        let p = plumber.short
        let log = try sb.todo("log")
        #expect(log.exitCode == 0, "\(log)")
        #expect(log.stdout == """
            \(c[0])  2025-11-20 09:00  Bob  done: Buy oat milk (\(m))
                \(m) Buy oat milk: status
            \(c[1])  2025-11-20 09:00  Alice  done: Call the plumber (\(p))
                \(p) Call the plumber: status
            \(c[2])  2025-11-20 09:00  Alice  edit: Buy oat milk (\(m))
                \(m) Buy oat milk: title, due
            \(c[3])  2025-11-20 09:00  Alice  add: Call the plumber (\(p))
                \(p) Call the plumber: created
            \(c[4])  2025-11-20 09:00  Alice  add: Buy milk (\(m))
                \(m) Buy milk: created
            \(c[5])  2025-11-20 09:00  Alice  init: household home

            """)
        // git agrees on the authors.
        #expect(try sb.git("log", "--format=%an").lines == ["Bob", "Alice", "Alice", "Alice", "Alice", "Alice"])
        // The stamp of Bob's write names him.
        #expect(String(decoding: try sb.committedBytes(milk.path), as: UTF8.self).contains("\"status\": \"1763629200000.2."))
        #expect(String(decoding: try sb.committedBytes(milk.path), as: UTF8.self).contains(" Bob\",\n    \"notes\""))

        let one = try sb.todo("log", "-n", "1")
        #expect(one.lines == Array(log.lines.prefix(2)))
    }

    @Test func logOfOneTaskShowsOldAndNewValues() throws {
        let (sb, milk, _) = try history()
        let c = try sb.commits().map { String($0.prefix(8)) }
        let m = milk.short
        let log = try sb.todo("log", m)
        #expect(log.exitCode == 0, "\(log)")
        #expect(log.stdout == """
            \(c[0])  2025-11-20 09:00  Bob  done: Buy oat milk (\(m))
                status: "open" -> "done"
            \(c[2])  2025-11-20 09:00  Alice  edit: Buy oat milk (\(m))
                title: "Buy milk" -> "Buy oat milk"
                due: "2025-11-21" -> "2025-11-23"
            \(c[4])  2025-11-20 09:00  Alice  add: Buy milk (\(m))
                \(m) Buy milk: created

            """)
        let two = try sb.todo("log", milk.id, "-n", "2")
        #expect(two.lines == Array(log.lines.prefix(5)))
    }

    @Test func logJSONMatchesGit() throws {
        let (sb, milk, plumber) = try history()
        let r = try sb.todo("log", "--json")
        #expect(r.exitCode == 0, "\(r)")
        let entries = try json(r.stdout).items
        let commits = try sb.commits()
        #expect(entries.map { $0["commit"]?.stringValue } == commits)
        #expect(entries.allSatisfy { $0.keys == ["commit", "author", "email", "time", "message", "merge", "changes"] })
        #expect(entries.map { $0["author"]?.stringValue } == ["Bob", "Alice", "Alice", "Alice", "Alice", "Alice"])
        #expect(entries[0]["email"] == .string("bob@example.org"))
        #expect(entries.allSatisfy { $0["time"] == .string("2025-11-20T09:00:00.000Z") && $0["merge"] == .bool(false) })
        for (entry, commit) in zip(entries, commits) {
            let message = try sb.git("log", "-1", "--format=%B", commit).stdout
            #expect(entry["message"]?.stringValue.map { $0 + "\n\n" } == message, "\(commit)")
        }
        let edit = entries[2]["changes"]?.items ?? []
        #expect(edit.count == 1)
        #expect(edit.first?.keys == ["id", "title", "created", "fields"])
        #expect(edit.first?["id"] == .string(milk.id))
        #expect(edit.first?["title"] == .string("Buy oat milk"))
        #expect(edit.first?["created"] == .bool(false))
        #expect(edit.first?["fields"]?.strings == ["title", "due"])
        #expect(entries[3]["changes"]?.items.first?["created"] == .bool(true))
        #expect(entries[3]["changes"]?.items.first?["id"] == .string(plumber.id))
        #expect(entries[5]["changes"]?.items.isEmpty == true)

        let oneTask = try json(try sb.todo("log", "--json", "-n", "1", plumber.short).stdout).items
        #expect(oneTask.map { $0["commit"]?.stringValue } == [commits[1]])
    }

    @Test func logOfAnImportListsEachTask() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let doc = jsonArray([jsonObject(["id": chosenID("aa"), "title": "One"]), jsonObject(["id": chosenID("bb"), "title": "Two"])])
        #expect(try sb.todo("import", "-", stdin: doc).exitCode == 0)
        let log = try sb.todo("log", "-n", "1")
        #expect(log.lines.dropFirst() == ["    aa00 One: created", "    bb00 Two: created"], "\(log)")
    }

    static let subcommands = [
        "init", "add", "list", "show", "edit", "done", "reopen", "rm", "restore", "log", "import", "households",
    ]

    @Test func rootHelpNamesEverySubcommand() throws {
        let sb = try Sandbox()
        let r = try sb.todo("--help")
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stdout.hasPrefix("OVERVIEW: A household's shared to-do list, kept in git.\n"), "\(r)")
        #expect(r.stdout.contains("\nUSAGE: todo <subcommand>\n"))
        #expect(r.stdout.contains("  todo add \"Buy milk\" --due tomorrow --tag groceries\n"), "the discussion has an example")
        // The SUBCOMMANDS section: one line per command, name then abstract.
        let lines = r.lines
        let start = try #require(lines.firstIndex(of: "SUBCOMMANDS:"), "\(r)")
        let section = lines[(start + 1)...].prefix { !$0.isEmpty }
        let listed = section.map { String($0.drop(while: { $0 == " " }).prefix { $0 != " " }) }
        // Every command, in this order (commands added later may appear among them).
        #expect(listed.filter(Self.subcommands.contains) == Self.subcommands, "\(r)")
        #expect(section.allSatisfy { $0.split(separator: " ", omittingEmptySubsequences: true).count >= 2 }, "each has an abstract")

        for name in listed {
            let help = try sb.todo(name, "--help")
            #expect(help.exitCode == 0, "\(help)")
            #expect(help.stdout.contains("USAGE: todo \(name)"), "\(help)")
            #expect(try sb.todo("help", name).stdout == help.stdout)
        }
        #expect(VersionTests.isVersionLine(try sb.todo("--version").stdout))
    }
}
