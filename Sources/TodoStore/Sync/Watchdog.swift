import Glibc
import Dispatch
import GitKit
import Synchronization

/// At the deadline, shuts down the sockets of the transfer it watches so that a libgit2 call
/// blocked on a silent server returns (libgit2 1.5 has no network timeouts of its own); the
/// other sockets of the process are left alone.
final class Watchdog {
    private let item: DispatchWorkItem
    private let state = WatchdogState()

    /// `sync` is the sync's own flag, which stays set for the rest of that sync.
    init(deadline: ContinuousClock.Instant, sockets: TransferSockets, alsoSets sync: WatchdogState) {
        let state = self.state
        item = DispatchWorkItem {
            state.fired.store(true, ordering: .releasing)
            sync.fired.store(true, ordering: .releasing)
            sockets.shutDown()
        }
        let delay = max(0, (deadline - .now) / .seconds(1))
        DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: item)
    }

    var fired: Bool { state.fired.load(ordering: .acquiring) }

    func cancel() { item.cancel() }
}

/// Whether the watchdog fired: written by its timer thread, read by the sync's.
final class WatchdogState: Sendable {
    let fired = Atomic<Bool>(false)
}
