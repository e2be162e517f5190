/// The exit codes `todo` documents (README "Exit codes", todo(1) EXIT STATUS); based on sysexits.
public enum Exit: Int32, Sendable {
    case ok = 0
    /// Bad command line or input: unknown option, bad date or priority, empty title, ambiguous id
    /// or one shorter than four characters.
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
