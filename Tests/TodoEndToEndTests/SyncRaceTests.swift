import Foundation
import Testing
import TodoCore

/// Members pushing at the same moment: whoever loses a race fetches, merges and pushes again,
/// and nobody's change is ever lost or overwritten.
@Suite(.timeLimit(.minutes(30)), .kit) struct SyncRaceTests {
    static let rounds = 5

    /// Someone else's push lands between this sync's fetch and its push: git daemon's access
    /// hook moves the remote's main to Bob's waiting commit when Alice's push connects. Her
    /// sync must fetch, merge and push again, not give up or retry the same push.
    @Test func aPushThatLostTheRaceFetchesMergesAndPushesAgain() throws {
        let hook = """
            #!/bin/sh
            # git daemon access hook: $1 the service, $2 the repository.
            [ "$1" = receive-pack ] || exit 0
            pending=$(git --git-dir="$2" rev-parse -q --verify refs/heads/pending) || exit 0
            git --git-dir="$2" update-ref refs/heads/main "$pending" && git --git-dir="$2" update-ref -d refs/heads/pending
            exit 0

            """
        let host = try GitHost(.git, gitAccessHook: hook)
        try host.createRepository()
        let url = host.url()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host)
        try alice.create(remote: url)
        _ = try alice.add("Alice's first task")
        try alice.sync()
        try bob.join(url)
        _ = try bob.add("Bob's task")
        let pending = try bob.git("push", "-q", url, "main:refs/heads/pending")
        try #require(pending.exitCode == 0, "\(pending)")

        _ = try alice.add("Alice's second task")
        let r = try alice.todo("sync", "--json")
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)")
        if r.exitCode == 0 {
            let report = try syncReport(r.stdout)
            #expect(report["rounds"] == .number("2") && report["merged"] == .bool(true), "\(r)")
            #expect(report["received"] == .number("1") && report["sent"] == .number("1"), "\(r)")
        }
        #expect(try host.git("household.git", "rev-parse", "-q", "--verify", "refs/heads/pending").exitCode != 0, "the hook ran")
        try syncUntilQuiet([alice, bob])
        try expectConverged([alice, bob], host: host)
        #expect(Set(try bob.allTitles()) == ["Alice's first task", "Bob's task", "Alice's second task"])
    }

    /// A path remote is the one where libgit2's push is a forced ref update, so `todo` must do
    /// its own compare-and-swap; git daemon and smart HTTP check the old value on the server.
    @Test(arguments: [Transport.path, .git, .http])
    func fourMembersPushingAtOnceLoseNothing(over transport: Transport) throws {
        let host = try GitHost(transport)
        try host.createRepository()
        let url = host.url()
        let members = try ["Ann", "Ben", "Cat", "Dan"].map { try Member($0, host: host) }
        try members[0].create(remote: url)
        try members[0].sync()
        for m in members.dropFirst() { try m.join(url) }

        var added: Set<String> = []
        var lostEveryRace = 0
        for round in 1...Self.rounds {
            for m in members {
                for n in 1...2 {
                    let title = "\(m.name) round \(round) task \(n)"
                    _ = try m.add(title)
                    added.insert(title)
                }
            }
            // All four at once: each fetches, merges whatever won, and pushes.
            let running = try members.map { try $0.start("sync") }
            let ended = running.map { $0.wait() }
            for (m, r) in zip(members, ended) {
                if r.exitCode == 75 {
                    // Lost every round of this sync: allowed only if the changes are kept and
                    // the next sync, with nobody racing, delivers them.
                    lostEveryRace += 1
                    #expect(r.stderr.contains("Other members kept pushing while this sync ran"), "\(m.name), round \(round): \(r)")
                    #expect(r.stderr.contains("saved and will be sent on the next sync"), "\(m.name), round \(round): \(r)")
                    let again = try m.todo("sync")
                    #expect(again.exitCode == 0, "\(m.name), round \(round), after losing every race: \(again)")
                } else {
                    #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(m.name), round \(round): \(r)")
                    #expect(r.stdout.hasPrefix("Synced with \(url): "), "\(r)")
                }
            }
            try expectRemote(host)
        }
        if lostEveryRace > 0 { print("\(transport): \(lostEveryRace) syncs lost every race and were repeated") }

        try syncUntilQuiet(members)
        try expectConverged(members, host: host)
        for m in members {
            let titles = try m.allTitles()
            #expect(Set(titles) == added && titles.count == added.count, "\(m.name) has \(titles.count) of \(added.count)")
        }
        // Every member's own commits reached the remote: nothing was overwritten there.
        for m in members {
            let own = try m.git("rev-list", "--author=\(m.email)", "refs/heads/main").lines
            let missing = try own.filter { try host.git("household.git", "merge-base", "--is-ancestor", $0, "refs/heads/main").exitCode != 0 }
            #expect(missing.isEmpty, "\(m.name)'s commits missing from the remote: \(missing)")
        }
    }
}
