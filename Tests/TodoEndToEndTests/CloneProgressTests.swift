import Glibc
import Foundation
import Testing
import TodoCore

/// A clone of a household with a long history from a path remote: copied from the remote's
/// packs, checked, and what it says while it runs (docs/FORMAT.md, "Joining"; todo(1), JSON OUTPUT).
@Suite(.timeLimit(.minutes(10)), .kit) struct CloneProgressTests {
    /// Alice's household on a path remote, then `commits` more commits there that each retitle
    /// her task (written with git fast-import), packed as housekeeping leaves a path remote.
    func longHistory(commits: Int) throws -> (GitHost, Member, String) {
        let (host, alice) = try aliceSyncedWithAPathRemote(first: "Step 0")
        let remote = host.url()
        let path = try alice.git("ls-files", "tasks").stdout.trimmingCharacters(in: .newlines)
        let text = try #require(
            String(bytes: try alice.sb.gitRun(["--git-dir", remote, "cat-file", "blob", "main:" + path]).stdout.utf8, encoding: .utf8))
        var stream = ""
        for n in 1...commits {
            let file = text.replacingOccurrences(of: "\"Step 0\"", with: "\"Step \(n)\"")
            stream += "commit refs/heads/main\ncommitter Alice <alice@example.org> \(1_700_000_000 + n) +0000\n"
            stream += "data 8\nstep \(String(format: "%03d", n % 1000))\n"
            if n == 1 { stream += "from refs/heads/main^0\n" }
            stream += "M 100644 inline \(path)\ndata \(file.utf8.count)\n\(file)\n"
        }
        let imported = try runProcess(gitBinary, ["--git-dir", remote, "fast-import", "--quiet"], stdin: .text(stream))
        try #require(imported.exitCode == 0, "\(imported)")
        let packed = try alice.sb.gitRun(["--git-dir", remote, "repack", "-a", "-d", "-q"])
        try #require(packed.exitCode == 0, "\(packed)")
        return (host, alice, remote)
    }

    @Test func aCloneOfThousandsOfCommitsIsCompleteAndItsJSONLinesParse() throws {
        let (host, _, remote) = try longHistory(commits: 3000)
        let bob = try Member("Bob", host: host)
        let r = try bob.todo("clone", remote, "--name", "Bob", "--email", bob.email, "--json")
        #expect(r.exitCode == 0, "\(r)")
        #expect(r.stderr.isEmpty, "\(r)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let parsed = try lines.map { try json($0) }
        let last = try #require(parsed.last)
        #expect(last["household"]?.stringValue == "home" && last["tasks"] == .number("1"), "\(r.stdout)")
        for p in parsed.dropLast() {
            #expect(p.keys == ["progress", "done", "total"], "\(r.stdout)")
            #expect(["receiving", "checking", "writing"].contains(p["progress"]?.stringValue ?? ""), "\(r.stdout)")
        }
        #expect(try bob.git("rev-parse", "HEAD").stdout == (try bob.sb.gitRun(["--git-dir", remote, "rev-parse", "main"]).stdout))
        #expect(try bob.git("rev-list", "--count", "HEAD").stdout == "3002\n")
        #expect(try bob.allTitles() == ["Step 3000"])
        try bob.expectClean()
        #expect(try bob.git("fsck", "--no-dangling").exitCode == 0)
        // Without --json and not on a terminal: the one line, nothing on stderr.
        let carol = try Member("Carol", host: host)
        let plain = try carol.todo("clone", remote, "--name", "Carol", "--email", carol.email)
        #expect(plain.exitCode == 0, "\(plain)")
        #expect(plain.stdout == "Joined household \"home\" from \(remote) (1 task) as Carol.\n", "\(plain)")
        #expect(plain.stderr.isEmpty, "\(plain)")
        // Bob syncs as usual afterwards.
        let file = try bob.git("ls-files", "tasks").stdout.trimmingCharacters(in: .newlines)
        let id = String(file.split(separator: "/").last?.dropLast(5) ?? "")
        try bob.change("edit", id, "--title", "Bob's step")
        let synced = try bob.todo("sync", "--json")
        #expect(synced.exitCode == 0, "\(synced)")
        #expect(try syncReport(synced.stdout)["sent"] == .number("1"), "\(synced)")
    }

    /// A hostile remote whose history hides a symbolic link deep down is still refused, with
    /// nothing left behind, though its objects come as copies of its packs.
    @Test func aPackedHostileHistoryIsRefused() throws {
        let (host, alice, remote) = try longHistory(commits: 50)
        // A symbolic link, then a commit that removes it: the newest tree is clean.
        var stream = "commit refs/heads/main\ncommitter Mallory <m@example.org> 1700100000 +0000\ndata 5\nlink\nfrom refs/heads/main^0\n"
        stream += "M 120000 inline tasks/00/link\ndata 11\n/etc/passwd\n"
        stream += "commit refs/heads/main\ncommitter Mallory <m@example.org> 1700100001 +0000\ndata 5\ngone\n"
        stream += "D tasks/00/link\n"
        let imported = try runProcess(gitBinary, ["--git-dir", remote, "fast-import", "--quiet"], stdin: .text(stream))
        try #require(imported.exitCode == 0, "\(imported)")
        let packed = try alice.sb.gitRun(["--git-dir", remote, "repack", "-a", "-d", "-q"])
        try #require(packed.exitCode == 0, "\(packed)")
        let bob = try Member("Bob", host: host)
        let r = try bob.todo("clone", remote, "--name", "Bob", "--email", bob.email)
        #expect(r.exitCode == 65, "\(r)")
        #expect(r.stderr.contains("symbolic link"), "\(r)")
        #expect(access(bob.repo, F_OK) != 0, "nothing left behind")
    }
}
