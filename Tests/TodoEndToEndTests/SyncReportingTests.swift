import Glibc
import Foundation
import Testing
import TodoCore

/// What a sync tells the person and cron: `--quiet`, the one-sync-at-a-time lock, `todo
/// status`, the sync log, and credentials that never show.
@Suite(.timeLimit(.minutes(30)), .kit) struct SyncReportingTests {
    @Test(arguments: [Transport.path, .http])
    func quietSyncPrintsNothingWhenAllIsWell(over transport: Transport) throws {
        let host = try GitHost(transport)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        let bob = try Member("Bob", host: host)
        try alice.create(remote: host.url())
        let task = try alice.add("Quiet task")

        func expectSilent(_ m: Member, _ what: String) throws {
            let r = try m.todo("sync", "--quiet")
            #expect(r.exitCode == 0 && r.stdout.isEmpty && r.stderr.isEmpty, "\(what): \(r)")
        }
        try expectSilent(alice, "the first push to an empty remote")
        try expectSilent(alice, "nothing to do")
        try bob.join(host.url())
        alice.sb.now = fixedNow + 60_000
        try alice.change("edit", task.short, "--title", "Alice's quiet title")
        bob.sb.now = fixedNow + 120_000
        try bob.change("edit", task.short, "--title", "Bob's quiet title")
        try expectSilent(bob, "a push")
        try expectSilent(alice, "a merge with a conflict")
        try expectSilent(bob, "a fast-forward")
        #expect(try alice.todo("conflicts").stdout.contains("Alice's quiet title"))
        try expectConverged([alice, bob], host: host)
        // The log still records each run.
        #expect(alice.syncLog.split(separator: "\n").count == 3, "\(alice.syncLog)")
    }

    /// While one sync waits on the network, a second one of the same household does nothing
    /// and exits 0 (for cron, an overlapping run is no failure); other commands still work.
    @Test func aSecondSyncWhileOneRunsIsSkipped() throws {
        let host = try GitHost(.path)
        let path = try host.createRepository()
        let (silent, port) = try startHTTPServer(["--silent"], home: host.box.home)
        defer { silent.stop() }
        let alice = try Member("Alice", host: host)
        try alice.create(remote: path)
        _ = try alice.add("Before the lock")
        try alice.sync()
        _ = try alice.add("Waiting to be sent")
        try alice.change("remote", "set", "http://127.0.0.1:\(port)/household.git")
        let before = try LocalState(alice)
        let refs = try alice.git("for-each-ref").stdout

        let first = try alice.start("sync", "--timeout", "600")
        // The sync takes its lock before any network work, so once the server has its
        // connection the lock is provably held.
        let accepted = silent.output.waitForLine(containing: "accepted connection")
        try #require(accepted != nil, "the silent server died: \(silent.output.text)")
        let second = try alice.todo("sync")
        #expect(second.exitCode == 0, "\(second)")
        #expect(second.stderr.contains("Another sync of this household is running"), "\(second)")
        let quiet = try alice.todo("sync", "--quiet")
        #expect(quiet.exitCode == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet)")
        #expect(alice.syncLog.components(separatedBy: "outcome=skipped").count - 1 == 2, "\(alice.syncLog)")
        #expect(alice.syncLog.contains("another sync is running"), "\(alice.syncLog)")
        #expect(silent.output.count(containing: "accepted connection") == 1, "the later syncs never went to the network")
        try expectUntouched(alice, since: before, pending: ["Waiting to be sent"])
        #expect(try alice.git("for-each-ref").stdout == refs, "no ref moved")
        // The household itself is not locked meanwhile.
        _ = try alice.add("Added while a sync waits")

        kill(first.pid, SIGKILL)
        #expect(first.wait().signal == SIGKILL)
        try alice.change("remote", "set", path)
        let after = try alice.sync()
        #expect(after.stdout == "Synced with \(path): received 0, sent 2.\n", "\(after)")
        try expectConverged([alice], host: host)
    }

    /// The first sync of a new household sends its first commit, which changes no task: the
    /// summary says what went out, never "Up to date"; the same after a repair commit.
    @Test func aSyncThatSendsOnlyCommitsSaysSo() throws {
        let host = try GitHost(.path)
        let path = try host.createRepository()
        let alice = try Member("Alice", host: host)
        try alice.create(remote: host.url())
        let first = try alice.sync()
        #expect(first.stdout == "Synced with \(path): received 0, sent 0 tasks in 1 commit.\n", "\(first)")
        #expect(try host.git("household.git", "rev-parse", "main").stdout == alice.head() + "\n")
        let quiet = try alice.sync("--json")
        #expect(try syncReport(quiet.stdout)["commitsSent"] == .number("0"), "\(quiet)")
        #expect(try alice.sync().stdout == "Up to date with \(path).\n")
        // A commit made with plain git that changes no task goes out and is counted.
        #expect(try alice.git("commit", "-q", "--allow-empty", "-m", "note").exitCode == 0)
        let again = try alice.sync("--json")
        #expect(try syncReport(again.stdout)["sent"] == .number("0"), "\(again)")
        #expect(try syncReport(again.stdout)["commitsSent"] == .number("1"), "\(again)")
        #expect(try host.git("household.git", "rev-parse", "main").stdout == alice.head() + "\n")
    }

    @Test func statusShowsTheLastErrorThenTheLastSync() throws {
        let host = try GitHost(.http)
        let path = try host.createRepository()
        let alice = try Member("Alice", host: host)
        try alice.create(remote: host.url())
        let never = try alice.todo("status", "--json")
        #expect(try json(never.stdout)["lastSync"] == .null, "\(never)")
        #expect(try alice.todo("status").stdout.contains("Last sync: never\n"))
        _ = try alice.add("Synced task")
        try alice.sync()

        // Joining counts as a sync.
        let bob = try Member("Bob", host: host)
        bob.sb.now = fixedNow + 30 * 60_000
        try bob.join(host.url())
        let joined = try bob.todo("status")
        #expect(joined.stdout.contains("Last sync: 2025-11-20 09:30\n"), "\(joined)")
        #expect(try json(try bob.todo("status", "--json").stdout)["lastSync"] == .string("2025-11-20T09:30:00.000Z"))

        // A failed sync: the error, the class, and the last success still shown.
        _ = try alice.add("Waiting task")
        host.stopServers()
        alice.sb.now = fixedNow + 60 * 60_000
        let failed = try alice.todo("sync")
        #expect(failed.exitCode == 75, "\(failed)")
        let status = try alice.todo("status")
        #expect(status.exitCode == 0, "\(status)")
        #expect(status.stdout.contains("Remote:    \(host.url())\n"), "\(status)")
        #expect(status.stdout.contains("Last sync: 2025-11-20 09:00\n"), "\(status)")
        #expect(status.stdout.contains("Last error: Could not reach the household remote \(host.url())"), "\(status)")
        #expect(status.stdout.contains("Not sent:  1 task\n") && status.stdout.contains("Waiting task"), "\(status)")
        let report = try json(try alice.todo("status", "--json").stdout)
        #expect(report["lastSync"] == .string("2025-11-20T09:00:00.000Z"), "\(report)")
        #expect(report["lastError"]?.stringValue?.hasPrefix("Could not reach the household remote") == true, "\(report)")
        #expect(report["lastErrorClass"] == .string("transient"), "\(report)")
        #expect(report["unsent"]?.items.compactMap { $0["title"]?.stringValue } == ["Waiting task"], "\(report)")

        // A successful one clears the error and moves the time.
        alice.sb.now = fixedNow + 2 * 60 * 60_000
        try alice.change("remote", "set", path)
        try alice.sync()
        let ok = try alice.todo("status")
        #expect(ok.stdout.contains("Last sync: 2025-11-20 11:00\n") && !ok.stdout.contains("Last error"), "\(ok)")
        #expect(ok.stdout.contains("Not sent:  0 tasks\n"), "\(ok)")
        let okReport = try json(try alice.todo("status", "--json").stdout)
        #expect(okReport["lastSync"] == .string("2025-11-20T11:00:00.000Z"), "\(okReport)")
        #expect(okReport["lastError"] == .null && okReport["lastErrorClass"] == .null, "\(okReport)")

        // One log line per run: time, household, remote, outcome, and the class on failure.
        let lines = alice.syncLog.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(alice.syncLog)")
        if lines.count == 3 {
            #expect(lines[0].hasPrefix("2025-11-20T09:00:00.000Z household=home remote=\(host.url()) outcome=ok"), "\(lines[0])")
            #expect(lines[0].contains("sent=1") && lines[0].contains("duration_ms="), "\(lines[0])")
            #expect(lines[1].hasPrefix("2025-11-20T10:00:00.000Z household=home remote=\(host.url()) outcome=error"), "\(lines[1])")
            #expect(lines[1].contains("class=transient") && lines[1].contains("message=\"Could not reach"), "\(lines[1])")
            #expect(lines[2].hasPrefix("2025-11-20T11:00:00.000Z household=home remote=\(path) outcome=ok"), "\(lines[2])")
        }
    }

    /// `user:password@` in a URL: used, but never printed, logged or kept in an error.
    @Test func credentialsInURLsAreNeverShown() throws {
        let host = try GitHost(.http)
        try host.createRepository()
        let secret = "s3cret%20p%40ss"  // host.httpPassword, percent-encoded
        #expect(host.httpPassword == "s3cret p@ss")
        let url = "http://\(host.httpUser):\(secret)@127.0.0.1:\(host.port)/household.git"
        let shown = "http://***@127.0.0.1:\(host.port)/household.git"
        let forbidden = ["s3cret", "p%40ss", "p@ss", "hunter2", "t0ken"]
        // No credential helper: the password comes from the URL alone.
        let alice = try Member("Alice", host: nil)
        let bob = try Member("Bob", host: nil)
        var runs: [Run] = []
        func run(_ m: Member, _ args: String..., expect code: Int32 = 0) throws -> Run {
            let r = try m.todo(args)
            #expect(r.exitCode == code, "\(r)")
            runs.append(r)
            return r
        }

        _ = try run(alice, "init", "--name", "Alice", "--email", alice.email, "--remote", url)
        _ = try run(alice, "add", "Secret-free task")
        #expect(try run(alice, "sync").stdout == "Synced with \(shown): received 0, sent 1.\n")
        _ = try run(alice, "sync", "--json")
        #expect(try run(alice, "remote").stdout == shown + "\n")
        #expect(try run(alice, "status").stdout.contains("Remote:    \(shown)\n"))
        #expect(try json(try run(alice, "status", "--json").stdout)["remote"] == .string(shown))
        #expect(try run(bob, "clone", url, "--name", "Bob").stdout.contains("from \(shown) "))
        _ = try run(bob, "sync", "--verbose")

        // Failures whose messages name the remote.
        let wrong = "http://\(host.httpUser):hunter2@127.0.0.1:\(host.port)/household.git"
        #expect(try run(alice, "remote", "set", wrong).stdout == "Remote set to \(shown).\n")
        _ = try run(alice, "add", "Waiting")
        _ = try run(alice, "sync", expect: 77)
        _ = try run(alice, "sync", "--verbose", expect: 77)
        _ = try run(alice, "status")
        _ = try run(alice, "status", "--json")
        _ = try run(alice, "remote", "set", "http://\(host.httpUser):\(secret)@127.0.0.1:\(host.port)/missing.git")
        _ = try run(alice, "sync", "--verbose", expect: 78)
        _ = try run(alice, "remote", "set", "http://t0ken@127.0.0.1:\(host.port)/household.git")
        _ = try run(alice, "remote")
        _ = try run(alice, "sync", "--verbose", expect: 77)
        _ = try run(alice, "remote", "set", url)
        host.stopServers()
        _ = try run(alice, "sync", "--verbose", expect: 75)
        _ = try run(alice, "status")
        _ = try run(alice, "status", "--json")
        _ = try run(alice, "households")

        for r in runs {
            for word in forbidden {
                #expect(!r.stdout.contains(word) && !r.stderr.contains(word), "\"\(word)\" shown by \(r)")
            }
        }
        for m in [alice, bob] {
            let log = m.syncLog
            #expect(!log.isEmpty, "\(m.name) has a sync log")
            for word in forbidden { #expect(!log.contains(word), "\"\(word)\" in \(m.name)'s sync log:\n\(log)") }
            #expect(log.contains("remote=\(shown)"), "\(log)")
        }
    }

    /// Past 32 packs, a sync combines all but the largest into one, and loses nothing.
    @Test func manyPacksAreCombinedBySync() throws {
        let (host, alice) = try aliceSyncedWithAPathRemote(first: "Before the packs")
        // Thirty-four packs of one commit each, made with plain git.
        for i in 0..<34 {
            let commit = try alice.git("-c", "user.name=Alice", "-c", "user.email=alice@example.org", "commit", "-q", "--allow-empty", "-m", "empty \(i)")
            #expect(commit.exitCode == 0, "\(commit)")
            #expect(try alice.git("repack", "-q").exitCode == 0)
        }
        let packDir = alice.repo + "/.git/objects/pack"
        func packs() throws -> Int { try FileManager.default.contentsOfDirectory(atPath: packDir).filter { $0.hasSuffix(".pack") }.count }
        #expect(try packs() > 32)
        let commits = try alice.git("rev-list", "--count", "HEAD").stdout
        _ = try alice.add("After the packs")
        try alice.sync()
        #expect(try packs() == 2)
        let fsck = try alice.git("fsck", "--strict", "--no-progress")
        #expect(fsck.exitCode == 0, "\(fsck)")
        // Every commit is still there: the ones before, and the one after.
        #expect(try alice.git("rev-list", "--count", "HEAD").stdout == "\(Int(commits.dropLast())! + 1)\n")
        #expect(Set(try alice.allTitles()) == ["Before the packs", "After the packs"])
        try expectConverged([alice], host: host)
    }
}
