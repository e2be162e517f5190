import Foundation
import Testing
import TodoCore

@testable import TodoStore

/// Every fixtures/merge case merged for real: in process on real repositories (as `todo sync`
/// does) and by plain `git merge` with `todo merge-driver` configured, each both ways round.
@Suite(.timeLimit(.minutes(20)), .kit) struct MergeThroughGitTests {
    struct Case: CustomStringConvertible {
        let name: String
        let dir: String
        var description: String { name }

        func file(_ n: String) -> Data? { FileManager.default.contents(atPath: "\(dir)/\(n)") }
        var base: Data? { file("base.json") }
        var ours: Data? { file("ours.json") }
        var theirs: Data? { file("theirs.json") }
        var expected: Data? { file("expected.json") }

        /// The task's path, from whichever side names a valid id.
        var path: String {
            for data in [ours, theirs, base].compactMap({ $0 }) {
                if let id = (try? JSONParser.parse(Array(data)))?["id"]?.stringValue, let tid = TaskID(id) {
                    return tid.path
                }
            }
            return TaskID("0123456789abcdef0123456789abcdef")!.path
        }
    }

    static let cases: [Case] = {
        let root = fixturesRoot + "/merge"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.sorted().map { Case(name: $0, dir: "\(root)/\($0)") }
    }()

    @Test func thereAreCases() {
        #expect(Self.cases.count >= 13)
    }

    /// Commits base on main, `mine` on main and `other` on branch `other`, with git.
    func prepare(_ repo: String, path: String, base: Data?, mine: Data?, other: Data?) throws {
        let full = "\(repo)/\(path)"
        func put(_ data: Data?, _ message: String) throws {
            if let data {
                // A checkout may have removed the folder along with the file.
                try FileManager.default.createDirectory(
                    atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try data.write(to: URL(fileURLWithPath: full))
                try git("add", path, in: repo)
            } else if FileManager.default.fileExists(atPath: full) {
                try git("rm", "-q", path, in: repo)
            }
            try git("commit", "-q", "--allow-empty", "-m", message, in: repo)
        }
        try put(base, "base")
        try git("branch", "other", in: repo)
        try put(mine, "mine")
        try git("checkout", "-q", "other", in: repo)
        try put(other, "other")
        try git("checkout", "-q", "main", in: repo)
    }

    @Test(arguments: cases)
    func inProcessAsSyncMerges(_ c: Case) throws {
        for swapped in [false, true] {
            let tmp = TempDir()
            let h = try Household.create(
                home: tmp.path, name: "h", identity: Identity(name: "Merger", email: "m@example.org"),
                clock: .fixed(1_800_000_000_000), driverCommand: "false")
            try prepare(h.path, path: c.path, base: c.base, mine: swapped ? c.theirs : c.ours, other: swapped ? c.ours : c.theirs)
            let outcome = Result { try h.merge(reference: "refs/heads/other", message: "merge") }
            if let expected = c.expected {
                _ = try outcome.get()
                let merged = FileManager.default.contents(atPath: "\(h.path)/\(c.path)")
                #expect(merged == expected, "\(c.name) swapped=\(swapped): work tree differs from expected.json")
                let committed = try run(["git", "show", "HEAD:\(c.path)"], in: h.path).stdout
                #expect(Data(committed.utf8) == expected, "\(c.name) swapped=\(swapped): HEAD differs")
                #expect(try git("status", "--porcelain", in: h.path).isEmpty)
                #expect(try run(["git", "fsck", "--strict"], in: h.path).status == 0)
                let parents = try git("log", "-1", "--format=%P", in: h.path).split(separator: " ")
                #expect(parents.count == 2)
            } else {
                // No file can be produced: nothing is merged or committed.
                guard case .failure(let error) = outcome, case .mergeFailed? = error as? StoreError else {
                    Issue.record("\(c.name) swapped=\(swapped): expected the merge to fail")
                    continue
                }
                #expect(try git("log", "-1", "--format=%s", in: h.path) == "mine\n")
                #expect(try git("status", "--porcelain", in: h.path).isEmpty)
            }
        }
    }

    @Test(arguments: cases)
    func plainGitMergeWithTheDriver(_ c: Case) throws {
        // git never hands a modify/delete to a merge driver; todo sync resolves those itself.
        if c.ours == nil || c.theirs == nil { return }
        for swapped in [false, true] {
            let tmp = TempDir()
            let repo = tmp.path + "/r"
            try git("init", "-q", "-b", "main", repo, in: tmp.path)
            try "tasks/**/*.json merge=todo\n".write(toFile: repo + "/.gitattributes", atomically: true, encoding: .utf8)
            try git("config", "merge.todo.driver", "'\(todoBinary())' merge-driver %O %A %B %P", in: repo)
            try git("add", ".gitattributes", in: repo)
            try git("commit", "-q", "-m", "attributes", in: repo)
            try prepare(repo, path: c.path, base: c.base, mine: swapped ? c.theirs : c.ours, other: swapped ? c.ours : c.theirs)
            let r = try run(["git", "merge", "--no-edit", "other"], in: repo)
            let merged = FileManager.default.contents(atPath: "\(repo)/\(c.path)")
            if let expected = c.expected {
                #expect(r.status == 0, "\(c.name) swapped=\(swapped): git merge failed: \(r.stderr)")
                #expect(merged == expected, "\(c.name) swapped=\(swapped): git merge gave different bytes")
            } else {
                #expect(r.status != 0)
                let text = String(decoding: merged ?? Data(), as: UTF8.self)
                #expect(!text.contains("<<<<<<<") && !text.contains(">>>>>>>"), "conflict markers written")
            }
        }
    }
}
