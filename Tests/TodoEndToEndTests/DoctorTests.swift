import Glibc
import Foundation
import Testing
import TodoCore

/// `todo doctor` finds each kind of problem, says what to do, exits 65 while something needs a
/// person and 0 when healthy; `--fix` repairs what is safe, by new commits only.
@Suite(.timeLimit(.minutes(20)), .kit) struct DoctorTests {
    /// A member with a path remote and two synced tasks.
    func household() throws -> (GitHost, Member, TaskRef, TaskRef) {
        let host = try GitHost(.path)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        try alice.create(remote: host.url())
        let milk = try alice.add("Buy milk")
        let bins = try alice.add("Take out the bins")
        try alice.sync()
        return (host, alice, milk, bins)
    }

    func lines(_ r: Run, _ status: String, _ check: String) -> [String] {
        r.lines.filter { $0.hasPrefix("\(status): \(check): ") }
    }

    @Test func aHealthyHouseholdExitsZero() throws {
        let (host, alice, _, _) = try household()
        defer { withExtendedLifetime(host) {} }
        let r = try alice.todo("doctor")
        #expect(r.exitCode == 0, "\(r)")
        for check in ["locks", "task-file", "hand-edit", "merge-driver", "timezone", "clock", "remote"] {
            #expect(lines(r, "ok", check).count == 1, "\(check): \(r)")
        }
        #expect(!r.stdout.contains("problem:"), "\(r)")
        let j = try json(try alice.todo("doctor", "--json").stdout)
        #expect(j["healthy"]?.boolValue == true)
    }

    @Test func findsEachProblem() throws {
        let (host, alice, milk, bins) = try household()
        defer { withExtendedLifetime(host) {} }
        // A change made while the clock ran three days ahead.
        alice.sb.now = fixedNow + 3 * 86_400_000
        try alice.change("edit", bins.short, "--title", "Bins (from the future)")
        alice.sb.now = fixedNow
        // An unreadable committed file, a file that is not a task, an uncommitted hand edit.
        try alice.sb.commitByHand([(milk.path, Array("{ oops\n".utf8)), ("tasks/ab/readme.txt", Array("hi\n".utf8))], message: "by hand")
        try writeBytes(alice.repo + "/" + bins.path, Array("edited\n".utf8))
        // A merge driver whose program is gone, a stale lock, an interrupted change.
        #expect(try alice.git("config", "merge.todo.driver", "'/nonexistent/todo' merge-driver %O %A %B %P").exitCode == 0)
        let lock = alice.repo + "/.git/index.lock"
        try writeBytes(lock, [])
        var old = [timespec(tv_sec: time(nil) - 3600, tv_nsec: 0), timespec(tv_sec: time(nil) - 3600, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, lock, &old, 0) == 0)
        try writeBytes(alice.repo + "/.git/todo-pending", Array("tasks/ef/nothing.json\n".utf8))

        let r = try alice.todo("doctor", "--offline")
        #expect(r.exitCode == 65, "\(r)")
        #expect(lines(r, "problem", "task-file").contains { $0.contains(milk.path) && $0.contains("todo doctor --fix") }, "\(r)")
        #expect(lines(r, "problem", "task-file").contains { $0.contains("tasks/ab/readme.txt") }, "\(r)")
        #expect(lines(r, "problem", "hand-edit").contains { $0.contains(bins.path) }, "\(r)")
        #expect(lines(r, "problem", "merge-driver").contains { $0.contains("/nonexistent/todo") }, "\(r)")
        #expect(lines(r, "problem", "locks").contains { $0.contains(".git/index.lock") }, "\(r)")
        #expect(lines(r, "problem", "locks").contains { $0.contains("todo-pending") }, "\(r)")
        #expect(lines(r, "problem", "clock").contains { $0.contains("Alice") && $0.contains("3 days") }, "\(r)")

        let j = try json(try alice.todo("doctor", "--offline", "--json").stdout)
        #expect(j["healthy"]?.boolValue == false)
        let findings = j["findings"]?.items ?? []
        #expect(findings.contains { $0["check"]?.stringValue == "task-file" && $0["path"]?.stringValue == milk.path && $0["fixable"]?.boolValue == true })
        #expect(findings.contains { $0["check"]?.stringValue == "hand-edit" && $0["status"]?.stringValue == "problem" })
    }

    @Test func findsAnUnreachableOrUnrelatedRemote() throws {
        let (host, alice, _, _) = try household()
        #expect(try alice.todo("remote", "set", host.repositories + "/missing.git").exitCode == 0)
        let missing = try alice.todo("doctor")
        #expect(missing.exitCode == 65 && lines(missing, "problem", "remote").count == 1, "\(missing)")

        let other = try Member("Olga", host: host)
        try host.createRepository("other.git")
        try other.create(remote: host.url("other.git"))
        _ = try other.add("Someone else's task")
        try other.sync()
        #expect(try alice.todo("remote", "set", host.url("other.git")).exitCode == 0)
        let unrelated = try alice.todo("doctor")
        #expect(unrelated.exitCode == 65, "\(unrelated)")
        #expect(lines(unrelated, "problem", "remote").contains { $0.contains("shares no history") }, "\(unrelated)")
        withExtendedLifetime(host) {}
    }

    @Test func fixRepairsWhatIsSafe() throws {
        let (host, alice, milk, _) = try household()
        defer { withExtendedLifetime(host) {} }
        let good = try alice.head()
        let goodBytes = try alice.sb.committedBytes(milk.path)
        try alice.sb.commitByHand([(milk.path, Array("{ oops\n".utf8))], message: "by hand")
        #expect(try alice.git("config", "merge.todo.driver", "'/nonexistent/todo' merge-driver %O %A %B %P").exitCode == 0)
        let lock = alice.repo + "/.git/HEAD.lock"
        try writeBytes(lock, [])
        var old = [timespec(tv_sec: time(nil) - 3600, tv_nsec: 0), timespec(tv_sec: time(nil) - 3600, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, lock, &old, 0) == 0)
        let broken = try alice.head()

        let r = try alice.todo("doctor", "--fix")
        #expect(r.exitCode == 0, "\(r)")
        #expect(lines(r, "fixed", "task-file").contains { $0.contains(milk.path) && $0.contains(String(good.prefix(10))) }, "\(r)")
        #expect(lines(r, "fixed", "merge-driver").count == 1 && lines(r, "fixed", "locks").count == 1, "\(r)")

        // One new commit on top of the broken one, logging what it restored and from where.
        #expect(try alice.git("rev-parse", "HEAD~1").stdout.hasPrefix(broken), "history is not rewritten")
        let message = try alice.git("log", "-1", "--format=%B").stdout
        #expect(message.hasPrefix("doctor: restore 1 unreadable task file") && message.contains("\(milk.path): restored from commit \(good)"), "\(message)")
        #expect(try alice.sb.committedBytes(milk.path) == goodBytes)
        #expect(access(lock, F_OK) != 0)
        let driver = try alice.git("config", "merge.todo.driver").stdout
        #expect(!driver.contains("/nonexistent/") && driver.contains("merge-driver %O %A %B %P"), "\(driver)")
        try alice.expectClean()
        let again = try alice.todo("doctor")
        #expect(again.exitCode == 0, "\(again)")
    }

    /// An unreadable file that also has uncommitted edits is not written over.
    @Test func fixLeavesAFileWithHandEditsAlone() throws {
        let (host, alice, milk, _) = try household()
        defer { withExtendedLifetime(host) {} }
        try alice.sb.commitByHand([(milk.path, Array("{ oops\n".utf8))], message: "by hand")
        let head = try alice.head()
        try writeBytes(alice.repo + "/" + milk.path, Array("{ still editing\n".utf8))
        let r = try alice.todo("doctor", "--fix", "--offline")
        #expect(r.exitCode == 65, "\(r)")
        #expect(lines(r, "problem", "task-file").contains { $0.contains(milk.path) && $0.contains("hand edits") }, "\(r)")
        #expect(try alice.head() == head)
        #expect(readBytes(alice.repo + "/" + milk.path) == Array("{ still editing\n".utf8))
    }

    @Test func aFileThatNeverReadNeedsAPerson() throws {
        let (host, alice, _, _) = try household()
        defer { withExtendedLifetime(host) {} }
        let path = "tasks/cd/\(chosenID("cd", 7)).json"
        try alice.sb.commitByHand([(path, Array("garbage\n".utf8))], message: "by hand")
        let r = try alice.todo("doctor", "--fix", "--offline")
        #expect(r.exitCode == 65, "\(r)")
        #expect(lines(r, "problem", "task-file").contains { $0.contains(path) && $0.contains("never") }, "\(r)")
    }

    @Test func helpHasAnExample() throws {
        let sb = try Sandbox()
        let r = try sb.todo("doctor", "--help")
        #expect(r.exitCode == 0 && r.stdout.contains("Example") && r.stdout.contains("--fix"), "\(r)")
        let top = try sb.todo("--help")
        #expect(top.stdout.contains("doctor"), "\(top)")
    }
}
