#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import Dispatch
import GitKit
import Synchronization

/// At the deadline, shuts down every socket of the process so that a libgit2 call blocked on a
/// silent server returns (libgit2 1.5 has no network timeouts of its own).
final class Watchdog {
    private let item: DispatchWorkItem
    private let state = WatchdogState()

    init(deadline: Double) {
        let state = self.state
        item = DispatchWorkItem {
            state.fired.store(true, ordering: .releasing)
            Network.timedOut.store(true, ordering: .releasing)
            shutdownSockets()
        }
        let delay = max(0, deadline - monotonicSeconds())
        DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: item)
    }

    var fired: Bool { state.fired.load(ordering: .acquiring) }

    func cancel() { item.cancel() }
}

/// Whether the watchdog fired: written by its timer thread, read by the sync's.
final class WatchdogState: Sendable {
    let fired = Atomic<Bool>(false)
}

func shutdownSockets() {
    for name in listDirectory("/proc/self/fd") {
        guard let fd = Int32(name) else { continue }
        var st = stat()
        if fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFSOCK { shutdown(fd, Int32(SHUT_RDWR)) }
    }
}
