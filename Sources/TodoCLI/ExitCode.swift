/// The exit codes `todo` documents (README "Exit codes", todo(1) EXIT STATUS); based on sysexits.
public enum Exit: Int32, Sendable {
    case ok = 0
    /// Bad command line or input: unknown option, bad date or priority, empty title, ambiguous id.
    case usage = 64
    /// Data cannot be used: a malformed task file, uncommitted hand edits, bad import data.
    case data = 65
    /// Something named does not exist: unknown household, unknown task id, missing import file.
    case notFound = 66
    /// An unexpected internal or libgit2 failure.
    case software = 70
    /// Cannot write: `TODO_HOME` not writable, disk full, household already exists.
    case cannotWrite = 73
    /// Try again later: another `todo` held the household lock too long, or a sync failed for a
    /// passing reason (unreachable, timeout, server busy, push race).
    case busy = 75
    /// The remote refused the credentials.
    case authentication = 77
    /// Sync configuration: no remote, no repository there, bad URL, unknown host key, untrusted
    /// certificate.
    case configuration = 78
}

/// A failure the command layer reports: a message of one or two lines and an exit code.
struct CLIError: Error {
    let message: String
    let exit: Exit
    var detail: String?

    init(_ message: String, exit: Exit, detail: String? = nil) {
        self.message = message
        self.exit = exit
        self.detail = detail
    }

    /// A failure that ends the command with `exit` and prints nothing (a quiet sync's failure
    /// that is not yet worth a cron mail; it is in the sync log).
    static func silent(_ exit: Exit) -> CLIError { CLIError("", exit: exit) }
}

extension CLIError {
    /// A failure nothing names: exit 70 with its cause, never a guess at what it means.
    init(internal cause: String) {
        self.init(
            "Internal error: \(Terminal.safe(cause)).\nThis is a bug in todo, not something you did; what was committed before it is safe (`todo doctor` checks the household).",
            exit: .software)
    }
}
