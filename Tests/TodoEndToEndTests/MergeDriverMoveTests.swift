import Glibc
import Foundation
import Testing
import TodoCore

/// The merge driver that plain `git merge` runs keeps working when the `todo` binary is moved
/// or reinstalled elsewhere: `todo` on PATH is configured by name, and a setting that names a
/// binary that is gone is repaired by the next command.
@Suite(.timeLimit(.minutes(20)), .kit) struct MergeDriverMoveTests {
    /// A copy of the binary under test at `dir/todo`.
    func install(in dir: String) throws -> String {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let target = dir + "/todo"
        // Copied by a child process: a file this process held open for writing could be
        // inherited by a child another test starts meanwhile, and could not be run while that
        // child lives ("text file busy").
        let (out, err) = (dir + "/.cp.out", dir + "/.cp.err")
        let cp = try spawn("/bin/cp", [todoBinary, target], environment: [:], stdinPath: "/dev/null", stdoutPath: out, stderrPath: err).wait()
        try #require(cp.exitCode == 0, "\(cp)")
        return target
    }

    /// Runs the binary at `binary` as `m` would, with `path` as PATH.
    func run(_ binary: String, _ m: Member, _ args: [String], path: String? = nil) throws -> Run {
        var env = m.sb.todoEnvironment(m.env)
        if let path { env["PATH"] = path }
        let (out, err) = m.sb.nextIO()
        return try spawn(binary, args, environment: env, stdinPath: m.sb.root + "/io/empty", stdoutPath: out, stderrPath: err).wait()
    }

    func driver(_ m: Member) throws -> String {
        try m.git("config", "merge.todo.driver").stdout.trimmingCharacters(in: .newlines)
    }

    @Test func aMovedBinaryIsRepairedAndPlainGitMergeWorks() throws {
        let host = try GitHost(.path)
        defer { withExtendedLifetime(host) {} }
        try host.createRepository()
        let url = host.url()
        let alice = try Member("Alice", host: host)
        try alice.create(remote: url)
        let milk = try alice.add("Buy milk")
        try alice.sync()

        let bob = try Member("Bob", host: host)
        let first = try install(in: bob.sb.root + "/opt/one/bin")
        let joined = try run(first, bob, ["clone", url, "--name", "Bob", "--email", bob.email])
        try #require(joined.exitCode == 0, "\(joined)")
        #expect(try driver(bob) == "'\(first)' merge-driver %O %A %B %P")

        // Reinstalled elsewhere; the old binary is gone.
        let second = try install(in: bob.sb.root + "/opt/two/bin")
        try FileManager.default.removeItem(atPath: first)
        let edit = try run(second, bob, ["edit", milk.short, "--due", "2025-11-25"])
        try #require(edit.exitCode == 0, "\(edit)")
        #expect(try driver(bob) == "'\(second)' merge-driver %O %A %B %P")

        // Alice renames the task meanwhile; Bob merges with plain git.
        try alice.change("edit", milk.short, "--title", "Buy oat milk")
        try alice.sync()
        #expect(try bob.git("fetch", "-q", "origin").exitCode == 0)
        let merge = try bob.git("merge", "-q", "--no-edit", "refs/remotes/origin/main")
        #expect(merge.exitCode == 0, "\(merge)")
        let merged = try json(try run(second, bob, ["show", "--json", milk.short]).stdout)
        #expect(merged["title"]?.stringValue == "Buy oat milk" && merged["due"]?.stringValue == "2025-11-25", "\(merged)")
        try bob.expectClean()
    }

    @Test(needsNotInstalled("todo")) func todoOnPathIsConfiguredByName() throws {
        let m = try Member("Alice", host: nil)
        let dir = m.sb.root + "/bin"
        let binary = try install(in: dir)
        let path = dir + ":" + (environment("PATH") ?? "/usr/bin:/bin")
        let r = try run(binary, m, ["init", "--name", "Alice", "--email", m.email], path: path)
        try #require(r.exitCode == 0, "\(r)")
        #expect(try driver(m) == "todo merge-driver %O %A %B %P")
        // Running a copy that is not the one on PATH leaves a working setting alone.
        let other = try run(todoBinary, m, ["list"], path: path)
        #expect(other.exitCode == 0, "\(other)")
        #expect(try driver(m) == "todo merge-driver %O %A %B %P")
        // `todo` gone from PATH: git's PATH may differ from ours, so commands leave the setting
        // alone; `todo doctor` reports it and `--fix` names this binary by its path.
        try FileManager.default.removeItem(atPath: binary)
        let list = try run(todoBinary, m, ["list"], path: path)
        #expect(list.exitCode == 0, "\(list)")
        #expect(try driver(m) == "todo merge-driver %O %A %B %P")
        let doctor = try run(todoBinary, m, ["doctor", "--offline"], path: path)
        #expect(doctor.exitCode == 65 && doctor.stdout.contains("problem: merge-driver: "), "\(doctor)")
        let fix = try run(todoBinary, m, ["doctor", "--offline", "--fix"], path: path)
        #expect(fix.exitCode == 0 && fix.stdout.contains("fixed: merge-driver: "), "\(fix)")
        #expect(try driver(m) == "'\(resolvedPath(todoBinary))' merge-driver %O %A %B %P")
    }
}
