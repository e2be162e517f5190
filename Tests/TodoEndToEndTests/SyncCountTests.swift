import Glibc
import Foundation
import Testing

/// How many calls that make writes durable (fsync, fdatasync, syncfs, sync_file_range, msync,
/// sync) each writing command makes, counted by a preload library (`scripts/bench/syncprobe.c`)
/// that this suite builds with `cc`. On a laptop SSD each costs 0.5-3 ms and on an SD card up
/// to 20 ms, so the counts are a contract (docs/FORMAT.md, "Concurrency and crashes"): a
/// one-task change makes exactly three, one of each of fdatasync (the pending-change record),
/// syncfs (objects, ref lock, reflogs) and fsync (`refs/heads` after the rename). Fewer would
/// mean a change that does not survive power loss; more, a slower change.
@Suite(.timeLimit(.minutes(20)), .kit) struct SyncCountTests {
    /// The preload library, built once per process into a temporary directory.
    static let probe: Result<String, SpawnError> = {
        let source = packageRoot + "/scripts/bench/syncprobe.c"
        var compiler: String?
        for dir in ["/usr/bin", "/usr/local/bin", "/bin"] where isExecutableFile(dir + "/cc") {
            compiler = dir + "/cc"
            break
        }
        guard let compiler else {
            return .failure(SpawnError(description: "no C compiler (cc): install Debian's gcc package (apt-get install gcc)"))
        }
        let dir = NSTemporaryDirectory() + "/todo-syncprobe-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let library = dir + "/syncprobe.so"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 2, dir + "/cc.err", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let (rc, pid) = posixSpawn(
            compiler, ["-shared", "-fPIC", "-O2", "-o", library, source, "-ldl"],
            environment: ["PATH": "/usr/bin:/bin"], actions: &actions, attributes: nil)
        if rc != 0 { return .failure(SpawnError(description: "cannot run \(compiler): \(String(cString: strerror(rc)))")) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if status != 0 || !FileManager.default.fileExists(atPath: library) {
            let err = readBytes(dir + "/cc.err").map { String(decoding: $0, as: UTF8.self) } ?? ""
            return .failure(SpawnError(description: "cc could not build \(source): \(err)"))
        }
        return .success(library)
    }()

    /// The calls one run of `todo args` makes, by name, summed over the processes it started.
    static func count(_ sb: Sandbox, _ args: [String], stdin: String? = nil) throws -> (run: Run, calls: [String: Int]) {
        let library = try probe.get()
        let out = sb.root + "/io/syncprobe-\(UInt64.random(in: 0...UInt64.max)).txt"
        let run = try sb.todo(args, stdin: stdin, env: ["LD_PRELOAD": library, "SYNCPROBE_OUT": out])
        var calls: [String: Int] = [:]
        let text = readBytes(out).map { String(decoding: $0, as: UTF8.self) } ?? ""
        for line in text.split(separator: "\n") {
            for field in line.split(separator: " ").dropFirst() {
                let parts = field.split(separator: "=")
                if parts.count == 2, let n = Int(parts[1]) { calls[String(parts[0]), default: 0] += n }
            }
        }
        return (run, calls)
    }

    static func total(_ calls: [String: Int]) -> Int { calls.values.reduce(0, +) }

    @Test func aOneTaskChangeMakesThreeSyncCalls() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let a = try sb.add("First")
        let b = try sb.add("Second")
        let c = try sb.add("Third")
        let changes: [[String]] = [
            ["add", "Fourth", "--due", "friday", "--tag", "x"],
            ["edit", a.short, "--title", "First, renamed", "--priority", "high"],
            ["done", a.short],
            ["reopen", a.short],
            ["rm", b.short],
            ["restore", b.short],
            ["done", a.short, b.short, c.short],
        ]
        for args in changes {
            let (run, calls) = try Self.count(sb, args)
            try #require(run.exitCode == 0, "\(run)")
            #expect(calls["fdatasync"] == 1 && calls["syncfs"] == 1 && calls["fsync"] == 1 && Self.total(calls) == 3,
                "todo \(args.joined(separator: " ")): \(calls)")
        }
        try sb.expectClean()
    }

    @Test func aChangeThatChangesNothingSyncsNothing() throws {
        let sb = try Sandbox()
        try sb.initHousehold()
        let a = try sb.add("Only")
        let done = try sb.todo("done", a.short)
        try #require(done.exitCode == 0, "\(done)")
        let (run, calls) = try Self.count(sb, ["edit", a.short, "--title", "Only"])
        #expect(run.exitCode == 0, "\(run)")
        #expect(Self.total(calls) == 0, "\(calls)")
    }

    /// The first commit also makes the pending-change record's name durable; a bulk import
    /// writes one pack, which libgit2 fsyncs (pack, index, folder) before the record.
    @Test func initAndImportStayWithinTheirCounts() throws {
        let sb = try Sandbox()
        let (initRun, initCalls) = try Self.count(sb, ["init", "--name", "Alice", "--email", "alice@example.org"])
        try #require(initRun.exitCode == 0, "\(initRun)")
        #expect(initCalls["fdatasync"] == 1 && initCalls["syncfs"] == 1 && Self.total(initCalls) <= 4, "init: \(initCalls)")
        let items = (0..<100).map { "{\"title\": \"Imported \($0)\"}" }.joined(separator: ",")
        let (importRun, importCalls) = try Self.count(sb, ["import", "-"], stdin: "[\(items)]")
        try #require(importRun.exitCode == 0, "\(importRun)")
        #expect(Self.total(importCalls) >= 3 && Self.total(importCalls) <= 8, "import: \(importCalls)")
        try sb.expectClean()
    }
}
