import Dispatch
import Glibc
import CLibgit2
import Synchronization

/// What the threads of `Repository.copyEverything` share: the packs, largest first, each taken
/// by one thread; the objects indexed; whether to stop; the second thread's error.
final class PackCopy: Sendable {
    /// A pack file of the source and its object count.
    struct Pack: Sendable {
        let path: String
        let count: Int
    }

    struct State: Sendable {
        var next = 0
        /// The objects of the packs indexed whole.
        var finished = 0
        /// The objects the second thread indexed of its current pack.
        var helperIndexed = 0
        var failure: (any Error)?
    }

    /// Where the second thread runs: a queue of its own gets a thread at once, where the
    /// global queues' few threads may all be held by callers that wait.
    static let queue = DispatchQueue(label: "todo.pack-copy", attributes: .concurrent)

    let packs: [Pack]
    let state = Mutex(State())
    let stopped = Atomic<Bool>(false)
    /// Signalled when the second thread ends.
    let ended = DispatchSemaphore(value: 0)

    init(_ packs: [Pack]) { self.packs = packs }

    /// The next pack to index; nil when none is left or the copy stopped.
    func take() -> Pack? {
        if stopped.load(ordering: .relaxed) { return nil }
        return state.withLock { s in
            guard s.next < packs.count else { return nil }
            s.next += 1
            return packs[s.next - 1]
        }
    }
}
