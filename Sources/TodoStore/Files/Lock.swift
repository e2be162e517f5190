import Glibc

/// An exclusive kernel lock (flock) on a file. The kernel drops it when the process dies, so a
/// killed `todo` never leaves the household wedged.
final class FileLock: Sendable {
    private let fd: Int32

    /// Waits up to `timeout` seconds for the lock; nil when someone else still holds it.
    static func acquire(path: String, timeout: Double) throws -> FileLock? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 { throw SystemError(errno: errno, what: "open \(path)") }
        let deadline = ContinuousClock.now + .seconds(timeout)
        var delay: UInt32 = 1_000
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return FileLock(fd: fd) }
            let err = errno
            if err != EWOULDBLOCK && err != EINTR {
                close(fd)
                throw SystemError(errno: err, what: "flock \(path)")
            }
            if ContinuousClock.now >= deadline {
                close(fd)
                return nil
            }
            // Polling keeps the wait bounded without signals; the lock holder finishes in milliseconds.
            usleep(delay)
            delay = min(delay * 2, 50_000)
        }
    }

    private init(fd: Int32) { self.fd = fd }

    /// Whether another process holds the lock now, found without creating or changing the
    /// file (for a read: a change in flight is not an interrupted one).
    static func isHeld(path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return false }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
