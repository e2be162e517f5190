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
        // The remote did not move and holds neither the bad commit nor the one before it.
        #expect(try remoteMain(host) == before)
        #expect(try host.git("household.git", "cat-file", "-e", bad).exitCode != 0)
        try expectRemote(host)
        #expect(alice.syncLog.contains("outcome=error class=data"), "\(alice.syncLog)")

        // The repair is a new commit on top; then everything goes out.
        let fix = try alice.todo("doctor", "--fix", "--offline")
        #expect(fix.exitCode == 0, "\(fix)")
        let sent = try alice.todo("sync")
        #expect(sent.exitCode == 0, "\(sent)")
        #expect(try remoteMain(host) == alice.head())
        #expect(try host.git("household.git", "cat-file", "-e", bad).exitCode == 0, "history is kept, not rewritten")
        let bob = try Member("Bob", host: host)
        try bob.join(host.url())
        #expect(try bob.allTitles().sorted() == ["Buy milk", "Call the plumber"])
        try alice.expectClean()
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
    /// other member's todo refuses the commit that holds it, so it is not sent either.
    @Test func aDisallowedPathIsNotPushed() throws {
        let (host, alice, _) = try start()
        defer { withExtendedLifetime(host) {} }
        let before = try remoteMain(host)
        let bad = try breakAndCommit(alice, "notes.txt", Array("hello\n".utf8), message: "notes")
        let r = try alice.todo("sync")
        #expect(r.exitCode == 65 && r.stderr.contains("notes.txt") && r.stderr.contains(String(bad.prefix(10))), "\(r)")
        #expect(try remoteMain(host) == before)
    }
}
