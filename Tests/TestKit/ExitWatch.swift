import Glibc
import Foundation

/// Knows when a child has exited without reaping it (`waitid` with `WNOWAIT`, on a thread of
/// its own), so that the child's pid, and its group, stay its own until `reap()`: signals sent
/// before then can reach nobody else.
final class ExitWatch: @unchecked Sendable {
    enum Outcome { case exited, timedOut, stopped(String) }

    private let condition = NSCondition()
    private var exited = false
    private var reaped = false
    private var status: Int32 = 0
    let pid: pid_t

    init(pid: pid_t) {
        self.pid = pid
        Thread.detachNewThread { [self] in
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
            condition.lock()
            exited = true
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Until the child exits, `deadline` passes, or the test must stop (its time limit).
    func wait(until deadline: ContinuousClock.Instant) -> Outcome {
        condition.lock()
        defer { condition.unlock() }
        while !exited {
            if let reason = TestScope.stopReason { return .stopped(reason) }
            let now = ContinuousClock.now
            if now >= deadline { return .timedOut }
            let slice = min(deadline - now, .milliseconds(250))
            _ = condition.wait(until: Date(timeIntervalSinceNow: slice.seconds))
        }
        return .exited
    }

    /// After SIGKILL: the child is gone at once.
    func waitForExit() {
        condition.lock()
        while !exited { condition.wait() }
        condition.unlock()
    }

    /// Signals the child, or its whole group, unless it was reaped already.
    func signal(_ number: Int32, group: Bool) {
        condition.lock()
        if !reaped { _ = kill(group ? -pid : pid, number) }
        condition.unlock()
    }

    /// Waits for the child and returns its wait status.
    func reap() -> Int32 {
        condition.lock()
        defer { condition.unlock() }
        if !reaped {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            self.status = status
            reaped = true
        }
        return status
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
