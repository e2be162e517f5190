#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import Foundation
import Testing

// Real git servers for the sync tests, started by the tests themselves on 127.0.0.1 only, each
// on a free port, each killed when the test that started it ends (also when it fails). A server
// counts as ready when it says so on its output (read from a pipe), never after a sleep.

// MARK: - Programs

/// Where a program is: the system directories first (the test servers' packages put their
/// programs there, and sshd is often outside an ordinary user's PATH), then `$PATH`.
func findProgram(_ name: String) -> String? {
    let system = ["/usr/bin", "/usr/sbin", "/bin", "/sbin", "/usr/local/bin", "/usr/local/sbin"]
    let path = (environment("PATH") ?? "").split(separator: ":").map(String.init)
    return (system + path).lazy.map { $0 + "/" + name }.first(where: isExecutableFile)
}

let serverInstallHint = "run scripts/servers/install.sh (as root it installs what the sync tests' servers need)"

/// A program a sync test needs: a missing one fails the test, naming the install script.
func requireProgram(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    try #require(findProgram(name), "\(name) is not installed: \(serverInstallHint)", sourceLocation: sourceLocation)
}

/// git's own helper programs (`git-daemon`, `git-http-backend`) live in `git --exec-path`.
func requireGitProgram(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let execPath = gitExecPath ?? "(git --exec-path failed)"
    try #require(
        isExecutableFile(execPath + "/" + name), "\(execPath)/\(name) is not installed: \(serverInstallHint)",
        sourceLocation: sourceLocation)
}

let gitExecPath: String? = {
    guard let box = try? Sandbox(), let r = try? box.gitRun(["--exec-path"]), r.exitCode == 0 else { return nil }
    return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}()

/// Runs a helper program (ssh-keygen, ssh-add, openssl) to completion, in the sandbox's
/// environment plus `env`.
func runProgram(_ path: String, _ args: [String], env: [String: String] = [:], in box: Sandbox) throws -> Run {
    let (out, err) = box.nextIO()
    var e = box.baseEnvironment
    e.merge(env) { _, new in new }
    return try spawn(path, args, environment: e, stdinPath: box.root + "/io/empty", stdoutPath: out, stderrPath: err).wait()
}

/// The login name the tests' sshd lets in: whoever runs the tests.
let loginName: String = {
    guard let pw = getpwuid(geteuid()), let name = pw.pointee.pw_name else { return "root" }
    return String(cString: name)
}()

// MARK: - Server processes

struct ServerStartError: Error, CustomStringConvertible {
    let description: String
}

/// The output of a server, read line by line from a pipe on a thread of its own (so that the
/// server never blocks on a full pipe); tests wait for lines as events.
final class LineReader: @unchecked Sendable {
    private let condition = NSCondition()
    private var lines: [String] = []
    private var pending: [UInt8] = []
    private var ended = false

    init(fd: Int32) {
        Thread.detachNewThread { [self] in drain(fd) }
    }

    private func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            condition.lock()
            for byte in buffer[0..<n] {
                if byte == 0x0A {
                    lines.append(String(decoding: pending, as: UTF8.self))
                    pending.removeAll()
                } else {
                    pending.append(byte)
                }
            }
            condition.broadcast()
            condition.unlock()
        }
        close(fd)
        condition.lock()
        if !pending.isEmpty { lines.append(String(decoding: pending, as: UTF8.self)) }
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks until a line containing `text` has arrived and returns it; nil when the output
    /// ended (the server exited) without one.
    func waitForLine(containing text: String) -> String? {
        condition.lock()
        defer { condition.unlock() }
        var checked = 0
        while true {
            while checked < lines.count {
                if lines[checked].contains(text) { return lines[checked] }
                checked += 1
            }
            if ended { return nil }
            condition.wait()
        }
    }

    func count(containing text: String) -> Int {
        condition.lock()
        defer { condition.unlock() }
        return lines.filter { $0.contains(text) }.count
    }

    var text: String {
        condition.lock()
        defer { condition.unlock() }
        return lines.joined(separator: "\n")
    }
}

