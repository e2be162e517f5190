import TodoWording
import TodoStore

/// The one table from failures to messages and exit codes (README "Exit codes"): the facts and
/// exit codes come from TodoWording (`Worded`, `SyncMessages`), shared with the other front
/// ends; the command line names the paths and adds its advice (`AdviceText`).

extension CLIError {
    /// Says what happened and what to do, for every store failure.
    init(_ error: StoreError) {
        self.init(Worded(error, paths: .shown))
    }

    init(_ w: Worded) {
        self.init(AdviceText.message(w.fact, w.advice), exit: w.exit, detail: w.detail)
    }

    /// A failed sync: its facts, the command line's advice, then what waits to be sent; the
    /// exit code of its class.
    init(_ e: SyncError) {
        let lines = Self.text(e).split(separator: "\n", omittingEmptySubsequences: false).map { Terminal.safe(String($0)) }
        self.init(lines.joined(separator: "\n"), exit: Self.exit(e), detail: e.detail.map(Terminal.safe))
    }

    /// A failed sync's lines: the facts, naming this machine's paths, the advice, and what waits.
    static func text(_ e: SyncError) -> String {
        let text = AdviceText.message(SyncMessages.fact(e.problem, paths: .shown), SyncMessages.advice(e.problem))
        return SyncMessages.unsentNote(e).map { text + "\n" + $0 } ?? text
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
            if case .store(.fileFailed(_, let cause)) = e.problem { return cause.errno.map(Exit.forFile) ?? .software }
            return e.code == .diskFull ? .cannotWrite : .busy
        }
    }
}
