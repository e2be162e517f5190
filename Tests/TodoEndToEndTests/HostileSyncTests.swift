import Glibc
import Foundation
import TestKit
import Testing

/// Task files a broken or malicious replica wrote (TestKit's `HostileTaskFiles`: extreme
/// numbers, huge strings, deep nesting, invalid UTF-8, duplicate keys, wrong types, stamps and
/// dates out of range), committed with the git CLI, with a commit time at the end of what git
/// can store, arriving through a real sync. `todo sync` takes them (a file it cannot read is
/// left out) or refuses them with 65; it never crashes, and neither do `list`, `show`,
/// `conflicts`, `log` and `status` afterwards. `TODO_PROPERTY_SEED` replays a run.
@Suite(.timeLimit(.minutes(20)), .kit) struct HostileSyncTests {
    static let seed = propertySeed

    /// Exit codes a command may end with on such data: done, data refused, id not found.
    static let documented: Set<Int32> = [0, 65, 66]

    @Test func hostileFilesFromTheRemoteNeverCrashAnyCommand() throws {
        print("hostile sync: TODO_PROPERTY_SEED=\(Self.seed)")
        let label = "TODO_PROPERTY_SEED=\(Self.seed)"
        var rng = SplitMix64(seed: Self.seed)
        var files = HostileTaskFiles(rng: SplitMix64(seed: rng.next()))
        let host = try GitHost(.path)
        let url = try host.createRepository()
        let alice = try Member("Alice", host: host)
        try alice.create(remote: url)
        let shared = try alice.add("Buy milk")
        let kept = try alice.add("Walk the dog")
        try alice.sync()

        // Mallory's clone, written with the git CLI only.
        let work = host.box.root + "/mallory"
        try requireGit(host.box.gitRun(["clone", "-q", url, work]))
        for args in [["config", "user.name", "Mallory"], ["config", "user.email", "mallory@example.org"]] {
            try requireGit(host.box.gitRun(["-C", work] + args))
        }
        var ids: [String] = []
        for round in 0..<4 {
            // Mallory builds on what the remote holds now (Alice's merges included).
            try requireGit(host.box.gitRun(["-C", work, "fetch", "-q", "origin"]))
            try requireGit(host.box.gitRun(["-C", work, "reset", "-q", "--hard", "origin/main"]))
            // New tasks, and the task Alice edits meanwhile (so that a field merge meets them).
            var written: [(String, [UInt8])] = []
            for _ in 0..<12 {
                let id = String(format: "%016llx%016llx", rng.next(), rng.next())
                ids.append(id)
                written.append((id, Array(files.file(id: id, percent: 40).prefix(TodoLimits.fileSize))))
            }
            written.append((shared.id, Array(files.file(id: shared.id, percent: 40).prefix(TodoLimits.fileSize))))
            for (id, bytes) in written {
                let dir = "\(work)/tasks/\(id.prefix(2))"
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                try writeBytes("\(dir)/\(id).json", bytes)
            }
            try requireGit(host.box.gitRun(["-C", work, "add", "-A"]))
            try requireGit(host.box.gitRun(["-C", work, "commit", "-q", "-m", "round \(round)"]))
            if round == 1 { try commitAtTheEndOfTime(work, host.box) }
            try requireGit(host.box.gitRun(["-C", work, "push", "-q", "origin", "HEAD:refs/heads/main"]))

            // After a round that made the task unreadable, the edit is refused (65).
            let edit = try alice.todo("edit", shared.id, "--note", "round \(round)")
            try expectNoCrash(edit, label)
            #expect([0, 65].contains(edit.exitCode ?? -1), "\(label): \(edit)")
            let sync = try alice.todo("sync")
            try expectNoCrash(sync, label)
            #expect([0, 65].contains(sync.exitCode ?? -1), "\(label): \(sync)")
            if sync.exitCode == 65 { #expect(sync.stderr.hasPrefix("todo: "), "\(label): \(sync)") }
            try everyCommandSurvives(alice, ids: ids + [shared.id], label: label)
            #expect(try alice.allTitles().contains("Walk the dog"), "\(label): \(kept.id) was lost")
        }

        // A file over the size limit is refused whole: 65, nothing merged.
        try requireGit(host.box.gitRun(["-C", work, "fetch", "-q", "origin"]))
        try requireGit(host.box.gitRun(["-C", work, "reset", "-q", "--hard", "origin/main"]))
        let big = String(format: "%016llx%016llx", rng.next(), rng.next())
        try FileManager.default.createDirectory(atPath: "\(work)/tasks/\(big.prefix(2))", withIntermediateDirectories: true)
        try writeBytes("\(work)/tasks/\(big.prefix(2))/\(big).json", Array(repeating: 0x20, count: TodoLimits.fileSize + 1))
        try requireGit(host.box.gitRun(["-C", work, "add", "-A"]))
        try requireGit(host.box.gitRun(["-C", work, "commit", "-q", "-m", "too big"]))
        try requireGit(host.box.gitRun(["-C", work, "push", "-q", "origin", "HEAD:refs/heads/main"]))
        let before = try LocalState(alice)
        let refused = try alice.todo("sync")
        try expectNoCrash(refused, label)
        #expect(refused.exitCode == 65 && refused.stderr.contains("oversized task file"), "\(label): \(refused)")
        #expect(try LocalState(alice) == before, "\(label): a refused sync changed the household")
        try everyCommandSurvives(alice, ids: ids + [big], label: label)
    }

    /// Every reading command, in every form, ends with a documented exit code and no signal.
    func everyCommandSurvives(_ m: Member, ids: [String], label: String) throws {
        var commands: [[String]] = [
            ["list"], ["list", "--all", "--json"], ["list", "--deleted"], ["list", "--overdue"], ["conflicts"],
            ["conflicts", "--json"], ["conflicts", "--stats"], ["log"], ["log", "--json"], ["status"], ["status", "--json"],
        ]
        for id in ids.suffix(14) { commands += [["show", id], ["show", "--json", id], ["log", id], ["conflicts", id]] }
        // In a zone east of UTC, where a time at the end of the range is pushed furthest.
        for (n, args) in commands.enumerated() {
            let r = try m.sb.todo(args, env: m.env.merging(["TZ": n % 2 == 0 ? "Pacific/Kiritimati" : "UTC"]) { _, new in new })
            try expectNoCrash(r, label)
            #expect(Self.documented.contains(r.exitCode ?? -1), "\(label): \(r)")
        }
    }

    func expectNoCrash(_ r: Run, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(r.signal == nil, "\(label): killed by signal \(r.signal ?? 0): \(r)", sourceLocation: sourceLocation)
        #expect(!r.stderr.contains("Fatal error"), "\(label): \(r)", sourceLocation: sourceLocation)
    }

    func requireGit(_ r: Run, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(r.exitCode == 0, "\(r)", sourceLocation: sourceLocation)
    }

    /// A commit (made with `git hash-object --literally`, as git itself would refuse the date)
    /// whose author and committer time is the largest 64-bit number, 14 hours east of UTC.
    func commitAtTheEndOfTime(_ work: String, _ box: Sandbox) throws {
        let head = try box.gitRun(["-C", work, "rev-parse", "HEAD"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let tree = try box.gitRun(["-C", work, "rev-parse", "HEAD^{tree}"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let who = "Mallory <mallory@example.org> 9223372036854775807 +1400"
        let text = "tree \(tree)\nparent \(head)\nauthor \(who)\ncommitter \(who)\n\nthe end of time\n"
        let path = try box.file("end-of-time.commit", text)
        let made = try box.gitRun(["-C", work, "hash-object", "-t", "commit", "-w", "--literally", path])
        try requireGit(made)
        try requireGit(box.gitRun(["-C", work, "update-ref", "HEAD", made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)]))
    }
}

/// Limits of the format (docs/FORMAT.md) the tests write against.
enum TodoLimits {
    static let fileSize = 1 << 20
}