/// A server a test started: in a process group of its own, so that its workers go with it;
/// standard output and error on one pipe. `stop()`, or dropping the last reference, kills the
/// whole group.
final class ServerProcess {
    let name: String
    let pid: pid_t
    let output: LineReader
    private var running = true

    private init(name: String, pid: pid_t, output: LineReader) {
        self.name = name
        self.pid = pid
        self.output = output
    }

    /// Starts `path` and returns once it printed a line containing `ready`; throws
    /// `ServerStartError` with what it printed when it exits first (a taken port, say).
    static func start(_ name: String, _ path: String, _ args: [String], environment: [String: String], ready: String)
        throws -> (ServerProcess, String)
    {
        // Close-on-exec, so that other processes the tests start do not hold the pipe open.
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))") }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A group of its own (killed as one), and SIGPIPE as the program expects it.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        let (rc, pid) = posixSpawn(path, args, environment: environment, actions: &actions, attributes: &attributes)
        close(fds[1])
        if rc != 0 {
            close(fds[0])
            throw SpawnError(description: "cannot start \(path): \(String(cString: strerror(rc))); \(serverInstallHint)")
        }
        let server = ServerProcess(name: name, pid: pid, output: LineReader(fd: fds[0]))
        guard let line = server.output.waitForLine(containing: ready) else {
            server.stop()
            throw ServerStartError(description: "\(name) exited before it was ready:\n\(server.output.text)")
        }
        return (server, line)
    }

    /// Tries `launch` with new free ports until one works (another process may take the port
    /// between the choice and the server's bind).
    static func onFreePort(_ name: String, _ launch: (UInt16) throws -> ServerProcess) throws -> (ServerProcess, UInt16) {
        var failures: [String] = []
        for _ in 0..<5 {
            let port = try freeLoopbackPort()
            do {
                return (try launch(port), port)
            } catch let e as ServerStartError {
                failures.append(e.description)
            }
        }
        throw ServerStartError(description: "\(name) did not start on any of 5 free ports:\n" + failures.joined(separator: "\n"))
    }

    /// Kills the server's whole process group and reaps the server. Safe to call twice.
    func stop() {
        guard running else { return }
        running = false
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    deinit { stop() }
}

/// A port on 127.0.0.1 that nothing listens on right now (the kernel's choice).
func freeLoopbackPort() throws -> UInt16 {
    #if os(Linux)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw SpawnError(description: "socket: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { s in
            bind(fd, s, length) == 0 && getsockname(fd, s, &length) == 0
        }
    }
    guard bound else { throw SpawnError(description: "bind 127.0.0.1:0: \(String(cString: strerror(errno)))") }
    return UInt16(bigEndian: address.sin_port)
}

/// Whether this process may listen on 127.0.0.1:`port` now (the scp-like URL form has no port
/// and needs an sshd on 22, which only root can bind and only when nothing else has it).
func canListen(onLoopbackPort port: UInt16) -> Bool {
    #if os(Linux)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}

/// The environment a server gets: nothing of the test runner's but `PATH`.
func serverEnvironment(home: String) -> [String: String] {
    [
        "PATH": environment("PATH") ?? "/usr/local/bin:/usr/bin:/bin", "HOME": home, "LC_ALL": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
    ]
}

/// scripts/servers/git_http_server.py with `args`; returns it and its port once it listens.
func startHTTPServer(_ args: [String], home: String) throws -> (ServerProcess, UInt16) {
    let python = try requireProgram("python3")
    try requireGitProgram("git-http-backend")
    let script = packageRoot + "/scripts/servers/git_http_server.py"
    let (server, line) = try ServerProcess.start(
        "git_http_server.py", python, [script] + args, environment: serverEnvironment(home: home),
        ready: "listening on 127.0.0.1 port ")
    let port = try #require(line.split(separator: " ").last.flatMap { UInt16($0) }, "no port in \(line)")
    return (server, port)
}
