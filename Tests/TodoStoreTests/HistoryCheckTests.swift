import Foundation
import GitKit
import Synchronization
import Testing

@testable import TodoStore

/// The check of received commits spread over threads (`HistoryCheck`): the same outcome and the
/// same progress as one commit after another on one thread.
@Suite(.timeLimit(.minutes(5))) struct HistoryCheckTests {
    /// Task `n`'s file: an id made from the number, in its fan-out folder.
    static func taskFile(_ n: Int) -> String {
        let id = String(format: "%08x%024x", n * 2_654_435_761 % 0xffff_ffff, n)
        return "tasks/\(id.prefix(2))/\(id).json"
    }

    /// `script` given to `git fast-import` in the bare repository `dir`; the repository opened,
    /// and its `main`.
    func imported(_ script: String, into dir: TempDir) throws -> (dir: TempDir, repo: Repository, tip: ObjectID) {
        let r = try run(["git", "fast-import", "--quiet"], in: dir.path, input: script)
        #expect(r.status == 0, "\(r.stderr)")
        GitLibrary.start()
        let repo = try Repository.open(path: dir.path)
        return (dir, repo, try #require(try repo.resolve(reference: "refs/heads/main")))
    }

    /// A bare repository whose `main` is a line of `count` commits, each adding one task file;
    /// the commits numbered in `bad` (1-based) also add the file named there, which the format
    /// does not allow, and those in `removed` remove the file named there. Made with `git
    /// fast-import`, oldest first, a second apart.
    func history(_ count: Int, bad: [Int: String] = [:], removed: [Int: String] = [:]) throws -> (dir: TempDir, repo: Repository, tip: ObjectID) {
        let dir = TempDir()
        try git("init", "-q", "--bare", "-b", "main", dir.path, in: dir.path)
        var script = ""
        func data(_ text: String) { script += "data \(text.utf8.count)\n\(text)\n" }
        for i in 1...count {
            script += "commit refs/heads/main\nmark :\(i)\ncommitter Test <test@example.org> \(1_700_000_000 + i) +0000\n"
            data("add \(i)")
            if i > 1 { script += "from :\(i - 1)\n" }
            script += "M 100644 inline \(Self.taskFile(i))\n"
            data("{\"title\":\"task \(i)\"}\n")
            if let name = bad[i] {
                script += "M 100644 inline \(name)\n"
                data("not a task\n")
            }
            if let name = removed[i] { script += "D \(name)\n" }
        }
        return try imported(script, into: dir)
    }

    @Test func ofTwoBadCommitsEveryNumberOfThreadsNamesTheOlder() throws {
        // Far apart, so that different threads find them; the walk from the tip meets the
        // later one first.
        let (dir, repo, tip) = try history(2000, bad: [150: "early.txt", 1850: "late.txt"])
        defer { withExtendedLifetime(dir) {} }
        for threads in [1, 2, 3, 4] {
            let (info, problem) = try #require(try Incoming.firstProblem(repo, tip: tip, have: [], threads: threads))
            #expect(info.message == "add 150", "\(threads) threads")
            #expect(problem.path == "early.txt", "\(threads) threads")
            #expect(problem.kind == .pathNotAllowed)
            // And the error `validate` throws names that commit.
            let error = #expect(throws: SyncError.self) { try Incoming.validate(repo, tip: tip, have: [], threads: threads) }
            guard case .remoteData(let violation, _)? = error?.problem else {
                Issue.record("not a refused commit: \(error as Any)")
                continue
            }
            #expect(violation.path == "early.txt")
        }
        // With the older one already held, the later one is what is left.
        let held = try #require(ObjectID(hex: try git("--git-dir", dir.path, "rev-parse", "main~1000", in: dir.path).trimmingCharacters(in: .whitespacesAndNewlines)))
        let (info, problem) = try #require(try Incoming.firstProblem(repo, tip: tip, have: [held], threads: 2))
        #expect(problem.path == "late.txt")
        #expect(info.message == "add 1850")
    }

    /// A line of `count` commits (`main`, each adding a task file, a second apart) with a branch
    /// taken from commit `from`, of `side` commits, merged back as commit `merge`; each side
    /// commit in `sideBad` adds the file named there and in `sideRemoved` removes it; each
    /// commit of the line in `bad` adds the file named there.
    func mergedHistory(
        _ count: Int, from: Int, side: Int, merge: Int, sideBad: [Int: String], sideRemoved: [Int: String] = [:], bad: [Int: String] = [:]
    ) throws -> (dir: TempDir, repo: Repository, tip: ObjectID) {
        let dir = TempDir()
        try git("init", "-q", "--bare", "-b", "main", dir.path, in: dir.path)
        var script = ""
        func data(_ text: String) { script += "data \(text.utf8.count)\n\(text)\n" }
        func commit(_ ref: String, _ mark: Int, _ time: Int, _ message: String) {
            script += "commit \(ref)\nmark :\(mark)\ncommitter Test <test@example.org> \(1_700_000_000 + time) +0000\n"
            data(message)
        }
        func line(_ i: Int) {
            commit("refs/heads/main", i, i * 2, i == merge ? "merge" : "add \(i)")
            if i > 1 { script += "from :\(i - 1)\n" }
            if i == merge {
                // fast-import starts a commit from its first parent's tree: what the branch
                // still holds comes in by hand, as a merge brings it.
                script += "merge :\(10_000 + side)\n"
                for name in Set(sideBad.values).subtracting(sideRemoved.values).sorted() {
                    script += "M 100644 inline \(name)\n"
                    data("not a task\n")
                }
            }
            script += "M 100644 inline \(Self.taskFile(i))\n"
            data("{\"title\":\"task \(i)\"}\n")
            if let name = bad[i] {
                script += "M 100644 inline \(name)\n"
                data("not a task\n")
            }
        }
        // The line up to the merge, the branch (its commits declared before the merge names
        // the last), then the rest of the line.
        for i in 1..<merge { line(i) }
        for j in 1...side {
            commit("refs/heads/side", 10_000 + j, from * 2 + j, "side \(j)")
            script += "from :\(j == 1 ? from : 10_000 + j - 1)\n"
            script += "M 100644 inline \(Self.taskFile(100_000 + j))\n"
            data("{\"title\":\"side \(j)\"}\n")
            if let name = sideBad[j] {
                script += "M 100644 inline \(name)\n"
                data("not a task\n")
            }
            if let name = sideRemoved[j] { script += "D \(name)\n" }
        }
        for i in merge...count { line(i) }
        return try imported(script, into: dir)
    }

    /// A bad file brought in by a merge is reported at the merge, the first commit of the line
    /// from the tip that has it, before a bad commit of the line made later.
    @Test func aBadFileMergedInIsReportedAtTheMergeBeforeALaterOne() throws {
        let (dir, repo, tip) = try mergedHistory(700, from: 100, side: 5, merge: 300, sideBad: [2: "side.txt"], bad: [600: "late.txt"])
        defer { withExtendedLifetime(dir) {} }
        for threads in [1, 2] {
            let (info, problem) = try #require(try Incoming.firstProblem(repo, tip: tip, have: [], threads: threads))
            #expect(info.message == "merge", "\(threads) threads")
            #expect(problem.path == "side.txt", "\(threads) threads")
        }
    }

    /// A bad file added and removed on a branch before its merge leaves the line from the tip
    /// clean: a bad commit of the line is reported, older side commit or not; with no other,
    /// the side commit is.
    @Test func aBadFileGoneBeforeItsMergeYieldsToTheLinesOwn() throws {
        let (dir, repo, tip) = try mergedHistory(
            700, from: 100, side: 5, merge: 300, sideBad: [2: "side.txt"], sideRemoved: [3: "side.txt"], bad: [600: "late.txt"])
        defer { withExtendedLifetime(dir) {} }
        let (info, problem) = try #require(try Incoming.firstProblem(repo, tip: tip, have: [], threads: 2))
        #expect(info.message == "add 600")
        #expect(problem.path == "late.txt")
        let (cleanDir, clean, cleanTip) = try mergedHistory(
            700, from: 100, side: 5, merge: 300, sideBad: [2: "side.txt"], sideRemoved: [3: "side.txt"])
        defer { withExtendedLifetime(cleanDir) {} }
        let (sideInfo, sideProblem) = try #require(try Incoming.firstProblem(clean, tip: cleanTip, have: [], threads: 2))
        #expect(sideInfo.message == "side 2")
        #expect(sideProblem.path == "side.txt")
    }

    @Test func aLongValidHistoryIsCheckedOnSeveralThreadsWithProgressRisingToTheTotal() throws {
        let count = 1500
        let (dir, repo, tip) = try history(count)
        defer { withExtendedLifetime(dir) {} }
        #expect(HistoryCheck.threads(for: count) >= 1)
        var sequential: [Int] = []
        try Incoming.validate(repo, tip: tip, have: [], progress: { done, total in
            #expect(total == count)
            sequential.append(done)
        }, threads: 1)
        #expect(sequential == Array(stride(from: 0, to: count, by: HistoryCheck.progressStep)) + [count])
        for threads in [2, 4] {
            var seen: [Int] = []
            try Incoming.validate(repo, tip: tip, have: [], progress: { done, total in
                #expect(total == count)
                seen.append(done)
            }, threads: threads)
            #expect(seen == sequential, "\(threads) threads")
        }
    }

    @Test func aCloneWhoseHistoryCheckFailsAfterTheWorkTreeIsWrittenLeavesNothing() throws {
        // The tip's tree is clean: the check of the history runs while it is written, and
        // finds the file an old commit added (and the next removed).
        let (dir, _, _) = try history(1200, bad: [100: "junk.txt"], removed: [101: "junk.txt"])
        let home = dir.path + "/bob"
        final class Seen: Sendable {
            let kinds = Mutex<[String]>([])
        }
        let seen = Seen()
        var options = SyncOptions()
        options.home = home
        options.progress = { p in
            let kind: String
            switch p {
            case .writing: kind = "writing"
            case .checking: kind = "checking"
            default: kind = "other"
            }
            seen.kinds.withLock { $0.append(kind) }
        }
        let error = #expect(throws: SyncError.self) {
            try Household.clone(
                home: home, name: "home", url: dir.path, identity: Identity(name: "Bob", email: "bob@example.org"),
                driverCommand: "false", options: options)
        }
        #expect(error?.code == .remoteData)
        let added = try git("--git-dir", dir.path, "rev-parse", "main~1100", in: dir.path)
        guard case .remoteData(let violation, let commit)? = error?.problem else {
            Issue.record("not a refused commit: \(error as Any)")
            return
        }
        #expect(violation.path == "junk.txt")
        #expect(added.hasPrefix(commit.id))
        #expect(seen.kinds.withLock { $0.contains("writing") })
        #expect(access(home + "/home", F_OK) != 0)
    }
}

