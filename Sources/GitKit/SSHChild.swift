import Glibc

/// How an ssh child ended, for the caller to explain a failed transfer.
public struct SSHExit: Sendable {
    public let address: SSHAddress
    public let command: SSHCommand
    /// Whether OpenSSH was told never to ask anything (no terminal, or `--quiet`).
    public let batch: Bool
    /// The exit status; nil when the program could not be started or a signal ended it.
    public let status: Int32?
    /// What the program wrote to its standard error (the last 64 KiB).
    public let stderr: String
    /// Why the program could not be started (`strerror`), if it could not.
    public let notStarted: String?
    /// Whether it was stopped because the caller cancelled (the deadline passed).
    public let stopped: Bool
}

/// One ssh process carrying git's protocol: its standard input and output are sockets
/// (writes never raise SIGPIPE), its standard error is kept for error messages. Every wait
/// checks `shouldCancel`; on cancel the process (and, when it runs in a session of its own,
/// everything it started) is ended and reaped, so that nothing is left behind.
final class SSHChild {
    private let pid: pid_t
    private var toChild: Int32
    private var fromChild: Int32
    private var errors: Int32
    private let ownSession: Bool
    private let shouldCancel: () -> Bool
    private var errorBytes: [UInt8] = []
    private var waitStatus: Int32?
    private(set) var stopped = false

    enum Outcome {
        case done(Int)
        case endOfOutput
        case cancelled
        case failed(Int32)
    }

