import Foundation
import Testing
import TodoCore

/// Three members of one household, each with their own home, editing while apart and syncing
/// through a real server on every transport `todo` supports.
@Suite(.timeLimit(.minutes(30)), .kit) struct SyncTransportTests {
    @Test(arguments: Transport.allCases)
    func threeMembersConverge(over transport: Transport) throws {
        let host = try GitHost(transport)
        try host.createRepository()
        let url = host.url()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host)
        let carol = try Member("Carol", host: host)

        try alice.create(remote: url)
        let milk = try alice.add("Buy milk")
        let plumber = try alice.add("Call the plumber")
        let plants = try alice.add("Water the plants")
        let bins = try alice.add("Take out the bins")
        let first = try alice.sync()
        #expect(first.stdout == "Synced with \(url): received 0, sent 4.\n", "\(first)")
        for m in [bob, carol] {
            let joined = try m.join(url)
            #expect(joined.stdout == "Joined household \"home\" from \(url) (4 tasks) as \(m.name).\n", "\(joined)")
            #expect(try m.tree() == alice.tree())
        }

        // Apart, each at their own moment: different fields of one task, the same field of
        // another (Bob writes it last, so his title wins), new tasks, done, rm.
        alice.sb.now = fixedNow + 60_000
        try alice.change("edit", milk.short, "--due", "2025-11-25")
        try alice.change("edit", plumber.short, "--title", "Call the plumber today")
        _ = try alice.add("Alice's new task")
        try alice.change("done", plants.short)
        bob.sb.now = fixedNow + 120_000
        try bob.change("edit", milk.short, "--assign", "Bob")
        try bob.change("edit", plumber.short, "--title", "Call the plumber about the boiler")
        _ = try bob.add("Bob's new task")
        try bob.change("rm", bins.short)
        carol.sb.now = fixedNow + 90_000
        try carol.change("edit", milk.short, "--priority", "high", "--tag", "groceries")
        _ = try carol.add("Carol's new task")
        try carol.change("edit", plants.short, "--note", "the ferns too")

        // Bob first (the remote only moves forward), then Alice (a merge with a conflict), then
        // Carol (a merge of everything), then everyone again until nothing moves.
        let bobSync = try bob.sync()
        #expect(bobSync.stdout == "Synced with \(url): received 0, sent 4.\n", "\(bobSync)")
        let aliceSync = try alice.sync()
        #expect(aliceSync.stdout.hasPrefix("Synced with \(url): received 4, sent "), "\(aliceSync)")
        #expect(aliceSync.lines.first?.hasSuffix(", merged, 1 conflict (see `todo conflicts`).") == true, "\(aliceSync)")
        let carolSync = try carol.sync()
        #expect(carolSync.stdout.hasPrefix("Synced with \(url): received "), "\(carolSync)")
        #expect(carolSync.lines.first?.hasSuffix(", merged.") == true, "\(carolSync)")
        try syncUntilQuiet([alice, bob, carol])

        let members = [alice, bob, carol]
        try expectConverged(members, host: host)
        let expected: Set = [
            "Buy milk", "Call the plumber about the boiler", "Water the plants", "Take out the bins", "Alice's new task",
            "Bob's new task", "Carol's new task",
        ]
        for m in members {
            let titles = try m.allTitles()
            #expect(Set(titles) == expected && titles.count == expected.count, "\(m.name): \(titles)")
            let milkNow = try m.show(milk.id)
            #expect(milkNow["due"] == .string("2025-11-25") && milkNow["assignee"] == .string("Bob"), "\(m.name): \(milkNow)")
            #expect(milkNow["priority"] == .string("high") && milkNow["tags"]?.strings == ["groceries"], "\(m.name): \(milkNow)")
            let plantsNow = try m.show(plants.id)
            #expect(plantsNow["status"] == .string("done") && plantsNow["notes"] == .string("the ferns too"), "\(plantsNow)")
            #expect(try m.show(bins.id)["deleted"] == .bool(true))
            // The losing title is in the conflict log of every member.
            let conflicts = try m.todo("conflicts")
            #expect(conflicts.exitCode == 0, "\(conflicts)")
            #expect(
                conflicts.stdout.contains(
                    "Alice's title 'Call the plumber today' was replaced by Bob's 'Call the plumber about the boiler' (Bob wrote later)"),
                "\(m.name): \(conflicts)")
            let status = try m.todo("status")
            #expect(status.exitCode == 0 && status.stdout.contains("Not sent:  0 tasks\n"), "\(status)")
        }

        // git judges the remote: the merges are there, and every task file holds the bytes the
        // members have.
        let merges = try host.git("household.git", "rev-list", "--min-parents=2", "refs/heads/main")
        #expect(merges.lines.count >= 2, "\(merges)")
        let subjects = try host.git("household.git", "log", "--format=%s", "refs/heads/main").lines
        #expect(subjects.contains { $0.hasPrefix("sync: ") && $0.contains("1 conflict") }, "\(subjects)")
        for task in [milk, plumber, plants, bins] {
            let there = try host.git("household.git", "cat-file", "blob", "refs/heads/main:\(task.path)")
            let here = try carol.sb.committedBytes(task.path)
            #expect(there.exitCode == 0 && there.stdoutBytes == here, "\(there)")
            expectCanonical(there.stdoutBytes, task.path)
        }
    }

    /// The scp-like form. `user@host:path` has no room for a port, so it is tried on port 22
    /// only when this process can listen there (root, nothing else on it); the bracketed form
    /// `[user@host:port]:path` that git and libgit2 also accept is tried always.
    @Test func scpLikeURLs() throws {
        let host = try GitHost(.ssh)
        let path = try host.createRepository()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host)
        try alice.create(remote: host.url())
        _ = try alice.add("From Alice")
        try alice.sync()

        let bracketed = "[\(loginName)@127.0.0.1:\(host.port)]:\(path)"
        let joined = try bob.join(bracketed)
        #expect(joined.stdout == "Joined household \"home\" from \(bracketed) (1 task) as Bob.\n", "\(joined)")
        _ = try bob.add("From Bob")
        let sent = try bob.sync()
        #expect(sent.stdout == "Synced with \(bracketed): received 0, sent 1.\n", "\(sent)")
        try alice.sync()

        if canListen(onLoopbackPort: 22) {
            let (sshd22, _) = try host.startSSHD(try requireProgram("sshd"), port: 22)
            defer { sshd22.stop() }
            let carol = try Member("Carol", host: host)
            let knownHosts = carol.sb.home + "/.ssh/known_hosts"
            try writeBytes(knownHosts, (readBytes(knownHosts) ?? []) + Array(try host.knownHostsLine(port: 22).utf8))
            let plain = "\(loginName)@127.0.0.1:\(path)"
            try carol.join(plain)
            _ = try carol.add("From Carol")
            let r = try carol.sync()
            #expect(r.stdout == "Synced with \(plain): received 0, sent 1.\n", "\(r)")
            try syncUntilQuiet([alice, bob, carol])
            try expectConverged([alice, bob, carol], host: host)
            #expect(Set(try carol.allTitles()) == ["From Alice", "From Bob", "From Carol"])
        } else {
            print("scpLikeURLs: 127.0.0.1:22 is not available to this user, so user@host:path (port 22) was not tried")
            try syncUntilQuiet([alice, bob])
            try expectConverged([alice, bob], host: host)
        }
        #expect(Set(try alice.allTitles()).isSuperset(of: ["From Alice", "From Bob"]))
    }
}
