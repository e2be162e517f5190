import Foundation
import GitFormats
import GitKit
import Testing

/// Bundles GitKit makes are ones git takes (`git bundle verify`, `git clone`, `git fetch`), and
/// bundles git makes, thin ones included, are taken into a repository that has their
/// prerequisites, and refused by name into one that does not.
@Suite(.timeLimit(.minutes(2))) struct BundleTests {
    /// A repository with `commits` commits on `main`, each changing one of twenty files.
    func repository(commits: Int) throws -> TempDir {
        let dir = TempDir()
        try git("init", "-q", "-b", "main", dir.path, in: "/")
        for n in 1...commits {
            for f in 0..<20 where n == 1 || f == n % 20 {
                FileManager.default.createFile(atPath: dir.path + "/f\(f)", contents: Data(String(repeating: "line \(f) of commit \(n)\n", count: 40).utf8))
            }
            try git("add", ".", in: dir.path)
            try git("commit", "-q", "-m", "commit \(n)", in: dir.path)
        }
        return dir
    }

    func id(_ revision: String, in dir: String) throws -> ObjectID {
        try #require(ObjectID(hex: try git("rev-parse", revision, in: dir).trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    @Test func bundlesMadeHereAreGits() throws {
        GitLibrary.start()
        let dir = try repository(commits: 6)
        let repo = try Repository.open(path: dir.path)
        let tip = try id("main", in: dir.path)

        // Whole: git clones it, and the clone is the repository's main.
        let whole = try repo.bundle(tip: tip, base: nil)
        FileManager.default.createFile(atPath: dir.path + "/whole.bundle", contents: Data(whole))
        let clone = TempDir()
        try git("clone", "-q", "-b", "main", dir.path + "/whole.bundle", clone.path + "/c", in: "/")
        #expect(try id("HEAD", in: clone.path + "/c") == tip)
        #expect(try run(["git", "fsck", "--strict"], in: clone.path + "/c").status == 0)

        // On top of main~2: verified where the base is, fetched into a clone that has it, and
        // it holds only what is new (the objects of the last two commits).
        let base = try id("main~2", in: dir.path)
        let more = try repo.bundle(tip: tip, base: base)
        FileManager.default.createFile(atPath: dir.path + "/more.bundle", contents: Data(more))
        #expect(try run(["git", "bundle", "verify", "-q", dir.path + "/more.bundle"], in: dir.path).status == 0)
        let behind = TempDir()
        try git("clone", "-q", "-b", "main", dir.path, behind.path + "/b", in: "/")
        try git("reset", "-q", "--hard", "main~2", in: behind.path + "/b")
        try git("fetch", "-q", dir.path + "/more.bundle", "refs/heads/main:refs/heads/fetched", in: behind.path + "/b")
        #expect(try id("fetched", in: behind.path + "/b") == tip)
        var read: Result<BundleHeader, FormatError>?
        more.withUnsafeBytes { b in
            do throws(FormatError) { read = .success(try BundleHeader(b)) } catch { read = .failure(error) }
        }
        let header = try #require(read).get()
        let count = more[header.packOffset + 8..<header.packOffset + 12].reduce(0) { $0 << 8 | Int($1) }
        #expect(count == 2 * 3, "two commits, each with its tree and one changed file: \(count) objects")
        #expect(more.count < whole.count / 2)
    }

    @Test func bundlesGitMakesAreTakenThinOnesToo() throws {
        GitLibrary.start()
        let dir = try repository(commits: 6)
        let tip = try id("main", in: dir.path)
        try git("bundle", "create", "-q", dir.path + "/thin.bundle", "main", "^main~3", in: dir.path)
        let thin = Array(try Data(contentsOf: URL(fileURLWithPath: dir.path + "/thin.bundle")))

        // A repository that has main~3 takes it, bases of the thin pack included.
        let behind = TempDir()
        try git("clone", "-q", "-b", "main", dir.path, behind.path + "/b", in: "/")
        try git("reset", "-q", "--hard", "main~3", in: behind.path + "/b")
        try git("remote", "remove", "origin", in: behind.path + "/b")
        try git("reflog", "expire", "--expire=now", "--all", in: behind.path + "/b")
        try git("gc", "-q", "--prune=now", in: behind.path + "/b")
        #expect(try run(["git", "cat-file", "-e", tip.hex], in: behind.path + "/b").status != 0, "the clone lacks the tip before")
        let repo = try Repository.open(path: behind.path + "/b")
        let header = try repo.unbundle(thin)
        #expect(header.references.count == 1 && header.references[0].name == "refs/heads/main")
        #expect(try repo.contains(tip))
        try git("update-ref", "refs/heads/taken", tip.hex, in: behind.path + "/b")
        #expect(try run(["git", "fsck", "--strict", "--no-dangling"], in: behind.path + "/b").status == 0)

        // One that lacks the prerequisite refuses it, naming the commit, and takes nothing.
        let empty = TempDir()
        try git("init", "-q", empty.path, in: "/")
        let bare = try Repository.open(path: empty.path)
        let base = try id("main~3", in: dir.path)
        #expect(throws: BundleProblem.missingPrerequisite(base)) { _ = try bare.unbundle(thin) }
        #expect(try run(["git", "count-objects", "-v"], in: empty.path).stdout.contains("in-pack: 0"))

        // A damaged header is refused as such.
        var damaged = thin
        damaged[3] = UInt8(ascii: "9")
        #expect(throws: BundleProblem.format(.badSignature(.bundle, at: 0))) { _ = try bare.unbundle(damaged) }
    }
}
