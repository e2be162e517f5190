public import SystemPackage

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
    /// Cannot write: `TODO_HOME` not writable (EACCES, EPERM, EROFS), disk full (ENOSPC, EDQUOT),
    /// household already exists.
    case cannotWrite = 73
    /// The disk failed: a read or write of a file came back with EIO.
    case ioError = 74
    /// Try again later: too many files open (EMFILE, ENFILE) or a file busy (EAGAIN), another
    /// `todo` held the household lock too long, or a sync failed for a
    /// passing reason (unreachable, timeout, server busy, push race).
    case busy = 75
    /// The remote refused the credentials.
    case authentication = 77
    /// Sync configuration: no remote, no repository there, bad URL, unknown host key, untrusted
    /// certificate.
    case configuration = 78
}

extension Exit {
    /// The exit code of a file that could not be read or written, by its errno (README "Exit
    /// codes"): cannot write (73) for no permission, a read-only file system or a full disk; the
    /// disk failed (74) for EIO; try again (75) for too many open files or a busy file; any other
    /// errno is unexpected (70).
    public static func forFile(errno: Errno) -> Exit {
        switch errno {
        case .readOnlyFileSystem, .permissionDenied, .notPermitted, .noSpace, .diskQuotaExceeded: return .cannotWrite
        case .ioError: return .ioError
        case .tooManyOpenFiles, .tooManyOpenFilesInSystem, .resourceTemporarilyUnavailable: return .busy
        default: return .software
        }
    }
}
