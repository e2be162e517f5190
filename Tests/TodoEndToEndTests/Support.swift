import Foundation
import Synchronization
import Testing
import TodoCore

// Every file of this target sees the test kit: processes, temporary directories, servers.
@_exported import TestKit

/// 2025-11-20 09:00:00 UTC, a Thursday: the clock every test fixes through `TODO_NOW`.
let fixedNow: Int64 = 1_763_629_200_000

/// The `todo` executable under test (see `todoExecutable`).
let todoBinary = todoExecutable

/// The golden task files and import samples.
let fixturesDirectory = fixture("tasks")

// MARK: - Sandbox

/// One test's world: a temporary directory holding `HOME` and `TODO_HOME`, removed afterwards.
/// Every process gets exactly the environment built here, nothing of the test runner's.
final class Sandbox {
    private let directory: TemporaryDirectory
    let root: String
    let home: String
    var todoHome: String
    /// `TODO_NOW` for every `todo` run; nil lets the real clock run.
    var now: Int64?
    /// The `todo` this sandbox runs: the one under test, or an older build (OlderVersionTests).
    var binary = todoBinary
    /// `TODO_ID_SEED` for every `todo` run: from the test's name and this sandbox's place among
    /// the test's sandboxes, so that ids (task and replica) are the same on every run.
    var idSeed = SandboxSeeds.next()
    private var counter = 0

    init(now: Int64? = fixedNow) throws {
        directory = TemporaryDirectory("todo-e2e")
        root = directory.path
        home = root + "/home"
        todoHome = root + "/todo"
        self.now = now
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/io", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: root + "/io/empty", contents: Data())
    }

    /// The repository of household `name`.
    func repo(_ name: String = "home") -> String { todoHome + "/" + name }

    var baseEnvironment: [String: String] {
        hermeticEnvironment(
            home: home, ["XDG_CONFIG_HOME": home + "/.config", "TODO_HOME": todoHome, "NO_COLOR": "1"])
    }

    func todoEnvironment(_ extra: [String: String]) -> [String: String] {
        var env = baseEnvironment
        if let now { env["TODO_NOW"] = String(now) }
        env["TODO_ID_SEED"] = String(idSeed)
        // No housekeeping in the background unless a test asks for it (HousekeepingTests): a
        // detached `todo maintenance` would race with what a test checks (`git fsck` lists
        // the packs, then opens them).
        env["TODO_MAINTENANCE_THRESHOLD"] = "off"
        env.merge(extra) { _, new in new }
        return env
    }

    /// Files for the standard output and error of the next process, kept with the sandbox.
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

    /// Starts `program` with `environment`, standard input from `stdin` (else nothing).
    private func spawnHere(
        _ program: String, _ args: [String], environment: [String: String], stdin: String? = nil,
        sourceLocation: SourceLocation
    ) throws -> Spawned {
        let (out, err) = nextIO()
        let input = try stdin.map { try file("\(counter).in", $0) } ?? root + "/io/empty"
        return try spawn(
            program, args, environment: environment, stdinPath: input, stdoutPath: out, stderrPath: err,
            sourceLocation: sourceLocation)
    }

    /// Starts `todo` without waiting (for kill tests).
    func start(_ args: [String], env: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation)
        throws -> Spawned
    {
        try spawnHere(binary, args, environment: todoEnvironment(env), sourceLocation: sourceLocation)
    }

    /// Runs `todo` to completion.
    func todo(_ args: String..., stdin: String? = nil, env: [String: String] = [:]) throws -> Run {
        try todo(args, stdin: stdin, env: env)
    }

    func todo(_ args: [String], stdin: String? = nil, env: [String: String] = [:]) throws -> Run {
        try spawnHere(binary, args, environment: todoEnvironment(env), stdin: stdin, sourceLocation: #_sourceLocation)
            .wait(within: processTimeout)
    }

    /// Runs the git CLI in household `household`'s repository.
    func git(_ args: String..., in household: String = "home") throws -> Run {
        try gitRun(["-C", repo(household)] + args)
    }

    func gitRun(_ args: [String], env: [String: String] = [:]) throws -> Run {
        try runProgram(gitBinary, args, env: env, in: self)
    }

    /// Runs `sh -c script` with the `todo` environment and `$TODO` naming the binary.
    func shell(_ script: String, env: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) throws -> Spawned {
        try spawnHere(
            "/bin/sh", ["-c", script], environment: todoEnvironment(env.merging(["TODO": binary]) { _, new in new }),
            sourceLocation: sourceLocation)
    }
}

func readBytes(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
}

func writeBytes(_ path: String, _ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Runs a helper program (git, ssh-keygen, ssh-add, openssl) to completion, in the sandbox's
/// environment plus `env`.
func runProgram(_ path: String, _ args: [String], env: [String: String] = [:], in box: Sandbox) throws -> Run {
    var e = box.baseEnvironment
    e.merge(env) { _, new in new }
    return try runProcess(path, args, environment: e)
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
    /// What a kill between moving the branch and writing the work tree leaves behind: the
    /// record of the paths in flight, and a work-tree file that does not match HEAD.
    func leaveInterruptedChange(of task: TaskRef) throws {
        try writeBytes(repo() + "/" + task.path, Array("{\"half\": ".utf8))
        try writeBytes(repo() + "/.git/todo-pending", Array("\(task.path)\n".utf8))
    }

    func committedBytes(_ path: String, household: String = "home") throws -> [UInt8] {
        try git("cat-file", "blob", "refs/heads/main:\(path)", in: household).stdoutBytes
    }

    /// Checks that the work tree and index match `main` and that git finds the repository sound.
    func expectClean(_ household: String = "home", sourceLocation: SourceLocation = #_sourceLocation) throws {
        try expectStatusEmpty(household, sourceLocation: sourceLocation)
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

/// The report of `todo sync --json` or `todo clone --json`: its last line. A transfer that
/// takes longer than a second prints progress lines before it (more likely on a loaded
/// machine), and each of those must be a progress line and nothing else.
func syncReport(_ stdout: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
    let lines = stdout.split(separator: "\n").map(String.init)
    let last = try #require(lines.last, "no report in \(stdout)", sourceLocation: sourceLocation)
    for line in lines.dropLast() {
        let p = try json(line)
        #expect(p.keys == ["progress", "done", "total"], "not a progress line: \(line)", sourceLocation: sourceLocation)
    }
    return try json(last)
}

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

/// Each test's sandboxes, counted, for their id seeds: the n-th sandbox a test makes gets the
/// same seed on every run, whatever ran before it in the process.
enum SandboxSeeds {
    private static let counts = Mutex<[String: UInt64]>([:])

    static func next() -> UInt64 {
        let test = Test.current.map { "\($0.id)" } ?? "no test"
        let n = counts.withLock { counts in
            counts[test, default: 0] += 1
            return counts[test]!
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array(test.utf8) + withUnsafeBytes(of: n.littleEndian, Array.init) {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
