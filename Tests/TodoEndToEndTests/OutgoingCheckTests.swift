import Foundation
import Testing
import TodoCore

/// A member breaks a task file by hand and commits it with plain git. `todo sync` refuses to
/// send it (exit 65), names the file, the commit and its author, says how to repair it, and
/// nothing reaches the remote; a repair by a new commit is then sent.
@Suite(.timeLimit(.minutes(20)), .kit) struct OutgoingCheckTests {
    static let broken = Array("{\"id\": \"not closed\"\n".utf8)

    /// The remote's `main`, as git sees it; empty when it has none.
    func remoteMain(_ host: GitHost) throws -> String {
        try host.git("household.git", "rev-parse", "--verify", "-q", "refs/heads/main").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A bare remote over `transport` and Alice, whose household has "Buy milk"; synced unless
    /// `synced` is false.
    func start(_ transport: Transport = .path, synced: Bool = true) throws -> (GitHost, Member, TaskRef) {
        let host = try GitHost(transport)
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        try alice.create(remote: host.url())
        let milk = try alice.add("Buy milk")
        if synced { try alice.sync() }
        return (host, alice, milk)
    }

    func breakAndCommit(_ m: Member, _ path: String, _ bytes: [UInt8], message: String = "hand edit") throws -> String {
        let full = m.repo + "/" + path
        try FileManager.default.createDirectory(atPath: directoryName(full), withIntermediateDirectories: true)
        try writeBytes(full, bytes)
        let add = try m.git("add", "--", path)
        try #require(add.exitCode == 0, "\(add)")
        let commit = try m.git("commit", "-q", "-m", message)
        try #require(commit.exitCode == 0, "\(commit)")
        return try m.head()
    }

    @Test(arguments: [Transport.path, .file, .git])
    func aBrokenCommittedFileIsNotPushed(over transport: Transport) throws {
        let (host, alice, milk) = try start(transport)
        defer { withExtendedLifetime(host) {} }
        let before = try remoteMain(host)
        _ = try alice.add("Call the plumber")
        let bad = try breakAndCommit(alice, milk.path, Self.broken)

        let r = try alice.todo("sync")
        #expect(r.exitCode == 65, "\(r)")
        #expect(r.stderr.contains(milk.path), "\(r)")
        #expect(r.stderr.contains(String(bad.prefix(10))) && r.stderr.contains("Alice <alice@example.org>"), "\(r)")
        #expect(r.stderr.contains("Nothing was sent") && r.stderr.contains("todo doctor --fix"), "\(r)")
        #expect(r.stderr.contains("new commit"), "\(r)")
        Self.expectForwardAdvice(r.stderr)
        // The remote did not move and holds neither the bad commit nor the one before it.
        #expect(try remoteMain(host) == before)
        #expect(try host.git("household.git", "cat-file", "-e", bad).exitCode != 0)
        try expectRemote(host)
        #expect(alice.syncLog.contains("outcome=error class=data"), "\(alice.syncLog)")
        // `status` says what waits and why none of it can go.
        let st = try alice.todo("status")
        #expect(st.exitCode == 0, "\(st)")
        #expect(st.stdout.contains("Not sent:  1 task, 1 file that cannot be read as a task\n"), "\(st)")
        #expect(st.stdout.contains("Blocked:   nothing can be sent: \(milk.path) cannot be read as a task"), "\(st)")
        #expect(st.stdout.contains("commit \(bad.prefix(10)) by Alice") && st.stdout.contains("todo doctor --fix"), "\(st)")
        let sj = try alice.todo("status", "--json")
        #expect(sj.stdout.contains("\"blocked\": {\"path\": \"\(milk.path)\""), "\(sj)")

        // The repair is a new commit on top; then everything goes out.
        let fix = try alice.todo("doctor", "--fix", "--offline")
        #expect(fix.exitCode == 0, "\(fix)")
        #expect(try !alice.todo("status").stdout.contains("Blocked:"))
        let sent = try alice.todo("sync")
        #expect(sent.exitCode == 0, "\(sent)")
        #expect(try remoteMain(host) == alice.head())
        #expect(try alice.todo("status").stdout.contains("Not sent:  0 tasks\n"))
        #expect(try host.git("household.git", "cat-file", "-e", bad).exitCode == 0, "history is kept, not rewritten")
        let bob = try Member("Bob", host: host)
        try bob.join(host.url())
        #expect(try bob.allTitles().sorted() == ["Buy milk", "Call the plumber"])
        try alice.expectClean()
    }

    /// A household that never synced has every task unsent: status takes their titles from
    /// the list cache, and still tells a broken file apart, and what blocks the first push.
    @Test func statusOfAHouseholdNeverSyncedCountsEveryTaskAndTheBrokenOne() throws {
        let (host, alice, milk) = try start(synced: false)
        defer { withExtendedLifetime(host) {} }
        let many = jsonArray((1...99).map { #"{"title": "Task \#($0)"}"# })
        try alice.change("import", try alice.sb.file("many.json", many))
        _ = try alice.todo("list")
        _ = try breakAndCommit(alice, milk.path, Self.broken)
        let st = try alice.todo("status")
        #expect(st.stdout.contains("Not sent:  99 tasks, 1 file that cannot be read as a task\n"), "\(st)")
        #expect(st.stdout.contains("Blocked:   nothing can be sent: \(milk.path)"), "\(st)")
        let sj = try json(try alice.todo("status", "--json").stdout)
        guard case .array(let unsent)? = sj["unsent"] else {
            Issue.record("no unsent list: \(sj)")
            return
        }
        #expect(unsent.count == 99)
        #expect(sj["unsentUnreadable"] == .array([.string(milk.path)]))
    }

    @Test func anEmptyRemoteGetsNothingWhenAFileIsBroken() throws {
        let (host, alice, milk) = try start(synced: false)
        defer { withExtendedLifetime(host) {} }
        _ = try breakAndCommit(alice, milk.path, Self.broken)
        let r = try alice.todo("sync")
        #expect(r.exitCode == 65 && r.stderr.contains(milk.path), "\(r)")
        #expect(try remoteMain(host).isEmpty)
    }

    /// A readable task copied to a path that names another id: it parses, but not as the task
    /// its path names.
    @Test func aTaskAtAnotherTasksPathIsNotPushed() throws {
        let (host, alice, milk) = try start()
        defer { withExtendedLifetime(host) {} }
        let before = try remoteMain(host)
        let other = chosenID("ab", 1)
        let path = "tasks/ab/\(other).json"
        let bytes = try #require(readBytes(alice.repo + "/" + milk.path))
        _ = try breakAndCommit(alice, path, bytes, message: "copy by hand")
        let r = try alice.todo("sync")
        #expect(r.exitCode == 65 && r.stderr.contains(path), "\(r)")
        #expect(try remoteMain(host) == before)
    }

    /// A path the format does not allow, added in one commit and removed in the next: every
    /// other member's todo refuses the commit that holds it, so it is not sent either. The
    /// advice is a repair that cannot hurt: `todo doctor --fix` puts one new commit on the
    /// remote's main in place of the unsent ones, and everything goes out.
    @Test func aDisallowedPathIsNotPushedAndDoctorRepairsIt() throws {
        let (host, alice, _) = try start()
        defer { withExtendedLifetime(host) {} }
        let before = try remoteMain(host)
        _ = try alice.add("Call the plumber")
        let bad = try breakAndCommit(alice, "notes.txt", Array("hello\n".utf8), message: "notes")
        #expect(try alice.git("rm", "-q", "notes.txt").exitCode == 0)
        #expect(try alice.git("commit", "-q", "-m", "no notes").exitCode == 0)
        _ = try alice.add("Fix the bike")
        let r = try alice.todo("sync")
        #expect(r.exitCode == 65 && r.stderr.contains("notes.txt") && r.stderr.contains(String(bad.prefix(10))), "\(r)")
        Self.expectForwardAdvice(r.stderr)
        #expect(try remoteMain(host) == before)

        let check = try alice.todo("doctor", "--offline")
        #expect(check.exitCode == 65, "\(check)")
        #expect(check.lines.contains { $0.hasPrefix("problem: unsent: ") && $0.contains(String(bad.prefix(10))) }, "\(check)")
        Self.expectForwardAdvice(check.stdout)
        let unsentHead = try alice.head()
        let fix = try alice.todo("doctor", "--fix", "--offline")
        #expect(fix.exitCode == 0 && fix.lines.contains { $0.hasPrefix("fixed: unsent: ") }, "\(fix)")
        try alice.expectClean()
        #expect(try alice.git("rev-parse", "--verify", "-q", "refs/todo/set-aside/\(unsentHead)").exitCode == 0)

        #expect(try !alice.todo("status").stdout.contains("Blocked:"))
        let sent = try alice.todo("sync")
        #expect(sent.exitCode == 0, "\(sent)")
        #expect(try remoteMain(host) == alice.head())
        #expect(try alice.todo("status").stdout.contains("Not sent:  0 tasks\n"))
        #expect(try host.git("household.git", "cat-file", "-e", bad).exitCode != 0, "the refused commit stays at home")
        try expectRemote(host)
        let bob = try Member("Bob", host: host)
        try bob.join(host.url())
        #expect(try bob.allTitles().sorted() == ["Buy milk", "Call the plumber", "Fix the bike"])
    }

    /// A disallowed file still there at the tip is left out of the new commit and kept, with
    /// the commits set aside, where git can show it.
    @Test func doctorLeavesOutADisallowedFileAndKeepsIt() throws {
        let (host, alice, milk) = try start()
        defer { withExtendedLifetime(host) {} }
        let stray = "tasks/\(milk.id.prefix(2))/readme.txt"
        _ = try breakAndCommit(alice, stray, Array("hello\n".utf8), message: "readme")
        _ = try alice.todo("done", milk.short)
        let refused = try alice.todo("sync")
        #expect(refused.exitCode == 65 && refused.stderr.contains(stray), "\(refused)")
        Self.expectForwardAdvice(refused.stderr)
        // Every line about it points to the repair that works: a commit removing the file would
        // not, while the one that added it is unsent.
        let check = try alice.todo("doctor", "--offline")
        let about = check.lines.filter { $0.hasPrefix("problem:") && $0.contains(stray) }
        #expect(check.exitCode == 65 && about.count == 2 && about.allSatisfy { $0.contains("todo doctor --fix") }, "\(check)")
        let unsentHead = try alice.head()
        let fix = try alice.todo("doctor", "--fix", "--offline")
        #expect(fix.exitCode == 0, "\(fix)")
        #expect(!FileManager.default.fileExists(atPath: alice.repo + "/" + stray))
        try alice.expectClean()
        #expect(try alice.git("show", "refs/todo/set-aside/\(unsentHead):\(stray)").stdout == "hello\n")
        #expect(try alice.todo("sync").exitCode == 0)
        let bob = try Member("Bob", host: host)
        try bob.join(host.url())
        #expect(try bob.todo("list", "--done").stdout.contains("Buy milk"))
    }

    /// Nothing was ever sent (an empty remote): the new commit starts the history the remote
    /// gets, with every task.
    @Test func doctorRepairsAHouseholdThatNeverSent() throws {
        let (host, alice, _) = try start(synced: false)
        defer { withExtendedLifetime(host) {} }
        _ = try breakAndCommit(alice, "notes.txt", Array("hello\n".utf8), message: "notes")
        _ = try alice.add("Call the plumber")
        let refused = try alice.todo("sync")
        #expect(refused.exitCode == 65 && refused.stderr.contains("notes.txt"), "\(refused)")
        Self.expectForwardAdvice(refused.stderr)
        #expect(try remoteMain(host).isEmpty)
        let fix = try alice.todo("doctor", "--fix", "--offline")
        #expect(fix.exitCode == 0, "\(fix)")
        try alice.expectClean()
        #expect(try alice.todo("sync").exitCode == 0)
        #expect(try remoteMain(host) == alice.head())
        let bob = try Member("Bob", host: host)
        try bob.join(host.url())
        #expect(try bob.allTitles().sorted() == ["Buy milk", "Call the plumber"])
    }

    /// Advice about what was not sent never rewrites what others may have, nor tells a person
    /// to: no rebase, no reset, no forced push.
    static func expectForwardAdvice(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(text.contains("todo doctor --fix"), "\(text)", sourceLocation: sourceLocation)
        for word in ["rebase", "reset", "--force", "push -f"] {
            #expect(!text.contains(word), "\(word): \(text)", sourceLocation: sourceLocation)
        }
    }
}
