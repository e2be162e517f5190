import GitKit
import Synchronization
public import TodoCore

/// How a sync runs.
public struct SyncOptions: Sendable {
    /// Seconds allowed for all network work together (fetches, pushes, retries).
    public var timeout: Double = 60

    /// When network work that starts now must end: `timeout` from now; at once for a timeout
    /// below zero or not a number, at the most a year (an infinite one, which `todo clone`
    /// takes, cannot be added to the clock).
    func deadline() -> ContinuousClock.Instant {
        .now + .seconds(timeout.isNaN ? 0 : min(max(timeout, 0), 366 * 86_400))
    }
    /// How often to fetch-merge-push when someone else keeps pushing first.
    public var maxRounds = 5
    /// Attempts per network step for transient failures.
    public var attempts = 4
    /// Whether credential helpers may prompt (a person at a terminal).
    public var interactive = false
    /// `$HOME`, for `~/` in git's `http.sslCAInfo`.
    public var home: String = "/"
    /// CA certificates to trust for https instead of the system's (`GIT_SSL_CAINFO`); else
    /// git's `http.sslCAInfo` setting, else the system bundle.
    public var certificateFile: String?
    /// The identity file that opens an encrypted remote's key files (docs/ENCRYPTION.md): the
    /// device's, or one given to `todo clone --identity`.
    public var identityFile: String?
    /// Whether `identityFile` is this device's own (checked to be closed to others), not one
    /// the user named.
    public var identityIsDevice = true
    /// Called during transfers with how far they got (objects; `total` is never zero).
    public var progress: (@Sendable (TransferProgress) -> Void)?
    /// Where the sync log goes (`$XDG_STATE_HOME/todo`); nil for none.
    public var logDirectory: String?
    /// The front end's wording of a failure, of which the first line goes into the sync log
    /// and the household's sync state (`todo status`, "Last error"). Without it, the problem's
    /// name and facts are kept as Swift writes them.
    public var describe: (@Sendable (SyncError) -> String)?
    /// Lets the program stop the sync from another thread (a server shutting down): the network
    /// step under way ends at once and no other begins; a merge under way completes.
    public var stop: SyncStop?
    public init() {}
}

/// A request to stop syncs, from any thread: `stop()` shuts the sockets of the transfer under
/// way (only those), and every sync given this object then fails with `SyncProblem.stopped`
/// at its next network step, a transient failure that loses nothing. Once stopped, it stays so.
public final class SyncStop: Sendable {
    private let state = Mutex<(requested: Bool, transfers: [TransferSockets])>((false, []))

    public init() {}

    public var requested: Bool { state.withLock { $0.requested } }

    public func stop() {
        let transfers = state.withLock { s -> [TransferSockets] in
            s.requested = true
            return s.transfers
        }
        for t in transfers { t.shutDown() }
    }

    /// A transfer begins (its sockets are shut if a stop comes); false when stopped already.
    func watch(_ sockets: TransferSockets) -> Bool {
        state.withLock { s in
            if s.requested { return false }
            s.transfers.append(sockets)
            return true
        }
    }

    func unwatch(_ sockets: TransferSockets) {
        state.withLock { s in s.transfers.removeAll { $0 === sockets } }
    }
}

/// How far a transfer got, in objects; for a clone, then how far the check of the commits
/// received and the writing of the work tree's files got.
public enum TransferProgress: Sendable, Equatable {
    case receiving(done: Int, total: Int)
    case sending(done: Int, total: Int)
    case checking(done: Int, total: Int)
    case writing(done: Int, total: Int)
}

/// What a sync did.
public struct SyncReport: Sendable {
    /// The remote's URL as shown (credentials redacted).
    public var remote = "(none)"
    /// Task files the remote changed in our household.
    public var received = 0
    /// Task files we changed that the remote now has.
    public var sent = 0
    /// Commits the remote lacked that this sync pushed: more than zero with `sent` zero when
    /// only commits that change no task went out (a new household's first commit, a repair).
    public var commitsSent = 0
    public var merge: MergeResult?
    public var remoteWasEmpty = false
    /// The household waits for the remote's first history (it was cloned from an empty remote,
    /// which is still empty): nothing was sent.
    public var waiting = false
    /// The household was waiting and took the remote's first history, with its own changes on top.
    public var joined = false
    /// The remote's history was rewritten (it no longer contains what we last fetched, and
    /// is not an older state of it).
    public var remoteRewritten = false
    /// The remote went back to an older state of what we last fetched (an ancestor of it, or
    /// empty): what it lost was sent again, as any commit it lacks is.
    public var remoteWentBack = false
    public var rounds = 0
    /// Another sync of this household held its lock: this one did nothing.
    public var skipped = false
    public var conflicts: [ConflictEntry] { merge?.entries ?? [] }
}
