import Glibc
import Foundation
import Testing

// Servers the tests start themselves, on 127.0.0.1 only, each on a free port, each killed when
// the test that started it ends (also when it fails). A server counts as ready when it says so
// on its output (read from a pipe), never after a sleep, and never waited for without a deadline.

/// How long a server may take to say it is ready, or a test may wait for a line of its output.
public let serverLineTimeout: Duration = .seconds(60)

/// The environment a server gets: nothing of the test runner's.
public func serverEnvironment(home: String) -> [String: String] { hermeticEnvironment(home: home) }

public struct ServerStartError: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// The output of a server, read line by line from a pipe on a thread of its own (so that the
/// server never blocks on a full pipe); tests wait for lines as events.
public final class LineReader: @unchecked Sendable {
    private let condition = NSCondition()
    private var lines: [String] = []
    private var pending: [UInt8] = []
    private var ended = false

    public init(fd: Int32) {
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
    /// ended (the server exited) without one. Past `timeout`, or the test's time limit, the
    /// test fails with the output so far, and the answer is nil.
    public func waitForLine(
        containing text: String, timeout: Duration = serverLineTimeout, sourceLocation: SourceLocation = #_sourceLocation
    ) -> String? {
        let deadline = ContinuousClock.now + timeout
        condition.lock()
        defer { condition.unlock() }
        var checked = 0
        while true {
            while checked < lines.count {
                if lines[checked].contains(text) { return lines[checked] }
                checked += 1
            }
            if ended { return nil }
            let now = ContinuousClock.now
            let stop = TestScope.stopReason
            if now >= deadline || stop != nil {
                let why = stop ?? "\(timeout) passed"
                Issue.record(
                    "no line with \"\(text)\" came before the wait ended (\(why)); the output so far:\n\(lines.joined(separator: "\n"))",
                    sourceLocation: sourceLocation)
                return nil
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: min(deadline - now, .milliseconds(250)).seconds))
        }
    }

    /// Whether the output has ended: the server closed it, as it does when it exits.
    public var hasEnded: Bool {
        condition.lock()
        defer { condition.unlock() }
        return ended
    }

    public func count(containing text: String) -> Int {
        condition.lock()
        defer { condition.unlock() }
        return lines.filter { $0.contains(text) }.count
    }

    public var text: String {
        condition.lock()
        defer { condition.unlock() }
        return lines.joined(separator: "\n")
    }
}

/// A server a test started: in a process group of its own, so that its workers go with it;
/// standard output and error on one pipe. `stop()`, or dropping the last reference, kills the
/// whole group.
public final class ServerProcess {
    public let name: String
    public let pid: pid_t
    public let output: LineReader
    private var running = true

    private init(name: String, pid: pid_t, output: LineReader) {
        self.name = name
        self.pid = pid
        self.output = output
    }

    /// Starts `path` with `environment` (over `hermeticEnvironment`) and returns once it printed a
    /// line containing `ready`; throws `ServerStartError` with what it printed when it exits
    /// first (a taken port, say) or is not ready within `timeout`.
    public static func start(
        _ name: String, _ path: String, _ args: [String], environment: [String: String], ready: String,
        timeout: Duration = serverLineTimeout, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (ServerProcess, String) {
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
        let pid: pid_t
        do {
            pid = try launch(path, args, environment: hermeticEnvironment(home: absentHome, environment), actions: &actions)
        } catch {
            close(fds[0])
            close(fds[1])
            throw error
        }
        close(fds[1])
        let server = ServerProcess(name: name, pid: pid, output: LineReader(fd: fds[0]))
        guard let line = server.output.waitForLine(containing: ready, timeout: timeout, sourceLocation: sourceLocation)
        else {
            // One that exited may have lost a race for its port; one that hangs is not tried again.
            let exited = server.output.hasEnded
            let status = server.stop()
            let how = status.map { $0 & 0x7f == 0 ? "exited \(($0 >> 8) & 0xff)" : "ended by signal \($0 & 0x7f)" } ?? "exited"
            let description = "\(name) \(exited ? "\(how) before it was ready" : "was not ready in time"):\n\(server.output.text)"
            throw exited ? ServerStartError(description: description) : SpawnError(description: description) as Error
        }
        return (server, line)
    }

    /// Tries `launch` with new free ports until one works (another process may take the port
    /// between the choice and the server's bind).
    public static func onFreePort(_ name: String, _ launch: (UInt16) throws -> ServerProcess) throws -> (ServerProcess, UInt16) {
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

    /// Sends `signal` to the server alone (not its group) and reaps it; its wait status. Reaping
    /// goes through here, never a bare waitpid: once reaped, the pid may be another process's
    /// (pids wrap at 32768 on a busy machine), and `stop` must not kill that one's group.
    public func terminate(_ signal: Int32 = SIGTERM) -> Int32 {
        guard running else { return 0 }
        running = false
        kill(pid, signal)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// Kills the server's whole process group and reaps the server; its wait status when this
    /// call reaped it. Safe to call twice.
    @discardableResult
    public func stop() -> Int32? {
        guard running else { return nil }
        running = false
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        var reaped: pid_t = -1
        repeat { reaped = waitpid(pid, &status, 0) } while reaped < 0 && errno == EINTR
        return reaped == pid ? status : nil
    }

    deinit { stop() }
}

/// A port on 127.0.0.1 that nothing listens on right now (the kernel's choice).
public func freeLoopbackPort() throws -> UInt16 {
    let fd = try loopbackSocket()
    defer { close(fd) }
    var address = loopbackAddress(port: 0)
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
public func canListen(onLoopbackPort port: UInt16) -> Bool {
    guard let fd = try? loopbackSocket() else { return false }
    defer { close(fd) }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = loopbackAddress(port: port)
    return withUnsafePointer(to: &address) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}

private func loopbackSocket() throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw SpawnError(description: "socket: \(String(cString: strerror(errno)))") }
    return fd
}

private func loopbackAddress(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}
