import Foundation
import Testing
import TodoCore

/// Someone with write access to the remote pushes, with the plain git CLI, what the household
/// format does not allow. `todo sync` refuses it before merging anything and says where it is
/// and who put it there; text that is merely unusual is kept but never reaches a terminal raw.
@Suite(.timeLimit(.minutes(30)), .kit) struct SyncHostileRemoteTests {
    static let mallory = "Mallory <mallory@example.net>"

    /// A plain git clone of the bare remote, by someone who is not a `todo` member.
    struct Attacker {
        let box: Sandbox
        let dir: String

        init(cloning remote: String) throws {
            box = try Sandbox()
            dir = box.root + "/attack"
            let r = try box.gitRun(["clone", "-q", "-b", "main", remote, dir])
            try #require(r.exitCode == 0, "\(r)")
            try git("config", "user.name", "Mallory")
            try git("config", "user.email", "mallory@example.net")
        }

        @discardableResult
        func git(_ args: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
            try git(args, sourceLocation: sourceLocation)
        }

        @discardableResult
        func git(_ args: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
            let r = try box.gitRun(["-C", dir] + args)
            try #require(r.exitCode == 0, "\(r)", sourceLocation: sourceLocation)
            return r
        }

        func write(_ path: String, _ bytes: [UInt8]) throws {
            let full = dir + "/" + path
            try FileManager.default.createDirectory(atPath: directoryName(full), withIntermediateDirectories: true)
            try writeBytes(full, bytes)
        }

        func read(_ path: String) throws -> String {
            try String(contentsOfFile: dir + "/" + path, encoding: .utf8)
        }

        /// Commits everything in the work tree and returns the commit's id.
        @discardableResult
        func commitAll(_ message: String) throws -> String {
            try git("add", "-A")
            try git("commit", "-q", "-m", message)
            return try head()
        }

        func head() throws -> String {
            try git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func push(force: Bool = false) throws {
            try git(["push", "-q"] + (force ? ["--force"] : []) + ["origin", "HEAD:refs/heads/main"])
        }
    }

    enum Content: String, CaseIterable, Sendable {
        case symlink, scriptAtTop, gitmodules, submodule, dotGitHooks, strayFileInTasks, executableTask, oversizedTask
        case buriedInHistory
    }

    /// Alice's household on the host, synced, with one task whose file the attacker can abuse.
    func household(_ host: GitHost) throws -> (Member, TaskRef) {
        try host.createRepository()
        let alice = try Member("Alice", host: host)
        try alice.create(remote: host.url())
        let chore = try alice.add("Shared chore", "--note", "something")
        try alice.sync()
        return (alice, chore)
    }

    /// Pushes `content` into the remote; returns the offending commit and how the refusal
    /// names the path.
    func poison(_ host: GitHost, _ content: Content, chore: TaskRef) throws -> (commit: String, named: String) {
        let m = try Attacker(cloning: host.repositories + "/household.git")
        var named: String
        var commit: String
        switch content {
        case .symlink:
            let path = "tasks/ab/ab" + String(repeating: "0", count: 30) + ".json"
            try FileManager.default.createDirectory(atPath: m.dir + "/tasks/ab", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: m.dir + "/" + path, withDestinationPath: "/etc/passwd")
            commit = try m.commitAll("a task")
            named = "a symbolic link at \"\(path)\""
        case .scriptAtTop:
            try m.write("evil.sh", Array("#!/bin/sh\necho pwned\n".utf8))
            commit = try m.commitAll("helper script")
            named = "a path the household format does not allow, \"evil.sh\""
        case .gitmodules:
            try m.write(".gitmodules", Array("[submodule \"x\"]\n\tpath = x\n\turl = ../x\n".utf8))
            commit = try m.commitAll("modules")
            named = "\".gitmodules\""
        case .submodule:
            try m.git("update-index", "--add", "--cacheinfo", "160000,\(try m.head()),vendor")
            try m.git("commit", "-q", "-m", "vendor")
            commit = try m.head()
            named = "a submodule at \"vendor\""
        case .dotGitHooks:
            // git itself never adds a `.git` path; the plumbing builds the tree anyway.
            let hook = try m.box.file("hook", "#!/bin/sh\necho pwned\n")
            let hookBlob = try m.git("hash-object", "-w", hook).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let hooks = try mktree(m, "100755 blob \(hookBlob)\tpost-checkout\n")
            let dotGit = try mktree(m, "040000 tree \(hooks)\thooks\n")
            let root = try m.git("ls-tree", "HEAD").stdout + "040000 tree \(dotGit)\t.git\n"
            let tree = try mktree(m, root)
            commit = try m.git("commit-tree", tree, "-p", "HEAD", "-m", "hooks").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            try m.git("update-ref", "refs/heads/main", commit)
            named = "\".git\""
        case .strayFileInTasks:
            try m.write("tasks/ab/evil.sh", Array("#!/bin/sh\n".utf8))
            commit = try m.commitAll("stray")
            named = "a path the household format does not allow, \"tasks/ab/evil.sh\""
        case .executableTask:
            try m.git("update-index", "--chmod=+x", chore.path)
            try m.git("commit", "-q", "-m", "chmod")
            commit = try m.head()
            named = "an executable file at \"\(chore.path)\""
        case .oversizedTask:
            // Still a well-formed task file, only far too big.
            let text = try m.read(chore.path).replacingOccurrences(
                of: "\"notes\": \"something\"", with: "\"notes\": \"" + String(repeating: "x", count: 1_100_000) + "\"")
            try m.write(chore.path, Array(text.utf8))
            commit = try m.commitAll("long note")
            named = "an oversized task file"
        case .buriedInHistory:
            // Added, then removed again: the tip looks clean, the history does not.
            try m.write("evil.sh", Array("#!/bin/sh\necho pwned\n".utf8))
            commit = try m.commitAll("helper script")
            try m.git("rm", "-q", "evil.sh")
            try m.git("commit", "-q", "-m", "tidy up")
            named = "a path the household format does not allow, \"evil.sh\""
        }
        try m.push()
        return (commit, named)
    }

    func mktree(_ m: Attacker, _ entries: String) throws -> String {
        let input = try m.box.file("tree-\(UUID().uuidString)", entries)
        let (out, err) = m.box.nextIO()
        let r = try spawn(gitBinary, ["-C", m.dir, "mktree"], environment: m.box.baseEnvironment, stdinPath: input, stdoutPath: out, stderrPath: err).wait()
        try #require(r.exitCode == 0, "\(r)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The refusal: exit 65, the path, the commit and its author named, nothing merged, and
    /// a clone of the poisoned remote leaves nothing behind.
    func expectRefused(_ content: Content, over transport: Transport) throws {
        let host = try GitHost(transport)
        let (alice, chore) = try household(host)
        let (commit, named) = try poison(host, content, chore: chore)
        _ = try alice.add("Alice's unsent change")
        let before = try LocalState(alice)

        let r = try alice.todo("sync")
        #expect(r.exitCode == 65, "\(content): \(r)")
        #expect(r.stderr.contains(named), "\(content): \(r)")
        #expect(r.stderr.contains("in commit \(commit.prefix(10)) by \(Self.mallory)"), "\(content): \(r)")
        #expect(r.stderr.contains("Nothing was merged"), "\(content): \(r)")
        try expectUntouched(alice, since: before, pending: ["Alice's unsent change", "Shared chore"])
        // Nothing of it reached the work tree or the hooks either.
        for path in ["evil.sh", ".gitmodules", "vendor", ".git/hooks/post-checkout", "tasks/ab/evil.sh"] {
            #expect(!FileManager.default.fileExists(atPath: alice.repo + "/" + path), "\(content): \(path) was written")
        }

        let bob = try Member("Bob", host: host)
        let clone = try bob.todo("clone", host.url(), "--name", "Bob")
        #expect(clone.exitCode == 65 && clone.stderr.contains(named), "\(content): \(clone)")
        #expect(!FileManager.default.fileExists(atPath: bob.repo), "\(content): a refused clone leaves no household")
    }

    @Test(arguments: Content.allCases)
    func disallowedContentIsRefused(_ content: Content) throws {
        try expectRefused(content, over: .path)
    }

    @Test(arguments: [Transport.git, .http])
    func disallowedContentIsRefusedOverTheNetwork(over transport: Transport) throws {
        try expectRefused(.symlink, over: transport)
    }

    /// A path remote whose main names something other than a commit (written there by hand;
    /// git itself refuses to) is refused as data, with nothing merged.
    @Test func aMainThatIsNotACommitIsRefused() throws {
        let host = try GitHost(.path)
        let (alice, _) = try household(host)
        _ = try alice.add("Alice's unsent change")
        let before = try LocalState(alice)
        let remote = host.repositories + "/household.git"
        let blob = try host.git("household.git", "hash-object", "-w", "--stdin")
        let id = blob.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(id.count == 40, "\(blob)")
        try writeBytes(remote + "/refs/heads/main", Array("\(id)\n".utf8))
        let r = try alice.todo("sync")
        #expect(r.exitCode == 65, "\(r)")
        #expect(r.stderr.contains("not a commit") && r.stderr.contains(String(id.prefix(10))), "\(r)")
        try expectUntouched(alice, since: before, pending: ["Alice's unsent change", "Shared chore"])
    }

    /// Terminal escapes in titles, notes, names and commit messages are data: they are kept
    /// and merged, and shown escaped in every output.
    @Test func terminalEscapesFromOthersNeverReachTheTerminal() throws {
        let host = try GitHost(.path)
        let (alice, chore) = try household(host)
        let title = "\u{1B}[31mRed alert \u{1B}]8;;http://evil.example/\u{07}click\u{1B}]8;;\u{07} \u{1B}]0;pwned\u{07}\u{9B}1m"
        let mallory = try Member("Mal\u{1B}[31mlory", host: host)
        try mallory.join(host.url())
        let hostile = try mallory.add(title, "--assign", "Bob\u{1B}[7m", "--note", "\u{1B}[2Jwiped")
        // Pushed with the plain git CLI from Mallory's household.
        let push = try mallory.git("push", "-q", "origin", "main")
        #expect(push.exitCode == 0, "\(push)")

        let received = try alice.todo("sync")
        #expect(received.exitCode == 0, "\(received)")
        expectNoTerminalControls(received)
        #expect(try alice.show(hostile.id)["title"] == .string(title), "the title is kept as it was written")

        // Both change the hostile task's note; Mallory writes later and wins, so Alice's note
        // goes to the conflict log next to Mallory's name and the hostile title.
        alice.sb.now = fixedNow + 60_000
        try alice.change("edit", hostile.short, "--note", "Alice's note", "--due", "2025-11-28")
        mallory.sb.now = fixedNow + 120_000
        try mallory.change("edit", hostile.short, "--note", "\u{1B}[2J\u{1B}[Hmallory's note\u{07}")
        // And a hand-made commit with escapes in its author and message.
        let file = mallory.repo + "/" + chore.path
        let text = try String(contentsOfFile: file, encoding: .utf8)
        try writeBytes(file, Array(text.replacingOccurrences(of: "\"notes\": \"something\"", with: "\"notes\": \"\\u001b]0;owned\\u0007\"").utf8))
        let commit = try mallory.sb.gitRun([
            "-C", mallory.repo, "-c", "user.name=Mal\u{1B}[5mlory", "-c", "user.email=m@example.net", "commit", "-q", "-a", "-m",
            "\u{1B}]0;title\u{07}edit \u{1B}[8mhidden",
        ])
        #expect(commit.exitCode == 0, "\(commit)")
        let push2 = try mallory.git("push", "-q", "origin", "main")
        #expect(push2.exitCode == 0, "\(push2)")

        let status = try alice.todo("status")
        #expect(status.stdout.contains("\\x1b[31mRed alert"), "the unsent task is listed, escaped: \(status)")
        let sync = try alice.todo("sync")
        #expect(sync.exitCode == 0 && sync.stdout.contains("1 conflict"), "\(sync)")
        let s = hostile.short
        let outputs: [[String]] = [
            ["list"], ["list", "--all", "--json"], ["show", s], ["show", "--json", s], ["show", chore.short], ["conflicts"],
            ["conflicts", s], ["conflicts", "--json"], ["conflicts", "--stats"], ["log"], ["log", s], ["log", "--json"],
            ["status"], ["status", "--json"], ["sync"], ["sync", "--json"], ["remote"], ["households"],
        ]
        for args in outputs {
            let r = try alice.todo(args)
            #expect(r.exitCode == 0, "\(r)")
            expectNoTerminalControls(r)
        }
        expectNoTerminalControls(status)
        expectNoTerminalControls(sync)
        #expect(try alice.todo("list").stdout.contains("\\x1b[31mRed alert"))
        let conflicts = try alice.todo("conflicts").stdout
        #expect(conflicts.contains("'Alice's note' was replaced by Mal\\x1b[31mlory's"), "\(conflicts)")
        #expect(try alice.show(hostile.id)["notes"] == .string("\u{1B}[2J\u{1B}[Hmallory's note\u{07}"))
        try syncUntilQuiet([alice, mallory])
        try expectConverged([alice, mallory], host: host)
    }

    /// A remote that holds another household's history: refused, nothing lost on either side.
    @Test func unrelatedHistoryIsRefused() throws {
        let host = try GitHost(.path)
        let (alice, _) = try household(host)
        let eve = try Member("Eve", host: nil)
        try eve.change("init", "--name", "Eve", "--email", eve.email)
        _ = try eve.add("Eve's own task")
        let push = try eve.git("push", "-q", "--force", host.repositories + "/household.git", "main:main")
        #expect(push.exitCode == 0, "\(push)")
        let remoteBefore = try host.git("household.git", "rev-parse", "refs/heads/main").stdout

        _ = try alice.add("Alice's unsent change")
        let before = try LocalState(alice)
        let r = try alice.todo("sync")
        #expect(r.exitCode == 65, "\(r)")
        #expect(r.stderr.contains("nothing in common") && r.stderr.contains("Nothing was merged"), "\(r)")
        try expectUntouched(alice, since: before, pending: ["Shared chore", "Alice's unsent change"])
        #expect(try host.git("household.git", "rev-parse", "refs/heads/main").stdout == remoteBefore, "the remote was not overwritten")
        #expect(!(try alice.allTitles()).contains("Eve's own task"))
    }

    /// A remote whose history was rewritten but still shares a base with ours: merged with a
    /// warning, and nothing anyone had is lost.
    @Test func rewrittenHistoryIsMergedWithAWarning() throws {
        let host = try GitHost(.path)
        let (alice, _) = try household(host)
        _ = try alice.add("Second from Alice")
        try alice.sync()
        let bob = try Member("Bob", host: host)
        try bob.join(host.url())
        _ = try bob.add("From Bob")
        try bob.sync()
        try alice.sync()

        // Someone drops the last two commits, rewrites the one below, adds one, and force-pushes.
        let m = try Attacker(cloning: host.repositories + "/household.git")
        try m.git("reset", "-q", "--hard", "HEAD~2")
        try m.git("commit", "-q", "--amend", "-m", "rewritten")
        try m.push(force: true)

        _ = try alice.add("Alice's unsent change")
        let r = try alice.todo("sync")
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stderr.contains("warning: the remote's history was rewritten") && r.stderr.contains("nothing local was lost"), "\(r)")
        try syncUntilQuiet([alice, bob])
        try expectConverged([alice, bob], host: host)
        let expected: Set = ["Shared chore", "Second from Alice", "From Bob", "Alice's unsent change"]
        for member in [alice, bob] {
            #expect(Set(try member.allTitles()) == expected, "\(member.name)")
        }
    }

    /// A remote put back to an older state of its own history (a NAS restored from last week's
    /// backup), then one emptied: each sync says so in one line, exits 0, and sends again what
    /// the remote lost; every member ends with everything.
    @Test func aRemoteThatWentBackGetsWhatItLostAgain() throws {
        let host = try GitHost(.path)
        let (alice, _) = try household(host)
        let bare = "household.git"
        let backup = try host.git(bare, "rev-parse", "refs/heads/main").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let bob = try Member("Bob", host: host)
        try bob.join(host.url())
        _ = try bob.add("From Bob")
        try bob.sync()
        _ = try alice.add("From Alice")
        try alice.sync()
        let lost = try host.git(bare, "rev-parse", "refs/heads/main").stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        // Restored from the backup: the remote's main is an ancestor of what Alice last fetched.
        #expect(try host.git(bare, "update-ref", "refs/heads/main", backup).exitCode == 0)
        let r = try alice.todo("sync", "--json")
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stderr.contains("the remote went back to an older state") && r.stderr.contains("nothing local was lost"), "\(r)")
        #expect(!r.stderr.contains("rewritten"), "\(r)")
        let json = try JSONSerialization.jsonObject(with: Data((r.stdout.split(separator: "\n").last ?? "").utf8)) as? [String: Any]
        #expect(json?["remoteWentBack"] as? Bool == true && json?["remoteRewritten"] as? Bool == false, "\(r.stdout)")
        #expect(try host.git(bare, "merge-base", "--is-ancestor", lost, "refs/heads/main").exitCode == 0, "what the remote lost was sent again")

        // A second sync finds nothing went back.
        let again = try alice.todo("sync", "--json")
        #expect(again.exitCode == 0 && !again.stderr.contains("went back"), "\(again)")

        // Emptied (main deleted): the same line, and the whole history goes back.
        #expect(try host.git(bare, "update-ref", "-d", "refs/heads/main").exitCode == 0)
        let emptied = try bob.todo("sync")
        #expect(emptied.exitCode == 0, "\(emptied)")
        #expect(emptied.stderr.contains("the remote went back to an older state"), "\(emptied)")
        try syncUntilQuiet([alice, bob])
        try expectConverged([alice, bob], host: host)
        for member in [alice, bob] {
            #expect(Set(try member.allTitles()) == ["Shared chore", "From Bob", "From Alice"], "\(member.name)")
        }
    }
}
