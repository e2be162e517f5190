import TodoStore

/// The one table from failures to messages and exit codes (README "Exit codes"): store
/// failures are worded in TodoWording (`Worded`), shared with the other front ends.

extension CLIError {
    /// Says what happened and what to do, for every store failure.
    init(_ error: StoreError) {
        self.init(Worded(error))
    }

    init(_ w: Worded) {
        self.init(w.message, exit: w.exit, detail: w.detail)
    }

    /// A failed sync, worded in `SyncMessages`, with the exit code of its class.
    init(_ e: SyncError) {
        let lines = SyncMessages.text(e).split(separator: "\n", omittingEmptySubsequences: false).map { Terminal.safe(String($0)) }
        self.init(lines.joined(separator: "\n"), exit: Self.exit(e), detail: e.detail.map(Terminal.safe))
    }

    /// Exit codes for sync failures: by class, and for a local failure, by whether the disk is full.
    static func exit(_ e: SyncError) -> Exit {
        switch e.kind {
        case .transient: return .busy
        case .authentication: return .authentication
        case .configuration: return .configuration
        case .data: return .data
        case .local:
            // A file of the household's that failed goes by its errno, as outside a sync.
            if case .store(.fileFailed(let path, let cause)) = e.problem { return Worded.fileFailed(path: path, cause: cause).exit }
            return e.code == .diskFull ? .cannotWrite : .busy
        }
    }
}