/// `Repository.copyEverything`, which a clone from a path remote starts with: a repository of
/// several packs (indexed on two threads when there are two cores) and loose objects is copied
/// whole, with progress rising to the total.
@Suite(.timeLimit(.minutes(5))) struct PackCopyTests {
    @Test func everyPackAndLooseObjectIsCopiedWithProgressRisingToTheTotal() throws {
        let dir = TempDir()
        let source = dir.path + "/source.git", target = dir.path + "/target.git"
        try git("init", "-q", "--bare", "-b", "main", source, in: dir.path)
        // Three packs of different sizes, one `git fast-import` each.
        var n = 0
        for size in [300, 40, 120] {
            var script = ""
            for i in 0..<size {
                n += 1
                script += "commit refs/heads/main\ncommitter Test <test@example.org> \(1_700_000_000 + n) +0000\ndata 0\n"
                // The first commit of a later run continues the branch the last run wrote.
                if i == 0 && n > 1 { script += "from refs/heads/main^0\n" }
                let text = "content \(n)\n"
                script += "M 100644 inline f\(n % 50)\ndata \(text.utf8.count)\n\(text)\n"
            }
            let r = try run(["git", "fast-import", "--quiet"], in: source, input: script)
            try #require(r.status == 0, "\(r.stderr)")
        }
        _ = try run(["git", "hash-object", "-w", "--stdin"], in: source, input: "a loose blob\n")
        let packs = try FileManager.default.contentsOfDirectory(atPath: source + "/objects/pack").filter { $0.hasSuffix(".pack") }
        try #require(packs.count == 3)
        func objects(_ gitDir: String) throws -> Set<String> {
            Set(try git("--git-dir", gitDir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)", in: dir.path)
                .split(separator: "\n").map(String.init))
        }
        let all = try objects(source)
        GitLibrary.start()
        let from = try Repository.open(path: source)
        let to = try Repository.create(path: target, bare: true)
        var seen: [Int] = []
        try to.copyEverything(from: from) { done, total in
            #expect(total == all.count)
            seen.append(done)
            return true
        }
        #expect(try objects(target) == all)
        #expect(seen.last == all.count)
        #expect(seen == seen.sorted(), "\(seen)")
        #expect(try git("--git-dir", target, "fsck", "--no-dangling", in: dir.path).isEmpty)
    }
}
