import Glibc
import Foundation
import Testing

// The one way tests run programs. Every process starts in a process group of its own with a
// hermetic environment, standard input from a file (or /dev/null) and standard output and error
// into files (nothing to drain, so no deadlock whatever it prints, and what it printed is there
// when it has to be killed). Every wait has a deadline: a process that runs past it, or past the
// test's own time limit, is killed with its whole group and the test fails with its output.

/// How long one process may run before it is killed and the test fails: generous, for a
/// loaded CI machine; a test may pass another.
public let processTimeout: Duration = .seconds(300)

/// The `PATH` every process gets.
public let minimalPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/// What every process starts from, nothing of the test runner's: a minimal `PATH`, `HOME`, the C
/// locale, UTC, and git without the system's configuration; then `extra`, which wins.
public func hermeticEnvironment(home: String, _ extra: [String: String] = [:]) -> [String: String] {
    var env = [
        "PATH": minimalPath, "HOME": home, "LANG": "C", "LC_ALL": "C", "TZ": "UTC", "GIT_CONFIG_NOSYSTEM": "1",
    ]
    env.merge(extra) { _, new in new }
    return env
}

/// Where a process that is given no `HOME` looks: a directory that does not exist, so that
/// nothing of the person running the tests is read and nothing is written there.
public let absentHome = "/nonexistent"

// MARK: - Results

/// How a finished process ended, and what it printed.
public struct Run: CustomStringConvertible, Sendable {
    public let command: [String]
    /// The exit code, or nil when a signal ended the process.
    public let exitCode: Int32?
    public let signal: Int32?
    public let stdoutBytes: [UInt8]
    public let stderrBytes: [UInt8]
    /// Why the kit killed the process (its deadline passed, or the test's), nil when it ended
    /// otherwise.
    public let killedBecause: String?

    public var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }
    public var stderr: String { String(decoding: stderrBytes, as: UTF8.self) }
    public var succeeded: Bool { exitCode == 0 }
    /// The exit status as a shell gives it: the exit code, or 128 plus the signal.
    public var status: Int32 { exitCode ?? 128 + (signal ?? 0) }
    /// Stdout without its trailing newline, split into lines.
    public var lines: [String] {
        let text = stdout.hasSuffix("\n") ? String(stdout.dropLast()) : stdout
        return text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    public var description: String {
        let how = exitCode.map { "exit \($0)" } ?? "signal \(signal ?? -1)"
        let killed = killedBecause.map { " (killed: \($0))" } ?? ""
        return "$ \(command.joined(separator: " ")) -> \(how)\(killed)\n--- stdout:\n\(stdout)--- stderr:\n\(stderr)"
    }
}

/// A process the kit could not start, or had to kill; its description says what it printed.
public struct SpawnError: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// What a test gives a process on standard input.
public enum StandardInput: Sendable {
    /// /dev/null.
    case null
    case text(String)
    case bytes([UInt8])
    /// The contents of a file.
    case file(String)
}

// MARK: - Running

/// Runs `path` with `arguments` to completion: the environment is `hermeticEnvironment` plus
/// `environment`, in `directory` (else the test's), with `stdin`. A process still running after
/// `timeout`, or when the test's time limit passes, is killed and the error says what it printed.
@discardableResult
public func runProcess(
    _ path: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil,
    stdin: StandardInput = .null, timeout: Duration = processTimeout, sourceLocation: SourceLocation = #_sourceLocation
) throws -> Run {
    let input = try InputFile(stdin)
    let out = try ScratchFile()
    let err = try ScratchFile()
    let spawned = try start(
        path, arguments, environment: hermeticEnvironment(home: absentHome, environment), directory: directory,
        stdinPath: input.path, stdout: out, stderr: err, timeout: timeout, sourceLocation: sourceLocation)
    return try spawned.wait(within: timeout)
}

