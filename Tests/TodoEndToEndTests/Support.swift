#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import Foundation
import TestKit
import Testing
import TodoCore

/// 2025-11-20 09:00:00 UTC, a Thursday: the clock every test fixes through `TODO_NOW`.
let fixedNow: Int64 = 1_763_629_200_000

/// The package root, found from this file's place in `Tests/TodoEndToEndTests/`.
let packageRoot: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()

let fixturesDirectory = packageRoot + "/fixtures/tasks"

// MARK: - Locating the binary

/// The `todo` executable under test: `$TODO_BIN`, else the `todo` built beside the test bundle
/// (whatever the scratch path), else one in a scratch directory of the package.
let todoBinary: String = {
    if let explicit = environment("TODO_BIN") { return explicit }
    var starts: [String] = []
    if let exe = resolvedLink("/proc/self/exe") { starts.append(exe) }
    if let first = CommandLine.arguments.first, first.hasPrefix("/") { starts.append(first) }
    if let bundle = Bundle.main.executablePath { starts.append(bundle) }
    // The test bundle lives in `<scratch>/<triple>/debug/` (inside an .xctest bundle on macOS),
    // next to the products: walk up a few directories looking for `todo`.
    for start in starts {
        var dir = directoryName(start)
        for _ in 0..<5 {
            if isExecutableFile(dir + "/todo") { return dir + "/todo" }
            dir = directoryName(dir)
        }
    }
    for scratch in [".build-e2e", ".build"] {
        for config in ["debug", "release"] {
            let candidate = "\(packageRoot)/\(scratch)/\(config)/todo"
            if isExecutableFile(candidate) { return candidate }
        }
    }
    return "todo-binary-not-found"
}()

func environment(_ name: String) -> String? {
    guard let v = getenv(name) else { return nil }
    let s = String(cString: v)
    return s.isEmpty ? nil : s
}

func resolvedLink(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink(path, &buffer, buffer.count - 1)
    guard n > 0 else { return nil }
    return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

func directoryName(_ path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

func isExecutableFile(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
}

// MARK: - Processes

/// How a finished process ended, and what it printed.
struct Run: CustomStringConvertible {
    let command: [String]
    /// The exit code, or nil when a signal ended the process.
    let exitCode: Int32?
    let signal: Int32?
    let stdoutBytes: [UInt8]
    let stderrBytes: [UInt8]

    var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }
    var stderr: String { String(decoding: stderrBytes, as: UTF8.self) }
    var succeeded: Bool { exitCode == 0 }
    /// Stdout without its trailing newline, split into lines.
    var lines: [String] {
        let text = stdout.hasSuffix("\n") ? String(stdout.dropLast()) : stdout
        return text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    var description: String {
        let how = exitCode.map { "exit \($0)" } ?? "signal \(signal ?? -1)"
        return "$ \(command.joined(separator: " ")) -> \(how)\n--- stdout:\n\(stdout)--- stderr:\n\(stderr)"
    }
}

/// A started process that has not been waited for.
struct Spawned {
    let pid: pid_t
    let command: [String]
    let stdoutPath: String
    let stderrPath: String

    /// Waits for the process (never `waitpid(-1)`: tests run in parallel and own their children).
    func wait() -> Run {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { break }
        }
        let low = status & 0x7F
        return Run(
            command: command,
            exitCode: low == 0 ? (status >> 8) & 0xFF : nil,
            signal: low == 0 ? nil : low,
            stdoutBytes: readBytes(stdoutPath) ?? [],
            stderrBytes: readBytes(stderrPath) ?? [])
    }

    /// Sends SIGKILL after `microseconds` (the delay only picks where the kill lands) and waits.
    func kill(after microseconds: UInt32) -> Run {
        usleep(microseconds)
        _ = Glibc.kill(pid, SIGKILL)
        return wait()
    }
}

struct SpawnError: Error, CustomStringConvertible {
    let description: String
}

/// Starts `path` with exactly `environment`; standard output and error go to files (no pipes to
/// drain, so no deadlock whatever the process prints), standard input comes from `stdinPath`.
func spawn(
    _ path: String, _ arguments: [String], environment: [String: String], stdinPath: String,
    stdoutPath: String, stderrPath: String
) throws -> Spawned {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let (rc, pid) = posixSpawn(path, arguments, environment: environment, actions: &actions, attributes: nil)
    if rc != 0 {
        throw SpawnError(
            description: "cannot start \(path): \(String(cString: strerror(rc))). "
                + "Build it first (swift build --scratch-path .build-e2e) or set TODO_BIN.")
    }
    return Spawned(pid: pid, command: [path] + arguments, stdoutPath: stdoutPath, stderrPath: stderrPath)
}

/// `posix_spawn` of `path` with `arguments` and exactly `environment`: its result and the pid.
func posixSpawn(
    _ path: String, _ arguments: [String], environment: [String: String], actions: inout posix_spawn_file_actions_t,
    attributes: UnsafePointer<posix_spawnattr_t>?
) -> (rc: Int32, pid: pid_t) {
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, path, &actions, attributes, argv, envp)
    return (rc, pid)
}

