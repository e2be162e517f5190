import CInterposers
import Synchronization

/// The sockets one network transfer opens, so that its deadline can end it without touching
/// any other socket of the process (a server serving requests while a sync runs). The thread
/// that runs the transfer marks it (`begin`/`end`); libgit2's connects on that thread are noted
/// (CInterposers/tcp_nodelay.c); `shutDown` may be called from any thread.
public final class TransferSockets: Sendable {
    private static let next = Atomic<Int>(1)
    public let id: Int

    public init() { id = Self.next.wrappingAdd(1, ordering: .relaxed).oldValue }

    /// From now on, this thread's connects belong to this transfer.
    public func begin() { todo_transfer_begin(id) }

    /// This thread's transfer is over; its sockets are forgotten.
    public func end() { todo_transfer_end(id) }

    /// Shuts down both ways the transfer's sockets that are still open: a libgit2 call blocked
    /// on one returns. Returns how many.
    @discardableResult
    public func shutDown() -> Int { Int(todo_transfer_shutdown(id)) }
}
