import Glibc
import Foundation
import Testing
import TodoCore

// Members of a household, each in a sandbox of their own, and the checks every sync test makes
// with the git CLI.

// MARK: - Members

/// A member of the household: a sandbox of their own (HOME, TODO_HOME, XDG_STATE_HOME), set up
/// to reach the host.
final class Member {
    let name: String
    let sb: Sandbox
    var env: [String: String]

    init(_ name: String, host: GitHost?, now: Int64? = fixedNow) throws {
        self.name = name
        sb = try Sandbox(now: now)
        env = ["XDG_STATE_HOME": sb.root + "/state"]
        if let host { env.merge(try host.admit(sb)) { _, new in new } }
    }

    var email: String { name.lowercased() + "@example.org" }
    var repo: String { sb.repo() }
    var syncLogPath: String { sb.root + "/state/todo/sync.log" }
    var syncLog: String { String(decoding: readBytes(syncLogPath) ?? [], as: UTF8.self) }

    func todo(_ args: String...) throws -> Run { try sb.todo(args, env: env) }
    func todo(_ args: [String]) throws -> Run { try sb.todo(args, env: env) }
    func start(_ args: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> Spawned {
        try sb.start(args, env: env, sourceLocation: sourceLocation)
    }
    func git(_ args: String...) throws -> Run { try sb.gitRun(["-C", repo] + args) }

    /// `todo init --remote URL` as this member; fails the test unless it works.
    func create(remote: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let r = try todo("init", "--name", name, "--email", email, "--remote", remote)
        try #require(r.exitCode == 0, "\(name): \(r)", sourceLocation: sourceLocation)
    }

    /// `todo clone URL` as this member; fails the test unless it works.
    @discardableResult
    func join(_ url: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        let r = try todo("clone", url, "--name", name, "--email", email)
        try #require(r.exitCode == 0, "\(name): \(r)", sourceLocation: sourceLocation)
        return r
    }

    /// `todo add`, returning the task: its full id, and as "short" id a prefix long enough to
    /// stay unique among the few tasks of a test.
    func add(_ title: String, _ more: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> TaskRef {
        let r = try todo(["add", title, "--json"] + more)
        try #require(r.exitCode == 0, "\(name): \(r)", sourceLocation: sourceLocation)
        let id = try #require(try json(r.stdout)["id"]?.stringValue, "\(r)", sourceLocation: sourceLocation)
        return TaskRef(id: id, short: String(id.prefix(8)))
    }

    /// Runs a changing command and requires it to work.
    func change(_ args: String..., sourceLocation: SourceLocation = #_sourceLocation) throws {
        let r = try todo(args)
        try #require(r.exitCode == 0, "\(name): \(r)", sourceLocation: sourceLocation)
    }

    /// `todo sync` (with `extra` options), expected to work: exit 0 and nothing on stderr.
    @discardableResult
    func sync(_ extra: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        let r = try todo(["sync"] + extra)
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(name): \(r)", sourceLocation: sourceLocation)
        return r
    }

    /// The id of `main`'s tree, as git sees it.
    func tree() throws -> String {
        try git("rev-parse", "refs/heads/main^{tree}").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func head() throws -> String {
        try git("rev-parse", "refs/heads/main").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every task's title: open, done and deleted.
    func allTitles() throws -> [String] {
        var titles: [String] = []
        for args in [["list", "--all", "--json"], ["list", "--deleted", "--json"]] {
            let r = try todo(args)
            try #require(r.exitCode == 0, "\(r)")
            titles += try json(r.stdout).items.compactMap { $0["title"]?.stringValue }
        }
        return titles
    }

    /// A task's fields from `todo show --json`.
    func show(_ id: String) throws -> JSONValue {
        let r = try todo("show", "--json", id)
        try #require(r.exitCode == 0, "\(r)")
        return try json(r.stdout)
    }

    /// The work tree matches `main` and git finds the repository sound.
    func expectClean(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try sb.expectClean(sourceLocation: sourceLocation)
    }
}

/// Alice's household on a new path remote, with one task, `first`, added and synced.
func aliceSyncedWithAPathRemote(first: String) throws -> (GitHost, Member) {
    let host = try GitHost(.path)
    try host.createRepository()
    let alice = try Member("Alice", host: host)
    try alice.create(remote: host.url())
    _ = try alice.add(first)
    try alice.sync()
    return (host, alice)
}

// MARK: - Checks

/// The state a failed sync must leave alone: the branch, the tracking ref and the task files.
struct LocalState: Equatable, CustomStringConvertible {
    let head: String
    let tracking: String
    let tree: String

    init(_ m: Member) throws {
        head = try m.head()
        tracking = try m.git("rev-parse", "--verify", "-q", "refs/remotes/origin/main").stdout
        tree = try m.tree()
    }

    var description: String { "main \(head), origin/main \(tracking.isEmpty ? "-" : tracking), tree \(tree)" }
}

/// After a failed sync: nothing local changed, the repository is clean and sound, and the
/// changes that wait to be sent are still there.
func expectUntouched(
    _ m: Member, since before: LocalState, pending: [String], sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let after = try LocalState(m)
    #expect(after == before, "\(m.name)'s repository changed: before \(before), after \(after)", sourceLocation: sourceLocation)
    try m.expectClean(sourceLocation: sourceLocation)
    let titles = try m.allTitles()
    for t in pending {
        #expect(titles.contains(t), "\(m.name) lost the local change \"\(t)\": \(titles)", sourceLocation: sourceLocation)
    }
}

/// The bare remote is sound (`git fsck --strict`) and its `main` has the tree `tree`.
func expectRemote(_ host: GitHost, _ name: String = "household.git", tree: String? = nil, sourceLocation: SourceLocation = #_sourceLocation)
    throws
{
    // A bare repository made by plain `git init --bare` keeps HEAD at an unborn `master`;
    // fsck notes that, which is no fault.
    let fsck = try host.git(name, "fsck", "--strict", "--no-progress")
    let complaints = fsck.stderr.split(separator: "\n").filter { !$0.hasPrefix("notice: HEAD points to an unborn branch") }
    #expect(fsck.exitCode == 0 && complaints.isEmpty, "remote: \(fsck)", sourceLocation: sourceLocation)
    if let tree {
        let r = try host.git(name, "rev-parse", "refs/heads/main^{tree}")
        #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == tree, "remote main: \(r)", sourceLocation: sourceLocation)
    }
}

/// Syncs everyone, round after round, until a whole round changes nothing; every sync must
/// work. Returns how many rounds it took.
@discardableResult
func syncUntilQuiet(_ members: [Member], sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
    for round in 1...6 {
        var quiet = true
        for m in members {
            let r = try m.todo("sync", "--json")
            try #require(r.exitCode == 0, "\(m.name), settling round \(round): \(r)", sourceLocation: sourceLocation)
            let report = try syncReport(r.stdout, sourceLocation: sourceLocation)
            if report["received"] != .number("0") || report["sent"] != .number("0") { quiet = false }
        }
        if quiet { return round }
    }
    Issue.record("the members never stopped exchanging changes", sourceLocation: sourceLocation)
    return 6
}

/// Everyone holds the same tree, byte for byte, as does the remote's `main`.
func expectConverged(_ members: [Member], host: GitHost, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let trees = try members.map { try $0.tree() }
    #expect(Set(trees).count == 1, "trees differ: \(zip(members.map(\.name), trees).map { "\($0) \($1)" })", sourceLocation: sourceLocation)
    try expectRemote(host, tree: trees.first, sourceLocation: sourceLocation)
    for m in members { try m.expectClean(sourceLocation: sourceLocation) }
}

/// Bytes that must never reach a terminal raw from other people's text: ESC, BEL and the C1
/// CSI (U+009B; its UTF-8 form ends in 0x9B, and no other text in these tests has that byte).
let terminalControlBytes: [UInt8] = [0x1B, 0x07, 0x9B]

func expectNoTerminalControls(_ r: Run, sourceLocation: SourceLocation = #_sourceLocation) {
    for (stream, bytes) in [("stdout", r.stdoutBytes), ("stderr", r.stderrBytes)] {
        let found = terminalControlBytes.filter(bytes.contains)
        #expect(found.isEmpty, "raw \(found) on \(stream) of \(r)", sourceLocation: sourceLocation)
    }
}
