import Glibc
import Foundation
import Testing
import TodoCore

/// Commands that only read never write the household (docs/FORMAT.md, "What is local to one
/// clone"): after each, every file of the repository and the work tree has the same content,
/// mode and modification time, except the caches and markers FORMAT.md lists as safe to delete
/// (`RepositoryFiles`).
@Suite(.timeLimit(.minutes(20)), .kit) struct ReadOnlyTests {
    func snapshot(_ root: String) throws -> RepositoryFiles { try RepositoryFiles(root) }

    func expectSame(_ before: RepositoryFiles, _ after: RepositoryFiles, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        RepositoryFiles.expectSame(before, after, "`todo \(what)`", sourceLocation: sourceLocation)
    }

    @Test func everyReadOnlyCommandLeavesTheHouseholdUntouched() throws {
        let host = try GitHost(.path)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host)
        try alice.create(remote: host.url())
        let milk = try alice.add("Buy milk", "--due", "tomorrow", "--tag", "shop")
        let trash = try alice.add("Take out the trash", "--every", "tue", "--rotate", "Alice,Bob")
        let groceries = try alice.add("Groceries", "--item", "eggs")
        _ = try alice.add("Old task")
        try alice.sync()
        try bob.join(host.url())
        try alice.change("edit", milk.short, "--title", "Buy oat milk")
        try bob.change("edit", milk.short, "--title", "Buy soy milk")
        try bob.change("done", trash.short)
        try bob.sync()
        try alice.sync()
        // A merge driver whose program has gone: a read must not repair it.
        #expect(try alice.git("config", "merge.todo.driver", "'/gone/todo' merge-driver %O %A %B %P").exitCode == 0)

        let reads: [[String]] = [
            ["list"], ["list", "--all"], ["list", "--json"], ["list", "--tag", "shop"], ["show", milk.short],
            ["show", "--json", trash.short], ["show", groceries.short], ["log"], ["log", milk.short], ["status"],
            ["status", "--json"], ["agenda"], ["agenda", "--mine"], ["chores"], ["chores", "--json"], ["changes"],
            ["changes", "--json"], ["conflicts"], ["conflicts", "--json"], ["remote"], ["households"], ["doctor"],
            ["doctor", "--json"], ["calendar"], ["calendar", "--mine", "--todos"], ["timezone"],
            ["member"], ["member", "show", "Bob"], ["remind", "--dry-run"],
        ]
        // Caches and markers settle on the first run of each; then nothing else may move.
        for args in reads { _ = try alice.todo(args) }
        for args in reads {
            let before = try snapshot(alice.repo)
            let r = try alice.todo(args)
            // `doctor` finds the driver's program gone: a problem to report (65), not to mend.
            #expect(r.exitCode == (args[0] == "doctor" ? 65 : 0), "\(args): \(r)")
            expectSame(before, try snapshot(alice.repo), args.joined(separator: " "))
        }
        #expect(try alice.git("config", "merge.todo.driver").stdout == "'/gone/todo' merge-driver %O %A %B %P\n")

        // A change a killed command left half done: reads say so and leave it; the next
        // command that writes finishes it.
        let file = alice.repo + "/" + milk.path
        let committed = try alice.sb.committedBytes(milk.path)
        try Data("{\"half\": ".utf8).write(to: URL(fileURLWithPath: file))
        try Data((milk.path + "\n").utf8).write(to: URL(fileURLWithPath: alice.repo + "/.git/todo-pending"))
        for args in [["list"], ["show", trash.short], ["status"], ["log"], ["doctor", "--offline"]] {
            let before = try snapshot(alice.repo)
            let r = try alice.todo(args)
            #expect(r.exitCode == (args[0] == "doctor" ? 65 : 0), "\(args): \(r)")
            #expect(r.stderr.contains("a change was interrupted before it finished") || args[0] == "doctor", "\(args): \(r)")
            expectSame(before, try snapshot(alice.repo), args.joined(separator: " ") + " (change pending)")
        }
        try alice.change("add", "Call the plumber")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: file))) == committed, "the write finished the change")
        #expect(try !alice.todo("list").stderr.contains("interrupted"))
        #expect(try alice.git("config", "merge.todo.driver").stdout != "'/gone/todo' merge-driver %O %A %B %P\n", "a write repairs the driver")
    }
}