/// Starts `path` with `environment` (over `hermeticEnvironment`); standard output and error go to
/// the files named, standard input comes from `stdinPath`. `wait()` gives the result; a process
/// nobody waited for is killed when the last reference to it goes.
public func spawn(
    _ path: String, _ arguments: [String], environment: [String: String], stdinPath: String,
    stdoutPath: String, stderrPath: String, timeout: Duration = processTimeout,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> Spawned {
    try start(
        path, arguments, environment: hermeticEnvironment(home: absentHome, environment), directory: nil,
        stdinPath: stdinPath, stdout: try ScratchFile(path: stdoutPath), stderr: try ScratchFile(path: stderrPath),
        timeout: timeout, sourceLocation: sourceLocation)
}

/// Starts a process whose standard output is a pipe the test reads, and may close early as
/// `head -1` does; standard error goes to `stderrPath`. Returns the process and the pipe's
/// reading end, which the caller closes.
public func spawnReadingStdout(
    _ path: String, _ arguments: [String], environment: [String: String], stdinPath: String, stderrPath: String,
    timeout: Duration = processTimeout, sourceLocation: SourceLocation = #_sourceLocation
) throws -> (Spawned, Int32) {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))") }
    _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
    let stderr = try ScratchFile(path: stderrPath)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    posix_spawn_file_actions_adddup2(&actions, stderr.fd, 2)
    let pid: pid_t
    do {
        pid = try launch(path, arguments, environment: hermeticEnvironment(home: absentHome, environment), actions: &actions)
    } catch {
        close(fds[0])
        close(fds[1])
        throw error
    }
    close(fds[1])
    let spawned = Spawned(
        pid: pid, command: [path] + arguments, stdout: try ScratchFile(path: "/dev/null"), stderr: stderr, timeout: timeout,
        sourceLocation: sourceLocation)
    return (spawned, fds[0])
}

private func start(
    _ path: String, _ arguments: [String], environment: [String: String], directory: String?, stdinPath: String,
    stdout: ScratchFile, stderr: ScratchFile, timeout: Duration, sourceLocation: SourceLocation
) throws -> Spawned {
    let command = [path] + arguments
    if let reason = TestScope.stopReason {
        throw SpawnError(description: "\(command.joined(separator: " ")) was not started: \(reason)")
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, stdout.fd, 1)
    posix_spawn_file_actions_adddup2(&actions, stderr.fd, 2)
    if let directory {
        guard let addchdir else { throw SpawnError(description: "this C library cannot start a process in another directory") }
        _ = addchdir(&actions, directory)
    }
    let pid = try launch(path, arguments, environment: environment, actions: &actions)
    return Spawned(
        pid: pid, command: command, stdout: stdout, stderr: stderr, timeout: timeout, sourceLocation: sourceLocation)
}

/// glibc's `posix_spawn_file_actions_addchdir_np` (2.29 and later), which Swift's Glibc module
/// does not declare.
private let addchdir: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32)? = {
    guard let symbol = dlsym(nil, "posix_spawn_file_actions_addchdir_np") else { return nil }
    return unsafeBitCast(
        symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32).self)
}()

/// `posix_spawn` of `path` with `arguments` and exactly `environment`, in a process group of its
/// own (so that whatever it starts can be killed with it), with default signal handling and no
/// signal blocked.
public func launch(
    _ path: String, _ arguments: [String], environment: [String: String], actions: inout posix_spawn_file_actions_t
) throws -> pid_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigemptyset(&defaults)
    sigaddset(&defaults, SIGPIPE)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    posix_spawnattr_setpgroup(&attributes, 0)
    let (rc, pid) = posixSpawn(path, arguments, environment: environment, actions: &actions, attributes: &attributes)
    if rc != 0 {
        let why = String(cString: strerror(rc))
        let hint = path == todoExecutable ? "Build it first (swift build) or set TODO_BIN." : missingProgramMessage(
            String(path.split(separator: "/").last ?? ""), at: path)
        throw SpawnError(description: "cannot start \(path): \(why). \(hint)")
    }
    return pid
}