    /// Starts `argv` (found on `PATH`). `ownSession`: in a new session, with no terminal to
    /// ask on, and killed as a whole group. Throws the `strerror` text when it cannot start.
    init(argv: [String], ownSession: Bool, shouldCancel: @escaping () -> Bool) throws(SpawnFailure) {
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        let stream = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, stream, 0, &input) == 0 else { throw SpawnFailure(errno) }
        guard socketpair(AF_UNIX, stream, 0, &output) == 0 else {
            let e = errno
            (input).forEach { close($0) }
            throw SpawnFailure(e)
        }
        guard pipe(&errPipe) == 0 else {
            let e = errno
            (input + output).forEach { close($0) }
            throw SpawnFailure(e)
        }
        errPipe.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[1], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child gets SIGPIPE's default action back, whatever this process does with it.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = Int16(POSIX_SPAWN_SETSIGDEF)
        if ownSession { flags |= spawnSetSID }
        posix_spawnattr_setflags(&attributes, flags)
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var child = pid_t()
        let rc = posix_spawnp(&child, argv[0], &actions, &attributes, cArgs, environ)
        close(input[1])
        close(output[1])
        close(errPipe[1])
        if rc != 0 {
            [input[0], output[0], errPipe[0]].forEach { close($0) }
            throw SpawnFailure(rc)
        }
        pid = child
        toChild = input[0]
        fromChild = output[0]
        errors = errPipe[0]
        self.ownSession = ownSession
        self.shouldCancel = shouldCancel
        for fd in [toChild, fromChild, errors] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    }

    deinit {
        finish()
    }

    /// What the child wrote to standard error so far.
    var stderrText: String { String(decoding: errorBytes, as: UTF8.self) }

    /// The exit status once reaped; nil while running or when a signal ended it.
    var exitStatus: Int32? {
        guard let s = waitStatus, s >= 0, s & 0x7f == 0 else { return nil }
        return (s >> 8) & 0xff
    }

    /// Reads what the child wrote to its standard output.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Outcome {
        while true {
            let n = recv(fromChild, buffer, count, 0)
            if n > 0 { return .done(n) }
            if n == 0 { return .endOfOutput }
            if errno == EINTR { continue }
            if errno == ECONNRESET || errno == ESHUTDOWN { return .endOfOutput }
            guard errno == EAGAIN || errno == EWOULDBLOCK else { return .failed(errno) }
            if !waitUntil(fromChild, Int16(POLLIN)) { return .cancelled }
        }
    }

    /// Writes all of `bytes` to the child's standard input.
    func write(_ bytes: UnsafeRawPointer, count: Int) -> Outcome {
        var offset = 0
        while offset < count {
            let n = send(toChild, bytes + offset, count - offset, Int32(MSG_NOSIGNAL))
            if n > 0 {
                offset += n
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                if !waitUntil(toChild, Int16(POLLOUT)) { return .cancelled }
                continue
            }
            return n < 0 && errno != EPIPE && errno != ECONNRESET ? .failed(errno) : .endOfOutput
        }
        return .done(count)
    }

    /// Ends the conversation: closes the child's input and waits for it to exit (it ends when
    /// the server's git does); ends it when the caller cancels meanwhile. Safe to call again.
    @discardableResult
    func finish() -> Int32? {
        closeFD(&toChild)
        waitForExit()
        closeFD(&fromChild)
        drainErrors()
        closeFD(&errors)
        return exitStatus
    }

    /// Waits until the child exits (after its output ended), collecting its standard error;
    /// ends it if the caller cancels meanwhile.
    func waitForExit() {
        while waitStatus == nil {
            if reap(WNOHANG) { break }
            if shouldCancel() {
                stop()
                break
            }
            // Its standard error may be open in a process it left running (ControlPersist):
            // wait on it only while it is open, and for the child itself a short while at a time.
            var fds = [pollfd(fd: errors, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, errors >= 0 ? 1 : 0, 50)
            drainErrors()
        }
        drainErrors()
    }

    /// Ends the child (its whole group when it has a session of its own) and reaps it.
    func stop() {
        guard waitStatus == nil else { return }
        stopped = true
        signalChild(SIGTERM)
        for _ in 0..<40 {
            if reap(WNOHANG) { return }
            var none = pollfd()
            _ = poll(&none, 0, 25)
        }
        signalChild(SIGKILL)
        _ = reap(0)
    }

    private func signalChild(_ signal: Int32) {
        if ownSession { kill(-pid, signal) }
        kill(pid, signal)
    }

    /// Collects the child's status; true once it has exited.
    private func reap(_ options: Int32) -> Bool {
        var status: Int32 = 0
        while true {
            let r = waitpid(pid, &status, options)
            if r == pid {
                waitStatus = status
                if ownSession { kill(-pid, SIGKILL) }  // whatever it started and left behind
                return true
            }
            if r < 0 && errno == EINTR { continue }
            if r < 0 {
                // Not our child any more (reaped elsewhere): nothing to wait for, status unknown.
                waitStatus = -1
                return true
            }
            return false
        }
    }

    /// Waits until `fd` is ready for `events`, keeping standard error drained; false when the
    /// caller cancelled.
    private func waitUntil(_ fd: Int32, _ events: Int16) -> Bool {
        while true {
            if shouldCancel() { return false }
            var fds = [pollfd(fd: fd, events: events, revents: 0), pollfd(fd: errors, events: Int16(POLLIN), revents: 0)]
            let r = poll(&fds, errors >= 0 ? 2 : 1, 250)
            if r < 0 && errno != EINTR { return true }
            if errors >= 0 && fds[1].revents != 0 { drainErrors() }
            if fds[0].revents != 0 { return true }
        }
    }

    /// Reads what standard error holds now, keeping the last 64 KiB.
    private func drainErrors() {
        guard errors >= 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { readFD(errors, $0.baseAddress, $0.count) }
            if n > 0 {
                errorBytes += chunk[0..<n]
                if errorBytes.count > 1 << 16 { errorBytes.removeFirst(errorBytes.count - (1 << 16)) }
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n == 0 { closeFD(&errors) }
            return
        }
    }

    private func closeFD(_ fd: inout Int32) {
        if fd >= 0 { close(fd) }
        fd = -1
    }
}

/// Why a program could not be started.
struct SpawnFailure: Error {
    let code: Int32
    init(_ code: Int32) { self.code = code }
    var message: String { String(cString: strerror(code)) }
}

/// `POSIX_SPAWN_SETSID` (glibc's value), which the C headers define only for GNU sources.
private let spawnSetSID = Int16(0x80)

/// The system's `read`, which `SSHChild.read` hides inside the class.
private func readFD(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
