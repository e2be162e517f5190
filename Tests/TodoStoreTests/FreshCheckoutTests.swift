import Foundation
import Testing

@testable import GitKit

/// `Repository.writeFreshWorkTree`, a new member's first checkout on every core: git finds the
/// work tree and the index exactly as its own checkout leaves them (`git status` clean, the
/// index's stat data good), whole as every index todo writes; anything it
/// does not write (a work tree not empty, a link, an executable, an odd name) is left to
/// libgit2 with nothing written.
@Suite(.timeLimit(.minutes(5))) struct FreshCheckoutTests {
    /// A repository with `files` task files in 256 folders and `.gitattributes`, committed on
    /// `main`, and a clone of it without checkout (its packs, no index, an empty work tree).
    func cloneWithoutCheckout(files: Int, config: [String] = []) throws -> (dir: TempDir, clone: String, tree: ObjectID) {
        let dir = TempDir()
        let source = dir.path + "/source"
        try git("init", "-q", "-b", "main", source, in: dir.path)
        var script = "commit refs/heads/main\ncommitter T <t@e> 1700000000 +0000\ndata 1\nx\n"
        script += "M 100644 inline .gitattributes\ndata 29\n*.json merge=todo diff=todo\n\n"
        for i in 0..<files {
            let id = String(format: "%02x%030x", i % 256, i)
            let body = "{\"title\":\"task \(i)\"}\n"
            script += "M 100644 inline tasks/\(id.prefix(2))/\(id).json\ndata \(body.utf8.count)\n\(body)\n"
        }
        let r = try run(["git", "fast-import", "--quiet"], in: source, input: script)
        #expect(r.status == 0, "\(r.stderr)")
        let clone = dir.path + "/clone"
        try git("clone", "-q", "--no-local", "--no-checkout", source, clone, in: dir.path)
        for setting in config { try git("config", setting, "true", in: clone) }
        GitLibrary.start()
        let repo = try Repository.open(path: clone)
        let tip = try #require(try repo.resolve(reference: "refs/heads/main"))
        return (dir, clone, try repo.commit(tip).tree)
    }

    @Test(arguments: [(files: 600, split: false), (files: 600, split: true), (files: 10_000, split: false)])
    func gitFindsTheWorkTreeAndIndexAsItsOwnCheckoutLeavesThem(files: Int, split: Bool) throws {
        let (dir, clone, tree) = try cloneWithoutCheckout(files: files, config: split ? ["core.splitIndex"] : [])
        defer { withExtendedLifetime(dir) {} }
        let repo = try Repository.open(path: clone)
        var reports: [(Int, Int)] = []
        let wrote = try repo.writeFreshWorkTree(
            tree: tree, packs: PackFiles(gitDirectory: repo.gitDirectory), threads: 3, progress: { reports.append(($0, $1)) })
        #expect(wrote)
        // Whole, whatever `core.splitIndex` says (git's own commands below may split it).
        let sharedIndexes = try FileManager.default.contentsOfDirectory(atPath: clone + "/.git").filter { $0.hasPrefix("sharedindex.") }
        #expect(sharedIndexes.isEmpty && !String(decoding: readBytes(clone + "/.git/index") ?? [], as: UTF8.self).contains("link"))
        // Progress rises to the whole, on this thread (the closure is not thread-safe).
        #expect(reports.last.map { $0 == (files + 1, files + 1) } == true)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.0 < $1.0 })
        #expect(try git("status", "--porcelain", in: clone) == "")
        // The stat data is right: nothing for git to look at again.
        #expect(try git("diff-files", "--name-only", in: clone) == "")
        #expect(
            try git("ls-files", "-s", in: clone).split(separator: "\n").map { $0.split(separator: " ").dropFirst().first.map(String.init) ?? "" }
                == (try git("ls-tree", "-r", "HEAD", in: clone).split(separator: "\n").map { String($0.split(separator: " ")[2].prefix(40)) }))
        #expect(try git("fsck", "--no-dangling", in: clone).isEmpty)
    }

    @Test func whatItDoesNotWriteIsLeftToLibgit2WithNothingWritten() throws {
        let (dir, clone, tree) = try cloneWithoutCheckout(files: 20)
        defer { withExtendedLifetime(dir) {} }
        let repo = try Repository.open(path: clone)
        let packs = PackFiles(gitDirectory: repo.gitDirectory)
        let blob = try git("rev-parse", "HEAD:.gitattributes", in: clone).trimmingCharacters(in: .whitespacesAndNewlines)
        for entry in ["120000 blob \(blob)\tlink", "100755 blob \(blob)\trun", "100644 blob \(blob)\ta b", "100644 blob \(blob)\t.GIT"] {
            let odd = try run(["git", "mktree"], in: clone, input: entry + "\n").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try !repo.writeFreshWorkTree(tree: #require(ObjectID(hex: odd)), packs: packs, threads: 2), "\(entry)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: clone) == [".git"])
        }
        // Folders deeper than any household's.
        var deep = try run(["git", "mktree"], in: clone, input: "100644 blob \(blob)\tf\n").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        for _ in 0..<Repository.freshDepth {
            deep = try run(["git", "mktree"], in: clone, input: "040000 tree \(deep)\td\n").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try !repo.writeFreshWorkTree(tree: #require(ObjectID(hex: deep)), packs: packs, threads: 2))
        #expect(try FileManager.default.contentsOfDirectory(atPath: clone) == [".git"])
        // A work tree with something in it is not a fresh one.
        try Data("x".utf8).write(to: URL(fileURLWithPath: clone + "/stray"))
        #expect(try !repo.writeFreshWorkTree(tree: tree, packs: packs, threads: 2))
        #expect(try FileManager.default.contentsOfDirectory(atPath: clone).sorted() == [".git", "stray"])
        #expect(access(clone + "/.git/index", F_OK) != 0)
    }
}