func readBytes(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
}

func writeBytes(_ path: String, _ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Where `git` is; tests judge what `todo` wrote with the git CLI.
let gitBinary: String = {
    for dir in ["/usr/bin", "/usr/local/bin", "/bin", "/opt/homebrew/bin"] where isExecutableFile(dir + "/git") {
        return dir + "/git"
    }
    return "/usr/bin/git"
}()

// MARK: - Sandbox

/// One test's world: a temporary directory holding `HOME` and `TODO_HOME`, removed afterwards.
/// Every process gets exactly the environment built here, nothing inherited but `PATH`.
final class Sandbox {
    let root: String
    let home: String
    var todoHome: String
    /// `TODO_NOW` for every `todo` run; nil lets the real clock run.
    var now: Int64?
    private var counter = 0

    init(now: Int64? = fixedNow) throws {
        var template = Array((NSTemporaryDirectory() + "/todo-e2e.XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw SpawnError(description: "mkdtemp failed: \(String(cString: strerror(errno)))")
        }
        root = resolvedPath(String(cString: made))
        home = root + "/home"
        todoHome = root + "/todo"
        self.now = now
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/io", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: root + "/io/empty", contents: Data())
    }

    deinit {
        if environment("TODO_E2E_KEEP") == nil { try? FileManager.default.removeItem(atPath: root) }
    }

    /// The repository of household `name`.
    func repo(_ name: String = "home") -> String { todoHome + "/" + name }

    var baseEnvironment: [String: String] {
        [
            "PATH": environment("PATH") ?? "/usr/local/bin:/usr/bin:/bin",
            "HOME": home,
            "XDG_CONFIG_HOME": home + "/.config",
            "TODO_HOME": todoHome,
            "NO_COLOR": "1",
            "TZ": "UTC",
            "LC_ALL": "C",
            "GIT_CONFIG_NOSYSTEM": "1",
        ]
    }

    func todoEnvironment(_ extra: [String: String]) -> [String: String] {
        var env = baseEnvironment
        if let now { env["TODO_NOW"] = String(now) }
        env.merge(extra) { _, new in new }
        return env
    }

    func nextIO() -> (String, String) {
        counter += 1
        return ("\(root)/io/\(counter).out", "\(root)/io/\(counter).err")
    }

    /// Writes `text` to a file in the sandbox and returns its path (for stdin or `todo import`).
    func file(_ name: String, _ text: String) throws -> String {
        let path = root + "/io/" + name
        try writeBytes(path, Array(text.utf8))
        return path
    }

    /// Starts `todo` without waiting (for kill tests).
    func start(_ args: [String], env: [String: String] = [:]) throws -> Spawned {
        let (out, err) = nextIO()
        return try spawn(
            todoBinary, args, environment: todoEnvironment(env), stdinPath: root + "/io/empty", stdoutPath: out,
            stderrPath: err)
    }

    /// Runs `todo` to completion.
    func todo(_ args: String..., stdin: String? = nil, env: [String: String] = [:]) throws -> Run {
        try todo(args, stdin: stdin, env: env)
    }

    func todo(_ args: [String], stdin: String? = nil, env: [String: String] = [:]) throws -> Run {
        let (out, err) = nextIO()
        let input = try stdin.map { try file("\(counter).in", $0) } ?? root + "/io/empty"
        return try spawn(
            todoBinary, args, environment: todoEnvironment(env), stdinPath: input, stdoutPath: out, stderrPath: err
        ).wait()
    }

    /// Runs the git CLI in household `household`'s repository.
    func git(_ args: String..., in household: String = "home") throws -> Run {
        try gitRun(["-C", repo(household)] + args)
    }

    func gitRun(_ args: [String], env: [String: String] = [:]) throws -> Run {
        let (out, err) = nextIO()
        var e = baseEnvironment
        e.merge(env) { _, new in new }
        return try spawn(gitBinary, args, environment: e, stdinPath: root + "/io/empty", stdoutPath: out, stderrPath: err)
            .wait()
    }

    /// Runs `sh -c script` with the `todo` environment and `$TODO` naming the binary.
    func shell(_ script: String) throws -> Spawned {
        let (out, err) = nextIO()
        return try spawn(
            "/bin/sh", ["-c", script], environment: todoEnvironment(["TODO": todoBinary]),
            stdinPath: root + "/io/empty", stdoutPath: out, stderrPath: err)
    }
}

func resolvedPath(_ path: String) -> String {
    guard let r = realpath(path, nil) else { return path }
    defer { free(r) }
    return String(cString: r)
}

// MARK: - Household helpers

/// A task as the tests know it: the full id and the short id `todo` printed.
struct TaskRef {
    let id: String
    let short: String
    var path: String { "tasks/\(id.prefix(2))/\(id).json" }
}

extension Sandbox {
    /// `todo init` as Alice; fails the test if it does not work.
    @discardableResult
    func initHousehold(
        _ name: String = "home", member: String = "Alice", email: String = "alice@example.org",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Run {
        let r = try todo("init", "--household", name, "--name", member, "--email", email)
        #expect(r.exitCode == 0, "\(r)", sourceLocation: sourceLocation)
        return r
    }

    /// `todo add` with `args`; returns the new task's full id (from `show --json`) and short id.
    func add(_ args: String..., household: String = "home", sourceLocation: SourceLocation = #_sourceLocation)
        throws -> TaskRef
    {
        let r = try todo(["add", "-H", household] + args)
        try #require(r.exitCode == 0, "\(r)", sourceLocation: sourceLocation)
        let short = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let shown = try todo("show", "-H", household, "--json", short)
        try #require(shown.exitCode == 0, "\(shown)", sourceLocation: sourceLocation)
        let id = try #require(try json(shown.stdout)["id"]?.stringValue, sourceLocation: sourceLocation)
        return TaskRef(id: id, short: short)
    }

    /// Commit ids on `main`, newest first.
    func commits(_ household: String = "home") throws -> [String] {
        let r = try git("rev-list", "refs/heads/main", in: household)
        return r.lines
    }

    func subject(_ rev: String = "refs/heads/main", household: String = "home") throws -> String {
        try git("log", "-1", "--format=%s", rev, in: household).stdout.trimmingCharacters(in: .newlines)
    }

    func author(_ rev: String = "refs/heads/main", household: String = "home") throws -> String {
        try git("log", "-1", "--format=%an <%ae>", rev, in: household).stdout.trimmingCharacters(in: .newlines)
    }

    /// The committed bytes of `path` on `main`.
    func committedBytes(_ path: String, household: String = "home") throws -> [UInt8] {
        try git("cat-file", "blob", "refs/heads/main:\(path)", in: household).stdoutBytes
    }

    /// Checks that the work tree and index match `main` and that git finds the repository sound.
    func expectClean(_ household: String = "home", sourceLocation: SourceLocation = #_sourceLocation) throws {
        let status = try git("status", "--porcelain", "--untracked-files=all", in: household)
        #expect(status.exitCode == 0 && status.stdout.isEmpty, "\(status)", sourceLocation: sourceLocation)
        let fsck = try git("fsck", "--strict", "--no-progress", in: household)
        #expect(fsck.exitCode == 0, "\(fsck)", sourceLocation: sourceLocation)
    }

    func expectStatusEmpty(_ household: String = "home", sourceLocation: SourceLocation = #_sourceLocation) throws {
        let status = try git("status", "--porcelain", "--untracked-files=all", in: household)
        #expect(status.exitCode == 0 && status.stdout.isEmpty, "\(status)", sourceLocation: sourceLocation)
    }

    /// Commits files written by hand (as another tool or a person would) with the git CLI.
    func commitByHand(_ files: [(String, [UInt8])], message: String, household: String = "home") throws {
        for (path, bytes) in files {
            let full = repo(household) + "/" + path
            try FileManager.default.createDirectory(atPath: directoryName(full), withIntermediateDirectories: true)
            try writeBytes(full, bytes)
        }
        let add = try gitRun(["-C", repo(household), "add", "--"] + files.map(\.0))
        try #require(add.exitCode == 0, "\(add)")
        let commit = try git("commit", "-q", "-m", message, in: household)
        try #require(commit.exitCode == 0, "\(commit)")
    }
}

// MARK: - JSON

/// Parses JSON keeping key order (so tests can check it), with TodoCore's strict parser.
func json(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

extension JSONValue {
    var keys: [String] {
        if case .object(let members) = self { return members.map(\.0) }
        return []
    }

    var items: [JSONValue] {
        if case .array(let items) = self { return items }
        return []
    }

    var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    var isNull: Bool { self == .null }

    var strings: [String] { items.compactMap(\.stringValue) }
}

/// The keys of a task in `--json` output: the file's field names, in file order, without clocks.
let publicTaskKeys = [
    "id", "title", "status", "notes", "assignee", "due", "tags", "priority", "createdAt", "createdBy", "deleted",
]

/// A task file in its canonical layout: decoding and encoding again gives the same bytes.
func expectCanonical(_ bytes: [UInt8], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        let task = try TaskCodec.decode(bytes)
        #expect(TaskCodec.encode(task) == bytes, "\(what) is not in canonical form", sourceLocation: sourceLocation)
    } catch {
        Issue.record("\(what) cannot be decoded: \(error)", sourceLocation: sourceLocation)
    }
    #expect(bytes.last == 0x0A, "\(what) lacks a trailing newline", sourceLocation: sourceLocation)
}

/// A golden file from `fixtures/tasks/` with `{{ID}}` and `{{REPLICA}}` filled in.
func golden(_ name: String, id: String, replica: String) throws -> String {
    let text = try String(contentsOfFile: fixturesDirectory + "/" + name, encoding: .utf8)
    return text.replacingOccurrences(of: "{{ID}}", with: id).replacingOccurrences(of: "{{REPLICA}}", with: replica)
}

/// A deterministic 32-hex-digit id from a readable prefix, for imported tasks with chosen ids.
func chosenID(_ prefix: String, _ n: Int = 0) -> String {
    let tail = String(n, radix: 16)
    return prefix + String(repeating: "0", count: 32 - prefix.count - tail.count) + tail
}

/// A JSON array for `todo import` from object texts (written by the tests, not by `todo`).
func jsonArray(_ objects: [String]) -> String { "[\n" + objects.joined(separator: ",\n") + "\n]\n" }

/// A JSON object with string members, in the order given.
func jsonObject(_ members: KeyValuePairs<String, String>) -> String {
    "{" + members.map { "\(quoted($0.key)): \(quoted($0.value))" }.joined(separator: ", ") + "}"
}

func quoted(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        default:
            if u.value < 0x20 {
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(u)
            }
        }
    }
    return out + "\""
}

/// The seeded generator of random tests (SplitMix64), so that a failing run can be replayed.
typealias SeededRandom = SplitMix64