/// `posix_spawn` of `path` with `arguments` and exactly `environment`: its result and the pid.
/// Prefer `runProcess`, `spawn` or `launch`, which add the process group and the deadlines.
public func posixSpawn(
    _ path: String, _ arguments: [String], environment: [String: String], actions: inout posix_spawn_file_actions_t,
    attributes: UnsafePointer<posix_spawnattr_t>?
) -> (rc: Int32, pid: pid_t) {
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, path, &actions, attributes, argv, envp)
    return (rc, pid)
}

// MARK: - A started process

/// A started process. `wait()` reaps it within its deadline; a process dropped without a wait
/// is killed with its group.
public final class Spawned: @unchecked Sendable {
    public let pid: pid_t
    public let command: [String]
    public var stdoutPath: String { stdout.path }
    public var stderrPath: String { stderr.path }
    private let stdout: ScratchFile
    private let stderr: ScratchFile
    private let timeout: Duration
    private let sourceLocation: SourceLocation
    private let exit: ExitWatch
    private let lock = NSLock()
    private var finished: (Run, String?)?

    fileprivate init(
        pid: pid_t, command: [String], stdout: ScratchFile, stderr: ScratchFile, timeout: Duration,
        sourceLocation: SourceLocation
    ) {
        (self.pid, self.command) = (pid, command)
        (self.stdout, self.stderr) = (stdout, stderr)
        (self.timeout, self.sourceLocation) = (timeout, sourceLocation)
        exit = ExitWatch(pid: pid)
    }

    /// A child this process started some other way, whose standard output and error go to the
    /// files named; `wait()` reaps it within the usual deadline.
    public convenience init(pid: pid_t, command: [String], stdoutPath: String, stderrPath: String) {
        self.init(
            pid: pid, command: command, stdout: ScratchFile(existing: stdoutPath), stderr: ScratchFile(existing: stderrPath),
            timeout: processTimeout, sourceLocation: #_sourceLocation)
    }

    /// Waits for the process (never `waitpid(-1)`: tests run in parallel and own their
    /// children). Past its deadline it is killed and the test fails with what it printed.
    public func wait() -> Run {
        let (run, failure) = finish(within: timeout)
        if let failure { Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation) }
        return run
    }

    /// Waits at most `timeout`; past it the process is killed and the error says what it printed.
    public func wait(within timeout: Duration) throws -> Run {
        let (run, failure) = finish(within: timeout)
        if let failure { throw SpawnError(description: failure) }
        return run
    }

    /// Sends SIGKILL after `microseconds` (the delay only picks where the kill lands) and waits.
    public func kill(after microseconds: UInt32) -> Run {
        usleep(microseconds)
        exit.signal(SIGKILL, group: false)
        return wait()
    }

    private func finish(within timeout: Duration) -> (Run, String?) {
        lock.lock()
        defer { lock.unlock() }
        if let finished { return finished }
        var killedBecause: String?
        switch exit.wait(until: .now + timeout) {
        case .exited: break
        case .timedOut: killedBecause = "still running after \(timeout)"
        case .stopped(let reason): killedBecause = reason
        }
        if killedBecause != nil {
            exit.signal(SIGKILL, group: true)
            exit.waitForExit()
        }
        // Whatever it left running in its group goes with it.
        exit.signal(SIGKILL, group: true)
        let status = exit.reap()
        let low = status & 0x7F
        let run = Run(
            command: command, exitCode: low == 0 ? (status >> 8) & 0xFF : nil, signal: low == 0 ? nil : low,
            stdoutBytes: stdout.contents(), stderrBytes: stderr.contents(), killedBecause: killedBecause)
        let failure = killedBecause.map { "\(command.joined(separator: " ")) was killed, \($0); it printed so far:\n\(run)" }
        finished = (run, failure)
        return (run, failure)
    }

    deinit {
        lock.lock()
        if finished == nil {
            exit.signal(SIGKILL, group: true)
            _ = exit.reap()
        }
        lock.unlock()
    }
}
